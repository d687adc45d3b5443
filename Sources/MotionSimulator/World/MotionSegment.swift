import Foundation
import Fusion

/// One piece of a ``MotionScript``: what the device does for `duration` seconds, starting from
/// wherever the previous segment left it. Every segment starts and ends at rest (zero velocity and
/// angular rate, continuous acceleration), so a script never jumps.
///
/// Frames: "device" axes are Core Motion's (x right, y top edge, z out of the screen); "world" is
/// East-North-Up in metres, with the script starting at the origin.
package struct MotionSegment: Sendable {
    /// Seconds.
    package let duration: Double
    let kind: Kind

    enum Kind: Sendable {
        case rest
        case reach(attitude: Quaternion?, position: PositionTarget, transition: Double)
        case rotate(axis: SIMD3<Double>, inWorld: Bool, rate: Double, ramp: Double)
        case tumble(TumbleShape)
        case figureEight(turnsAboutX: Int, turnsAboutZ: Int, ramp: Double)
        case oscillate(axis: SIMD3<Double>, amplitude: Double, frequency: Double, ramp: Double)
        case taps(axis: SIMD3<Double>, depth: Double, width: Double, period: Double)
        case walk(heading: Double, speed: Double, stepFrequency: Double, ramp: Double)
        case gait(GaitShape)
    }

    enum PositionTarget: Sendable {
        case keep
        case offset(SIMD3<Double>)
        case absolute(SIMD3<Double>)
    }

    /// Axis frame for ``rotate(about:in:rate:for:ramp:)``.
    package enum Frame: Sendable {
        case device
        case world
    }

    private init(duration: Double, kind: Kind) {
        self.duration = max(0, duration)
        self.kind = kind
    }

    /// Stays still.
    package static func rest(_ duration: Double) -> MotionSegment {
        MotionSegment(duration: duration, kind: .rest)
    }

    /// Turns smoothly (shortest way, minimum-jerk profile) to `attitude` in `turnDuration`
    /// seconds, then holds it for `hold` seconds.
    package static func turn(to attitude: Quaternion, over turnDuration: Double = 1.5, thenHold hold: Double = 0) -> MotionSegment {
        MotionSegment(duration: turnDuration + hold, kind: .reach(attitude: attitude, position: .keep, transition: turnDuration))
    }

    /// Turns onto `face` in `turnDuration` seconds and rests on it for `hold` seconds.
    package static func face(_ face: DeviceFace, over turnDuration: Double = 1.5, thenHold hold: Double) -> MotionSegment {
        turn(to: face.attitude, over: turnDuration, thenHold: hold)
    }

    /// Rotates about `axis` at `rate` rad/s (right-hand rule), easing in and out over `ramp`
    /// seconds. The angle turned is `rate · (duration − ramp)`.
    package static func rotate(about axis: SIMD3<Double>, in frame: Frame = .world, rate: Double, for duration: Double, ramp: Double = 0.5) -> MotionSegment {
        let unit = length(axis) > 0 ? axis / length(axis) : SIMD3(0, 0, 1)
        return MotionSegment(duration: duration, kind: .rotate(axis: unit, inWorld: frame == .world, rate: rate, ramp: ramp))
    }

    /// Free tumbling: smooth random rotation (sums of slow sinusoids on three Euler angles) that
    /// never exceeds `maximumRate` rad/s; the same `seed` gives the same motion.
    package static func tumble(for duration: Double, maximumRate: Double = 4, seed: UInt64) -> MotionSegment {
        MotionSegment(duration: duration, kind: .tumble(TumbleShape(maximumRate: maximumRate, seed: seed)))
    }

    /// The magnetometer calibration dance: whole turns about the device x axis combined with whole
    /// turns about the device z axis, so the field direction sweeps the whole sphere of directions
    /// in the device frame. Ends where it began. Start it from a flat attitude.
    package static func figureEight(for duration: Double, turnsAboutX: Int = 6, turnsAboutZ: Int = 11) -> MotionSegment {
        MotionSegment(duration: duration, kind: .figureEight(turnsAboutX: turnsAboutX, turnsAboutZ: turnsAboutZ, ramp: min(2, duration / 4)))
    }

    /// Shakes back and forth along `axis` (device frame at the start) with `amplitude` metres of
    /// displacement at `frequency` Hz; peak acceleration is amplitude·(2π·frequency)².
    package static func shake(along axis: SIMD3<Double>, amplitude: Double, frequency: Double, for duration: Double, ramp: Double = 0.4) -> MotionSegment {
        let unit = length(axis) > 0 ? axis / length(axis) : SIMD3(1, 0, 0)
        return MotionSegment(duration: duration, kind: .oscillate(axis: unit, amplitude: amplitude, frequency: frequency, ramp: ramp))
    }

    /// Vibration: a fast, tiny shake (e.g. 50 Hz, 20 µm on a running machine).
    package static func vibrate(along axis: SIMD3<Double>, amplitude: Double, frequency: Double, for duration: Double) -> MotionSegment {
        shake(along: axis, amplitude: amplitude, frequency: frequency, for: duration, ramp: min(0.2, duration / 2))
    }

    /// Taps: every `period` seconds the device is pushed `depth` metres along `axis` (device
    /// frame; `(0, 0, −1)` is a finger on the screen) and back within `width` seconds. Peak
    /// acceleration is 4π²·depth/width².
    package static func taps(along axis: SIMD3<Double> = SIMD3(0, 0, -1), depth: Double = 0.0003, width: Double = 0.04, period: Double = 0.5, for duration: Double) -> MotionSegment {
        let unit = length(axis) > 0 ? axis / length(axis) : SIMD3(0, 0, -1)
        return MotionSegment(duration: duration, kind: .taps(axis: unit, depth: depth, width: width, period: period))
    }

    /// Moves by `displacement` metres (world frame) along a straight minimum-jerk path; peak
    /// acceleration is 5.77·|displacement|/duration².
    package static func translate(by displacement: SIMD3<Double>, over duration: Double) -> MotionSegment {
        MotionSegment(duration: duration, kind: .reach(attitude: nil, position: .offset(displacement), transition: duration))
    }

    /// Moves to `position` (world frame, metres) and `attitude` together along minimum-jerk paths.
    package static func move(to position: SIMD3<Double>, attitude: Quaternion? = nil, over duration: Double) -> MotionSegment {
        MotionSegment(duration: duration, kind: .reach(attitude: attitude, position: .absolute(position), transition: duration))
    }

    /// Walking with the device in hand: forward at `speed` m/s toward `heading` (radians clockwise
    /// from north), bobbing 1.5 cm up and down per step and swaying 1 cm sideways per stride.
    package static func walk(heading: Double = 0, speed: Double = 1.4, stepFrequency: Double = 2, for duration: Double) -> MotionSegment {
        MotionSegment(duration: duration, kind: .walk(heading: heading, speed: speed, stepFrequency: stepFrequency, ramp: min(1.5, duration / 2)))
    }
}

