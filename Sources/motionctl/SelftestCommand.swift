import ArgumentParser
import Foundation
import Motion
import MotionSimulator

/// `motionctl selftest`: the hardware checks of `Tests/HardwareTests`, run interactively.
struct SelftestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Check the sensors: identity, self-test, FIFO, 100 Hz delivery, gravity, gyro bias and noise, orientation.",
        discussion: """
            Lay the board flat, components up, and keep it still: the checks stream for \
            \(Int(HardwareChecks.streamDuration)) s. Prints one line per check (PASS/FAIL/SKIP, measured value, limit); \
            exits with status 1 when a check fails. Without --board or --simulated the board is detected.
            """
    )

    @Flag(help: "Run on the simulated board (virtual time, lying still face up).")
    var simulated = false

    @Option(help: "The simulated IMU (with --simulated): \(SimulatedBoard.imuChoices.joined(separator: ", ")).")
    var imu: String = SimulatedBoard.IMU.lsm6dsox.rawValue

    @Option(help: "A built-in board id (see `motionctl boards`) or the path of a board file.")
    var board: String?

    @Option(help: "The bus: a device node such as /dev/i2c-1, or just its number (default: the board's).")
    var bus: String?

    func validate() throws {
        if simulated && (board != nil || bus != nil) {
            throw ValidationError("--simulated excludes --board and --bus: pick the simulated board or a real one")
        }
        if SimulatedBoard.IMU(rawValue: imu) == nil {
            throw ValidationError("no simulated IMU \"\(imu)\"; choose one of: \(SimulatedBoard.imuChoices.joined(separator: ", "))")
        }
    }

    func run() throws {
        let target: HardwareCheckTarget
        do {
            target = try resolveTarget()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
        print("Self-test on \(target.description)")
        if !target.isSimulated {
            print("Keep the board flat, components up, and still for about \(Int(HardwareChecks.streamDuration) + 2) s.")
        }
        let report = HardwareChecks.run(on: target) { print($0) }
        let count = { (status: HardwareCheckResult.Status) in report.results.filter { $0.status == status }.count }
        print("\(count(.pass)) passed, \(count(.fail)) failed, \(count(.skip)) skipped")
        if !report.passed { throw ExitCode.failure }
    }

    private func resolveTarget() throws -> HardwareCheckTarget {
        if simulated {
            return try HardwareCheckTarget.simulated(imu: SimulatedBoard.IMU(rawValue: imu) ?? .lsm6dsox)
        }
        var boardName = board
        if boardName == nil {
            guard let detected = BoardCatalog.builtIn.detectMachine() else {
                let model = BoardCatalog.readDeviceTreeModel() ?? "none"
                throw ValidationError(
                    "this machine is not a known board (device-tree model: \(model)); name one with --board ID|FILE "
                        + "(see `motionctl boards`), or run the checks on the simulated board with --simulated")
            }
            boardName = detected.id
        }
        return try HardwareCheckTarget.resolve(board: boardName, bus: bus).get()
    }
}
