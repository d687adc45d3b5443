import Foundation
import FieldCalibration
import Fusion
@testable import Motion
import MotionSimulation
import MotionSimulator
import MotionTools
import Testing
import TestSupport

/// The background magnetometer calibration on motions it was not designed on (issue #39): a
/// tumble with no holds, a robot arm's repeated moves, a vehicle's turns. Each accuracy promises
/// a heading σ (``HardIronEstimator/headingBound(_:)``: high 1°, medium 3°, low 10°); from 30 s
/// on, the heading error's RMS over the samples that said a level must stay within its promise
/// (`BackgroundCalibrationTrial.brokenPromises`). docs/background-calibration.md has the 20-seed
/// figures (every promise kept on seeds 1–20, and on 21–60, which nothing was looked at on).
@Suite struct UnseenMotionTests {
    /// A robot arm cycling through five poses with short stops: the holds' fit finds the soft
    /// iron at its stops, and no level said from 30 s on is exceeded by the heading error
    /// (20 seeds: medium's RMS 1.21°, worst seed 1.46°).
    @Test(arguments: [1, 2] as [UInt64])
    func aRobotArmKeepsEveryPromise(seed: UInt64) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: "robot-arm", duration: 117)
        #expect(trial.timeToSoftIronFit != nil)
        #expect(trial.brokenPromises(after: 30).isEmpty, "\(trial.headingRMSByAccuracy(after: 30))")
        #expect(trial.headingRMS(after: 30) < 2)
        #expect(trial.highButWrong == 0)
    }

    /// Tumbling without a hold: the soft iron comes from continuous rotation (the one the
    /// estimator learns from the field's strength, applied once it makes the readings kept more
    /// nearly a sphere; 20 seeds: at 12.8–39.0 s, 0.6–2.2 % of 7.4 % left at the end, heading RMS
    /// from 30 s 0.57–1.88°, `medium` in 17,759 of the 18,020 samples from 30 s, at 1.19° RMS).
    @Test(arguments: [1, 2] as [UInt64])
    func aTumbleFitsSoftIronFromContinuousRotation(seed: UInt64) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: "tumble", duration: 120)
        let fitted = try #require(trial.timeToSoftIronFit, "seed \(seed): never fitted")
        #expect(fitted < 40, "seed \(seed): fitted at \(fitted) s")
        let last = try #require(trial.points.last)
        #expect(last.softIronLeft < 0.025, "seed \(seed): \(last.softIronLeft * 100) % left")
        #expect(trial.brokenPromises(after: 30).isEmpty, "\(trial.headingRMSByAccuracy(after: 30))")
        #expect(trial.headingRMS(after: 30) < 2)
        #expect(trial.highButWrong == 0)
    }

    /// Every promise kept on every motion it was not designed on (issue #39 item 3): from 30 s on
    /// and from the first sample, the heading error's RMS over the samples that said a level stays
    /// within that level's bound, for each scenario × seed (docs/background-calibration.md has the 20-seed table). The
    /// accuracy is the calibration's, the attitude filter's heading σ
    /// (``AttitudeFilter/headingSigma``) and the sphere's misfit taken into account.
    @Test(arguments: [("tumble", 120.0), ("vehicle-turning", 108), ("robot-arm", 117), ("pendulum", 102)], [1, 2, 3] as [UInt64])
    func noPromiseIsBroken(scenario: (name: String, duration: Double), seed: UInt64) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: scenario.name, duration: scenario.duration)
        #expect(trial.brokenPromises(after: 30).isEmpty, "\(scenario.name) seed \(seed): \(trial.headingRMSByAccuracy(after: 30))")
        // From the first sample too (the pendulum's seed 1 once said `low` over the raw field).
        #expect(trial.brokenPromises(after: 0).isEmpty, "\(scenario.name) seed \(seed): \(trial.headingRMSByAccuracy(after: 0))")
    }

    /// A vehicle's turns in the seed whose `medium` broke its promise worst before the heading σ
    /// carried the soft iron the stretches leave out (4: 5.5–6.3° off at σ 2.8–2.9°, 42–45 s), and
    /// in one whose heading was held from the field as read for 24 s once that σ kept the level
    /// `uncalibrated` after the offset was removed (16: 39° RMS from 30 s): every promise kept from
    /// the first sample, and the heading within 4° RMS from 30 s (3.10° and 1.79°).
    @Test(arguments: [4, 16] as [UInt64])
    func aVehicleKeepsEveryPromise(seed: UInt64) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: "vehicle-turning", duration: 108)
        #expect(trial.brokenPromises(after: 0).isEmpty, "seed \(seed): \(trial.headingRMSByAccuracy(after: 0))")
        #expect(trial.headingRMS(after: 30) < 4, "seed \(seed)")
    }

    /// Continuous tumbling (no holds, 38 % of the directions) and a vehicle's turns (yaw alone,
    /// the vertical offset unseen): `high` is never said, and `low`'s 10° is kept; the offset
    /// the stretches cannot see (the vertical in a vehicle) is left, not guessed.
    @Test(arguments: ["tumble", "vehicle-turning"], [1, 2] as [UInt64])
    func turningWithoutHoldsNeverClaimsHigh(scenario: String, seed: UInt64) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: scenario, duration: 100)
        let levels = trial.headingRMSByAccuracy(after: 30)
        #expect(levels[.high] == nil, "\(levels)")
        #expect(levels[.low].map { $0.rms <= HardIronEstimator.headingBound(.low) } ?? true, "\(levels)")
        #expect(trial.points.allSatisfy { $0.accuracy != .high })
    }
}
