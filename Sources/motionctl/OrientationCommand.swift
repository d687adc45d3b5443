import ArgumentParser
import Dispatch
import Foundation
import Motion
import MotionSimulator
import Timing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `motionctl orientation`: prints each change of device orientation as it is posted.
struct OrientationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientation",
        abstract: "Print each change of device orientation (face up, portrait, …) with its time.",
        discussion: """
            One line per change: seconds since the start, then old → new orientation, e.g. \
            "12.310  faceUp → portrait". With --simulated or --scenario the simulated board plays a \
            scenario in virtual time (as fast as the machine goes, the same every run) unless \
            --real-time is given. On a real board it runs until Ctrl-C or --duration. Without \
            --board, --bus or --simulated: this machine's board, else the simulated board.
            """)

    @Flag(help: "Use the simulated board.")
    var simulated = false

    @Option(help: "The scenario the simulated board plays (implies --simulated; `help` lists them). Default: six-faces.")
    var scenario: String?

    @Option(help: "Seconds to run. Default: simulated, the scenario's length plus 1 s; real board, until Ctrl-C.")
    var duration: Double?

    @Option(help: "The board: a built-in id (`motionctl boards`) or a board file.")
    var board: String?

    @Option(help: "The I2C bus device node, e.g. /dev/i2c-1 (default: the board's).")
    var bus: String?

    @Flag(name: .customLong("real-time"), help: "Play the simulated board on the system clock instead of in virtual time.")
    var realTime = false

    private var isSimulated: Bool { simulated || scenario != nil || board == BoardCatalog.simulatedID }

    func validate() throws {
        if isSimulated, bus != nil || (board != nil && board != BoardCatalog.simulatedID) {
            throw ValidationError("--simulated/--scenario and --board/--bus exclude each other: pick one")
        }
        if realTime, !isSimulated {
            throw ValidationError("--real-time is for the simulated board; a real board always runs in real time")
        }
        if let duration, !(duration.isFinite && duration > 0) {
            throw ValidationError("--duration must be a positive number of seconds, not \(duration)")
        }
        if let scenario, scenario != "help", Scenario.named(scenario) == nil {
            let names = Scenario.all.map(\.name).joined(separator: ", ")
            throw ValidationError("no scenario named \"\(scenario)\"; choose one of: \(names)")
        }
    }

    func run() throws {
        if scenario == "help" {
            for scenario in Scenario.all { print("\(scenario.name): \(scenario.summary)") }
            return
        }
        do {
            if isSimulated {
                try runSimulated()
            } else {
                try runHardware()
            }
        } catch let error as OrientationCommandError {
            OrientationPrinter.fail(error.message)
            throw ExitCode.failure
        } catch let error as MotionError {
            OrientationPrinter.fail("\(error)")
            throw ExitCode.failure
        } catch let error as BoardFileError {
            OrientationPrinter.fail("\(error)")
            throw ExitCode.failure
        }
    }

    private func runSimulated() throws {
        let name = scenario ?? "six-faces"
        guard let played = Scenario.named(name) else { throw OrientationCommandError(message: "no scenario named \"\(name)\"") }
        let seconds = duration ?? played.script.duration + 1
        let simulation = Simulation(scenario: name)
        if realTime {
            let clock = SystemClock()
            let manager = try MotionManager(source: .simulated(simulation), clock: clock, calibrationStore: nil)
            OrientationWatch.inRealTime(manager, start: clock.now, duration: seconds)
        } else {
            let clock = VirtualClock()
            let manager = try MotionManager(source: .simulated(simulation), clock: clock, calibrationStore: nil)
            OrientationWatch.inVirtualTime(manager, clock: clock, duration: seconds)
        }
    }

    private func runHardware() throws {
        let source: MotionSource
        if board == nil, bus == nil {
            source = .automatic
        } else {
            source = .board(try resolveBoard(), bus: bus.map { $0.allSatisfy(\.isNumber) ? "/dev/i2c-\($0)" : $0 })
        }
        let clock = SystemClock()
        let manager = try MotionManager(source: source, clock: clock)
        OrientationWatch.inRealTime(manager, start: clock.now, duration: duration)
    }

    /// `--board` as a built-in id or a file; without it, the board this machine is.
    private func resolveBoard() throws -> Board {
        let catalog = BoardCatalog.builtIn
        guard let board else {
            guard let detected = catalog.detectMachine() else {
                throw OrientationCommandError(message: "this machine is not a known board, so --bus needs --board ID|FILE (`motionctl boards` lists the ids)")
            }
            return detected
        }
        if let builtIn = catalog.board(id: board) { return builtIn }
        if FileManager.default.fileExists(atPath: board) { return try BoardCatalog.loadBoard(at: board) }
        let ids = catalog.boards.map(\.id).joined(separator: ", ")
        throw OrientationCommandError(message: "no built-in board \"\(board)\" and no file \(board); pass one of \(ids) or a board file path")
    }
}

