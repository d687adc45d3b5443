import Dispatch
import Foundation
import Locking
@testable import Motion
import MotionSimulation
import Testing

@Suite("Pedometer and activity manager API")
struct PedometerTests {
    /// A pedometer that has watched `walk-pauses` (four walks of 20 s at 1.9 steps/s, 6 s apart).
    private static func walked() throws -> (Pedometer, VirtualClock, start: Date) {
        let clock = VirtualClock()
        let pedometer = try Pedometer(source: .simulated(Simulation(scenario: "walk-pauses")), clock: clock)
        let start = pedometer.dates.date(clock.now)
        clock.advance(by: 110)
        pedometer.flush()
        return (pedometer, clock, start)
    }

    private static func query(_ pedometer: Pedometer, from: Date, to: Date) -> (PedometerData?, MotionError?) {
        let answer = Locked<(PedometerData?, MotionError?)>((nil, nil))
        let done = DispatchSemaphore(value: 0)
        pedometer.queryPedometerData(from: from, to: to) { data, error in
            answer.withLock { $0 = (data, error) }
            done.signal()
        }
        done.wait()
        return answer.withLock { $0 }
    }

    /// Floors from the barometer on the same source: the stairs (three storeys up, then down),
    /// counted 3 and 3 over the whole walk, 3 and 0 up to the top landing; nil without a barometer.
    @Test("floors from the barometer: three up and three down on the stairs; nil without one", arguments: [1, 2, 3] as [UInt64])
    func floorsOnTheStairs(seed: UInt64) throws {
        let clock = VirtualClock()
        let pedometer = try Pedometer(source: .simulated(Simulation(scenario: "stairs", seed: seed)), clock: clock)
        let start = pedometer.dates.date(clock.now)
        let top = try #require(Scenario.stairsLandings.first { $0.height == 9 }).time
        clock.advance(by: try #require(Scenario.named("stairs")).duration + 2)
        pedometer.flush()
        let all = try #require(Self.query(pedometer, from: start, to: .distantFuture).0)
        #expect(all.floorsAscended?.intValue == 3 && all.floorsDescended?.intValue == 3, "\(all)")
        let up = try #require(Self.query(pedometer, from: start, to: start + top).0)
        #expect(up.floorsAscended?.intValue == 3 && up.floorsDescended?.intValue == 0, "\(up)")

        var none = Simulation(scenario: "rest")
        none.barometer = nil
        let without = try Pedometer(source: .simulated(none), clock: VirtualClock())
        let nothing = try #require(Self.query(without, from: .distantPast, to: .distantFuture).0)
        #expect(nothing.floorsAscended == nil && nothing.floorsDescended == nil)
    }

    @Test("a query counts the steps between its dates, from the history")
    func queries() throws {
        let (pedometer, _, start) = try Self.walked()
        let truth = try #require(Scenario.named("walk-pauses")).stepTimes
        let all = try #require(Self.query(pedometer, from: start, to: .distantFuture).0)
        #expect(all.numberOfSteps.intValue == truth.count)
        // The second walk alone: from the pause before it to the pause after it.
        let second = (truth[0] + 22)...(truth[0] + 48)
        let part = try #require(Self.query(pedometer, from: start + second.lowerBound, to: start + second.upperBound).0)
        let expected = truth.filter { second.contains($0) }.count
        #expect(abs(part.numberOfSteps.intValue - expected) <= 1, "\(part.numberOfSteps) of \(expected)")
        #expect(part.startDate == start + second.lowerBound && part.endDate == start + second.upperBound)
        #expect(part.currentCadence == nil && part.currentPace == nil)
        // Distance and active pace: the steps times the step length, over the walking time only.
        let length = try #require(pedometer.stepLength.metres)
        #expect(abs(all.distance!.doubleValue - Double(all.numberOfSteps.intValue) * length) < 1e-9)
        let pace = try #require(all.averageActivePace).doubleValue
        #expect(abs(pace - 1 / (1.9 * length)) / pace < 0.05, "pace \(pace) s/m")
        // A walk on the level: no floor (the simulated board has a barometer).
        #expect(all.floorsAscended?.intValue == 0 && all.floorsDescended?.intValue == 0)
    }

    @Test("a query that ends before it starts is refused, the error naming the fix")
    func backwardsQuery() throws {
        let (pedometer, _, start) = try Self.walked()
        let (data, error) = Self.query(pedometer, from: start + 10, to: start)
        #expect(data == nil)
        #expect(error?.localizedDescription.contains("ends after it starts") == true)
    }

    @Test("updates from a past date start with the steps already counted since then")
    func updatesFromThePast() throws {
        let (pedometer, clock, start) = try Self.walked()
        let received = Locked<[PedometerData]>([])
        pedometer.startUpdates(from: start) { data, _ in if let data { received.withLock { $0.append(data) } } }
        pedometer.flush()
        let first = try #require(received.withLock { $0.first })
        #expect(first.numberOfSteps.intValue == Scenario.named("walk-pauses")?.stepTimes.count)
        pedometer.stopUpdates()
        clock.advance(by: 5)
        pedometer.flush()
        #expect(received.withLock { $0.count } == 1)
    }

    @Test("the step length: height, a calibration walk, or as given; nonsense is ignored")
    func stepLength() throws {
        let pedometer = try Pedometer(source: .simulated(Simulation(scenario: "rest")), clock: VirtualClock())
        #expect(abs((pedometer.stepLength.metres ?? 0) - 0.415 * 1.70) < 1e-12)
        pedometer.stepLength = .calibrationWalk(distance: 100, steps: 140)
        #expect(abs((pedometer.stepLength.metres ?? 0) - 100.0 / 140) < 1e-12)
        pedometer.stepLength = .height(-1)
        pedometer.stepLength = .calibrationWalk(distance: 100, steps: 0)
        #expect(pedometer.stepLength == .calibrationWalk(distance: 100, steps: 140))
    }

    @Test("dates are the wall clock at creation plus the monotonic time since")
    func dates() throws {
        let clock = VirtualClock(start: 500)
        let before = Date()
        let pedometer = try Pedometer(source: .simulated(Simulation(scenario: "rest")), clock: clock)
        let after = Date()
        let now = pedometer.dates.date(clock.now)
        #expect(now >= before && now <= after)
        #expect(abs(pedometer.dates.date(clock.now + 60).timeIntervalSince(now) - 60) < 1e-6)
        #expect(abs(pedometer.dates.monotonic(now) - 500) < 1e-6)
    }

    @Test("the step history keeps the newest steps when full and answers by binary search")
    func history() {
        var history = StepHistory(capacity: 4, maximumAge: 100)
        for time in [1.0, 2, 3, 4, 5, 6] { history.append(time) }
        #expect(history.count == 4 && history.oldest == 3)
        #expect(history.steps(from: 0, to: 10, now: 6) == 4)
        #expect(history.steps(from: 4, to: 6, now: 6) == 2)
        #expect(history.steps(from: 0, to: 10, now: 104.5) == 2, "older than the maximum age: not answered for")
        #expect(history.activeTime(from: 0, to: 10, now: 6, maximumInterval: 1.3) == 3)
    }
}
