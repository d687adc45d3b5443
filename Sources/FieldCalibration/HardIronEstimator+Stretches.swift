import Fusion

/// Learning over stretches: the board's rotation since a stretch began (``update(field:rotationRate:acceleration:interval:)``
/// integrates it), and at the stretch's end one Kalman update of the offset from m₁ = Φ m₀ + (I − Φ) b.
/// A stretch closes once the board has turned ``Parameters/stretchAngle`` where it turns slowly
/// (the magnetometer's lag behind the gyroscope, ``Parameters/magnetometerLag``, turns the field by
/// rate × lag: it matters least there); a board at rest teaches nothing (``Reason/needsRotation``).
extension HardIronEstimator {
    mutating func startStretch(_ field: SIMD3<Double>, rate: SIMD3<Double>) {
        firstReading = field
        stretchStartPosition = excursion.position
        firstRateVector = rate
        firstRate = (rate * rate).sum().squareRoot()
        rotation = .identity
        stretchTime = 0
        path = 0
    }

    /// The rotation by the small rotation vector `v` (radians).
    static func step(_ v: SIMD3<Double>) -> Quaternion {
        let half = 0.5 * v
        let halfSquared = (half * half).sum()
        let scaled = half * (1 - halfSquared / 6)
        return Quaternion(w: 1 - halfSquared / 2, x: scaled.x, y: scaled.y, z: scaled.z)
    }

    mutating func predict(_ duration: Double) {
        let q = parameters.drift * parameters.drift * duration
        state.addProcessNoise(q)
        candidate?.addProcessNoise(q)
        previous?.state.addProcessNoise(q)
    }

    /// One stretch: `later` should equal Φ·`earlier` + (I − Φ)·b, Φ the rotation that takes a
    /// world-fixed vector from the earlier device axes to the later ones.
    mutating func learn(from earlier: SIMD3<Double>, to later: SIMD3<Double>, acceleration: SIMD3<Double>, rotation: Quaternion, duration: Double, endRates: Double) {
        predict(duration)
        let phi = rotation.conjugate.rotationMatrix   // v_later = Φ v_earlier for a world-fixed v
        let h = Matrix3.identity - phi
        let y = later - phi * earlier
        // Noise per axis: two readings' noise, plus the rotation's error (timing and scale) acting
        // on the field's size.
        let angleError = endRates * parameters.timingUncertainty + parameters.rotationScaleError * rotation.angle
        let r = stretchNoise(earlier, offset, angleError: angleError)
        // The field where the board ended the stretch may differ from where it began it: the
        // stretch counts for less (the gate and the tests of a change use r alone).
        let moved = excursion.position - phi * stretchStartPosition
        let placeError = parameters.fieldGradient * (moved * moved).sum().squareRoot()
        let placeVariance = placeError * placeError

        let (accepted, nis) = state.update(h, y, r, unchecked: placeVariance, gate: parameters.gate, apply: !disturbed,
                                           leftOut: Self.softIronTerm(phi, earlier - offset))
        if accepted {
            consistency += 0.05 * (nis / 3 - consistency)
            let p = covariance, bound = parameters.strengthStartSigma * parameters.strengthStartSigma
            offsetSettled = p.m11 <= bound && p.m22 <= bound && p.m33 <= bound
        }
        let explained = accepted || nis <= parameters.gate
        if explained { confirmStart() }
        watchForChange(firstExplains: explained, h, y, earlier: earlier, angleError: angleError, later: later, acceleration: acceleration,
                       duration: duration)
        if explained { learnReference(later, acceleration) }
    }

    /// The soft iron's term a stretch's model leaves out, (EΦ − ΦE) h₀ (h₀ the field at its start),
    /// as each axis's coefficients of E's six entries (lanes as ``OffsetState/softIron``).
    static func softIronTerm(_ phi: Matrix3, _ h0: SIMD3<Double>) -> (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>) {
        let u = phi * h0
        // E's basis matrices times a vector v: xx, yy, zz, xy, xz, yz.
        func times(_ entry: Int, _ v: SIMD3<Double>) -> SIMD3<Double> {
            switch entry {
            case 0: SIMD3(v.x, 0, 0)
            case 1: SIMD3(0, v.y, 0)
            case 2: SIMD3(0, 0, v.z)
            case 3: SIMD3(v.y, v.x, 0)
            case 4: SIMD3(v.z, 0, v.x)
            default: SIMD3(0, v.z, v.y)
            }
        }
        var rows = (SIMD8<Double>.zero, SIMD8<Double>.zero, SIMD8<Double>.zero)
        for entry in 0..<6 {
            let column = times(entry, u) - phi * times(entry, h0)
            rows.0[entry] = column.x
            rows.1[entry] = column.y
            rows.2[entry] = column.z
        }
        return rows
    }

    /// A stretch's noise per axis (µT²) for the filter whose offset is `offset`: two readings'
    /// noise, and the rotation's error `angleError` (radians) acting on the field's size there
    /// (the reference strength, or the field with that offset removed at the stretch's start,
    /// whichever is larger): each filter by its own offset, so that a second filter learning a
    /// stored offset's large error is not weighed by the first filter's wrong field.
    func stretchNoise(_ earlier: SIMD3<Double>, _ offset: SIMD3<Double>, angleError: Double) -> Double {
        let strength = max(referenceStrength, ((earlier - offset) * (earlier - offset)).sum().squareRoot())
        return 2 * parameters.fieldNoise * parameters.fieldNoise + (angleError * strength) * (angleError * strength)
    }
}
