import Fusion
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The background hard-iron estimator on synthetic readings: a body turning about changing axes in
/// a world-fixed field (Berlin: 49.8 µT, 68° down), an exact gyroscope, 0.4 µT of white noise on
/// the magnetometer, 100 Hz.
@Suite struct HardIronEstimatorTests {
    static let earth = SIMD3<Double>(0, 49.8 * cos(68.3 * .pi / 180), -49.8 * sin(68.3 * .pi / 180))

    /// A run: `rate(t)` in rad/s (device axes), `extra(t, attitude)` an added field in device axes
    /// (a disturbance), `offset(t)` the hard iron. Returns the estimator after `duration` seconds.
    static func run(
        _ estimator: inout HardIronEstimator, duration: Double, seed: UInt64 = 1,
        offset: (Double) -> SIMD3<Double>, rate: (Double) -> SIMD3<Double>,
        extra: (Double, Quaternion) -> SIMD3<Double> = { _, _ in .zero },
        every: Double = 0, observe: (Double, HardIronEstimator) -> Void = { _, _ in }
    ) {
        var noise = FixedSeedNoise(seed: seed)
        let dt = 0.01
        var attitude = Quaternion.identity   // device → world
        var t = 0.0
        var next = 0.0
        while t < duration {
            let omega = rate(t)
            let angle = (omega * omega).sum().squareRoot() * dt
            if angle > 0 { attitude = (attitude * Quaternion(axis: omega, angle: angle)).normalized }
            t += dt
            let field = attitude.inverseRotate(earth) + offset(t) + extra(t, attitude) + noise.gaussianVector(0.4)
            let down = attitude.inverseRotate(SIMD3(0, 0, -1))
            estimator.update(field: field, rotationRate: omega, acceleration: down, interval: dt)
            if every > 0, t >= next {
                next += every
                observe(t, estimator)
            }
        }
    }

    /// Turning at about 60 °/s about an axis that wanders through every direction.
    static func handling(_ t: Double) -> SIMD3<Double> {
        SIMD3(sin(0.9 * t), cos(0.7 * t + 1), sin(0.5 * t + 2)) * 1.0
    }

    static func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }

    @Test(arguments: [SIMD3<Double>(30, -20, 45), SIMD3(-48, 5, -12), SIMD3(0, 0, 0)])
    func turningFindsTheOffset(offset: SIMD3<Double>) {
        var estimator = HardIronEstimator()
        #expect(estimator.status.accuracy == .uncalibrated)
        Self.run(&estimator, duration: 30, offset: { _ in offset }, rate: Self.handling)
        let status = estimator.status
        #expect(Self.distance(status.offset, offset) < 0.5, "\(status)")
        #expect(status.accuracy >= .medium, "\(status)")
        #expect(Self.distance(status.offset, offset) < 3 * status.sigma, "the σ covers the error: \(status)")
        #expect(abs(status.fieldStrength - 49.8) < 1, "\(status)")
    }

    /// At rest the offset cannot be told from the Earth's field: nothing is learned, and the
    /// reason says to turn the board.
    @Test func atRestNothingIsLearned() {
        var estimator = HardIronEstimator()
        Self.run(&estimator, duration: 30, offset: { _ in SIMD3(30, -20, 45) }, rate: { _ in .zero })
        let status = estimator.status
        #expect(status.offset == .zero)
        #expect(status.accuracy == .uncalibrated)
        #expect(status.reason == .needsRotation)
    }

    /// A magnet fixed in the world near the board while it turns (the field there is another
    /// constant world field, 40 % stronger): the offset does not move, the status says disturbed.
    @Test func aMagnetNearbyMovesNothing() {
        let offset = SIMD3<Double>(12, -7, 18)
        var estimator = HardIronEstimator()
        Self.run(&estimator, duration: 30, offset: { _ in offset }, rate: Self.handling)
        let learned = estimator.estimate
        var sawDisturbed = false
        Self.run(
            &estimator, duration: 15, seed: 2, offset: { _ in offset }, rate: Self.handling,
            extra: { t, attitude in t > 3 && t < 12 ? attitude.inverseRotate(SIMD3(20, 5, -5)) : .zero },
            every: 0.5, observe: { t, estimator in if t > 4 && t < 11 { sawDisturbed = sawDisturbed || estimator.status.reason == .disturbed } })
        #expect(Self.distance(estimator.estimate, learned) < 0.5, "moved \(Self.distance(estimator.estimate, learned)) µT")
        #expect(sawDisturbed)
    }

    /// A magnet attached to the board after 30 s: a lasting new offset, relearned while the board
    /// turns.
    @Test func anAttachedMagnetIsRelearned() {
        let before = SIMD3<Double>(12, -7, 18), after = SIMD3<Double>(32, 3, 5)
        var estimator = HardIronEstimator()
        var relearnedAt: Double?
        var learned = SIMD3<Double>.zero
        Self.run(
            &estimator, duration: 60, offset: { t in t < 30 ? before : after }, rate: Self.handling,
            every: 0.1, observe: { t, estimator in
                if abs(t - 29.9) < 0.05 { learned = estimator.estimate }
                if relearnedAt == nil, estimator.status.changes == 1 { relearnedAt = t }
            })
        #expect(Self.distance(learned, before) < 0.5)
        #expect(estimator.status.changes == 1)
        #expect(Self.distance(estimator.estimate, after) < 0.5, "\(estimator.status)")
        let seconds = (relearnedAt ?? .infinity) - 30
        #expect(seconds < 25, "relearned after \(seconds) s")
    }

    /// A starting point (a stored calibration) gives its accuracy at once.
    @Test func aStartingPointGivesItsAccuracy() {
        #expect(HardIronEstimator(sigma: 0.2).status.accuracy == .high)
        #expect(HardIronEstimator(sigma: 0.8).status.accuracy == .medium)
        #expect(HardIronEstimator(sigma: 2.5).status.accuracy == .low)
        #expect(HardIronEstimator().status.accuracy == .uncalibrated)
    }

    /// Readings with NaN or infinity are skipped, never learned from.
    @Test func badReadingsAreSkipped() {
        var estimator = HardIronEstimator()
        for _ in 0..<100 {
            estimator.update(field: SIMD3(.nan, 0, 0), rotationRate: SIMD3(1, 0, 0), acceleration: SIMD3(0, 0, -1), interval: 0.01)
            estimator.update(field: SIMD3(1, 2, 3), rotationRate: SIMD3(.infinity, 0, 0), acceleration: SIMD3(0, 0, -1), interval: 0.01)
        }
        #expect(estimator.estimate == .zero)
        #expect(estimator.status.sigma.isFinite)
    }
}
