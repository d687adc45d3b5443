import Foundation

/// Smooth profiles shared by the motion segments: every segment starts and ends at rest, with
/// continuous velocity and acceleration, so a script never jumps.

/// The quintic "smootherstep" s(x) = 10x³ − 15x⁴ + 6x⁵ on [0, 1] (clamped outside), with its first
/// and second derivatives with respect to x. s, s′ and s″ are 0 at x = 0; s = 1 and s′ = s″ = 0 at 1.
@inline(__always)
func smootherstep(_ x: Double) -> (value: Double, rate: Double, acceleration: Double) {
    if x <= 0 { return (0, 0, 0) }
    if x >= 1 { return (1, 0, 0) }
    let x2 = x * x
    return (
        x2 * x * (10 + x * (-15 + 6 * x)),
        30 * x2 * (1 + x * (-2 + x)),
        60 * x * (1 + x * (-3 + 2 * x))
    )
}

/// ∫₀ˣ smootherstep = 2.5x⁴ − 3x⁵ + x⁶ (0.5 at x = 1).
@inline(__always)
private func smootherstepIntegral(_ x: Double) -> Double {
    let x2 = x * x
    return x2 * x2 * (2.5 + x * (-3 + x))
}

/// A clock that starts and stops smoothly: its rate ramps from 0 to 1 over `ramp` seconds with a
/// smootherstep, runs at 1, and ramps back to 0 over the last `ramp` seconds of `duration`.
/// Multiplying by a rate gives a motion that starts and ends at rest.
struct EasedClock: Sendable, Equatable {
    let duration: Double
    let ramp: Double

    init(duration: Double, ramp: Double) {
        self.duration = max(0, duration)
        self.ramp = max(1e-9, min(ramp, self.duration / 2))
    }

    /// Eased time reached at the end: `duration − ramp`.
    var total: Double { max(0, duration - ramp) }

    /// Eased time u(τ), its rate u′ and its acceleration u″ at local time τ.
    @inline(__always)
    func at(_ tau: Double) -> (value: Double, rate: Double, acceleration: Double) {
        if tau <= 0 { return (0, 0, 0) }
        if tau >= duration { return (total, 0, 0) }
        if tau < ramp {
            let x = tau / ramp
            let s = smootherstep(x)
            return (ramp * smootherstepIntegral(x), s.value, s.rate / ramp)
        }
        if tau > duration - ramp {
            let x = (duration - tau) / ramp
            let s = smootherstep(x)
            return (total - ramp * smootherstepIntegral(x), s.value, -s.rate / ramp)
        }
        return (ramp / 2 + (tau - ramp), 1, 0)
    }

    /// An envelope that rises from 0 to 1 over the first ramp and falls back to 0 over the last
    /// (value, first and second derivative with respect to τ).
    @inline(__always)
    func envelope(_ tau: Double) -> (value: Double, rate: Double, acceleration: Double) {
        if tau <= 0 || tau >= duration { return (0, 0, 0) }
        if tau < ramp {
            let s = smootherstep(tau / ramp)
            return (s.value, s.rate / ramp, s.acceleration / (ramp * ramp))
        }
        if tau > duration - ramp {
            let s = smootherstep((duration - tau) / ramp)
            return (s.value, -s.rate / ramp, s.acceleration / (ramp * ramp))
        }
        return (1, 0, 0)
    }
}

/// SplitMix64: a tiny, fast, well-mixed generator. Used for seeded scenario parameters and, as a
/// hash of (seed, sample index, channel), for reproducible noise that does not depend on call order.
struct SplitMix64: Sendable {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next() -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// Uniform in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in `range`.
    mutating func next(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + nextUnit() * (range.upperBound - range.lowerBound)
    }

    /// A standard normal value that depends only on (seed, index, channel): Box–Muller on two
    /// hashed uniforms.
    @inline(__always)
    static func gaussian(seed: UInt64, index: Int64, channel: UInt64) -> Double {
        let key = mix(seed ^ mix(UInt64(bitPattern: index) &* 0xD6E8_FEB8_6659_FD93 ^ channel))
        let other = mix(key ^ 0xA076_1D64_78BD_642F)
        // u1 in (0, 1] so the logarithm is finite.
        let u1 = Double((key >> 11) + 1) * 0x1p-53
        let u2 = Double(other >> 11) * 0x1p-53
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
