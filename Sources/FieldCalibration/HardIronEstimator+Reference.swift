#if canImport(Glibc)
import Glibc
#endif

/// The reference field (strength and dip: expected, ``expect(field:)``, or learned once the offset
/// is known) and the disturbance guard that compares the corrected field with it: while the
/// field's strength departs from it by more than ``Parameters/normThreshold`` or its dip by more
/// than ``Parameters/dipThreshold`` (a magnet or steel nearby), nothing is learned.
extension HardIronEstimator {
    /// The field strength and dip now against the reference: sets `disturbed`. Once the offset is
    /// known to a few µT (before, the corrected field cannot be compared with anything); before a
    /// reference is known, against the Earth's (``earthFieldStrength``): a stored offset 1000 µT
    /// wrong is disturbed from the first reading.
    mutating func checkDisturbance(_ field: SIMD3<Double>, _ acceleration: SIMD3<Double>) {
        guard offsetSettled else {
            disturbed = false
            return
        }
        disturbed = !isReferenceField(field - offset, acceleration)
    }

    /// Test 2: whether `corrected` (µT, an offset removed) has the reference strength and, with a
    /// quiet accelerometer, the reference dip, within the disturbance guard's bounds; while no
    /// reference is known, a strength the Earth's field can have (``earthFieldStrength``, within
    /// the same bound).
    @inline(__always)
    func isReferenceField(_ corrected: SIMD3<Double>, _ acceleration: SIMD3<Double>) -> Bool {
        let strength = (corrected * corrected).sum().squareRoot()
        guard referenceStrength > 0 else { return Self.isEarthStrength(strength, tolerance: parameters.normThreshold) }
        if abs(strength - referenceStrength) > parameters.normThreshold * referenceStrength { return false }
        if referenceDipKnown, let dip = Self.dip(corrected, acceleration, tolerance: 0.1) {
            return abs(dip - referenceDip) <= parameters.dipThreshold
        }
        return true
    }

    /// Whether `strength` (µT) is one the Earth's field can have, give or take `tolerance` (relative).
    static func isEarthStrength(_ strength: Double, tolerance: Double) -> Bool {
        strength >= earthFieldStrength.lowerBound * (1 - tolerance) && strength <= earthFieldStrength.upperBound * (1 + tolerance)
    }

    /// Learns the reference field (strength, dip) once the offset is known well, if no expected
    /// field was given: at the end of a stretch the offset explained (an offset the rotation
    /// contradicts, a stored record that lies, would teach its own error as the Earth's field).
    mutating func learnReference(_ field: SIMD3<Double>, _ acceleration: SIMD3<Double>) {
        guard expectedField == nil, !referenceFromRecord, !disturbed, candidate == nil, sigma <= 1.0 else { return }
        let corrected = field - offset
        let strength = (corrected * corrected).sum().squareRoot()
        guard Self.isEarthStrength(strength, tolerance: 0) else { return }
        if referenceStrength == 0 {
            referenceStrength = strength
        } else {
            referenceStrength += 0.05 * (strength - referenceStrength)
        }
        if !referenceDipKnown, let dip = Self.dip(corrected, acceleration, tolerance: 0.05) {
            referenceDip = dip
            referenceDipKnown = true
        }
    }

    /// The dip angle of `field` (µT, offset removed) below the horizontal, radians, from a quiet
    /// accelerometer (|a| within `tolerance` g of 1 g); nil while it moves.
    static func dip(_ field: SIMD3<Double>, _ acceleration: SIMD3<Double>, tolerance: Double) -> Double? {
        let g = (acceleration * acceleration).sum().squareRoot()
        let strength = (field * field).sum().squareRoot()
        guard abs(g - 1) < tolerance, strength > 0 else { return nil }
        // Core Motion's sign: the acceleration at rest points down, so its projection is the dip.
        return asin(max(-1, min(1, (field * acceleration).sum() / (strength * g))))
    }
}
