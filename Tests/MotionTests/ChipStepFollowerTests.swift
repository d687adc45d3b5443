@testable import Motion
import Sensors
import Testing

/// The IMU's step counter as the step stage follows it: differences across the wrap, a counter
/// that starts again after a reset, the debounce's burst, and the pace from the readings.
@Suite struct ChipStepFollowerTests {
    static let feature = StepCounterFeature(wrap: 65_536, minimumRate: 26, debounceSteps: 10, source: "test")

    @Test func countsDifferencesAcrossTheWrap() {
        var follower = ChipStepFollower(feature: Self.feature, maximumStepInterval: 1.3)
        follower.take(65_530, at: 0)
        #expect(follower.progress.steps == 0)
        follower.take(65_535, at: 1)
        follower.take(4, at: 2)
        #expect(follower.progress.steps == 10)
    }

    /// After a reset the chip counts from 0 again: a reading below the last, further than any
    /// walk could go in the time, is what came since.
    @Test func aCounterStartedAgainCountsFromZero() {
        var follower = ChipStepFollower(feature: Self.feature, maximumStepInterval: 1.3)
        follower.take(40_000, at: 0)
        follower.take(40_002, at: 1)
        follower.take(3, at: 2)
        #expect(follower.progress.steps == 5)
    }

    /// The debounce's ten steps at once, then a step every 0.5 s read ten times a second: the pace
    /// is unknown until five readings have moved, then 0.5 s; a stop ends the walk.
    @Test func thePaceComesFromTheReadingsThatMoved() {
        var follower = ChipStepFollower(feature: Self.feature, maximumStepInterval: 1.3)
        follower.take(0, at: 0)
        follower.take(10, at: 0.1)
        #expect(follower.progress.steps == 10)
        #expect(follower.progress.isWalking)
        #expect(follower.progress.stepInterval == 0)
        var raw = 10
        var paces: [Double] = []
        for tick in 2...60 {
            let time = Double(tick) / 10
            if tick % 5 == 1 { raw += 1 }
            follower.take(raw, at: time)
            paces.append(follower.progress.stepInterval)
        }
        #expect(follower.progress.steps == 21)
        #expect(paces.contains(0))
        #expect(abs(paces.last! - 0.5) < 1e-9, "\(paces.last!)")
        for tick in 61...90 { follower.take(raw, at: Double(tick) / 10) }
        #expect(!follower.progress.isWalking)
    }
}
