import ArgumentParser
import CommandSupport
import Foundation
import Motion
import MotionSimulation
import MotionTools
import MotionSimulator

/// `motionctl selftest`: the hardware checks of `Tests/HardwareTests`, run interactively.
struct SelftestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Check the sensors: identity, self-test, FIFO, 100 Hz delivery, gravity, gyro bias and noise, orientation.",
        discussion: """
            Lay the board flat, components up, and keep it still: the checks stream for \
            \(Int(HardwareChecks.streamDuration)) s. Prints one line per check (PASS/FAIL/SKIP, measured value, limit); \
            exits with status 1 when a check fails. Without --board or --simulated the board is detected; \
            --simulated --board ID runs the checks on the simulated board laid out like that board file.
            """
    )

    @OptionGroup var source: SourceOptions

    func validate() throws {
        if source.scenario != nil || source.magnetometer != nil || source.realTime || source.replay != nil || source.faults != nil {
            throw ValidationError("selftest runs the simulated board lying still in virtual time: --scenario, --replay, --magnetometer and --real-time do not apply")
        }
    }

    func run() throws {
        let target = try CommandFailure.reporting(resolveTarget)
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
        do {
            if case .board(let board, let bus) = try source.source(fallBackToSimulation: false) {
                return try HardwareCheckTarget.board(board, busPath: bus)
            }
            return try HardwareCheckTarget.simulated(source.simulation(defaultScenario: "rest"))
        } catch let error as MotionError {
            throw CommandFailure(message: "\(error)")
        }
    }
}
