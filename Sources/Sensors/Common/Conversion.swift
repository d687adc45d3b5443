/// True when an axis reads the most negative or most positive 16-bit count.
func isAtLimit(_ raw: SIMD3<Int16>) -> Bool {
    for axis in 0..<3 where raw[axis] == .max || raw[axis] == .min { return true }
    return false
}

/// Mean of raw samples, per axis, in counts.
func mean(_ samples: [SIMD3<Int16>]) -> SIMD3<Double> {
    var sum = SIMD3<Double>.zero
    for sample in samples { sum += SIMD3(Double(sample.x), Double(sample.y), Double(sample.z)) }
    return samples.isEmpty ? .zero : sum / Double(samples.count)
}

/// How a driver learns that its software reset finished.
package enum ResetCompletion: Sendable, Equatable {
    /// Re-read the reset bit until the chip clears it, within a bounded number of polls: what the
    /// datasheets describe, and the default.
    case pollResetBit
    /// Wait the driver's whole polling window once without re-reading the bit. Only for a plain
    /// register file that keeps whatever was written, such as Linux `i2c-stub` in the kernel tier:
    /// there the reset bit never clears and polling would time out. The driver still writes the
    /// reset bit, then writes every configuration register it relies on.
    case fixedDelay
}

let axisNames = ["x", "y", "z"]
