@testable import FieldCalibration
import Fusion
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Soft iron from the holds between turns (``HoldSoftIron``) and its least squares
/// (``RotationPairFit``), on synthetic readings (``HardIronEstimatorTests/forEachSample``:
/// m = S·h + b + 0.4 µT noise, Berlin's field, 100 Hz).
@Suite struct HoldSoftIronTests {
    static let offset = SIMD3<Double>(30, -20, 45)
    static let softIron = HardIronEstimatorTests.softIron

    /// ‖C·S/λ − I‖: the soft iron a correction C leaves of S (λ: C·S's mean diagonal).
    static func left(_ correction: Matrix3, _ softIron: Matrix3) -> Double {
        let product = correction * softIron
        let scale = (product.m11 + product.m22 + product.m33) / 3
        return ((1 / scale) * product - .identity).frobeniusNorm
    }

    /// Attitudes over a cap (tilted up to 60°, turned about the vertical by up to 150°, never upside
    /// down): exact readings give C and b exactly; the equation is linear in them.
    @Test func exactPairsGiveTheSoftIronAndTheOffsetOverACap() throws {
        let attitudes = [
            Quaternion.identity, Quaternion(roll: 0, pitch: 50 * .pi / 180, yaw: 0),
            Quaternion(roll: 0, pitch: 40 * .pi / 180, yaw: 100 * .pi / 180),
            Quaternion(roll: 60 * .pi / 180, pitch: 20 * .pi / 180, yaw: 150 * .pi / 180),
            Quaternion(roll: -30 * .pi / 180, pitch: 60 * .pi / 180, yaw: 30 * .pi / 180),
        ]
        let readings = attitudes.map { Self.softIron * $0.inverseRotate(HardIronEstimatorTests.earth) + Self.offset }
        var fit = RotationPairFit()
        for i in attitudes.indices {
            for j in attitudes.indices where j > i {
                // Φ takes a world-fixed vector from device axes at i to those at j.
                let phi = (attitudes[i].conjugate * attitudes[j]).conjugate.rotationMatrix
                fit.add(earlier: readings[i], later: readings[j], rotation: phi, variance: 0.1)
            }
        }
        #expect(fit.count == 10)
        let solution = try #require(fit.solve())
        #expect(Self.left(solution.correction, Self.softIron) < 1e-9, "\(solution.correction)")
        #expect(HardIronEstimatorTests.distance(solution.offset, Self.offset) < 1e-7, "\(solution.offset)")
    }

    /// Pairs turned about one axis only leave a combination undetermined: no solution.
    @Test func oneAxisOfTurningDeterminesNothing() {
        var fit = RotationPairFit()
        for k in 1...6 {
            let attitude = Quaternion(axis: SIMD3(0, 0, 1), angle: Double(k) * 0.5)
            let earlier = Self.softIron * HardIronEstimatorTests.earth + Self.offset
            let later = Self.softIron * attitude.inverseRotate(HardIronEstimatorTests.earth) + Self.offset
            fit.add(earlier: earlier, later: later, rotation: attitude.conjugate.rotationMatrix, variance: 0.1)
        }
        #expect(fit.solve() == nil)
    }

    /// Turns of about 100° about changing axes with a second's hold between them, the gyroscope
    /// Turns of 100° about changing axes, eased in and out over 1.5 s, with a second's hold
    /// between them.
    static func turnsWithHolds(_ t: Double) -> SIMD3<Double> {
        let period = 2.5, turning = 1.5
        let k = (t / period).rounded(.down), phase = t - k * period
        guard phase < turning else { return .zero }
        let axis = SIMD3(sin(1.3 * k + 0.4), cos(2.1 * k), sin(0.7 * k + 1.9))
        let unit = axis / (axis * axis).sum().squareRoot()
        // 100° eased in and out: sin² profile.
        return unit * (100 * .pi / 180) * (2 / turning) * pow(sin(.pi * phase / turning), 2)
    }

    static let bias = SIMD3<Double>(0.3, -0.25, 0.2) * .pi / 180

    /// The gyroscope 0.44 °/s off (the LSM6DSOX preset's bias) and the sampler's estimate of it
    /// zero: a full hold measures the bias (to the 0.03 °/s the pairs' noise allows for: the turns'
    /// ease leaves a little in it), and after ten holds soft iron is known to 1.5 % and the offset
    /// to 1 µT. Readings every 10 ms are noisy (0.4 µT); the holds average that away.
    @Test func holdsBetweenTurnsGiveTheSoftIron() throws {
        var holds = HoldSoftIron()
        HardIronEstimatorTests.forEachSample(duration: 26, offset: { _ in Self.offset }, softIron: Self.softIron, rate: Self.turnsWithHolds) {
            _, field, omega, _, dt in
            holds.add(field, rotationRate: omega + Self.bias, gyroBias: .zero, interval: dt, disturbed: false, fieldStrength: 49.8)
        }
        let measured = try #require(holds.measuredBias)
        #expect(HardIronEstimatorTests.distance(measured, Self.bias) < HoldSoftIron.biasUncertainty, "\(measured * 180 / .pi) °/s")
        let solution = try #require(holds.solution)
        #expect(holds.pairsUsed >= 30)
        #expect(holds.pairsRejected == 0)
        #expect(solution.softIronSigma < 0.015)
        #expect(Self.left(solution.correction, Self.softIron) < 0.015, "\(solution.correction)")
        #expect(HardIronEstimatorTests.distance(solution.offset, Self.offset) < 1, "\(solution.offset)")
    }

