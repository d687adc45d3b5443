import Fusion

/// How far the board is from where it was a moment ago, from the accelerometer and the gyroscope:
/// the acceleration less gravity, integrated twice. Carried through a room, the board meets a
/// field that is not the same from place to place (steel, radiators, the rebar of a floor), so a
/// reading taken a few decimetres away from another one may differ from it by a µT or more that
/// no offset explains. ``HardIronEstimator`` widens its readings' variance by that much.
///
/// Gravity is the acceleration averaged over ``timeConstant`` (turned with the board meanwhile),
/// and both integrals forget over the same time: what is measured is the excursion about the
/// recent mean position (a hand shaking the board, a lift), not a position; a steady walk at
/// constant speed shows nothing. Vectors are in device axes, turned with the board (a vector fixed
/// in the world seen from a board turning at ω changes by −ω × v).
///
/// Cost: a few dozen multiplications per sample; no allocation.
struct Excursion: Sendable, Equatable {
    /// m/s² per g (the standard gravity, ISO 80000-3).
    static let standardGravity = 9.80665

    /// Seconds over which gravity is averaged and the two integrals forget.
    var timeConstant: Double = 1
    /// g, device axes, Core Motion sign (face up at rest `(0, 0, −1)`); nil before the first sample.
    private(set) var gravity: SIMD3<Double>?
    /// m/s, device axes.
    private var velocity = SIMD3<Double>.zero
    /// m, device axes: where the board is relative to where it has been over the last ``timeConstant``.
    private(set) var position = SIMD3<Double>.zero

    /// One sample: `acceleration` in g (Core Motion sign), `rotationRate` in rad/s, `interval` in s.
    /// A sample with a value that is not finite starts it again.
    mutating func update(acceleration: SIMD3<Double>, rotationRate: SIMD3<Double>, interval: Double) {
        guard acceleration * 0 == .zero, rotationRate * 0 == .zero, interval.isFinite, interval > 0 else {
            restart()
            return
        }
        guard var g = gravity else {
            gravity = acceleration
            return
        }
        // Gravity is turned exactly; the velocity and the position to first order: the forgetting
        // shrinks them by interval/τ a sample, more than such a step lengthens them (θ²/2: at
        // 500 °/s and 100 Hz, 0.0038 against 0.01), while gravity's length is what the averaging
        // keeps.
        let turn = rotationRate * -interval
        g = Self.turned(g, by: turn)
        velocity += cross(turn, velocity)
        position += cross(turn, position)
        let forget = min(interval / timeConstant, 1)
        g += forget * (acceleration - g)
        let user = (acceleration - g) * Self.standardGravity
        velocity = (velocity + user * interval) * (1 - forget)
        position = (position + velocity * interval) * (1 - forget)
        gravity = g
    }

    /// Starts again from the next sample (samples stopped following one another).
    mutating func restart() {
        gravity = nil
        velocity = .zero
        position = .zero
    }

    /// Metres from the recent mean position.
    var distance: Double { (position * position).sum().squareRoot() }

    /// `v` turned by the rotation vector `a` (radians), exact to the θ⁶ term (a sample turns well
    /// under 0.2 rad): v cos θ + (a × v) sin θ/θ + a (a·v)(1 − cos θ)/θ² (Rodrigues). A first-order
    /// step (v + a × v) would lengthen it by θ²/2 a sample: gravity grown by a few per cent, read
    /// as acceleration.
    private static func turned(_ v: SIMD3<Double>, by a: SIMD3<Double>) -> SIMD3<Double> {
        let t = (a * a).sum()
        let cosine = 1 - t / 2 + t * t / 24
        let sine = 1 - t / 6 + t * t / 120
        let versine = 0.5 - t / 24 + t * t / 720
        return cosine * v + sine * cross(a, v) + (versine * (a * v).sum()) * a
    }
}
