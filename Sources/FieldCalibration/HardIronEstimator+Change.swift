import Fusion

/// A lasting change of the offset itself (a magnet or a battery attached to the board), told apart
/// from a passing disturbance by a second filter started from scratch when the first filter's
/// innovations stay too large: it replaces the first once it explains the readings as a constant
/// offset while the first still cannot, for ``Parameters/changeConfirmationTime``. The estimate it
/// replaced is kept and tried first at the next change (a magnet taken off again gives the board's
/// own offset back, which then needs no relearning, only the same confirmation).
///
/// A change of hard iron is fixed in the sensor frame and happens at one moment; a field that varies
/// from place to place (steel, a radiator, the rebar of a floor) is fixed in the Earth's frame at
/// each place. With little turning the two look alike, so three physical tests must all pass
/// before a second filter replaces the first:
/// 1. *Determined by rotation, in every direction* (``isDeterminedByRotation(_:)``): its offset
///    known to ``Parameters/changeRotationSigma`` along its worst direction from the stretches'
///    rotation alone, Σ (I − Φ)ᵀ(I − Φ)/r; this needs turning about at least two axes.
/// 2. *The Earth's field is what it was* (``isReferenceField(_:_:)``, ``restoresTheReferenceStrength``):
///    with its offset removed the field has the reference strength and dip at each stretch counted
///    as fitting it, and over the stretches misses the reference strength by at most half as much
///    (RMS) as with the first filter's offset. Two pairs of held readings that fit the second
///    filter and not the first (``checkChange(earlier:later:rotation:variance:acceleration:)``,
///    from ``HoldSoftIron``) count as that much time of fitting stretches.
/// 3. *A step* (``refutesStep(to:_:_:)``): every stretch whose rotation would show the step from
///    the first filter's offset to the second's must contradict the first filter; one the first
///    filter explains instead drops the evidence gathered for the second.
extension HardIronEstimator {
    /// What one stretch (`h` = I − Φ, `y` = m₁ − Φ m₀, from `earlier` to `later` over `duration`
    /// seconds, its rotation's error `angleError` radians: each filter's noise per axis by
    /// ``stretchNoise(_:_:angleError:)``) says about a change of hard iron, once the first filter has seen it
    /// (`firstExplains`: its innovation within ``Parameters/gate``): the first filter's record of
    /// explained and rejected time, the estimate before the last change tried again, the second
    /// filter's learning and tests, and the adoption of either once confirmed.
    mutating func watchForChange(
        firstExplains: Bool, _ h: Matrix3, _ y: SIMD3<Double>, earlier: SIMD3<Double>, angleError: Double, later: SIMD3<Double>,
        acceleration: SIMD3<Double>, duration: Double
    ) {
        let r = stretchNoise(earlier, offset, angleError: angleError)
        if firstExplains {
            // The first filter explains the readings again: after as long as a change needs to be
            // confirmed, the suspicion was a passing disturbance.
            acceptedTime += duration
            if acceptedTime >= parameters.changeConfirmationTime {
                rejectedTime = 0
                dropEvidence()
                candidate = nil
            } else if let c = candidate, Self.isKnown(c), refutesStep(to: c, h, r) {
                // Test 3: a step would have shown in this stretch and did not.
                dropEvidence()
            }
        } else {
            acceptedTime = 0
            rejectedTime += duration
            if candidate == nil { startCandidate() }
        }
        if candidate != nil, var before = previous {
            let (_, previousNIS) = before.state.update(h, y, stretchNoise(earlier, before.state.offset, angleError: angleError),
                                                       gate: .infinity, apply: false)
            before.consistentTime = previousNIS <= parameters.gate ? before.consistentTime + duration : max(0, before.consistentTime - duration)
            previous = before
            if rejectedTime >= parameters.changeConfirmationTime && before.consistentTime >= parameters.changeConfirmationTime {
                adopt(before.state, strength: before.strength, dip: before.dip, dipKnown: before.dipKnown, strengthKnown: before.strengthKnown)
                return
            }
        }
        if var c = candidate {
            let r = stretchNoise(earlier, c.offset, angleError: angleError)
            // The second filter learns from every stretch, ungated (it is adopted only once its
            // stretches fit it, so what it learned from a passing disturbance is never adopted).
            let known = Self.isKnown(c)
            candidateInformation = candidateInformation + (1 / r) * (h.transposed * h)
            if known, referenceStrength > 0 {
                let first = later - offset, second = later - c.offset
                let departures = SIMD2((first * first).sum().squareRoot(), (second * second).sum().squareRoot()) - referenceStrength
                strengthMisfit += departures * departures
            }
            // Its stretches keep their full weight: it must learn a change within seconds of
            // turning, and is adopted only once they fit it (weighted by the board's excursion it
            // learns more slowly, and on the simulated carrying about indoors takes one false change).
            let (_, candidateNIS) = c.update(h, y, r, gate: .infinity, apply: true)
            candidate = c
            // Consistent while its stretches fit, with the Earth's field as it was (test 2); an
            // odd one out costs as much as it lasted. A stretch that ends where the field is not
            // the reference one (a place the first filter would call disturbed too) counts neither way.
            if known && candidateNIS <= parameters.gate {
                if isReferenceField(later - c.offset, acceleration) {
                    candidateConsistentTime += duration
                }
                candidateRefutedTime = 0
            } else {
                candidateConsistentTime = max(0, candidateConsistentTime - duration)
                if known { candidateRefutedTime += duration }
            }
            if candidateRefutedTime >= parameters.changeConfirmationTime {
                // Its own stretches have not fitted it for as long as a change needs to be
                // confirmed: it learned from before a change as well as after (or from a place).
                // It starts again from here, the change still suspected.
                startCandidate()
            } else if rejectedTime >= parameters.changeConfirmationTime && isConfirmed
                && isDeterminedByRotation(candidateInformation) && restoresTheReferenceStrength {
                // The Earth's field is what it was: the reference stays.
                adopt(c, strength: referenceStrength, dip: referenceDip, dipKnown: referenceDipKnown, strengthKnown: candidateStrengthKnown)
            }
        }
    }

