import ArgumentParser
import Foundation
import Motion
import MotionSimulator
import Timing

/// Where a command gets its sensors: the machine's board, a named board or board file, or the
/// simulated board. Shared by every command that reads sensors.
struct SourceOptions: ParsableArguments {
    @Flag(help: "Use the simulated board (register-level chip emulators in a simulated world).")
    var simulated = false

    @Option(help: "Simulated motion; implies --simulated. `--scenario list` names them.")
    var scenario: String?

    @Option(help: "Simulated IMU: \(SimulatedBoard.imuChoices.joined(separator: ", ")); implies --simulated.")
    var imu: String?

    @Option(help: "Seed of the simulated sensor noise.")
    var seed: UInt64 = 1

    @Option(help: "A built-in board id (`motionctl boards`) or the path of your own board file.")
    var board: String?

    @Option(help: "The I2C bus, e.g. /dev/i2c-1 (default: the board's).")
    var bus: String?

    var isSimulated: Bool { simulated || scenario != nil || imu != nil }

    func validate() throws {
        if isSimulated, board != nil || bus != nil {
            throw ValidationError("--board/--bus and the simulated board exclude each other: pick one")
        }
        if let scenario, scenario != "list", Scenario.named(scenario) == nil {
            throw ValidationError("no scenario named \"\(scenario)\"; choose one of: \(Scenario.all.map(\.name).joined(separator: ", "))")
        }
        if let imu, SimulatedBoard.IMU(rawValue: imu) == nil {
            throw ValidationError("no simulated IMU named \"\(imu)\"; choose one of: \(SimulatedBoard.imuChoices.joined(separator: ", "))")
        }
    }

    /// Prints the scenarios and returns true when `--scenario list` was given.
    func listScenariosIfAsked() -> Bool {
        guard scenario == "list" else { return false }
        for scenario in Scenario.all { print("\(scenario.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(scenario.summary)") }
        return true
    }

    func simulation(defaultScenario: String = "six-faces") -> Simulation {
        Simulation(
            scenario: scenario ?? defaultScenario, imu: imu.flatMap(SimulatedBoard.IMU.init(rawValue:)) ?? .lsm6dsox, seed: seed)
    }

    func source(defaultScenario: String = "six-faces") throws -> MotionSource {
        if isSimulated { return .simulated(simulation(defaultScenario: defaultScenario)) }
        guard let board else {
            if bus != nil { throw ValidationError("--bus needs --board: which board is this? (`motionctl boards`)") }
            return .automatic
        }
        if let known = BoardCatalog.builtIn.board(id: board) { return .board(known, bus: bus) }
        guard FileManager.default.fileExists(atPath: board) else {
            throw ValidationError("no built-in board \"\(board)\" and no such file; `motionctl boards` lists the built-in ones")
        }
        do {
            return .board(try BoardCatalog.loadBoard(at: board), bus: bus)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// A manager on the chosen source.
    func makeManager(clock: any MotionClock = SystemClock(), defaultScenario: String = "six-faces") throws -> MotionManager {
        let source = try source(defaultScenario: defaultScenario)
        do {
            return try MotionManager(source: source, clock: clock)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
    }
}

/// A failure the command reports in one line and exits 1 for.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
