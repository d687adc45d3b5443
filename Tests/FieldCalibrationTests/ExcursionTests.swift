@testable import FieldCalibration
import Fusion
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// How far the board is from where it has recently been (``Excursion``), at 100 Hz, on readings
/// made up from a known motion: the accelerometer in g with Core Motion's sign (gravity plus the
/// acceleration, face up at rest `(0, 0, −1)`), the gyroscope exact.
@Suite struct ExcursionTests {
    static let g = Excursion.standardGravity

    /// Samples of a board turning at `rate(t)` (rad/s, device axes) from level, its position
    /// `position(t)` in metres (world axes); `body(t, excursion)` after each.
    static func run(
        duration: Double, seed: UInt64 = 1, accelerometerNoise: Double = 0,
        rate: (Double) -> SIMD3<Double>, position: (Double) -> SIMD3<Double>,
        body: (Double, Excursion) -> Void
    ) {
        var noise = FixedSeedNoise(seed: seed)
        var excursion = Excursion()
        let h = 1e-3
        HardIronEstimatorTests.forEachAttitude(duration: duration, rate: rate) { t, attitude, omega, dt in
            // The second derivative of the position, by central differences (exact for the
            // quadratic and near enough for a sine at this step).
            let accelerationInWorld = (position(t + h) - 2 * position(t) + position(t - h)) / (h * h)
            let reading = attitude.inverseRotate(SIMD3(0, 0, -1) + accelerationInWorld / g) + noise.gaussianVector(accelerometerNoise)
            excursion.update(acceleration: reading, rotationRate: omega, interval: dt)
            body(t, excursion)
        }
    }

    /// Turned fast (up to 8 rad/s, 460 °/s) about an axis that wanders, its sensor at the centre
    /// of the turn: nothing moves, and gravity turned along with the board stays gravity (a
    /// first-order step of the turn would lengthen it by θ²/2 a sample, read as acceleration).
    @Test func turningIsNotMoving() {
        var worst = 0.0
        Self.run(duration: 20, rate: { t in SIMD3(sin(0.9 * t), cos(0.7 * t + 1), sin(0.5 * t + 2)) * 8 }, position: { _ in .zero }) { _, excursion in
            worst = max(worst, excursion.distance)
        }
        #expect(worst < 0.005, "\(worst) m")
    }

    /// Shaken 0.2 m to and fro along a horizontal axis at 1 Hz, level and not turning: once the
    /// averages have settled, the excursion swings to 0.2 m (less the three first-order
    /// high-passes' loss at 1 Hz with τ 1 s, ((2π)²/((2π)² + 1))^(3/2) = 0.964: 0.193 m).
    @Test func shakingIsMoving() {
        var largest = 0.0
        Self.run(duration: 20, rate: { _ in .zero }, position: { t in SIMD3(0.2 * sin(2 * .pi * t), 0, 0) }) { t, excursion in
            if t >= 10 { largest = max(largest, excursion.distance) }
        }
        #expect(abs(largest - 0.193) < 0.01, "\(largest) m")
    }

    /// The same while turning a little (±20° about all three axes): the shake is seen in the
    /// turning axes, and still measured.
    @Test func shakingWhileTurning() {
        var largest = 0.0
        Self.run(duration: 20, rate: { t in SIMD3(0.4 * cos(1.3 * t), 0.35 * cos(0.9 * t + 1), 0.3 * cos(0.7 * t + 2)) },
                 position: { t in SIMD3(0.2 * sin(2 * .pi * t), 0, 0) }) { t, excursion in
            if t >= 10 { largest = max(largest, excursion.distance) }
        }
        #expect(abs(largest - 0.193) < 0.02, "\(largest) m")
    }

    /// Lying still with 0.002 g of white noise per axis on the accelerometer (a few times a
    /// consumer MEMS accelerometer's at 100 Hz): millimetres.
    @Test func atRestNothingMoves() {
        var worst = 0.0
        Self.run(duration: 60, accelerometerNoise: 0.002, rate: { _ in .zero }, position: { _ in .zero }) { _, excursion in
            worst = max(worst, excursion.distance)
        }
        #expect(worst < 0.005, "\(worst) m")
    }

    /// A reading that is not a number (a chip's garbage, a division by zero upstream) is no
    /// distance: it starts the excursion again, and the next good one sets gravity.
    @Test func badReadingsStartAgain() {
        var excursion = Excursion()
        excursion.update(acceleration: SIMD3(0, 0, -1), rotationRate: .zero, interval: 0.01)
        for bad in [SIMD3<Double>(.nan, 0, -1), SIMD3(0, .infinity, -1)] {
            excursion.update(acceleration: SIMD3(0.5, 0, -1), rotationRate: .zero, interval: 0.01)
            excursion.update(acceleration: bad, rotationRate: .zero, interval: 0.01)
            #expect(excursion.distance == 0)
            #expect(excursion.gravity == nil)
        }
        excursion.update(acceleration: SIMD3(0, 0, -1), rotationRate: SIMD3(.nan, 0, 0), interval: 0.01)
        #expect(excursion.gravity == nil)
        excursion.update(acceleration: SIMD3(0, 0, -1), rotationRate: .zero, interval: 0.01)
        #expect(excursion.gravity == SIMD3(0, 0, -1))
        #expect(excursion.distance.isFinite)
    }

    /// Samples that stop following one another start it again: the next one sets gravity.
    @Test func aRestartForgets() {
        var excursion = Excursion()
        excursion.update(acceleration: SIMD3(0, 0, -1), rotationRate: .zero, interval: 0.01)
        for _ in 0..<50 { excursion.update(acceleration: SIMD3(0.5, 0, -1), rotationRate: .zero, interval: 0.01) }
        #expect(excursion.distance > 0.01)
        excursion.restart()
        #expect(excursion.distance == 0)
        #expect(excursion.gravity == nil)
        excursion.update(acceleration: SIMD3(0, 1, 0), rotationRate: .zero, interval: 0.01)
        #expect(excursion.gravity == SIMD3(0, 1, 0))
    }
}