    /// A second filter started from scratch (a hard-iron change suspected), the evidence for the
    /// last one dropped.
    mutating func startCandidate() {
        candidate = OffsetState(offset: offset, sigma: parameters.initialSigma, fieldStrength: state.fieldStrength,
                                softIronAllowance: parameters.softIronAllowance)
        dropEvidence()
        candidateStrengthKnown = false
        candidateRefutedTime = 0
    }

    /// Forgets the evidence gathered for the second filter: its confirmation (time of fitting
    /// stretches, held pairs) and tests 1 and 2's sums.
    mutating func dropEvidence() {
        candidateConsistentTime = 0
        heldConfirmations = 0
        candidateInformation = .zero
        strengthMisfit = .zero
    }

    /// Whether the second filter's stretches have fitted it for ``Parameters/changeConfirmationTime``,
    /// or two pairs of held readings did (``checkChange(earlier:later:rotation:variance:acceleration:)``).
    var isConfirmed: Bool {
        candidateConsistentTime >= parameters.changeConfirmationTime || heldConfirmations >= 2
    }

    /// A pair of readings taken while the board was held still, both after a change of hard iron
    /// came to be suspected, and the gyroscope's rotation Φ between them (`variance` the noise of
    /// `later − Φ·earlier` per axis, µT²): better evidence than a stretch (the readings averaged,
    /// no lag between the magnetometer and the gyroscope, a long turn). One that fits the second
    /// filter and not the first confirms the change as ``Parameters/changeConfirmationTime`` of
    /// stretches do (two such pairs); the tests of rotation and of the field's strength still
    /// apply, and so does the step test's refutation by stretches. The first filter learns nothing
    /// from it (the readings are the stretches' too).
    package mutating func checkChange(
        earlier: SIMD3<Double>, later: SIMD3<Double>, rotation phi: Matrix3, variance r: Double, acceleration: SIMD3<Double>
    ) {
        guard var c = candidate, Self.isKnown(c), r > 0, r.isFinite else { return }
        let h = Matrix3.identity - phi
        let y = later - phi * earlier
        let (_, firstNIS) = state.update(h, y, r, gate: .infinity, apply: false)
        let (_, candidateNIS) = c.update(h, y, r, gate: .infinity, apply: false)
        guard firstNIS > parameters.gate, candidateNIS <= parameters.gate, isReferenceField(later - c.offset, acceleration) else { return }
        candidateInformation = candidateInformation + (1 / r) * (h.transposed * h)
        heldConfirmations += 1
        if rejectedTime >= parameters.changeConfirmationTime && isConfirmed
            && isDeterminedByRotation(candidateInformation) && restoresTheReferenceStrength {
            adopt(c, strength: referenceStrength, dip: referenceDip, dipKnown: referenceDipKnown, strengthKnown: candidateStrengthKnown)
        }
    }