extension MotionSegment {
    /// A person walking, running or climbing stairs with the board in a hand or a trouser pocket,
    /// each step's time known (``GaitShape``, `Gait.swift`).
    package static func gait(_ shape: GaitShape) -> MotionSegment {
        MotionSegment(duration: shape.duration, kind: .gait(shape))
    }
}

/// The seeded shape of a tumble: three harmonics on each of three Euler angles.
struct TumbleShape: Sendable {
    /// Amplitude (rad), angular frequency (rad/s) and phase of harmonic k for angles (x, y, z).
    var amplitude: [SIMD3<Double>]
    var frequency: [SIMD3<Double>]
    var phase: [SIMD3<Double>]

    init(maximumRate: Double, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let harmonics = 3
        var weights = (0..<harmonics).map { _ in SIMD3(random.next(in: 0.2...1), random.next(in: 0.2...1), random.next(in: 0.2...1)) }
        let total = weights.reduce(SIMD3<Double>.zero, +)
        weights = weights.map { $0 / total }
        let frequency = (0..<harmonics).map { _ in
            2 * .pi * SIMD3(random.next(in: 0.04...0.35), random.next(in: 0.04...0.35), random.next(in: 0.04...0.35))
        }
        self.frequency = frequency
        phase = (0..<harmonics).map { _ in
            2 * .pi * SIMD3(random.nextUnit(), random.nextUnit(), random.nextUnit())
        }
        // |ω| ≤ Σ over angles of |angle rate| ≤ Σ_axes Σ_k A·ω, so each angle gets a third of the
        // budget, split among its harmonics by the weights: A_k·ω_k = maximumRate/3 · weight_k.
        amplitude = (0..<harmonics).map { k in maximumRate / 3 * weights[k] / frequency[k] }
    }

    /// Angles and their derivatives with respect to eased time u.
    @inline(__always)
    func angles(_ u: Double) -> (value: SIMD3<Double>, rate: SIMD3<Double>) {
        var value = SIMD3<Double>.zero
        var rate = SIMD3<Double>.zero
        for k in 0..<amplitude.count {
            for axis in 0..<3 {
                let a = amplitude[k][axis], w = frequency[k][axis], p = phase[k][axis]
                value[axis] += a * (sin(w * u + p) - sin(p))
                rate[axis] += a * w * cos(w * u + p)
            }
        }
        return (value, rate)
    }
}
