import Fusion

/// The field-strength constraint: |m − b|² = F² + 2 hᵀE h (h = m − b) on every new reading while
/// the board turns and the field is undisturbed, a recursive ellipsoid fit of b, k and the soft
/// iron E that ``OffsetState`` carries. It starts once the stretches know the offset to
/// ``Parameters/strengthStartSigma``; the directions it used (``DirectionMoments``) bound the bias
/// soft iron could cause in the offset (``Status/softIronBias``).
extension HardIronEstimator {
    /// The field-strength constraint |m − b|² = F², i.e. |m|² = 2 mᵀb + k with k = F² − |b|²
    /// (linear in b and k: the recursive sphere fit), once per new reading while the field is
    /// undisturbed and the board turns faster than half ``Parameters/slowRate``; a reading it
    /// cannot explain (χ²₁ beyond 10.8, 99.9 %) is skipped.
    mutating func constrainStrength(_ field: SIMD3<Double>) {
        guard field != sphere.lastReading else { return }
        sphere.lastReading = field
        if candidate != nil {
            constrainCandidateStrength(field)
            return
        }
        guard !disturbed else { return }
        // Only once the stretches know the offset to a few µT: before, the constraint alone would
        // settle for any sphere through the readings seen (at rest: a sphere of radius zero).
        if !sphere.known {
            guard sigma <= parameters.strengthStartSigma else { return }
            let corrected = field - offset
            state.startStrength((corrected * corrected).sum().squareRoot(), sigma: parameters.strengthStartSigma)
            sphere.known = true
            moments = DirectionMoments()
            softIronSensitivity = .infinity
            sensitivityCountdown = 50
            sphere.scatter = 0
            return
        }
        let strength = max(state.fieldStrength, 10)
        let h = SIMD4(2 * field, 1)
        // The readings' distance from the sphere, ≈ |m − b| − F (µT): its mean square says how
        // well a sphere (hard iron alone) fits; soft iron of a few per cent makes it scatter.
        let residual = ((field * field).sum() - (h * state.x).sum()) / (2 * strength)
        sphere.scatter += 0.002 * (min(residual * residual, 100) - sphere.scatter)
        moments.add(field - offset)
        // The bound moves slowly with the directions seen: recomputed every 50 readings used
        // (at most twice a second), not at every status.
        sensitivityCountdown -= 1
        if sensitivityCountdown <= 0 {
            sensitivityCountdown = 50
            softIronSensitivity = moments.softIronSensitivity
        }
        _ = state.constrainStrength(field, strengthReadingVariance(strength), unchecked: strengthPlaceVariance(strength),
                                    gate: Self.strengthGate)
    }

    /// A field-strength reading's variance in |m|² (µT⁴) at field strength `strength` (µT): the
    /// reading's noise and what the constraint's model leaves out, each in µT of strength, times
    /// (2F)² (d|m|² = 2|m| d|m|).
    func strengthReadingVariance(_ strength: Double) -> Double {
        let variance = parameters.fieldNoise * parameters.fieldNoise + parameters.strengthModelError * parameters.strengthModelError
        return 4 * strength * strength * variance
    }

    /// The same for the field's change over the board's excursion (``Parameters/fieldGradient``):
    /// it lowers the reading's weight, and the gate does not test it (see ``OffsetState/update(_:_:_:unchecked:gate:)``).
    func strengthPlaceVariance(_ strength: Double) -> Double {
        let placeError = parameters.fieldGradient * excursion.distance
        return 4 * strength * strength * placeError * placeError
    }

    /// A field-strength reading the constraint cannot explain is skipped: χ²₁ beyond 10.8 (99.9 %).
    static let strengthGate = 10.8

    /// The field-strength constraint on the second filter (a hard-iron change being relearned):
    /// a magnet attached to the board changes the offset, not the Earth's field, so the reference
    /// strength known before the change is where its k starts, once its stretches know its offset
    /// to ``Parameters/strengthStartSigma``. Whatever it learns from a passing disturbance instead
    /// is never adopted (its stretches would not stay consistent).
    mutating func constrainCandidateStrength(_ field: SIMD3<Double>) {
        guard var c = candidate, referenceStrength > 0 else { return }
        let strength = referenceStrength
        if !candidateStrengthKnown {
            let p = c.offsetCovariance, start = parameters.strengthStartSigma * parameters.strengthStartSigma
            guard p.m11 <= start, p.m22 <= start, p.m33 <= start else { return }
            c.startStrength(strength, sigma: parameters.strengthModelError)
            candidate = c
            candidateStrengthKnown = true
            return
        }
        _ = c.constrainStrength(field, strengthReadingVariance(strength), unchecked: strengthPlaceVariance(strength),
                                gate: Self.strengthGate)
        candidate = c
    }
}