    /// Turning without ever holding still gives no pair at all: nothing is fitted.
    @Test func turningWithoutHoldsFitsNothing() {
        var holds = HoldSoftIron()
        HardIronEstimatorTests.forEachSample(duration: 30, offset: { _ in Self.offset }, softIron: Self.softIron, rate: HardIronEstimatorTests.handling) {
            _, field, omega, _, dt in
            holds.add(field, rotationRate: omega, gyroBias: .zero, interval: dt, disturbed: false, fieldStrength: 49.8)
        }
        #expect(holds.pairsUsed == 0)
        #expect(holds.solution == nil)
    }

    /// A magnet near the board during one late hold (10 µT more, unseen by the estimator's guard):
    /// its pairs do not fit the solution known by then and are left out; the fit stays right.
    @Test func aHoldThatDoesNotFitIsLeftOut() throws {
        var holds = HoldSoftIron()
        let magnet: (Double, Quaternion) -> SIMD3<Double> = { t, _ in t >= 21.5 && t < 22.6 ? SIMD3(10, 0, 0) : .zero }
        HardIronEstimatorTests.forEachSample(
            duration: 26, offset: { _ in Self.offset }, softIron: Self.softIron, rate: Self.turnsWithHolds, extra: magnet
        ) { _, field, omega, _, dt in
            holds.add(field, rotationRate: omega, gyroBias: .zero, interval: dt, disturbed: false, fieldStrength: 49.8)
        }
        #expect(holds.pairsRejected > 0)
        let solution = try #require(holds.solution)
        #expect(Self.left(solution.correction, Self.softIron) < 0.015, "\(solution.correction)")
        #expect(HardIronEstimatorTests.distance(solution.offset, Self.offset) < 1, "\(solution.offset)")
    }

    /// A gap in the samples (or a bad one: NaN, a zero interval) breaks the gyroscope's chain:
    /// holds before it are never paired with holds after it (the rotation between them is unknown).
    @Test func aGapSeparatesTheHolds() {
        var whole = HoldSoftIron(), split = HoldSoftIron()
        // Two turns with a hold after each: one pair; a NaN reading in the second turn, at 3 s.
        HardIronEstimatorTests.forEachSample(duration: 5.5, offset: { _ in Self.offset }, softIron: Self.softIron, rate: Self.turnsWithHolds) {
            t, field, omega, _, dt in
            whole.add(field, rotationRate: omega, gyroBias: .zero, interval: dt, disturbed: false, fieldStrength: 49.8)
            let bad = abs(t - 3) < 0.005
            split.add(bad ? SIMD3(.nan, 0, 0) : field, rotationRate: omega, gyroBias: .zero, interval: dt, disturbed: false, fieldStrength: 49.8)
        }
        #expect(whole.pairsUsed == 1)
        #expect(split.pairsUsed == 0)
    }

    /// A magnet stuck to the board at 30 s (12 µT more hard iron) while it is turned and held
    /// between turns: the change is confirmed (by the stretches, or by pairs of holds after it came
    /// to be suspected) and the new offset learned, to within 2 µT by 70 s.
    @Test func anAttachedMagnetIsRelearnedWithTheHolds() throws {
        let magnet = SIMD3<Double>(8, -7, 5)
        let offset: (Double) -> SIMD3<Double> = { t in t < 30 ? Self.offset : Self.offset + magnet }
        var correction = BackgroundFieldCorrection(HardIronEstimator())
        HardIronEstimatorTests.forEachSample(duration: 70, offset: offset, softIron: Self.softIron, rate: Self.turnsWithHolds) {
            t, field, omega, down, dt in
            _ = correction.correct(field, rotationRate: omega, acceleration: down, interval: dt, timestamp: t)
        }
        #expect(correction.status.changes >= 1)
        #expect(HardIronEstimatorTests.distance(correction.status.offset, offset(70)) < 2, "\(correction.status.offset) against \(offset(70))")
    }

    /// Through the correction the sampler runs: the holds' fit is applied before the estimator, and
    /// the offset it reports (in the field's frame) is the hard iron's to within 1 µT.
    @Test func theCorrectionAppliesTheHoldFit() throws {
        var correction = BackgroundFieldCorrection(HardIronEstimator())
        HardIronEstimatorTests.forEachSample(duration: 30, offset: { _ in Self.offset }, softIron: Self.softIron, rate: Self.turnsWithHolds) {
            t, field, omega, down, dt in
            _ = correction.correct(field, rotationRate: omega, acceleration: down, interval: dt, timestamp: t)
        }
        let fit = try #require(correction.softIronFit)
        #expect(Self.left(fit.softIron, Self.softIron) < 0.015)
        #expect(HardIronEstimatorTests.distance(correction.status.offset, Self.offset) < 1, "\(correction.status.offset)")
        #expect(correction.estimator.parameters.softIronAllowance < 0.04)
    }
}
