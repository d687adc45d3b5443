import ArgumentParser
import CommandSupport
import Foundation
import Motion
import MotionFormats
import MotionSimulation
import MotionTools
import Timing

/// `motionctl calibrate magnetometer|gyroscope|accelerometer`.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Calibrate the magnetometer (figure-eight), the gyroscope (at rest) or the accelerometer (six faces).",
        discussion: """
            Results are saved atomically to the calibration store (one file per sensor under \
            $XDG_CONFIG_HOME/swift-motion/calibration, default ~/.config/swift-motion/calibration); \
            every MotionManager applies them from then on. See `motionctl calibration show`.
            """,
        subcommands: [CalibrateMagnetometerCommand.self, CalibrateGyroscopeCommand.self, CalibrateAccelerometerCommand.self])
}

/// Options every `calibrate` subcommand takes.
struct CalibrationOptions: ParsableArguments {

    @Option(parsing: .unconditional, help: "Longest measurement, in seconds, up to a day (the default depends on the sensor).", transform: OptionRange.decimal)
    var duration: Double?

    @Flag(help: "No guidance, no live display: measure for the whole duration and print the result as JSON.")
    var nonInteractive = false

    @OptionGroup var source: SourceOptions

    func validate() throws {
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds.lowerBound...86_400, unit: "seconds")
    }

    /// A manager on the chosen sensors, without stored calibrations (readings stay raw), and the
    /// feed of raw chip-axes readings. The simulated board runs in virtual time (a minute takes a
    /// fraction of a second); a machine that is not a known board needs --board or --simulated.
    func openFeed(defaultScenario: String) throws -> CalibrationFeed {
        let opened = try source.open(defaultScenario: defaultScenario, fallBackToSimulation: false, calibrationStore: nil)
        do {
            return try CalibrationFeed(manager: opened.manager, clock: opened.clock)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
    }

    var store: CalibrationStore { .userDefault() }
}

extension CalibrationFeed {
    /// True on a virtual clock: time passes only when the feed advances it.
    var isVirtualTime: Bool { clock is VirtualClock }

    /// ``measure(duration:step:shouldStop:_:)`` until Ctrl-C (``Interruption``).
    @discardableResult
    func measure(duration: Double, step: Double, _ body: (Batch, Double) throws -> Bool) rethrows -> Double {
        Interruption.watch()
        return try measure(duration: duration, step: step, shouldStop: { Interruption.isRequested }, body)
    }
}

/// A `calibrate` subcommand: it measures and saves in ``calibrate()``, whose errors end the
/// command through ``CommandFailure/reporting(_:)``.
protocol CalibrationSubcommand: ParsableCommand {
    var options: CalibrationOptions { get }
    func calibrate() throws
}

extension CalibrationSubcommand {
    func run() throws {
        try CommandFailure.reporting(calibrate)
    }
}

extension CalibrationOptions {
    /// Saves `change` to the stored record of `sensor`; the path of its file. A store that cannot
    /// be written ends the command with the store's message.
    func save(_ sensor: SensorIdentity, _ change: (inout CalibrationRecord) -> Void) throws -> String {
        do {
            return try store.update(sensor, change)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
    }

    /// After a measurement: Ctrl-C ends the command with nothing saved.
    func stopIfInterrupted(_ feed: CalibrationFeed) throws {
        guard Interruption.isRequested else { return }
        feed.stop()
        throw Interruption.exit("nothing saved")
    }
}

/// JSON for `--non-interactive`, keys sorted.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(MachineOutput.asciiJSON(String(decoding: try encoder.encode(value), as: UTF8.self)))
}