/// A problem found while running, printed as `error: message` with exit status 1.
struct OrientationCommandError: Error {
    let message: String
}

/// Writes one line per posted change. Its closures run on the notifier's and Dispatch's queues,
/// so they live here, outside the main actor.
struct OrientationPrinter: Sendable {
    /// Seconds since boot that print as 0.
    let start: Double

    static func line(_ change: DeviceOrientationChange, since start: Double) -> String {
        String(format: "%.3f", change.timestamp - start) + "  \(change.old.rawValue) → \(change.new.rawValue)"
    }

    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    }

    func observe(_ manager: MotionManager) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .deviceOrientationDidChange, object: manager, queue: nil) { [start] note in
            guard let old = note.userInfo?[MotionManager.oldOrientationKey] as? DeviceOrientation,
                  let new = note.userInfo?[MotionManager.newOrientationKey] as? DeviceOrientation,
                  let timestamp = note.userInfo?[MotionManager.orientationTimestampKey] as? Double else { return }
            let change = DeviceOrientationChange(old: old, new: new, timestamp: timestamp)
            FileHandle.standardOutput.write(Data((Self.line(change, since: start) + "\n").utf8))
        }
    }
}

/// Runs orientation notifications for a while and prints them.
enum OrientationWatch {
    /// Plays `duration` virtual seconds at once, then waits for the last notification.
    static func inVirtualTime(_ manager: MotionManager, clock: VirtualClock, duration: Double) {
        let observer = OrientationPrinter(start: clock.now).observe(manager)
        manager.beginGeneratingDeviceOrientationNotifications()
        clock.advance(by: duration)
        manager.endGeneratingDeviceOrientationNotifications()
        manager.waitForOrientationNotifications()
        NotificationCenter.default.removeObserver(observer)
    }

    /// Runs until Ctrl-C, or for `duration` seconds; sampler errors go to standard error.
    static func inRealTime(_ manager: MotionManager, start: Double, duration: Double?) {
        let stop = DispatchSemaphore(value: 0)
        signal(SIGINT, SIG_IGN)   // the Dispatch source below takes it instead
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "motionctl.interrupt"))
        interrupt.setEventHandler { stop.signal() }
        interrupt.resume()

        let observer = OrientationPrinter(start: start).observe(manager)
        // Errors reach every consumer; a slow accelerometer consumer reports them.
        manager.accelerometerUpdateInterval = 1
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "motionctl.errors")) { _, error in
            if let error { OrientationPrinter.fail("\(error)") }
        }
        manager.beginGeneratingDeviceOrientationNotifications()
        if let duration {
            _ = stop.wait(timeout: .now() + duration)
        } else {
            stop.wait()
        }
        manager.endGeneratingDeviceOrientationNotifications()
        manager.stopAccelerometerUpdates()
        manager.waitForOrientationNotifications()
        NotificationCenter.default.removeObserver(observer)
        interrupt.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
