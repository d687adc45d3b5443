#if canImport(Glibc)
import Glibc
#endif

import Fusion

/// The magnetometer's hard-iron offset found in the background, from ordinary handling: while the
/// board turns, the Earth's field it sees turns with it, opposite to the gyroscope's rotation, and
/// only the part of the reading that does not turn is the board's own offset.
///
/// One Kalman filter (``OffsetState``: the offset b, k = F² − |b|² and the soft iron E left, 10
/// states; its covariance is the confidence) learns from two kinds of measurement:
/// - *stretches* of turning (HardIronEstimator+Stretches.swift): over a stretch the gyroscope's
///   rotation Φ takes the reading m₀ to m₁ = Φ m₀ + (I − Φ) b, linear in b (the gyro-aided model
///   of Troni & Whitcomb, RSS 2013, integrated over the stretch instead of observed; the Kalman
///   filter on the offset in the spirit of Crassidis, Lai & Harman, JGCD 28(1), 2005);
/// - the field's *strength* (HardIronEstimator+FieldStrength.swift): |m − b|² = F² + 2 hᵀE h, a
///   recursive ellipsoid fit whose prior on E is ``Parameters/softIronAllowance``.
///
/// Guards (HardIronEstimator+Reference.swift): nothing is learned while the field's strength or
/// dip departs from the reference (``Reason/disturbed``), and a stretch whose innovation the
/// covariance cannot explain is skipped (``Parameters/gate``). A lasting change of the offset (a
/// magnet attached) is told from a place's field by a second filter and three physical tests
/// (HardIronEstimator+Change.swift). The board's excursion (``Excursion``) widens the variance of
/// what was read away from where the board was. Design and measurements:
/// docs/background-calibration.md.
///
/// Cost: per sample one quaternion step of the gyroscope and a few comparisons; per stretch
/// (every ``Parameters/stretchAngle`` of turning) one 3×3 Kalman update of the 10 states; per
/// field-strength reading (at most 100 a second) one scalar update of them. No allocation.
package struct HardIronEstimator: Sendable {
    package struct Parameters: Sendable, Equatable {
        /// Standard deviation of the offset before anything was learned, µT per axis: about the
        /// largest board offset met in practice (the simulator's presets: up to 31 µT per axis).
        package var initialSigma: Double = 60
        /// White noise of one reading, µT per axis, quantization included (LIS3MDL: 0.32–0.41 µT
        /// RMS at 80 Hz, datasheet DocID024204 Table 2; QMC5883L: 0.2 µT).
        package var fieldNoise: Double = 0.4

        // The sensors' errors.

        /// How far the magnetometer's reading may lag or lead the gyroscope's beyond
        /// ``magnetometerLag``, s: a magnetometer read between two of its own output-data-rate
        /// updates is 0 to one period old (12.5 ms at 80 Hz), σ = period/√12 = 3.6 ms, taken as
        /// 4 ms. The rotation is wrong by the rates at the stretch's two ends times this.
        package var timingUncertainty: Double = 0.004
        /// Relative error of the gyroscope's rotation angle: 0.5 % (the simulated LSM6DSOX's
        /// scale errors are 0.2–0.5 %; a calibrated gyroscope's are of that order).
        package var rotationScaleError: Double = 0.005

        // The stretches.

        /// Rotation after which a stretch may close, radians (20°).
        package var stretchAngle: Double = 20 * .pi / 180
        /// How long the magnetometer's reading lags the gyroscope's on average, s: half its output
        /// data rate's period for a chip read between its updates (12.5 ms at 80 Hz → 6.25 ms).
        /// Each stretch's rotation is shifted by it at both ends.
        package var magnetometerLag: Double = 0.00625
        /// Rotation rate below which a stretch may end, rad/s (20 °/s).
        package var slowRate: Double = 20 * .pi / 180
        /// Longest stretch, s: one that turned less than ``stretchAngle`` by then is dropped.
        package var maximumStretchTime: Double = 2.0

        // Guards.

        /// How fast a constant offset may drift (temperature), µT/√s per axis.
        package var drift: Double = 0.003
        /// Innovation gate: a stretch whose normalized innovation squared (3 degrees of freedom)
        /// exceeds this is not learned from. 16.3 is the χ²₃ 99.9 % quantile.
        package var gate: Double = 16.3
        /// Largest relative departure of |m − b| from the reference field strength before the
        /// field counts as disturbed.
        package var normThreshold: Double = 0.08
        /// Largest departure of the dip angle from the reference, radians (6°).
        package var dipThreshold: Double = 6 * .pi / 180
        /// Seconds of stretches the first filter must keep rejecting, while the second explains
        /// them, before the second one's offset replaces it (a hard-iron change).
        package var changeConfirmationTime: Double = 3
        /// The worst-direction σ (µT) to which the stretches' rotation alone must determine a
        /// second filter's offset before it may replace the first (see
        /// HardIronEstimator+Change.swift, test 1). The field-strength constraint is left out of this
        /// bound on purpose: it assumes the Earth's field is what it was, which is the very thing
        /// in question. 2 µT: the bound to which the second filter as a whole must know its offset
        /// before its stretches count at all; rotation alone must give as much. One stretch turned
        /// θ about u informs (I − Φ)ᵀ(I − Φ)/r = 2(1 − cos θ)(I − uuᵀ)/r: ≈ 0.3 µT⁻² across u at
        /// 20° with r ≈ 0.4 µT², nothing along u, so a few stretches about two axes suffice. (At 1 µT
        /// an attached magnet on the simulation is relearned up to 3 s later, and in 12 of 20 runs
        /// of `magnet-attached` with soft iron instead of 13.)
        package var changeRotationSigma: Double = 2.0

        // The field-strength constraint.

        /// What the field-strength constraint's model leaves out, µT: the second-order terms of
        /// the soft iron it estimates, a field that is not quite the same from place to place.
        package var strengthModelError: Double = 1.0
        /// How much the field changes per metre the board is carried, µT/m: a reading taken
        /// d metres from where the board has recently been (``Excursion``) may differ from one taken
        /// there by this times d, an error no offset explains, added to the variance of the
        /// stretches and of the field-strength constraint where it sets their weight (not where
        /// their gates and the tests of a change read it). 0: every reading is taken as if the
        /// board stayed in one place. A room's field varies by a few µT over a
        /// metre (the simulator's indoor scenarios: steel furniture and a radiator bend it by
        /// 2–6 µT within 0.3–0.8 m of them); 5 µT/m.
        package var fieldGradient: Double = 5
        /// Largest RMS scatter of the readings about the sphere (µT) with which the accuracy may be
        /// `high`: beyond it hard iron alone does not explain the readings (soft iron, an
        /// uneven field), and the offset is no better than `medium`.
        package var highScatter: Double = 0.8
        /// Shortest time between two field-strength constraints, s (at most 100 per second).
        package var strengthInterval: Double = 0.0099
        /// The offset's σ (µT) below which the field-strength constraint starts, and the σ of the
        /// strength it starts from.
        package var strengthStartSigma: Double = 3
        /// Floor of the offset's uncertainty, µT per axis: what the model leaves out (soft iron of
        /// a few per cent, gyroscope scale errors).
        package var modelErrorFloor: Double = 0.15
        /// The Earth's field strength (µT) and dip (radians, positive down) where the board is,
        /// e.g. from ``WorldMagneticModel``; nil: learned from the readings once the offset is known.
        package var expectedField: SIMD2<Double>?
        /// The field strength (µT) the stored record the estimation starts from was saved with
        /// (``StoredCalibration/fieldStrength``); nil: none. Until a stretch confirms the starting
        /// offset (``Status/startConfirmed``), a corrected field whose strength departs from it
        /// by more than ``normThreshold`` counts as disturbed: the record may be wrong. Ignored
        /// unless the Earth could have it (``earthFieldStrength``) or a field is expected.
        package var storedFieldStrength: Double?
        /// The soft iron left after any fit: the size (Frobenius norm) of S − I, m = S·h + b,
        /// trace removed. It is the prior of the soft iron the field-strength constraint estimates,
        /// and the size against which the offset must be safe before it is called `high`. A board's
        /// soft iron and the magnetometer's sensitivity mismatch are a few per cent per element
        /// (the simulated board's representative matrix: 7.4 %, its trace's part negligible); 8 %.
        package var softIronAllowance: Double = 0.08
        /// Largest bias (µT) that ``softIronAllowance`` may cause in the offset, given the
        /// directions the readings covered, with which the accuracy may be `high`.
        package var highSoftIronBias: Double = 0.5
        /// Largest running mean of the stretches' normalized innovation squared over its
        /// expectation (``Status/consistency``) with which the accuracy may be `high`: above it the
        /// stretches scatter more than the noise model says, and the σ is not to be trusted (the
        /// mean of 20-odd stretches of a fitting model stays within 1 ± 0.3).
        package var highConsistency: Double = 2

        package init() {}
    }

    /// Why the accuracy is what it is.
    package enum Reason: String, Sendable, Equatable {
        /// The offset is known to the accuracy ``MagneticFieldCalibrationAccuracy/high`` needs.
        case calibrated
        /// Learning: the board turns, the uncertainty falls.
        case learning
        /// The board has not turned enough for a while: at rest the offset cannot be seen (the
        /// Earth's field and the offset are both constant then). Turn the board.
        case needsRotation
        /// The field's strength or dip departs from the reference, or stretches contradict the
        /// offset: a magnet or steel nearby; nothing is learned until it passes.
        case disturbed
        /// The offset seems to have changed (something magnetic attached): a second estimate is
        /// being learned and replaces the first once confirmed.
        case relearning
        /// No background calibration runs (``PassThroughFieldCalibrator``): the field is used as
        /// read, with any stored calibration applied.
        case off
    }

    /// The estimate, its confidence and the accuracy it gives.
    package struct Status: Sendable, Equatable {
        /// µT, the frame of the readings: subtract it from the field.
        package var offset: SIMD3<Double>
        /// Standard deviation of the offset along its worst direction, µT (floor included).
        package var sigma: Double
        /// Standard deviation of the heading in the current pose, degrees: the offset's σ along
        /// magnetic east and the soft iron not yet known (its allowance acting on how far this
        /// reading lies from those the offset was learned from: inside the directions seen the
        /// offset absorbed it, away from them it turns the field; before any reading is used for
        /// the field's strength, the whole reading), over the horizontal field strength
        /// (reference or expected; 20 µT while not yet known). The offset's part is scaled by the
        /// sphere's misfit (``sphereMisfit``) and taken from its covariance under the true model
        /// (``OffsetState/offsetErrorCovariance``: with what the soft iron the stretches leave out
        /// did to it), with that error's covariance with the soft iron's own term added.
        package var headingSigma: Double
        package var accuracy: MagneticFieldCalibrationAccuracy
        package var reason: Reason
        /// Hard-iron changes detected and relearned so far.
        package var changes: Int
        /// The reference field strength, µT (expected or learned); 0 while unknown.
        package var fieldStrength: Double
        /// RMS distance of recent readings (while turning) from the sphere the offset and field
        /// strength describe, µT; 0 until the strength is known.
        package var fieldScatter: Double
        /// Running mean of the normalized innovation squared of the stretches learned from,
        /// divided by its expectation (3): near 1 when the noise model fits, below when it is
        /// pessimistic, above when the offset explains the readings badly. 0 before any.
        package var consistency: Double
        /// The largest bias (µT) that unmodelled soft iron of ``Parameters/softIronAllowance``
        /// could cause in the offset, given the directions the readings covered (see
        /// ``DirectionMoments``); infinity while too few.
        package var softIronBias: Double
        /// The accuracy the offset's own uncertainty gives (``headingSigma`` without the soft iron
        /// not yet known): whether removing the offset from the field helps, and whether it is
        /// worth saving. ``accuracy`` is what the heading can be trusted to.
        package var offsetAccuracy: MagneticFieldCalibrationAccuracy
        /// Whether the offset is the estimator's own: false while it is a stored record's that no
        /// stretch has confirmed yet (``Parameters/storedFieldStrength``); such a status is not
        /// saved (it says nothing the record did not).
        package var startConfirmed: Bool
        /// Whether the offset is taken out of the field the attitude filter is given
        /// (``BackgroundFieldCorrection``: once its own accuracy has held `medium`, or from a start
        /// that had it); false while the field goes on as read, and with the background calibration off.
        package var offsetRemoved = false
    }

    /// The Earth's field strength anywhere near its surface, µT: the World Magnetic Model's total
    /// intensity runs from about 22 µT (South Atlantic) to 67 µT (near the south magnetic pole)
    /// (NOAA/BGS, "The US/UK World Magnetic Model for 2020-2025", Technical Report, map of F),
    /// with room for the model's error and the altitude of a board. A corrected field outside it,
    /// by more than ``Parameters/normThreshold``, is a magnet nearby or a wrong offset: disturbed,
    /// whether or not a reference is known yet.
    package static let earthFieldStrength = 20.0...70.0

    package private(set) var parameters: Parameters

    var state: OffsetState
    /// The second filter (hard-iron change), while one is suspected.
    var candidate: OffsetState?
    var offset: SIMD3<Double> { state.offset }
    var covariance: Matrix3 { state.offsetCovariance }
    /// The field-strength constraint's own state: the last reading it used (it uses each new
    /// reading once), whether k has been started, the mean square distance of recent readings
    /// from the sphere (µT²), and the seconds since it last ran.
    var sphere = (lastReading: SIMD3<Double>.zero, known: false, scatter: 0.0, sinceLast: 0.0)
    /// The directions the field-strength constraint has used since it started.
    var moments = DirectionMoments()
    /// `moments.softIronSensitivity` as last computed (µT per unit of soft iron).
    var softIronSensitivity = Double.infinity
    var sensitivityCountdown = 50
    var candidateConsistentTime: Double = 0
    /// Time of the second filter's own stretches that it did not fit, in a row, once known.
    var candidateRefutedTime: Double = 0
    /// Pairs of held readings (``checkChange(earlier:later:rotation:variance:acceleration:)``)
    /// that fit the second filter and not the first since it started or was last refuted.
    var heldConfirmations = 0
    /// Σ (I − Φ)ᵀ(I − Φ)/r of the stretches the second filter learned from since it started or its
    /// step was last refuted (µT⁻²): how well rotation alone determines it.
    var candidateInformation = Matrix3.zero
    /// Over the same stretches, once the second filter is known (test 2): the sums of the squared
    /// departures of the field's strength from the reference (µT²) at their ends, with the first
    /// filter's offset removed and with the second's.
    var strengthMisfit = SIMD2<Double>.zero
    /// Whether the second filter's field strength has been started (from the reference).
    var candidateStrengthKnown = false
    /// What the estimate was before the last hard-iron change: tried before the second filter when
    /// the offset changes again (a magnet attached and taken off again gives the board's own
    /// offset back, known already), with the seconds of stretches it has explained since.
    var previous: (state: OffsetState, strength: Double, dip: Double, dipKnown: Bool, strengthKnown: Bool, consistentTime: Double)?
    var rejectedTime: Double = 0
    /// Seconds of stretches the first filter explained since it last could not.
    var acceptedTime: Double = 0

    /// The stretch under way: the body rotation since its first reading, its first reading, time.
    var rotation = Quaternion.identity
    var firstReading: SIMD3<Double>?
    var stretchTime: Double = 0
    /// Radians turned along the way (the stretch closes on it; the net rotation decides its use).
    var path: Double = 0
    /// The rotation rate at the stretch's first reading, rad/s, and its size.
    var firstRateVector = SIMD3<Double>.zero
    var firstRate: Double = 0
    /// The latest reading and acceleration (for the heading uncertainty's east direction).
    var lastField = SIMD3<Double>.zero
    var lastAcceleration = SIMD3<Double>(0, 0, -1)
    var stillTime: Double = 0
    /// How far the board is from where it has recently been, and where it was at the stretch's start.
    var excursion = Excursion()
    var stretchStartPosition = SIMD3<Double>.zero

    /// Reference strength and dip (learned or expected); strength 0 while unknown.
    var referenceStrength: Double = 0
    var referenceDip: Double = 0
    var referenceDipKnown = false
    /// Whether the offset is known to ``Parameters/strengthStartSigma`` per axis (checked after
    /// each stretch learned): the disturbance guards compare the corrected field from then on.
    var offsetSettled = false
    /// ``Parameters/expectedField``, or what ``expect(field:)`` set since.
    var expectedField: SIMD2<Double>?
    var disturbed = false
    /// Whether the starting offset claims to be known (σ within ``Parameters/strengthStartSigma``:
    /// a stored record) and no stretch has confirmed it yet: a record can be wrong (hand-edited,
    /// another board's, the board changed since), so it is on trial until the first stretch the
    /// filter explains. A stretch it cannot explain while on trial lowers the accuracy at once.
    var onTrial = false
    /// Whether the estimation started from an offset known to ``Parameters/strengthStartSigma``
    /// (a stored record).
    var startedSettled = false
    /// Whether ``referenceStrength`` is the stored record's (``Parameters/storedFieldStrength``),
    /// used only while the start is on trial; it is learned afresh once the start is confirmed
    /// (a board taken elsewhere meets another field).
    var referenceFromRecord = false
    /// Hard-iron changes adopted (``Status/changes``).
    var changes = 0
    var consistency: Double = 0

    /// - Parameters:
    ///   - offset: the starting estimate, µT (a stored calibration's residual; zero for none).
    ///   - sigma: its standard deviation per axis, µT; nil for ``Parameters/initialSigma``.
    package init(parameters: Parameters = Parameters(), offset: SIMD3<Double> = .zero, sigma: Double? = nil) {
        self.parameters = parameters
        let s = max(sigma ?? parameters.initialSigma, 0)
        state = OffsetState(offset: offset, sigma: s, fieldStrength: parameters.expectedField?.x ?? 50,
                            softIronAllowance: parameters.softIronAllowance)
        expect(field: parameters.expectedField)
        offsetSettled = s <= parameters.strengthStartSigma
        onTrial = offsetSettled
        startedSettled = offsetSettled
        if onTrial, expectedField == nil, let stored = parameters.storedFieldStrength, Self.earthFieldStrength.contains(stored) {
            referenceStrength = stored
            referenceFromRecord = true
        }
    }

    /// The start is confirmed (a stretch explained by the starting offset, or an offset relearned
    /// by rotation): a reference taken from the record is learned afresh from here on.
    mutating func confirmStart() {
        guard onTrial else { return }
        onTrial = false
        if referenceFromRecord {
            referenceFromRecord = false
            if expectedField == nil { referenceStrength = 0 }
        }
    }

    /// The offset to subtract, µT.
    package var estimate: SIMD3<Double> { offset }

    /// The soft iron learned with the offset (``OffsetState/softIron``: the field-strength
    /// constraint's recursive ellipsoid fit, which learns from continuous turning, with no hold
    /// and over less of the sphere than the explicit ellipsoid needs), as the correction that
    /// removes it, (I + E)⁻¹ (m − b) = h, and its σ (the expected Frobenius norm of E's error); nil
    /// while the strength is not used yet (E is then its prior), the field is disturbed or a
    /// change of hard iron is suspected.
    package var learnedSoftIron: (correction: Matrix3, sigma: Double)? {
        guard sphere.known, !disturbed, candidate == nil, let inverse = (Matrix3.identity + state.softIronMatrix).inverse else { return nil }
        return (inverse, state.softIronSigma)
    }

    /// Whether the latest reading's field departed from the reference (the disturbance guard).
    var isDisturbed: Bool { disturbed }

    /// Standard deviation of the offset along its worst direction (the covariance's largest
    /// eigenvalue), µT, with the model error floor.
    package var sigma: Double {
        Self.withFloor(Self.largestEigenvalue(covariance), parameters.modelErrorFloor)
    }

    static func withFloor(_ variance: Double, _ floor: Double) -> Double {
        (max(variance, 0) + floor * floor).squareRoot()
    }

    /// The largest eigenvalue of a symmetric positive semi-definite matrix: a few power steps
    /// from the column of the largest diagonal element (enough for a bound within a few per cent).
    static func largestEigenvalue(_ p: Matrix3) -> Double {
        var v = p.m11 >= p.m22 && p.m11 >= p.m33 ? SIMD3<Double>(1, 0, 0) : p.m22 >= p.m33 ? SIMD3(0, 1, 0) : SIMD3(0, 0, 1)
        var value = 0.0
        for _ in 0..<12 {
            let w = p * v
            let size = (w * w).sum().squareRoot()
            guard size > 0 else { return 0 }
            value = size
            v = w / size
        }
        return value
    }

    /// Magnetic east in device axes at the latest reading (the direction in which a field error
    /// turns the heading), a unit vector; nil while unknown (no field or no gravity).
    var east: SIMD3<Double>? {
        let east = cross(lastAcceleration, lastField - offset)   // down × field points east
        let size = (east * east).sum().squareRoot()
        return size > 0 ? east / size : nil
    }

    /// Standard deviation of the offset along magnetic east `east` (nil: unknown), µT; the worst
    /// direction while unknown.
    func eastSigma(_ east: SIMD3<Double>?, _ p: Matrix3) -> Double {
        guard let u = east else { return Self.withFloor(Self.largestEigenvalue(p), parameters.modelErrorFloor) }
        return Self.withFloor((u * (p * u)).sum(), parameters.modelErrorFloor)
    }

    /// How much the field strength's residuals about the sphere (``Status/fieldScatter``) exceed
    /// what the constraint's model allows (a reading's noise and ``Parameters/strengthModelError``),
    /// as a ratio of RMS, at least 1; 1 before the strength is used.
    var sphereMisfit: Double {
        guard sphere.known else { return 1 }
        let allowed = parameters.fieldNoise * parameters.fieldNoise + parameters.strengthModelError * parameters.strengthModelError
        return max(1, (sphere.scatter / allowed).squareRoot())
    }

    /// The horizontal field strength the heading error is computed with, µT.
    var horizontalField: Double {
        referenceStrength > 0 ? max(referenceStrength * cos(referenceDip), 1) : 20
    }

    /// The σ (µT) of the field's component along magnetic east (the one that turns the heading)
    /// that soft iron not yet known leaves at the latest reading: the offset learned from the
    /// field's strength absorbed E ū (E the soft iron, of Frobenius norm ``Parameters/softIronAllowance``
    /// at most; ū the mean of the readings used), so the reading u keeps E w, w = u − ū. For a
    /// symmetric E with no preferred direction (independent entries, the diagonal's variance twice
    /// the off-diagonal's, a² in all) the component eᵀE w has variance a² |w|² (1 + (e·ŵ)²) / 12.
    /// Zero before the strength is used (a starting point's own claim stands).
    /// Before any reading has been used for the field's strength the offset is the stretches'
    /// alone, which absorb none of E h: w is the whole field h then. E acts on the true field
    /// m − b, not on the reading less an offset still unsure (a vehicle's vertical offset can be
    /// tens of µT off, shrinking |m − b̂| well below the Earth's field): |h|² is taken as its
    /// expectation |m − b̂|² + tr P (b ~ N(b̂, P)), at least the reference strength's square once
    /// one is known. A stored start's offset was
    /// learned where it was saved: its own σ stands until readings are used again.
    func softIronEastSigma(_ east: SIMD3<Double>?) -> Double {
        guard let w = softIronLever else { return 0 }
        var spread = (w * w).sum()
        guard spread > 0 else { return 0 }
        let along = east.map { ($0 * w).sum() * ($0 * w).sum() / spread } ?? 1
        if !sphere.known {
            let p = covariance
            spread = max(spread + p.m11 + p.m22 + p.m33, referenceStrength * referenceStrength)
        }
        return parameters.softIronAllowance * (spread * (1 + along) / 12).squareRoot()
    }

    /// The w of ``softIronEastSigma(_:)``: the field E acts on, less what the offset learned from
    /// the field's strength absorbed; nil where a stored start's own σ stands or no field was read.
    var softIronLever: SIMD3<Double>? {
        let reading = lastField - offset
        if sphere.known, moments.count > 0 { return reading - moments.first / moments.count }
        if startedSettled || lastField == .zero { return nil }
        return reading
    }

    package var status: Status {
        let sigma = self.sigma
        let direction = east
        // The heading's σ takes the offset's covariance under the true model (with the soft iron
        // the stretches leave out, ``OffsetState/offsetErrorCovariance``); whether the offset is
        // worth removing from the field is the filter's own covariance's to say (the estimate is
        // the filter's, and the field as read is no better for an unsure part of it).
        let offsetEast = eastSigma(direction, state.offsetErrorCovariance), soft = softIronEastSigma(direction)
        let offsetHeadingSigma = atan(eastSigma(direction, covariance) / horizontalField) * 180 / .pi
        // The covariance holds under the model the readings are weighed with; where the field
        // strength's residuals scatter more than that model allows, the offset's σ for the
        // heading is scaled by the ratio (the Birge ratio: the covariance times the reduced χ²).
        let misfitEast = offsetEast * sphereMisfit
        // The offset's error and the soft iron's own term E w come from the same E: their
        // covariance belongs in the sum (it was the larger share of a vehicle's error).
        var cross = 0.0
        if soft > 0, let u = direction, let w = softIronLever {
            cross = 2 * state.offsetCovariance(along: u, withSoftIron: OffsetState.softIronCoefficients(u, w))
        }
        let headingSigma = atan(max(misfitEast * misfitEast + soft * soft + cross, 0).squareRoot() / horizontalField) * 180 / .pi
        var accuracy = Self.accuracy(sigma: sigma, headingSigma: headingSigma)
        if accuracy == .high, sphere.known, sphere.scatter > parameters.highScatter * parameters.highScatter { accuracy = .medium }
        let softIronBias = parameters.softIronAllowance * softIronSensitivity
        // Once learning from the field's strength (a starting point's own claim stands until then).
        if accuracy == .high, sphere.known, !(softIronBias <= parameters.highSoftIronBias) { accuracy = .medium }
        if accuracy == .high, consistency > parameters.highConsistency { accuracy = .medium }
        // A stored start on trial that a stretch contradicted: the record may be wrong.
        let doubted = candidate != nil && onTrial
        let reason: Reason
        if candidate != nil, rejectedTime >= parameters.changeConfirmationTime / 2 {
            reason = .relearning
        } else if disturbed {
            reason = .disturbed
        } else if accuracy == .high {
            reason = .calibrated
        } else if stillTime >= 2 {
            reason = .needsRotation
        } else {
            reason = .learning
        }
        return Status(offset: offset, sigma: sigma, headingSigma: headingSigma, accuracy: disturbed || doubted ? min(accuracy, .low) : accuracy,
                      reason: reason, changes: changes, fieldStrength: referenceStrength, fieldScatter: sphere.scatter.squareRoot(),
                      consistency: consistency, softIronBias: softIronBias,
                      offsetAccuracy: Self.accuracy(sigma: sigma, headingSigma: offsetHeadingSigma), startConfirmed: !onTrial)
    }

    /// The accuracy an offset uncertainty gives (σ per axis in µT, and the heading σ in degrees,
    /// ``Status/headingSigma``: the offset's and the soft iron not yet known): `high` needs σ ≤ 0.33 µT
    /// and heading σ ≤ 1° (three σ stay within 1 µT); `medium` heading σ ≤ 3°; `low` heading σ ≤ 10°;
    /// `uncalibrated` beyond.
    package static func accuracy(sigma: Double, headingSigma: Double) -> MagneticFieldCalibrationAccuracy {
        if sigma <= 0.33 && headingSigma <= headingBound(.high) { return .high }
        if headingSigma <= headingBound(.medium) { return .medium }
        if headingSigma <= headingBound(.low) { return .low }
        return .uncalibrated
    }

    /// The accuracy whose promise (``headingBound(_:)``) a heading σ of `headingSigma` degrees
    /// keeps: the highest level whose bound it is within.
    package static func accuracy(headingSigma: Double) -> MagneticFieldCalibrationAccuracy {
        if headingSigma <= headingBound(.high) { return .high }
        if headingSigma <= headingBound(.medium) { return .medium }
        if headingSigma <= headingBound(.low) { return .low }
        return .uncalibrated
    }

    /// The heading σ (degrees) an accuracy promises at most: high 1°, medium 3°, low 10°;
    /// uncalibrated none (infinity).
    package static func headingBound(_ accuracy: MagneticFieldCalibrationAccuracy) -> Double {
        switch accuracy {
        case .high: 1
        case .medium: 3
        case .low: 10
        case .uncalibrated: .infinity
        }
    }

    /// The Earth's field where the board is (strength µT, dip radians positive down, e.g. from
    /// ``WorldMagneticModel`` once a location is known), or nil to learn it from the readings:
    /// the reference the disturbance guards compare the corrected field with, and the horizontal
    /// strength the heading uncertainty is computed with. Ignored unless plausible (20–70 µT, dip
    /// within ±90°).
    package mutating func expect(field: SIMD2<Double>?) {
        guard let field, Self.earthFieldStrength.contains(field.x), abs(field.y) <= .pi / 2 else {
            if expectedField != nil {   // back to learning it
                referenceStrength = 0
                referenceDipKnown = false
            }
            expectedField = nil
            return
        }
        expectedField = field
        referenceFromRecord = false
        referenceStrength = field.x
        referenceDip = field.y
        referenceDipKnown = true
    }

    /// The samples stop following one another (fusion paused, a gap): the stretch under way is
    /// dropped, since the board may have turned unseen; what was learned stays.
    package mutating func restartStretch() {
        firstReading = nil
        excursion.restart()
    }

    /// Soft iron shown to be at most `allowance` (Frobenius norm of S − I; e.g. by a holds' fit too
    /// small to apply). Told to the filter as a measurement of E (each entry zero, with the
    /// variance that takes E's prior from the old allowance to this one: what the bound adds to
    /// what was assumed), so that what the field-strength constraint could not tell apart from
    /// soft iron before now counts for the offset too. Never raises it.
    package mutating func boundSoftIron(_ allowance: Double) {
        guard allowance > 0, allowance < parameters.softIronAllowance else { return }
        let before = parameters.softIronAllowance * parameters.softIronAllowance / 10
        let after = allowance * allowance / 10
        let variance = 1 / (1 / after - 1 / before)
        parameters.softIronAllowance = allowance
        state.observeNoSoftIron(variance)
        candidate?.observeNoSoftIron(variance)
        previous?.state.observeNoSoftIron(variance)
    }

    /// One sample.
    /// - Parameters:
    ///   - field: the magnetometer's reading, µT, device axes (any stored calibration applied).
    ///   - rotationRate: rad/s, device axes, gyroscope bias removed.
    ///   - acceleration: g, Core Motion sign (face up at rest `(0, 0, −1)`), for the dip angle.
    ///   - interval: seconds since the previous sample.
    package mutating func update(
        field: SIMD3<Double>, rotationRate: SIMD3<Double>, acceleration: SIMD3<Double>, interval: Double
    ) {
        guard field * 0 == .zero, rotationRate * 0 == .zero, interval.isFinite, interval > 0, interval < 1 else {
            firstReading = nil
            excursion.restart()
            return
        }
        excursion.update(acceleration: acceleration, rotationRate: rotationRate, interval: interval)
        checkDisturbance(field, acceleration)
        // Only while turning: at rest every reading repeats the same direction, which adds
        // nothing but its errors.
        // At most once every `strengthInterval` (a cost bound at high sample rates; the readings
        // of a magnetometer at 80 Hz all count at a 100 Hz sampler).
        sphere.sinceLast += interval
        if sphere.sinceLast >= parameters.strengthInterval,
           (rotationRate * rotationRate).sum() >= parameters.slowRate * parameters.slowRate / 4 {
            sphere.sinceLast = 0
            constrainStrength(field)
        }
        lastField = field
        lastAcceleration = acceleration
        guard let first = firstReading else {
            startStretch(field, rate: rotationRate)
            return
        }
        // The body's rotation since the stretch began (device at start → device now): one
        // small-angle quaternion step (series to the θ³ term; a sample turns well under 0.1 rad).
        let half = rotationRate * (0.5 * interval)
        let halfSquared = (half * half).sum()
        let v = half * (1 - halfSquared / 6)
        rotation = rotation * Quaternion(w: 1 - halfSquared / 2, x: v.x, y: v.y, z: v.z)
        path += 2 * halfSquared.squareRoot()
        stretchTime += interval
        // A stretch ends where the board turns slowly (so that a lag between the magnetometer
        // and the gyroscope, which turns the field by rate × lag, matters least), once it has
        // turned far enough; or when it has turned three times as far; or after the longest time.
        let rate = halfSquared.squareRoot() * 2 / interval
        let slow = rate <= parameters.slowRate
        // Seconds without turning (below a quarter of the slow rate) since the last stretch.
        if rate < parameters.slowRate / 4 { stillTime += interval }
        if (path >= parameters.stretchAngle && slow) || path >= 3 * parameters.stretchAngle
            || stretchTime >= parameters.maximumStretchTime {
            // The readings' own instants lie `magnetometerLag` earlier at both ends.
            let lag = parameters.magnetometerLag
            rotation = (Self.step(firstRateVector * lag) * rotation * Self.step(rotationRate * -lag)).normalized
            let turned = rotation.angle
            if turned >= parameters.stretchAngle / 2 {
                learn(from: first, to: field, acceleration: acceleration, rotation: rotation, duration: stretchTime,
                      endRates: firstRate + rate)
                stillTime = 0
            } else {
                predict(stretchTime)
            }
            // The next stretch starts where the board turns slowly too: until then, the start moves on.
            startStretch(field, rate: rotationRate)
        } else if path < parameters.stretchAngle / 4, rate < firstRate {
            // Still near the start and turning slower than there: a better place to start.
            startStretch(field, rate: rotationRate)
        }
    }
}