    /// Whether a second filter's offset is known to 2 µT (variance 4 µT²) along its worst
    /// direction (not just on average: with turning about one axis, that axis is not known at all).
    static func isKnown(_ c: OffsetState) -> Bool {
        largestEigenvalue(c.offsetCovariance) < 4
    }

    /// Test 1: whether rotation alone determines the second filter's offset to
    /// ``Parameters/changeRotationSigma`` in every direction (the information's smallest
    /// eigenvalue at least 1/σ²: the largest eigenvalue of its inverse at most σ²).
    func isDeterminedByRotation(_ information: Matrix3) -> Bool {
        guard let inverse = information.inverse else { return false }
        let bound = parameters.changeRotationSigma * parameters.changeRotationSigma
        return inverse.m11 > 0 && inverse.m22 > 0 && inverse.m33 > 0 && Self.largestEigenvalue(inverse) <= bound
    }

    /// Test 2, over the stretches: with the second filter's offset removed, the field's strength
    /// departs from the reference by at most half as much (RMS) as with the first's. A change of
    /// hard iron makes the first filter's corrected field miss the reference by up to the change
    /// itself at every orientation, and the second's not at all; a field that varies from place
    /// to place makes both miss it by about as much (the place's field is in neither). True while
    /// no reference is known.
    var restoresTheReferenceStrength: Bool {
        referenceStrength <= 0 || 4 * strengthMisfit.y <= strengthMisfit.x
    }

    /// Test 3: whether a stretch the first filter explained (`h` = I − Φ, noise `r` per axis)
    /// would have shown a step from the first filter's offset to `c`'s: the step's innovation
    /// H·Δb against its covariance H (P₁ + P₂) Hᵀ + r·I beyond ``Parameters/gate``.
    func refutesStep(to c: OffsetState, _ h: Matrix3, _ r: Double) -> Bool {
        let innovation = h * (c.offset - offset)
        let p = covariance + c.offsetCovariance
        let s = h * p * h.transposed + Matrix3(rows: SIMD3(r, 0, 0), SIMD3(0, r, 0), SIMD3(0, 0, r))
        guard let inverse = s.inverse else { return false }
        return (innovation * (inverse * innovation)).sum() > parameters.gate
    }

    /// A hard-iron change confirmed: `new` replaces the estimate, which is kept as ``previous``
    /// (with its reference field, learned or not, and whether its field strength was started).
    mutating func adopt(_ new: OffsetState, strength: Double, dip: Double, dipKnown: Bool, strengthKnown: Bool) {
        previous = (state, referenceStrength, referenceDip, referenceDipKnown, sphere.known, 0)
        state = new
        let p = covariance, bound = parameters.strengthStartSigma * parameters.strengthStartSigma
        offsetSettled = p.m11 <= bound && p.m22 <= bound && p.m33 <= bound
        candidate = nil
        dropEvidence()
        sphere.known = strengthKnown
        moments = DirectionMoments()
        softIronSensitivity = .infinity
        sensitivityCountdown = 50
        rejectedTime = 0
        changes += 1
        confirmStart()
        if expectedField == nil {
            referenceStrength = strength
            referenceDip = dip
            referenceDipKnown = dipKnown
        }
    }
}
