#if canImport(Glibc)
import Glibc
#endif

import Fusion

/// The background calibration as a fusion loop runs it: the estimator, the field with its offset
/// removed, and when to tell the attitude filter (``AttitudeEstimator/magneticCalibrationChanged()``)
/// that the calibration moved under it — when the offset has moved by ``announcedMove`` since it
/// was last told (checked ten times a second of sample time): the first learning, a relearned
/// hard-iron change. Smaller refinements the filter's own heading correction follows (a reset
/// restarts its heading average, which costs more than a fraction of a µT while the board moves).
/// The offset is removed only once the estimate has been `medium` or better for ``highHoldTime``
/// (the same argument as for `high`); until then the field goes on as read, with the status
/// saying how little is known. `high` is reported only once the estimator has said it for ``highHoldTime`` of sample time
/// (a σ that has just crossed its bound is one stretch away from the next, which may move the
/// offset by its σ); a starting point that is `high` already (a stored calibration) needs no hold.
/// Soft iron: from the holds between turns (``HoldSoftIron``, once it knows the soft iron to
/// ``holdFitSigma`` and finds some; again each time it knows it a tenth better), from continuous
/// turning (the soft iron the estimator's field-strength constraint learns,
/// ``HardIronEstimator/learnedSoftIron``, on the same terms, once it also makes the readings kept
/// for the ellipsoid a tenth more nearly a sphere), or once the board has been turned through the
/// directions a figure-eight covers, the ellipsoid (``BackgroundSoftIron``); a fit is applied to
/// the field before the estimator
/// (``softIronFit``), which continues from it (the status's offset is then the fit's plus what the
/// estimator adds, in the field's own frame). Not with a starting point that removed soft iron
/// already (an estimator whose ``HardIronEstimator/Parameters/softIronAllowance`` is at most the
/// 1 % a fit leaves).
/// The sampler (through ``BackgroundFieldCalibrator``) and `motion-lab evaluate --background-calibration` run the same.
package struct BackgroundFieldCorrection: BackgroundFieldCalibrator {
    /// µT: 2 µT turns a 20 µT horizontal field by about 6°.
    package static let announcedMove = 2.0
    /// Seconds of sample time the estimator's `high` must last before it is reported, and its
    /// first `medium` before its offset is used.
    package static let highHoldTime = 1.0

    package private(set) var estimator: HardIronEstimator
    /// The status at the last check.
    package private(set) var status: HardIronEstimator.Status
    /// The correction the attitude filter was last told of (``announcedMove``): the field it
    /// gives is `announcedMatrix · (m − announcedFitOffset) − announcedOffset`.
    private var announcedOffset: SIMD3<Double>
    private var announcedMatrix = Matrix3.identity
    private var announcedFitOffset = SIMD3<Double>.zero
    /// Sample time of the last status check (−∞ before the first).
    private var lastCheck = -Double.infinity
    /// Since when (sample time, s) the estimator has said `high`; −∞ for a start that was high.
    private var highSince: Double?
    /// The offset's own accuracy (``HardIronEstimator/Status/offsetAccuracy``, soft iron aside) has
    /// been `medium` or better for ``highHoldTime``: from then on it is removed
    /// from the field. Before, the field is used as read: a first estimate from little turning
    /// can be far off while it says `low` (BROAD's calibrated sensor, trial 11: 20 µT at σ 6 µT),
    /// or say `medium` for one check and not the next (trial 09: 9.6 µT off), and an offset
    /// applied then turns the heading further than none would.
    private var trusted: Bool
    /// Since when (sample time, s) the estimator has said `medium` or better, before it was trusted.
    private var mediumSince: Double?
    /// The background soft-iron fit's readings and result; nil where soft iron was removed already.
    package var softIron: BackgroundSoftIron? { fitsSoftIron ? softIronReadings : nil }
    private var softIronReadings = BackgroundSoftIron()
    private let fitsSoftIron: Bool
    /// Seconds of sample time since a reading was last offered to ``softIron``.
    private var sinceOffer = 0.0
    /// Soft iron from the holds between turns (``HoldSoftIron``), in the field's own frame.
    package private(set) var holds = HoldSoftIron()
    /// The σ of the soft-iron fit applied (``RotationPairFit/Solution/softIronSigma`` for the
    /// holds'; 0 for an ellipsoid, which no holds' fit replaces); nil while none is.
    private var appliedSoftIronSigma: Double?
    /// The hard-iron changes at the last check (a change restarts ``holds``), and those of the
    /// estimators a fit replaced (the status counts them all).
    private var changesSeen = 0
    private var earlierChanges = 0
    /// Since when (``HoldSoftIron/time``) a hard-iron change has been suspected (`relearning` at
    /// the check), and how many holds ``holds`` had kept at the last look: the holds from then on
    /// are shown to the estimator (``HardIronEstimator/checkChange(earlier:later:rotation:variance:acceleration:)``).
    private var suspectedSince: Double?
    private var holdsSeen = 0
    /// The ellipsoid applied to the field before the estimator; nil before a good fit.
    package private(set) var softIronFit: MagnetometerCalibration?
    /// The fit as applied per sample (no optional copied there): its matrix, its inverse (the
    /// estimator's offset back in the field's frame) and its offset; identity and zero before.
    private var fitMatrix = Matrix3.identity
    private var inverseSoftIron = Matrix3.identity
    private var fitOffset = SIMD3<Double>.zero
    private var fitted = false
    /// Whether the last status lets readings be kept for the fit (offset known, field undisturbed).
    private var collecting = false

    /// See ``HardIronEstimator/restartStretch()``.
    package mutating func restartStretch() {
        estimator.restartStretch()
        holds.restartAttitude()
    }

    /// See ``HardIronEstimator/expect(field:)``.
    package mutating func expect(field: SIMD2<Double>?) {
        estimator.expect(field: field)
    }

    package init(_ estimator: HardIronEstimator) {
        self.estimator = estimator
        status = estimator.status
        trusted = status.offsetAccuracy >= .medium
        status.offsetRemoved = trusted
        announcedOffset = trusted ? estimator.estimate : .zero
        if status.accuracy == .high { highSince = -.infinity }
        fitsSoftIron = estimator.parameters.softIronAllowance > BackgroundSoftIron.residualSoftIronAllowance
    }

    /// One reading through the estimator (see ``HardIronEstimator/update(field:rotationRate:acceleration:interval:)``)
    /// at `timestamp` (s): the field with the offset removed, whether the status was refreshed,
    /// and whether the attitude filter should be told.
    package mutating func correct(
        _ field: SIMD3<Double>, rotationRate: SIMD3<Double>, gyroBias: SIMD3<Double> = .zero, acceleration: SIMD3<Double>,
        interval: Double, timestamp: Double
    ) -> (field: SIMD3<Double>, checked: Bool, changed: Bool) {
        var input = fitted ? fitMatrix * (field - fitOffset) : field
        estimator.update(field: input, rotationRate: rotationRate, acceleration: acceleration, interval: interval)
        if fitsSoftIron {
            holds.add(field, rotationRate: rotationRate, gyroBias: gyroBias, interval: interval,
                      disturbed: appliedSoftIronSigma != nil && estimator.isDisturbed, fieldStrength: status.fieldStrength)
            if holds.holdsClosed != holdsSeen {
                holdsSeen = holds.holdsClosed
                if let since = suspectedSince { showHolds(since: since, acceleration: acceleration) }
            }
        }
        let estimate = estimator.estimate
        sinceOffer += interval
        if sinceOffer >= BackgroundSoftIron.offerInterval {
            sinceOffer = 0
            if collecting {
                softIronReadings.offer(raw: field, direction: input - estimate, strength: status.fieldStrength,
                                       tolerance: estimator.parameters.normThreshold)
            }
        }
        var offset = trusted ? estimate : SIMD3<Double>.zero
        guard timestamp - lastCheck >= 0.1 || timestamp < lastCheck else { return (input - offset, false, false) }
        lastCheck = timestamp
        var adopted = false
        if fitsSoftIron, appliedSoftIronSigma.map({ $0 > BackgroundSoftIron.residualSoftIronAllowance / 2 }) ?? true,
           softIronReadings.isFitDue, let fit = softIronReadings.fit(), let inverse = fit.softIron.inverse {
            adopt(fit, inverse: inverse, allowance: BackgroundSoftIron.residualSoftIronAllowance, sigma: BackgroundSoftIron.fittedOffsetSigma)
            appliedSoftIronSigma = 0
            adopted = true
        } else if fitsSoftIron, let solution = holds.solution,
                  Self.improves(solution.correction, sigma: solution.softIronSigma, on: appliedSoftIronSigma),
                  let fit = Self.calibration(solution, fieldStrength: status.fieldStrength), let inverse = fit.softIron.inverse {
            adopt(fit, inverse: inverse, allowance: 2 * solution.softIronSigma, sigma: BackgroundSoftIron.fittedOffsetSigma)
            appliedSoftIronSigma = solution.softIronSigma
            adopted = true
        } else if fitsSoftIron, let learned = estimator.learnedSoftIron,
                  Self.improves(learned.correction, sigma: learned.sigma, on: appliedSoftIronSigma),
                  let (fit, inverse) = learnedFit(learned.correction) {
            // Its own σ holds only as far as the filter's linearized model and the shape of E's prior
            // do: over part of the sphere it claims more than it knows (a cap: 0.5 % claimed, 2.4 %
            // left). It leaves the allowance of a holds' fit at its bound instead.
            adopt(fit, inverse: inverse, allowance: 2 * Self.holdFitSigma, sigma: max(BackgroundSoftIron.fittedOffsetSigma, status.sigma))
            appliedSoftIronSigma = Self.holdFitSigma
            adopted = true
        }
        if adopted {
            input = fitMatrix * (field - fitOffset)
            offset = estimator.estimate
        } else if fitsSoftIron, let solution = holds.solution, solution.softIronSigma <= Self.holdFitSigma {
            // A fit too small to apply still bounds the soft iron there is.
            let size = (solution.correction - .identity).frobeniusNorm
            let bound = max(size + 2 * solution.softIronSigma, BackgroundSoftIron.residualSoftIronAllowance)
            if bound < 0.9 * estimator.parameters.softIronAllowance { estimator.boundSoftIron(bound) }
        }
        let startWasOnTrial = !status.startConfirmed
        status = estimator.status
        status.changes += earlierChanges
        if status.reason == .relearning {
            if suspectedSince == nil { suspectedSince = holds.time }
        } else {
            suspectedSince = nil
        }
        if status.changes != changesSeen {
            changesSeen = status.changes
            // A stored offset found wrong is no change of the field's own offset: the holds kept
            // since the start still pair with the ones to come.
            if !startWasOnTrial { holds.reset() }
        }
        collecting = fitsSoftIron && status.sigma <= BackgroundSoftIron.collectingSigma && status.fieldStrength > 0
            && status.reason != .disturbed
        if fitted { status.offset = fitOffset + inverseSoftIron * status.offset }
        if !trusted, Self.held(status.offsetAccuracy >= .medium, since: &mediumSince, at: timestamp) {
            trusted = true
            offset = estimate
        }
        if !trusted {
            // The field goes on as read: nothing is known of its heading.
            status.accuracy = .uncalibrated
            status.headingSigma = .infinity
        }
        status.offsetRemoved = trusted
        if !Self.held(status.accuracy == .high, since: &highSince, at: timestamp), status.accuracy == .high {
            status.accuracy = .medium
            if status.reason == .calibrated { status.reason = .learning }
        }
        // The filter is told when the field it is given has moved by ``announcedMove`` from what the
        // correction it was last told of gives (a relearned offset, a fit applied, or both: a
        // change of hard iron adopted between two checks and a fit at the next are one move).
        let told = announcedMatrix * (field - announcedFitOffset) - announcedOffset
        let jump = input - offset - told
        let changed = (jump * jump).sum() > Self.announcedMove * Self.announcedMove
        if changed {
            announcedOffset = offset
            announcedMatrix = fitted ? fitMatrix : .identity
            announcedFitOffset = fitted ? fitOffset : .zero
        }
        return (input - offset, true, changed)
    }

    /// The soft iron the estimator learned (its correction C, in the estimator's frame) behind the
    /// correction in use, as a calibration of the raw field: h = C (F (m − o) − b) = C F (m − (o + F⁻¹ b)),
    /// scaled to determinant 1; nil unless it makes the readings kept for the ellipsoid a tenth
    /// more nearly a sphere than the correction in use (``BackgroundSoftIron/strengthSpread(_:)``):
    /// the filter's own σ for E holds only as far as its linearized model does.
    private func learnedFit(_ correction: Matrix3) -> (MagnetometerCalibration, Matrix3)? {
        let before = fitted ? fitMatrix : .identity, beforeInverse = fitted ? inverseSoftIron : .identity
        let offset = fitOffset + beforeInverse * estimator.estimate
        let matrix = correction * before
        let determinant = matrix.determinant
        guard determinant > 0 else { return nil }
        let normalized = (1 / cbrt(determinant)) * matrix
        guard let inverse = normalized.inverse else { return nil }
        let fit = MagnetometerCalibration(hardIronOffset: offset, softIron: normalized, fieldStrength: status.fieldStrength)
        let current = MagnetometerCalibration(hardIronOffset: offset, softIron: before, fieldStrength: status.fieldStrength)
        guard let spread = softIronReadings.strengthSpread(fit), let spreadBefore = softIronReadings.strengthSpread(current),
              spread <= 0.9 * spreadBefore else { return nil }
        return (fit, inverse)
    }

    /// The latest hold's pairs with the holds since a change came to be suspected, in the
    /// estimator's frame (the fit applied).
    private mutating func showHolds(since: Double, acceleration: SIMD3<Double>) {
        let kept = holds
        kept.forEachPairOfLatest(startedAfter: since) { earlier, later, phi, variance in
            let (m0, m1) = fitted ? (fitMatrix * (earlier - fitOffset), fitMatrix * (later - fitOffset)) : (earlier, later)
            estimator.checkChange(earlier: m0, later: m1, rotation: phi, variance: variance, acceleration: acceleration)
        }
    }

    /// A good soft-iron fit (the ellipsoid, ``BackgroundSoftIron/fit()``, or the holds',
    /// ``HoldSoftIron``): applied to the field from now on, the estimator started afresh behind it
    /// with the soft iron the fit leaves (`allowance`, at least the 1 % a figure-eight leaves) and
    /// the offset's `sigma` (`high` after the estimator's evidence and the hold), and the expected
    /// field it was last given (a manager's location); the field is used corrected at once (a
    /// figure-eight's calibration), and the attitude filter is told when that moves the field by
    /// ``announcedMove``.
    private mutating func adopt(_ fit: MagnetometerCalibration, inverse: Matrix3, allowance: Double, sigma: Double) {
        var parameters = estimator.parameters
        parameters.softIronAllowance = max(min(parameters.softIronAllowance, allowance), BackgroundSoftIron.residualSoftIronAllowance)
        let expected = estimator.expectedField
        earlierChanges += estimator.changes
        estimator = HardIronEstimator(parameters: parameters, sigma: sigma)
        estimator.expect(field: expected)
        softIronFit = fit
        fitMatrix = fit.softIron
        fitOffset = fit.hardIronOffset
        fitted = true
        inverseSoftIron = inverse
        trusted = true
        mediumSince = nil
        highSince = nil
    }

    /// Soft iron's σ a hold fit must reach before it is applied: 2 % for its worst combination
    /// (the allowance it leaves is twice that; the 8 % allowance without a fit).
    package static let holdFitSigma = 0.02

    /// Whether a soft-iron correction C known to `sigma` (a hold fit's, or the one the estimator
    /// learned) is worth applying: known to ``holdFitSigma``, its soft iron ‖C − I‖ plausible
    /// (``BackgroundSoftIron/maximumSoftIron``) and there (three times its σ: a magnetometer
    /// without soft iron would otherwise be given the fit's own error, about 1 %), and a tenth
    /// better than the one applied.
    private static func improves(_ correction: Matrix3, sigma: Double, on applied: Double?) -> Bool {
        let size = (correction - .identity).frobeniusNorm
        guard sigma <= holdFitSigma, size <= BackgroundSoftIron.maximumSoftIron, size >= 3 * sigma else { return false }
        return applied.map { sigma <= $0 * 0.9 } ?? true
    }

    /// A hold fit as a calibration (its matrix scaled to determinant 1, as a figure-eight's).
    private static func calibration(_ solution: RotationPairFit.Solution, fieldStrength: Double) -> MagnetometerCalibration? {
        let determinant = solution.correction.determinant
        guard determinant > 0 else { return nil }
        return MagnetometerCalibration(
            hardIronOffset: solution.offset, softIron: (1 / cbrt(determinant)) * solution.correction, fieldStrength: fieldStrength)
    }

    /// Whether `condition` has held for ``highHoldTime`` of sample time at `timestamp`; `since`
    /// is when it started holding (nil while it does not).
    private static func held(_ condition: Bool, since: inout Double?, at timestamp: Double) -> Bool {
        guard condition else {
            since = nil
            return false
        }
        let start = since ?? timestamp
        since = start
        return timestamp - start >= highHoldTime
    }
}
