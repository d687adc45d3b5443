import ArgumentParser
import Foundation
import Motion
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
    @Flag(help: "Calibrate the simulated board (runs in virtual time: a minute takes a fraction of a second).")
    var simulated = false

    @Option(help: "Simulated motion (with --simulated); default: figure-eight, rest or six-faces.")
    var scenario: String?

    @Option(help: "Board id (`motionctl boards`) or board file; default: this machine's board.")
    var board: String?

    @Option(help: "I2C bus device, e.g. /dev/i2c-1; default: the board's default bus.")
    var bus: String?

    @Option(help: "Longest measurement, in seconds (the default depends on the sensor).")
    var duration: Double?

    @Flag(help: "No guidance, no live display: measure for the whole duration and print the result as JSON.")
    var nonInteractive = false

    @Option(help: .hidden)
    var seed: UInt64 = 1

    func validate() throws {
        if simulated && (board != nil || bus != nil) {
            throw ValidationError("--simulated excludes --board and --bus: pick one")
        }
        if scenario != nil && !simulated {
            throw ValidationError("--scenario needs --simulated")
        }
        if let duration, !(duration > 0) {
            throw ValidationError("--duration must be a positive number of seconds")
        }
    }

    /// A manager on the chosen sensors, without stored calibrations (readings stay raw), and the
    /// feed of raw chip-axes readings.
    func openFeed(defaultScenario: String) throws -> CalibrationFeed {
        let clock: any MotionClock = simulated ? VirtualClock() : SystemClock()
        let source: MotionSource
        if simulated {
            source = .simulated(Simulation(scenario: scenario ?? defaultScenario, seed: seed))
        } else {
            source = .board(try resolveBoard(), bus: bus.map { $0.allSatisfy(\.isNumber) ? "/dev/i2c-\($0)" : $0 })
        }
        do {
            let manager = try MotionManager(source: source, clock: clock, calibrationStore: nil)
            return try CalibrationFeed(manager: manager, clock: clock)
        } catch {
            throw CalibrationFailure("\(error)")
        }
    }

    private func resolveBoard() throws -> Board {
        if let board {
            if let builtIn = BoardCatalog.builtIn.board(id: board) { return builtIn }
            guard FileManager.default.fileExists(atPath: board) else {
                let ids = BoardCatalog.builtIn.boards.map(\.id).joined(separator: ", ")
                throw CalibrationFailure("no board with id \"\(board)\" and no such file; known ids: \(ids)")
            }
            do {
                return try BoardCatalog.loadBoard(at: board)
            } catch {
                throw CalibrationFailure("\(error)")
            }
        }
        guard let detected = BoardCatalog.builtIn.detectMachine() else {
            throw CalibrationFailure("this machine is not a known board: pass --board ID (see `motionctl boards`) or --simulated")
        }
        return detected
    }

    var store: CalibrationStore { .userDefault() }
}

/// A calibration that could not be made or saved: printed as "error: …", exit status 1.
struct CalibrationFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension CalibrationFeed {
    /// Runs `body` once per `step` of (virtual or real) time for at most `duration` seconds or
    /// until it returns false. Returns the seconds measured.
    @discardableResult
    func measure(duration: Double, step: Double, _ body: (Batch, Double) throws -> Bool) rethrows -> Double {
        var elapsed = 0.0
        while elapsed < duration - 1e-9 {
            let slice = min(step, duration - elapsed)
            pass(slice)
            elapsed += slice
            guard try body(take(), elapsed) else { break }
        }
        return elapsed
    }
}

/// JSON for `--non-interactive`, keys sorted.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// "12.35" with a fixed number of decimals.
func decimals(_ value: Double, _ count: Int = 2) -> String { String(format: "%.\(count)f", value) }

/// "(1.00, -2.00, 3.00)".
func decimals(_ vector: SIMD3<Double>, _ count: Int = 2) -> String {
    "(\(decimals(vector.x, count)), \(decimals(vector.y, count)), \(decimals(vector.z, count)))"
}

/// Prints to standard error (the JSON on standard output stays clean).
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
