import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import Locking
import Motion
import MotionSimulation
import MotionTools
import MotionServe

/// `motionctl serve`: the live view in a browser, and the magnetometer calibration from there.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a live view of device motion to a browser: 3-D attitude, plots, counters, magnetometer calibration.",
        discussion: """
            Listens on 127.0.0.1 (this machine only) unless --host says otherwise; on any other \
            address it prints the URL with a random access token, and requests without it are \
            refused; on 127.0.0.1, requests addressed to another name or sent by another site's \
            page are refused. Nothing is written except a calibration you save from the page. Ctrl-C stops it.
            """)

    @Option(parsing: .unconditional, help: "The TCP port (0: any free one).") var port: Int = 8080
    @Option(help: "The address to listen on: 127.0.0.1 (this machine only), 0.0.0.0 (every network), ::1, ::.")
    var host: String = ServeConfiguration.loopback
    @Option(parsing: .unconditional, help: "Stop after this many seconds.", transform: OptionRange.decimal) var duration: Double?

    @OptionGroup var source: SourceOptions

    func validate() throws {
        try OptionRange.check(port, "--port", in: 0...65_535)
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
        guard !host.isEmpty, host.count <= 64 else {
            throw ValidationError("--host must be an IP address such as 127.0.0.1, 0.0.0.0 or ::1")
        }
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting {
            let (live, calibrationSource) = try Self.openers(source)
            let opened = try live.open()
            let calibration = CalibrationAccess(store: .userDefault()) {
                let feedSource = try calibrationSource.open()
                return try CalibrationFeed(manager: feedSource.manager, clock: feedSource.clock)
            }
            // The source's barometer for the altitude plot; none is no fault (most boards have none).
            let altimeter: Altimeter?
            do throws(MotionError) {
                altimeter = try Altimeter(source: opened.source)
            } catch {
                if case .sensorNotAvailable = error {} else { printError("serve: no altitude: \(error)") }
                altimeter = nil
            }
            let server = try Self.server(
                manager: opened.manager, description: describe(opened), calibration: calibration,
                configuration: .safe(host: host, port: UInt16(port)), altimeter: altimeter)
            if try ServeRun.run(server, duration: duration) { throw Interruption.exit("server stopped; a calibration not saved from the page was dropped") }
        }
    }

    /// What the view shows, and what a calibration reads. The view, like `live`, plays the
    /// simulated board on the system clock; a calibration opens a manager of its own, as
    /// `calibrate magnetometer` does: without stored calibrations, the simulated board in virtual
    /// time playing the figure-eight unless --scenario names another.
    static func openers(_ source: SourceOptions) throws -> (live: SourceOpener, calibration: SourceOpener) {
        let live = try source.opener(virtualTime: false)
        return (live, live.forCalibration(scenario: source.scenario ?? "figure-eight", virtualTime: !source.realTime))
    }

    static func server(
        manager: MotionManager, description: SourceDescription, calibration: CalibrationAccess, configuration: ServeConfiguration,
        altimeter: Altimeter? = nil
    ) throws -> MotionServer {
        do {
            return try MotionServer(manager: manager, description: description, calibration: calibration, configuration: configuration, altimeter: altimeter)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
    }

    private func describe(_ opened: OpenedSource) -> SourceDescription {
        switch opened.source {
        case .simulated(let simulation):
            let what = simulation.replay != nil ? "replay of \(source.replay ?? "a recording")" : "scenario \(simulation.scenario)"
            return SourceDescription(board: "simulated board", source: "simulated: \(what), seed \(source.seed)", isSimulated: true)
        case .board(let board, let bus):
            return SourceDescription(board: board.name, source: bus ?? board.i2cBuses.first?.device ?? "default bus", isSimulated: false)
        case .device(let board, let location):
            return SourceDescription(board: board.name, source: location.description, isSimulated: false)
        case .iio(let selection):
            return SourceDescription(board: "this machine", source: "Linux IIO: \(selection)", isSimulated: false)
        case .automatic:
            return SourceDescription(board: "automatic", source: "this machine", isSimulated: opened.manager.simulatedHardware != nil)
        }
    }
}

/// Runs the server from the command's thread until --duration or Ctrl-C (the server itself runs
/// on Swift concurrency's threads, the sampler on its own). The command's thread only sleeps and
/// looks at the clock and the Ctrl-C flag, so it ends on time whatever the connections do; the
/// server then has ``stopSeconds`` to close them, after which the command ends regardless.
enum ServeRun {
    /// Seconds the server has to stop (it ends every connection at once; this bounds a bug).
    static let stopSeconds = 5.0

    /// Returns true when ended by Ctrl-C.
    static func run(_ server: MotionServer, duration: Double?) throws -> Bool {
        let port = try wait { try await server.start() }
        let output = OutputLines()
        for line in addresses(server.configuration, port: port) { output.write(line) }
        output.write("Ctrl-C to stop")
        let interrupted = UpdateRunner(virtualClock: nil, duration: duration).run(isDone: { false }, drain: {})
        do {
            try wait(seconds: stopSeconds) { await server.stop() }
            output.write("stopped: \(server.manager.counters)")
        } catch {
            output.write("stopped: \(server.manager.counters) (\(error))")
        }
        if let error = output.error { throw error }
        return interrupted
    }

    /// What to open: the URL, with the access token when there is one.
    static func addresses(_ configuration: ServeConfiguration, port: UInt16) -> [String] {
        let query = configuration.accessToken.map { "?token=\($0)" } ?? ""
        let bracketed = { (host: String) in host.contains(":") ? "[\(host)]" : host }
        var lines = ["Serving the live view at http://\(bracketed(configuration.host)):\(port)/\(query)"]
        if configuration.host == "0.0.0.0" || configuration.host == "::" {
            lines = ["Serving the live view on every network interface: http://\(ProcessInfo.processInfo.hostName):\(port)/\(query)",
                     "  (or any address of this machine in place of its name; here: http://127.0.0.1:\(port)/\(query))"]
        }
        if configuration.accessToken != nil {
            lines.append("Requests without the token are refused (401): share the whole URL only with who may see this board.")
        }
        return lines
    }

    /// Runs `body` on Swift concurrency's threads and waits for it here (at most `seconds`).
    private static func wait<T: Sendable>(seconds: Double? = nil, _ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        if let seconds {
            if done.wait(timeout: .now() + seconds) == .timedOut {
                throw CommandFailure(message: "the server did not stop within \(Int(seconds)) s; ending anyway")
            }
        } else {
            done.wait()
        }
        switch result.withLock({ $0 }) {
        case .success(let value): return value
        case .failure(let error): throw CommandFailure(message: "\(error)")
        case nil: throw CommandFailure(message: "the server did not start")
        }
    }
}
