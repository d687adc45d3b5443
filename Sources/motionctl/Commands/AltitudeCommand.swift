import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import Fusion
import Locking
import Motion
import MotionSimulation
import Timing

/// `motionctl altitude`: the altimeter's updates, one line a second.
struct AltitudeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "altitude",
        abstract: "Stream the barometer's altitude: relative altitude, pressure, floors, and absolute altitude from a reference.",
        discussion: """
            One line a second (the altimeter's update): seconds since the start, the relative \
            altitude since the first update (m), the pressure (hPa), floors counted up and down \
            (3 m a storey), and with --sea-level-pressure or --reference-altitude the altitude \
            above sea level with its 1σ accuracy (m). Without a reference the absolute columns \
            use the standard 1013.25 hPa and say so by their accuracy (about 85 m). With \
            --simulated or --scenario the simulated board's BMP280 plays a scenario (default \
            stairs) in virtual time unless --real-time is given; on a real board it runs until \
            Ctrl-C or --duration.
            """)

    @OptionGroup var source: SourceOptions

    @Option(parsing: .unconditional, help: "Seconds to run. Default: simulated, the scenario's length plus 1 s; real board, until Ctrl-C.", transform: OptionRange.decimal)
    var duration: Double?

    @Option(parsing: .unconditional, help: "The local sea-level pressure (QNH), hPa, for the altitude above sea level.", transform: OptionRange.decimal)
    var seaLevelPressure: Double?

    @Option(parsing: .unconditional, help: "The altitude where the board is at the start, m above sea level, for the altitude above sea level.", transform: OptionRange.decimal)
    var referenceAltitude: Double?

    func validate() throws {
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
        try OptionRange.check(seaLevelPressure, "--sea-level-pressure", in: 850...1090, unit: "hPa")
        try OptionRange.check(referenceAltitude, "--reference-altitude", in: -500...9000, unit: "m")
        if seaLevelPressure != nil, referenceAltitude != nil {
            throw ValidationError("give --sea-level-pressure or --reference-altitude, not both")
        }
    }

    var reference: AltitudeReference {
        if let seaLevelPressure { return .seaLevelPressure(hectopascals: seaLevelPressure) }
        if let referenceAltitude { return .knownAltitude(metres: referenceAltitude) }
        return .none
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting {
            let opener = try source.opener(defaultScenario: "stairs")
            var scenarioLength: Double?
            let clock: VirtualClock? = opener.virtualTime && opener.source.isSimulated ? VirtualClock() : nil
            if case .simulated(let simulation) = opener.source { scenarioLength = Scenario.named(simulation.scenario)?.duration }
            let altimeter: Altimeter
            do {
                altimeter = try clock.map { clock throws(MotionError) in try Altimeter(source: opener.source, clock: clock) }
                    ?? Altimeter(source: opener.source)
            } catch {
                throw CommandFailure(message: "\(error)")
            }
            let printer = AltitudePrinter(start: clock?.now ?? SystemClock.monotonicSeconds())
            let runner = UpdateRunner(virtualClock: clock, duration: duration ?? scenarioLength.map { $0 + 1 })
            let interrupted = printer.run(altimeter, reference: reference, runner: runner)
            if let error = printer.lines.error { throw error }
            if interrupted { throw Interruption.exit("stopped streaming the altitude") }
        }
    }
}

extension MotionSource {
    var isSimulated: Bool {
        if case .simulated = self { true } else { false }
    }
}

/// Prints the altimeter's updates as columns; its handlers run on one serial queue.
final class AltitudePrinter: Sendable {
    /// Seconds since boot that print as 0.
    let start: Double
    let lines = OutputLines()
    private let queue = DispatchQueue(label: "motionctl.altitude")
    /// The floors counted and the latest absolute altitude, on `queue` only.
    private let state = Locked((floors: FloorCounter(), absolute: AbsoluteAltitudeData?.none))

    init(start: Double) {
        self.start = start
    }

    static let header = "time_s relative_m pressure_hPa floors_up floors_down altitude_m accuracy_m"

    func line(_ data: AltitudeData) -> String {
        let (floors, absolute) = state.withLock { state in
            state.floors.update(relativeAltitude: data.relativeAltitude.doubleValue)
            return (state.floors, state.absolute)
        }
        var text = String(format: "%.2f %.3f %.3f %d %d", data.timestamp - start, data.relativeAltitude.doubleValue,
                          data.pressure.doubleValue * 10, floors.ascended, floors.descended)
        // Before the first absolute update (they come from readings of their own): dashes.
        text += absolute.map { String(format: " %.2f %.2f", $0.altitude, $0.accuracy) } ?? " - -"
        return text
    }

    /// Streams until the runner stops; errors go to standard error. True when ended by Ctrl-C.
    func run(_ altimeter: Altimeter, reference: AltitudeReference, runner: UpdateRunner) -> Bool {
        lines.write(Self.header)
        altimeter.altitudeReference = reference
        altimeter.startAbsoluteAltitudeUpdates(to: queue) { [state] data, error in
            if let data { state.withLock { $0.absolute = data } }
            if let error { printError("error: \(error)") }
        }
        altimeter.startRelativeAltitudeUpdates(to: queue) { [self] data, error in
            if let data { lines.write(line(data)) }
            if let error { printError("error: \(error)") }
        }
        let interrupted = runner.run(isDone: { [lines] in lines.error != nil }, drain: { [queue] in queue.sync {} })
        altimeter.stopRelativeAltitudeUpdates()
        altimeter.stopAbsoluteAltitudeUpdates()
        queue.sync {}
        return interrupted
    }
}
