#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A seeded pseudo-random source (SplitMix64: Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014) for test inputs: every run and every machine
/// sees the same values.
public struct FixedSeedNoise: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in [−1, 1).
    public mutating func symmetric() -> Double { uniform() * 2 - 1 }

    /// Standard normal (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300)
        let u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    public mutating func gaussianVector(_ sigma: Double) -> SIMD3<Double> {
        SIMD3(gaussian(), gaussian(), gaussian()) * sigma
    }
}
