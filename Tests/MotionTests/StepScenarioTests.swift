import Dispatch
import Foundation
import Locking
@testable import Motion
import MotionSimulation
import MotionSimulator
import Testing

/// What a pedometer and an activity manager said over one scenario on the simulated board.
struct StepRun {
    /// The live updates, in order, each with the virtual time its handler saw it at.
    var updates: [PedometerData]
    var events: [PedometerEvent]
    /// Each activity update with the virtual time (s since the run's start) it arrived by.
    var activities: [(activity: MotionActivity, arrived: Double)]
    /// True step times, seconds since the run's start.
    var truth: [Double]
    /// Monotonic time of the run's start, and its date.
    var start: Double
    var startDate: Date
    var steps: Int { updates.last?.numberOfSteps.intValue ?? 0 }
    /// Seconds since the run's start of a date the pedometer gave.
    func time(_ date: Date) -> Double { date.timeIntervalSince(startDate) }

    /// Each live update's cadence against the true cadence (the last four true intervals), within
    /// one walk: the largest relative error, the updates compared, and where the largest was
    /// (time, cadence, true cadence).
    func worstCadenceError() -> (worst: Double, compared: Int, at: (Double, Double, Double)) {
        var worst = 0.0, compared = 0
        var worstAt = (0.0, 0.0, 0.0)
        for update in updates {
            guard let cadence = update.currentCadence?.doubleValue else { continue }
            let t = time(update.endDate)
            let before = truth.filter { $0 <= t }
            guard before.count >= 9 else { continue }
            let recent = Array(before.suffix(5))
            // Within one walk: not across a pause, not after the walk ended.
            guard zip(recent, recent.dropFirst()).allSatisfy({ $1 - $0 < 1.3 }), t - recent[4] < 1.3 else { continue }
            let trueCadence = Double(recent.count - 1) / (recent[4] - recent[0])
            if abs(cadence / trueCadence - 1) > worst { worstAt = (t, cadence, trueCadence) }
            worst = max(worst, abs(cadence / trueCadence - 1))
            compared += 1
        }
        return (worst, compared, worstAt)
    }
}

/// Plays `scenario` for its whole duration (and 3 s more) with a pedometer and an activity
/// manager sharing one simulated board, advancing the virtual clock `step` seconds at a time so
/// that each activity update's arrival is known to that resolution.
func playSteps(
    _ scenario: String, seed: UInt64 = 1, imu: SimulatedBoard.IMU = .lsm6dsox, step: Double = 0.25,
    stepCounter: Pedometer.StepCounter = .library
) throws -> StepRun {
    let clock = VirtualClock()
    let start = clock.now
    let manager = try MotionManager(source: .simulated(Simulation(scenario: scenario, imu: imu, seed: seed)), clock: clock, calibrationStore: nil)
    let pedometer = try Pedometer(sharing: manager, stepCounter: stepCounter)
    let activityManager = MotionActivityManager(sharing: manager)
    let startDate = pedometer.dates.date(start)
    let updates = Locked<[PedometerData]>([]), events = Locked<[PedometerEvent]>([])
    let activities = Locked<[(activity: MotionActivity, arrived: Double)]>([])
    pedometer.startUpdates(from: startDate) { data, _ in if let data { updates.withLock { $0.append(data) } } }
    pedometer.startEventUpdates { event, _ in if let event { events.withLock { $0.append(event) } } }
    let queue = OperationQueue.serial(named: "test.activity")
    activityManager.startActivityUpdates(to: queue) { activity in
        if let activity { activities.withLock { $0.append((activity, clock.now - start)) } }
    }
    let duration = try #require(Scenario.named(scenario)).duration + 3
    var elapsed = 0.0
    while elapsed < duration {
        clock.advance(by: step)
        elapsed += step
        pedometer.flush()
        activityManager.flush()
        queue.waitUntilAllOperationsAreFinished()
    }
    pedometer.stopUpdates()
    pedometer.stopEventUpdates()
    activityManager.stopActivityUpdates()
    return StepRun(
        updates: updates.withLock { $0 }, events: events.withLock { $0 }, activities: activities.withLock { $0 },
        truth: try #require(Scenario.named(scenario)).stepTimes, start: start, startDate: startDate)
}

@Suite("Steps on the simulated board")
struct StepScenarioTests {
    static let gaits = ["walk-hand", "walk-pocket", "run", "stair-steps", "walk-pauses"]

    @Test("gait scenarios count within 2 % and give the cadence within 5 %", arguments: gaits, [UInt64(1), 2, 3])
    func gaitCounts(scenario: String, seed: UInt64) throws {
        let run = try playSteps(scenario, seed: seed, step: 1)
        let truth = run.truth.count
        let error = Double(run.steps - truth) / Double(truth)
        print("steps \(scenario) seed \(seed): \(run.steps) of \(truth) (\(String(format: "%+.2f", error * 100)) %)")
        #expect(abs(error) <= 0.02, "\(scenario) seed \(seed): \(run.steps) steps, truth \(truth)")
        let (worst, compared, worstAt) = run.worstCadenceError()
        print("cadence \(scenario) seed \(seed): worst \(String(format: "%.2f", worst * 100)) % over \(compared) updates, at \(worstAt)")
        #expect(compared > truth / 2)
        #expect(worst <= 0.05, "\(scenario) seed \(seed): cadence off by \(worst * 100) %")
    }

    static let stillOrHandled = [
        "rest", "six-faces", "flip", "portrait-tilt", "landscape-sweep", "figure-eight", "translation", "tap", "vibration",
        "magnet-disturbance", "steel-desk", "ordinary-handling", "magnet-passing", "magnet-attached", "indoor-handling",
        "indoor-carrying", "vehicle", "shake-portrait", "fast-translation", "tumble",
    ]

    @Test("no steps where nobody walks, and never walking or running", arguments: stillOrHandled)
    func noSteps(scenario: String) throws {
        let run = try playSteps(scenario, step: 1)
        let walked = run.activities.filter { $0.activity.walking || $0.activity.running }
        print("no-steps \(scenario): \(run.steps) steps, activities \(run.activities.map { describe($0.activity) })")
        #expect(run.steps == 0, "\(scenario): \(run.steps) steps")
        #expect(walked.isEmpty, "\(scenario): \(walked.map { describe($0.activity) })")
    }
}

func describe(_ activity: MotionActivity) -> String {
    let kind = activity.stationary ? "stationary" : activity.walking ? "walking" : activity.running ? "running" : "unknown"
    return "\(kind)/\(activity.confidence)"
}
