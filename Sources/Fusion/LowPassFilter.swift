#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Coefficients of a second-order Butterworth low-pass filter whose step response has time
/// constant `tau` (cut-off frequency √2 / (2π τ)), discretised with the bilinear transform.
struct LowPassCoefficients: Sendable {
    let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    /// Seconds of input averaged before the filter starts (equal to `tau`).
    let warmUpTime: Double
    let sampleInterval: Double

    init(timeConstant tau: Double, sampleInterval ts: Double) {
        let cutoff = 2.0.squareRoot() / (2 * Double.pi * tau)
        let c = tan(Double.pi * cutoff * ts)
        let d = c * c + 2.0.squareRoot() * c + 1
        b0 = c * c / d
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (c * c - 1) / d
        a2 = (1 - 2.0.squareRoot() * c + c * c) / d
        warmUpTime = tau
        sampleInterval = ts
    }
}

/// State of a second-order low-pass filter on a vector (transposed direct form II).
///
/// So that the output does not hang on the first sample, the filter first outputs the running mean
/// of its input for `warmUpTime` seconds, then starts in the steady state of that mean.
struct LowPassState<Vector: SIMD & Sendable>: Sendable where Vector.Scalar == Double {
    private var s0: Vector = .zero
    private var s1: Vector = .zero
    /// Samples averaged so far during warm-up; negative once the filter runs.
    private var count: Double = 0

    init() {}

    /// True once the warm-up average is over.
    var isRunning: Bool { count < 0 }

    @inline(__always)
    mutating func filter(_ x: Vector, _ c: LowPassCoefficients) -> Vector {
        if count >= 0 {
            s0 += x
            count += 1
            let mean = s0 / Vector(repeating: count)
            if count * c.sampleInterval >= c.warmUpTime {
                // Steady state for a constant input `mean`: y = x = mean.
                s0 = mean * (1 - c.b0)
                s1 = mean * (c.b2 - c.a2)
                count = -1
            }
            return mean
        }
        // Butterworth: b1 = 2 b0 and b2 = b0, so b0·x serves all three (bit-identical results).
        let bx = c.b0 * x
        let y = bx + s0
        s0 = bx + bx - c.a1 * y + s1
        s1 = bx - c.a2 * y
        return y
    }
}
