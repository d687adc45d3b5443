import Foundation
@testable import Motion
import MotionSimulation
import MotionSimulator
import Testing

/// The pedometer counting with the IMU's own step counter (`Pedometer.StepCounter.chip`) against
/// this library's detector on the same simulated walks, through the emulated LSM6DSOX's model of
/// its counter (``LSM6Pedometer``: every true step, held by a debounce of 10 after each pause).
/// What this compares is what the model has: when the first steps of a walk are counted and how
/// many; not the chip's own detection, which is not modelled. Prints the table of docs/steps.md.
@Suite("The on-chip step counter beside the detector")
struct ChipStepCounterTests {
    /// Seconds from the walk's first true step to the first update that counted it.
    static func firstCountDelay(_ run: StepRun) -> Double? {
        guard let first = run.updates.first, let step = run.truth.first else { return nil }
        return run.time(first.endDate) - step
    }

    @Test("counts of the chip's counter and of the detector on the gait scenarios", arguments: StepScenarioTests.gaits)
    func comparesTheTwo(scenario: String) throws {
        let chip = try playSteps(scenario, step: 0.25, stepCounter: .chip)
        let ours = try playSteps(scenario, step: 0.25, stepCounter: .library)
        let truth = chip.truth.count
        let percent = { (steps: Int) in String(format: "%+.1f %%", 100 * Double(steps - truth) / Double(truth)) }
        let delay = { (run: StepRun) in Self.firstCountDelay(run).map { String(format: "%.1f s", $0) } ?? "-" }
        let cadence = { (run: StepRun) in String(format: "%.1f %%", 100 * run.worstCadenceError().worst) }
        print("| `\(scenario)` | \(truth) | \(ours.steps) (\(percent(ours.steps))) | \(chip.steps) (\(percent(chip.steps))) | \(delay(ours)) | \(delay(chip)) | \(cadence(ours)) | \(cadence(chip)) |")
        // The model counts every true step of walks of ten or more (each walk here is).
        #expect(abs(chip.steps - truth) <= 1, "\(scenario): the chip counted \(chip.steps), truth \(truth)")
        #expect(abs(ours.steps - truth) <= truth / 50, "\(scenario): we counted \(ours.steps), truth \(truth)")
        // The chip says nothing before the tenth step (its debounce), the detector before the fifth (its gate).
        let firstChip = try #require(chip.updates.first)
        #expect(chip.time(firstChip.endDate) >= chip.truth[9], "\(scenario): the chip's first count before the tenth step")
        #expect(firstChip.numberOfSteps.intValue >= 10)
        let firstOurs = try #require(ours.updates.first)
        #expect(ours.time(firstOurs.endDate) >= ours.truth[4])
    }

    /// An IMU without a step counter of its own: the chip's counting is refused, naming the way out.
    @Test func aChipWithoutOneIsRefused() throws {
        let manager = try MotionManager(
            source: .simulated(Simulation(scenario: "walk-hand", imu: .lsm6dsl, seed: 1)), clock: VirtualClock(), calibrationStore: nil)
        do {
            _ = try Pedometer(sharing: manager, stepCounter: .chip)
            Issue.record("a pedometer counting on an LSM6DSL's chip was made")
        } catch {
            #expect("\(error)".contains("has no step counter of its own"), "\(error)")
            #expect("\(error)".contains("Pedometer.StepCounter.library"), "\(error)")
        }
    }
}
