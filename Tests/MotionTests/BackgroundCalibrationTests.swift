import Foundation
import Fusion
@testable import Motion
import MotionSimulation
import MotionSimulator
import MotionTools
import Testing
import TestSupport

/// The background magnetometer calibration on the simulated board, in virtual time, as issue #25
/// asks: hard iron drawn per seed within ±50 µT per axis (`BackgroundCalibrationTrial.hardIron`),
/// nothing stored, the chip presets' noise and biases. Seeds 1…20 are reported (docs/background-calibration.md); the
/// estimator was tuned on seeds 101…160 only.
@Suite struct BackgroundCalibrationTests {
    static func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }

    /// After ordinary handling (25.5 s, no figure-eight), on the board as it comes (its magnetometer
    /// with the chip preset's soft iron, a few per cent): the offset is within 1 µT of the hard iron
    /// and the heading within 2° RMS for the rest of the run (issue #25's acceptance; the table in
    /// docs/background-calibration.md). Soft iron and offset come from the holds between the turns (``HoldSoftIron``). The
    /// accuracy says `high` only while the offset is within 1 µT. Without soft iron the holds find
    /// none to fit, and the estimator cannot know that there is none: it fears the soft iron a
    /// board may have (``HardIronEstimator/Parameters/softIronAllowance``, bounded by the holds to
    /// about 4 %), which over the cap of directions ordinary handling covers cannot be told from
    /// part of the offset, so that part is the stretches' alone: the offset within 2 µT (measured:
    /// up to 1.94 µT; 0.85 µT while the estimator took the soft iron to be zero), the heading
    /// still within 2°.
    @Test(arguments: 1...20, [false, true])
    func ordinaryHandlingFindsTheHardIron(seed: UInt64, softIron: Bool) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, duration: 60, softIron: softIron ? nil : .identity)
        let end = Scenario.handlingDuration
        let after = trial.after(end)
        let offsetError = try #require(after.first).offsetError
        #expect(trial.highButWrong == 0, "seed \(seed): said high while more than 1 µT off")
        #expect(after.allSatisfy { $0.accuracy >= .low }, "seed \(seed)")
        let bound = softIron ? 1.0 : 2.0
        #expect(offsetError < bound, "seed \(seed): offset \(offsetError) µT off after the handling")
        #expect(after.allSatisfy { $0.offsetError < bound }, "seed \(seed): the offset left \(bound) µT later")
        #expect(trial.headingRMS(after: end) < 2, "seed \(seed): heading RMS \(trial.headingRMS(after: end))°")
    }

    /// The figure-eight covers every direction: without soft iron the accuracy reaches `high`
    /// (seeds 101–160: after 50.5–99.5 s) and is right when it says so; with soft iron it never
    /// says `high` while more than 1 µT off.
    @Test(arguments: [1, 2] as [UInt64], [false, true])
    func aWholeSphereOfDirectionsReachesHighSoundly(seed: UInt64, softIron: Bool) throws {
        let trial = try BackgroundCalibrationTrial.run(
            seed: seed, scenario: "figure-eight", duration: 124, softIron: softIron ? nil : .identity, step: 0.2)
        #expect(trial.highButWrong == 0, "seed \(seed)")
        if !softIron {
            let high = try #require(trial.timeToHigh, "seed \(seed): never high")
            #expect(high < 110, "seed \(seed): high after \(high) s")
        }
    }

    /// A location makes the World Magnetic Model's field there the reference: where it matches the
    /// simulated world's (Berlin), the status carries its strength and the offset is found as
    /// without; where it does not (Sydney's field, 57 µT pointing up), the field counts as
    /// disturbed once the offset is known, and the accuracy stays `low` at most.
    @Test func aLocationGivesTheReference() throws {
        let berlin = GeographicLocation(latitude: 52.52, longitude: 13.40)
        let trial = try BackgroundCalibrationTrial.run(seed: 3, duration: 40, softIron: .identity, location: berlin)
        let expected = WorldMagneticModel.strengthAndDip(
            latitude: berlin.latitude, longitude: berlin.longitude, date: MotionManager.decimalYear(of: Date()))
        #expect(abs(expected.x - 49.8) < 1)
        // The model's secular change between the manager's date and this one: well under 1e-3 µT.
        let off = trial.points.filter { abs($0.fieldStrength - expected.x) >= 1e-3 }
        #expect(off.isEmpty, "\(off.count) points with another reference, the first \(off.first.map { "\($0.fieldStrength) µT at \($0.time) s" } ?? "")")
        #expect(trial.after(Scenario.handlingDuration).allSatisfy { $0.offsetError < 1 })

        let sydney = GeographicLocation(latitude: -33.87, longitude: 151.21)
        let elsewhere = try BackgroundCalibrationTrial.run(seed: 3, duration: 40, softIron: .identity, location: sydney)
        let after = elsewhere.after(Scenario.handlingDuration)
        #expect(!after.isEmpty && after.allSatisfy { $0.reason == .disturbed && $0.accuracy <= .low })
    }

    /// Lying still from power-on: nothing can be learned, the accuracy stays `uncalibrated`, and
    /// the reason says the board must be turned.
    @Test func atRestItStaysUncalibratedAndSaysWhy() throws {
        let trial = try BackgroundCalibrationTrial.run(seed: 1, scenario: "rest", duration: 30)
        #expect(trial.points.count == 300)
        #expect(trial.points.allSatisfy { $0.accuracy == .uncalibrated })
        #expect(trial.points.allSatisfy { $0.offset == .zero })
        #expect(trial.after(3).allSatisfy { $0.reason == .needsRotation })
    }

    /// A magnet on the table passed close by (≈ 100 µT at 6 cm), the board turned there: the
    /// estimate learned before moves by less than 0.5 µT.
    @Test(arguments: [1, 2, 3] as [UInt64], [false, true])
    func aPassingMagnetMovesTheEstimateLittle(seed: UInt64, softIron: Bool) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: "magnet-passing", duration: 50, softIron: softIron ? nil : .identity)
        let before = try #require(trial.after(Scenario.handlingDuration).first).offset
        let near = trial.points.filter { $0.time > Scenario.handlingDuration && $0.time < Scenario.handlingDuration + 22 }
        let moved = near.map { Self.distance($0.offset, before) }.max() ?? .infinity
        #expect(moved < 0.5, "seed \(seed): moved \(moved) µT")
        #expect(near.contains { $0.reason == .disturbed })
        #expect(near.allSatisfy { $0.changes == 0 })
    }

    /// A magnet stuck to the board (a new, lasting hard iron of ≈ 15.5 µT): detected and relearned
    /// while the board is handled again (within 1.5 µT by the end of that handling), the heading
    /// back within 2°; on the board without soft iron and as it comes (its soft iron fitted from
    /// the holds first). Over 20 seeds with soft iron (docs/background-calibration.md): relearned in 18, after 15.2–19.8 s.
    @Test(arguments: [1, 2, 3] as [UInt64], [false, true])
    func anAttachedMagnetIsRelearned(seed: UInt64, softIron: Bool) throws {
        let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: "magnet-attached", duration: 90, softIron: softIron ? nil : .identity)
        let attached = Scenario.magnetAttachedTime
        let world = trial.world
        let added = world.magneticField(attitude: .identity, position: .zero, scriptTime: attached)
            - world.magneticField(attitude: .identity, position: .zero, scriptTime: 0)
        #expect(Self.distance(added, .zero) > 15, "the magnet adds \(added) µT")
        let truth = trial.trueOffset + added
        let relearned = try #require(trial.points.first { $0.time > attached && $0.changes >= 1 }, "seed \(seed): never relearned")
        let seconds = relearned.time - attached
        #expect(seconds < BackgroundCalibrationTests.relearnBound, "seed \(seed): relearned after \(seconds) s")
        let end = attached + 10 + Scenario.handlingDuration - 2
        let last = try #require(trial.points.last)
        #expect(Self.distance(last.offset, truth) < 1.5, "seed \(seed): \(last.offset) against \(truth)")
        #expect(trial.headingRMS(after: end) < 2, "seed \(seed): heading RMS \(trial.headingRMS(after: end))°")
    }

    /// Moved 0.4 m to and fro fast for 60 s near a steel cabinet, tilted as it goes, then put
    /// down 3 m away (`fast-translation`): the offset learned in the handling before stays within
    /// a µT on average over seeds 1–3 (0.73, 1.07, 0.86 µT when put down; with the readings
    /// weighed as if the board had stayed in one place, `fieldGradient` 0: 0.97, 1.38, 1.29), and no
    /// change of hard iron is taken.
    @Test func aShakenBoardKeepsItsOffset() throws {
        let putDown = try #require(Scenario.named("fast-translation")).script.duration - 10
        var errors: [Double] = []
        for seed in [1, 2, 3] as [UInt64] {
            let trial = try BackgroundCalibrationTrial.run(seed: seed, scenario: "fast-translation", duration: putDown + 1)
            let point = try #require(trial.after(putDown + 0.5).first)
            errors.append(point.offsetError)
            #expect(point.changes == 0, "seed \(seed)")
        }
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(mean < 1, "offset errors \(errors) µT")
    }

    /// Seconds of handling after which an attached magnet is relearned (docs/background-calibration.md states it).
    static let relearnBound = 20.0

    /// The second run of a program starts from the estimate the first one saved: its first
    /// sample is already calibrated, and the record says it is a background estimate.
    @Test func theSecondRunStartsFromTheSavedEstimate() throws {
        try withTemporaryDirectory("background-calibration") { directory in
            let store = CalibrationStore(directory: directory)
            let first = try BackgroundCalibrationTrial.run(seed: 4, duration: 40, softIron: .identity, store: store)
            #expect(first.firstAccuracy == .uncalibrated)
            let records = try store.all()
            #expect(records.count == 1)
            let magnetometer = try #require(records.first?.record.magnetometer)
            #expect(magnetometer.isBackground)
            #expect(magnetometer.offsetSigma.map { $0 < 1 } == true)
            let stored = SIMD3(magnetometer.hardIronOffset[0], magnetometer.hardIronOffset[1], magnetometer.hardIronOffset[2])
            #expect(Self.distance(stored, first.trueOffset) < 1, "saved \(stored) against \(first.trueOffset)")

            let second = try BackgroundCalibrationTrial.run(seed: 4, scenario: "rest", duration: 5, softIron: .identity, store: store)
            #expect(second.firstAccuracy.map { $0 >= .medium } == true, "\(String(describing: second.firstAccuracy))")
            #expect(second.points.allSatisfy { $0.accuracy >= .medium })
        }
    }

    /// An explicit (figure-eight) calibration wins: the background estimate corrects the live
    /// field but never overwrites it. And its accuracy is the field's from the first sample (the
    /// live view said `uncalibrated` after a figure-eight before).
    @Test func aFigureEightIsNeverOverwrittenAndGivesItsAccuracy() throws {
        try withTemporaryDirectory("background-calibration") { directory in
            let store = CalibrationStore(directory: directory)
            let sensor = SensorIdentity(board: "simulated", chip: "LIS3MDL", bus: "simulated", address: 0x1C)
            var record = CalibrationRecord(sensor: sensor)
            record.magnetometer = CalibrationRecord.Magnetometer(
                hardIronOffset: BackgroundCalibrationTrial.hardIron(seed: 5), softIronMatrix: Matrix3.identity.rowMajor, fieldStrength: 49.8,
                fitErrorPercent: 1, coveragePercent: 90, model: "offset", accuracy: "medium")
            try store.save(record)
            let trial = try BackgroundCalibrationTrial.run(seed: 5, duration: 40, softIron: .identity, store: store)
            #expect(trial.firstAccuracy == .medium)
            // The residual it learns is measured from the stored offset (zero when that is right).
            #expect(trial.after(Scenario.handlingDuration).allSatisfy { Self.distance($0.offset, .zero) < 1 })
            let after = try #require(try store.load(sensor))
            #expect(after.magnetometer == record.magnetometer)
        }
    }
}
