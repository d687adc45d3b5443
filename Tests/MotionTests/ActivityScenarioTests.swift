import Foundation
@testable import Motion
import MotionSimulation
import MotionSimulator
import Testing

/// What the person does at one instant of a scenario, from its ground truth.
private enum TrueActivity: Equatable {
    case stationary, walking, running, other
}

/// The truth at `time` (s from the start): walking or running between a walk's first and last
/// step (running from 2.5 steps a second), stationary once the world has been still for 2 s.
private func truth(_ scenario: Scenario, world: World, at time: Double) -> TrueActivity {
    let steps = scenario.stepTimes
    if let index = steps.lastIndex(where: { $0 <= time }), index + 1 < steps.count, steps[index + 1] - steps[index] < 1.3 {
        let cadence = 1 / (steps[index + 1] - steps[index])
        return cadence >= 2.5 ? .running : .walking
    }
    let still = stride(from: max(0, time - 2), through: time, by: 0.05).allSatisfy { t in
        let state = world.truth(at: t)
        return (state.angularRate * state.angularRate).sum() < 1e-6 && (state.acceleration * state.acceleration).sum() < 1e-4
    }
    return still ? .stationary : .other
}

@Suite("Activity on the simulated board")
struct ActivityScenarioTests {
    @Test("walks are reported walking or running within 4 s of the first step, and stillness within 4 s of the last")
    func latency() throws {
        for name in ["walk-hand", "walk-pocket", "run", "walk-pauses", "stair-steps"] {
            let scenario = try #require(Scenario.named(name))
            let run = try playSteps(name, step: 0.1)
            // Each walk: its first and last steps (a gap over 1.3 s separates walks).
            var walks: [(first: Double, last: Double)] = []
            for time in run.truth {
                if let last = walks.last, time - last.last < 1.3 { walks[walks.count - 1].last = time } else { walks.append((time, time)) }
            }
            for walk in walks {
                let reported = try #require(run.activities.first { ($0.activity.walking || $0.activity.running) && $0.arrived >= walk.first },
                                            "\(name): the walk from \(walk.first) s was never reported")
                let latency = reported.arrived - walk.first
                let stopped = run.activities.first { !$0.activity.walking && !$0.activity.running && $0.arrived > walk.last }
                let stopLatency = stopped.map { $0.arrived - walk.last }
                print("activity latency \(name): walk at \(walk.first) s reported after \(latency) s; its end after \(stopLatency.map { "\($0)" } ?? "never") s")
                #expect(latency <= 4, "\(name): walk from \(walk.first) s reported \(latency) s late")
                #expect(abs(run.time(reported.activity.startDate) - walk.first) <= 0.6, "\(name): walk's start date \(run.time(reported.activity.startDate)) s")
                if walk.last + 4 < scenario.duration { #expect((stopLatency ?? .infinity) <= 4, "\(name): end of the walk at \(walk.last) s") }
            }
        }
    }

    @Test("the confidence says how often the activity is right")
    func precision() throws {
        // Every half-second, and apart those within 4 s after the truth changed (the latency).
        var right = [0, 0, 0], total = [0, 0, 0], settledRight = [0, 0, 0], settledTotal = [0, 0, 0]
        let names = StepScenarioTests.gaits + StepScenarioTests.stillOrHandled
        for name in names {
            let scenario = try #require(Scenario.named(name))
            let world = scenario.world()
            let run = try playSteps(name, step: 0.5)
            var time = 1.0
            while time < scenario.duration {
                defer { time += 0.5 }
                guard let current = run.activities.last(where: { $0.arrived <= time })?.activity, !current.unknown else { continue }
                let expected = truth(scenario, world: world, at: time)
                let correct = current.stationary ? expected == .stationary : current.walking ? expected == .walking : expected == .running
                let level = current.confidence.rawValue
                total[level] += 1
                if correct { right[level] += 1 }
                let settled = stride(from: max(0, time - 4), to: time, by: 0.5).allSatisfy { truth(scenario, world: world, at: $0) == expected }
                if settled {
                    settledTotal[level] += 1
                    if correct { settledRight[level] += 1 }
                }
            }
        }
        for level in 0..<3 {
            print("activity precision \(level): \(right[level]) of \(total[level]) half-seconds; settled \(settledRight[level]) of \(settledTotal[level])")
        }
        #expect(settledTotal[2] > 0 && Double(settledRight[2]) >= 0.97 * Double(settledTotal[2]))
        #expect(settledTotal[1] > 0 && Double(settledRight[1]) >= 0.9 * Double(settledTotal[1]))
    }
}
