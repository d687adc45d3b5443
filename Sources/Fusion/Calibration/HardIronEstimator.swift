#if canImport(Glibc)
import Glibc
#endif

/// The magnetometer's hard-iron offset found in the background, from ordinary handling: while the
/// board turns, the Earth's field it sees turns with it, opposite to the gyroscope's rotation, and
/// only the part of the reading that does not turn is the board's own offset.
///
/// Method: the gyro-aided sensor model of Troni & Whitcomb ("Adaptive estimation of measurement
/// bias in three-dimensional field sensors with angular-rate sensors: theory and comparative
/// experimental evaluation", Robotics: Science and Systems 2013): a field fixed in the world seen
/// by a sensor turning at ω obeys dm/dt = −ω × (m − b), with m the reading and b its constant
/// offset. Troni & Whitcomb estimate b with an adaptive observer; here the model is integrated
/// over a short stretch instead (the rotation Φ from one reading to the next is the gyroscope's,
/// so m₁ − b = Φ (m₀ − b), i.e. m₁ − Φ m₀ = (I − Φ) b: linear in b) and b is estimated by a Kalman
/// filter on those stretches, in the spirit of Crassidis, Lai & Harman's real-time
/// attitude-independent calibration ("Real-time attitude-independent three-axis magnetometer
/// calibration", Journal of Guidance, Control, and Dynamics 28(1), 2005), which also runs a
/// Kalman filter on the offset and keeps its covariance as the confidence.
///
/// A stretch closes when the board has turned ``Parameters/stretchAngle`` (too little rotation
/// says nothing about b: a board at rest teaches nothing, and says so through
/// ``Reason/needsRotation``). Guards: a stretch whose innovation the covariance cannot explain
/// is not learned from (``Parameters/gate``); while the field's strength or dip departs from the
/// reference (a magnet nearby, steel), nothing is learned (``Reason/disturbed``). A lasting
/// change of the offset itself (a magnet or a battery attached to the board) is told apart from a
/// passing disturbance by a second filter started from scratch when innovations stay too large:
/// it replaces the first once it explains the readings as a constant offset while the first still
/// cannot, for ``Parameters/changeConfirmationTime``. The estimate it replaced is kept and tried
/// first at the next change: a magnet taken off again gives the board's own offset back, which
/// then needs no relearning, only the same confirmation.
///
/// Telling a change from a place: a change of hard iron is fixed in the sensor frame and happens
/// at one moment; a field that varies from place to place (a lab's steel, a radiator, the rebar
/// of a floor) is fixed in the Earth's frame at each place and changes as the board is carried.
/// With little turning the two look alike (a constant added to every reading); a second filter
/// started from scratch then absorbs the place's field as if it were an offset, and an estimate
/// that was right is replaced by a wrong one. Three physical tests, none a tuned number, must all
/// pass before a second filter replaces the first:
/// 1. *Determined by rotation, in every direction.* Its offset must be known to
///    ``Parameters/changeRotationSigma`` along its worst direction from the stretches' rotation
///    alone (the information Σ (I − Φ)ᵀ(I − Φ)/r of the stretches it explained): a rotation about
///    one axis says nothing along that axis, so this needs turning about at least two axes.
/// 2. *The Earth's field is what it was.* The field with its offset removed must have the
///    reference strength and dip (``Parameters/normThreshold``, ``Parameters/dipThreshold``, the
///    disturbance guard's own bounds) at each stretch counted as fitting it (one that ends where
///    it does not, a place the guard calls disturbed, counts neither way); and over the stretches
///    its strength must miss the reference by at most half as much (RMS) as with the first
///    filter's offset: a change of hard iron makes the old offset miss it at every orientation
///    by up to the change, the new one not at all; a place's field is in neither offset, and
///    both miss by about as much.
/// 3. *A step.* If the offset stepped from the first filter's to the second's, every stretch whose
///    rotation would show that step (its innovation (I − Φ)·Δb beyond ``Parameters/gate``, given
///    both filters' uncertainty) must contradict the first filter. One the first filter explains
///    instead refutes the step: the evidence for the second filter gathered so far is dropped. A
///    field that varies with place gives stretches the old offset fits (where the board turns
///    without moving far) between those it does not (where it moves through the variation).
///
/// Test 2's time of fitting stretches may also be two pairs of held readings
/// (``checkChange(earlier:later:rotation:variance:acceleration:)``, from ``HoldSoftIron``): taken
/// after the change came to be suspected, each fitting the second filter and not the first. A
/// board handled a little after a magnet was attached gives few stretches, and one that does not
/// fit resets their count; a few holds between its turns then still confirm the change.
///
/// A board moved about: a place's field is also in the readings of a board shaken or carried
/// through it, and over the few directions of a hand's motion it looks like an offset. How far
/// the board is from where it has recently been (``Excursion``, from the accelerometer) times
/// ``Parameters/fieldGradient`` is the field's change the stretches and the field-strength
/// constraint may meet; it widens their variance, so that what was read away from where the
/// board was counts for less (the second filter's stretches excepted). The gates and the tests of
/// a change leave it out: a reading the model of a board in one place cannot explain is still
/// skipped, and a change of hard iron is still told by the same stretches. It lowers the weights;
/// it does not make errors that follow the motion independent, so the offset still moves where
/// they do (``Excursion``'s tests and `aShakenBoardsReadingsCountForLess`).
///
/// Soft iron: ``BackgroundFieldCorrection`` removes what it can fit before the filter sees the
/// field (``HoldSoftIron``, ``BackgroundSoftIron``, or a stored calibration). What is left, E
/// (m − b = (I + E)·h, E symmetric, trace zero, at most ``Parameters/softIronAllowance``), is
/// estimated with the offset by the field-strength constraint (a recursive ellipsoid fit: 10
/// states, b, k and E's six entries, held to zero trace; E's prior the allowance, a holds' fit too
/// small to apply a measurement of it, ``boundSoftIron(_:)``), and not applied to the field: over
/// the cap of directions that ordinary handling covers, E is not determined, and neither is the
/// part of b it could stand for, which is then left to the stretches; over the whole sphere both
/// are. Taking E as zero instead (as this filter once did) made every reading of a cap
/// count as independent evidence for b, so a few per cent of soft iron pulled b by a µT or two
/// while its σ said 0.2. The filter's uncertainty has a floor, ``Parameters/modelErrorFloor``.
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
        /// second filter's offset before it may replace the first (see ``HardIronEstimator``'s
        /// "Telling a change from a place"). The field-strength constraint is left out of this
        /// bound on purpose: it assumes the Earth's field is what it was, which is the very thing
        /// in question. 2 µT: the bound to which the second filter as a whole must know its offset
        /// before its stretches count at all; rotation alone must give as much. One stretch turned
        /// θ about u informs (I − Φ)ᵀ(I − Φ)/r = 2(1 − cos θ)(I − uuᵀ)/r: ≈ 0.3 µT⁻² across u at
        /// 20° with r ≈ 0.4 µT², nothing along u, so a few stretches about two axes suffice. (1 µT
        /// was tried on the simulation: an attached magnet was then relearned up to 3 s later, in
        /// 12 of 20 runs of `magnet-attached` with soft iron instead of 13.)
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
        /// offset absorbed it, away from them it turns the field), over the horizontal field
        /// strength (reference or expected; 20 µT while not yet known).
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
    }

    package private(set) var parameters: Parameters

    private var state: OffsetState
    /// The second filter (hard-iron change), while one is suspected.
    private var candidate: OffsetState?
    private var offset: SIMD3<Double> { state.offset }
    private var covariance: Matrix3 { state.offsetCovariance }
    /// The field-strength constraint's own state: the last reading it used (it uses each new
    /// reading once), whether k has been started, the mean square distance of recent readings
    /// from the sphere (µT²), and the seconds since it last ran.
    private var sphere = (lastReading: SIMD3<Double>.zero, known: false, scatter: 0.0, sinceLast: 0.0)
    /// The directions the field-strength constraint has used since it started.
    private var moments = DirectionMoments()
    /// `moments.softIronSensitivity` as last computed (µT per unit of soft iron).
    private var softIronSensitivity = Double.infinity
    private var sensitivityCountdown = 50
    private var candidateConsistentTime: Double = 0
    /// Time of the second filter's own stretches that it did not fit, in a row, once known.
    private var candidateRefutedTime: Double = 0
    /// Pairs of held readings (``checkChange(earlier:later:rotation:variance:acceleration:)``)
    /// that fit the second filter and not the first since it started or was last refuted.
    private var heldConfirmations = 0
    /// Σ (I − Φ)ᵀ(I − Φ)/r of the stretches the second filter learned from since it started or its
    /// step was last refuted (µT⁻²): how well rotation alone determines it.
    private var candidateInformation = Matrix3.zero
    /// Over the same stretches, once the second filter is known (test 2): the sums of the squared
    /// departures of the field's strength from the reference (µT²) at their ends, with the first
    /// filter's offset removed and with the second's.
    private var strengthMisfit = SIMD2<Double>.zero
    /// Whether the second filter's field strength has been started (from the reference).
    private var candidateStrengthKnown = false
    /// What the estimate was before the last hard-iron change: tried before the second filter when
    /// the offset changes again (a magnet attached and taken off again gives the board's own
    /// offset back, known already), with the seconds of stretches it has explained since.
    private var previous: (state: OffsetState, strength: Double, dip: Double, dipKnown: Bool, strengthKnown: Bool, consistentTime: Double)?
    private var rejectedTime: Double = 0
    /// Seconds of stretches the first filter explained since it last could not.
    private var acceptedTime: Double = 0

    /// The stretch under way: the body rotation since its first reading, its first reading, time.
    private var rotation = Quaternion.identity
    private var firstReading: SIMD3<Double>?
    private var stretchTime: Double = 0
    /// Radians turned along the way (the stretch closes on it; the net rotation decides its use).
    private var path: Double = 0
    /// The rotation rate at the stretch's first reading, rad/s, and its size.
    private var firstRateVector = SIMD3<Double>.zero
    private var firstRate: Double = 0
    /// The latest reading and acceleration (for the heading uncertainty's east direction).
    private var lastField = SIMD3<Double>.zero
    private var lastAcceleration = SIMD3<Double>(0, 0, -1)
    private var stillTime: Double = 0
    /// How far the board is from where it has recently been, and where it was at the stretch's start.
    private var excursion = Excursion()
    private var stretchStartPosition = SIMD3<Double>.zero

    /// Reference strength and dip (learned or expected); strength 0 while unknown.
    private var referenceStrength: Double = 0
    private var referenceDip: Double = 0
    private var referenceDipKnown = false
    /// Whether the offset is known to ``Parameters/strengthStartSigma`` per axis (checked after
    /// each stretch learned): the disturbance guards compare the corrected field from then on.
    private var offsetSettled = false
    /// ``Parameters/expectedField``, or what ``expect(field:)`` set since.
    private(set) var expectedField: SIMD2<Double>?
    private var disturbed = false
    /// Hard-iron changes adopted (``Status/changes``).
    private(set) var changes = 0
    private var consistency: Double = 0

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
    }

    /// The offset to subtract, µT.
    package var estimate: SIMD3<Double> { offset }

    /// Whether the latest reading's field departed from the reference (the disturbance guard).
    var isDisturbed: Bool { disturbed }

    /// Standard deviation of the offset along its worst direction (the covariance's largest
    /// eigenvalue), µT, with the model error floor.
    package var sigma: Double {
        Self.withFloor(Self.largestEigenvalue(covariance), parameters.modelErrorFloor)
    }

    private static func withFloor(_ variance: Double, _ floor: Double) -> Double {
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
    private var east: SIMD3<Double>? {
        let east = cross(lastAcceleration, lastField - offset)   // down × field points east
        let size = (east * east).sum().squareRoot()
        return size > 0 ? east / size : nil
    }

    /// Standard deviation of the offset along magnetic east `east` (nil: unknown), µT; the worst
    /// direction while unknown.
    private func eastSigma(_ east: SIMD3<Double>?) -> Double {
        guard let u = east else { return sigma }
        return Self.withFloor((u * (covariance * u)).sum(), parameters.modelErrorFloor)
    }

    /// The horizontal field strength the heading error is computed with, µT.
    private var horizontalField: Double {
        referenceStrength > 0 ? max(referenceStrength * cos(referenceDip), 1) : 20
    }

    /// The σ (µT) of the field's component along magnetic east (the one that turns the heading)
    /// that soft iron not yet known leaves at the latest reading: the offset learned from the
    /// field's strength absorbed E ū (E the soft iron, of Frobenius norm ``Parameters/softIronAllowance``
    /// at most; ū the mean of the readings used), so the reading u keeps E w, w = u − ū. For a
    /// symmetric E with no preferred direction (independent entries, the diagonal's variance twice
    /// the off-diagonal's, a² in all) the component eᵀE w has variance a² |w|² (1 + (e·ŵ)²) / 12.
    /// Zero before the strength is used (a starting point's own claim stands).
    private func softIronEastSigma(_ east: SIMD3<Double>?) -> Double {
        guard sphere.known, moments.count > 0 else { return 0 }
        let w = (lastField - offset) - moments.first / moments.count
        let spread = (w * w).sum()
        guard spread > 0 else { return 0 }
        let along = east.map { ($0 * w).sum() * ($0 * w).sum() / spread } ?? 1
        return parameters.softIronAllowance * (spread * (1 + along) / 12).squareRoot()
    }

    package var status: Status {
        let sigma = self.sigma
        let direction = east
        let offsetEast = eastSigma(direction), soft = softIronEastSigma(direction)
        let offsetHeadingSigma = atan(offsetEast / horizontalField) * 180 / .pi
        let headingSigma = atan((offsetEast * offsetEast + soft * soft).squareRoot() / horizontalField) * 180 / .pi
        var accuracy = Self.accuracy(sigma: sigma, headingSigma: headingSigma)
        if accuracy == .high, sphere.known, sphere.scatter > parameters.highScatter * parameters.highScatter { accuracy = .medium }
        let softIronBias = parameters.softIronAllowance * softIronSensitivity
        // Once learning from the field's strength (a starting point's own claim stands until then).
        if accuracy == .high, sphere.known, !(softIronBias <= parameters.highSoftIronBias) { accuracy = .medium }
        if accuracy == .high, consistency > parameters.highConsistency { accuracy = .medium }
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
        return Status(offset: offset, sigma: sigma, headingSigma: headingSigma, accuracy: disturbed ? min(accuracy, .low) : accuracy,
                      reason: reason, changes: changes, fieldStrength: referenceStrength, fieldScatter: sphere.scatter.squareRoot(),
                      consistency: consistency, softIronBias: softIronBias,
                      offsetAccuracy: Self.accuracy(sigma: sigma, headingSigma: offsetHeadingSigma))
    }

    /// The accuracy an offset uncertainty gives (σ per axis in µT, and the heading σ in degrees,
    /// ``Status/headingSigma``: the offset's and the soft iron not yet known): `high` needs σ ≤ 0.33 µT
    /// and heading σ ≤ 1° (three σ stay within 1 µT); `medium` heading σ ≤ 3°; `low` heading σ ≤ 10°;
    /// `uncalibrated` beyond.
    package static func accuracy(sigma: Double, headingSigma: Double) -> MagneticFieldCalibrationAccuracy {
        if sigma <= 0.33 && headingSigma <= 1 { return .high }
        if headingSigma <= 3 { return .medium }
        if headingSigma <= 10 { return .low }
        return .uncalibrated
    }

    /// The Earth's field where the board is (strength µT, dip radians positive down, e.g. from
    /// ``WorldMagneticModel`` once a location is known), or nil to learn it from the readings:
    /// the reference the disturbance guards compare the corrected field with, and the horizontal
    /// strength the heading uncertainty is computed with. Ignored unless plausible (20–70 µT, dip
    /// within ±90°).
    package mutating func expect(field: SIMD2<Double>?) {
        guard let field, field.x >= 20, field.x <= 70, abs(field.y) <= .pi / 2 else {
            if expectedField != nil {   // back to learning it
                referenceStrength = 0
                referenceDipKnown = false
            }
            expectedField = nil
            return
        }
        expectedField = field
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

    private mutating func startStretch(_ field: SIMD3<Double>, rate: SIMD3<Double>) {
        firstReading = field
        stretchStartPosition = excursion.position
        firstRateVector = rate
        firstRate = (rate * rate).sum().squareRoot()
        rotation = .identity
        stretchTime = 0
        path = 0
    }

    /// The rotation by the small rotation vector `v` (radians).
    private static func step(_ v: SIMD3<Double>) -> Quaternion {
        let half = 0.5 * v
        let halfSquared = (half * half).sum()
        let scaled = half * (1 - halfSquared / 6)
        return Quaternion(w: 1 - halfSquared / 2, x: scaled.x, y: scaled.y, z: scaled.z)
    }

    private mutating func predict(_ duration: Double) {
        let q = parameters.drift * parameters.drift * duration
        state.addProcessNoise(q)
        candidate?.addProcessNoise(q)
        previous?.state.addProcessNoise(q)
    }

    /// The field-strength constraint |m − b|² = F², i.e. |m|² = 2 mᵀb + k with k = F² − |b|²
    /// (linear in b and k: the recursive sphere fit), once per new reading while the field is
    /// undisturbed and the board turns faster than half ``Parameters/slowRate``; a reading it
    /// cannot explain (χ²₁ beyond 10.8, 99.9 %) is skipped.
    private mutating func constrainStrength(_ field: SIMD3<Double>) {
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
    private func strengthReadingVariance(_ strength: Double) -> Double {
        let variance = parameters.fieldNoise * parameters.fieldNoise + parameters.strengthModelError * parameters.strengthModelError
        return 4 * strength * strength * variance
    }

    /// The same for the field's change over the board's excursion (``Parameters/fieldGradient``):
    /// it lowers the reading's weight, and the gate does not test it (see ``OffsetState/update(_:_:_:unchecked:gate:)``).
    private func strengthPlaceVariance(_ strength: Double) -> Double {
        let placeError = parameters.fieldGradient * excursion.distance
        return 4 * strength * strength * placeError * placeError
    }

    /// A field-strength reading the constraint cannot explain is skipped: χ²₁ beyond 10.8 (99.9 %).
    private static let strengthGate = 10.8

    /// The field-strength constraint on the second filter (a hard-iron change being relearned):
    /// a magnet attached to the board changes the offset, not the Earth's field, so the reference
    /// strength known before the change is where its k starts, once its stretches know its offset
    /// to ``Parameters/strengthStartSigma``. Whatever it learns from a passing disturbance instead
    /// is never adopted (its stretches would not stay consistent).
    private mutating func constrainCandidateStrength(_ field: SIMD3<Double>) {
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

    /// The field strength and dip now against the reference: sets `disturbed`.
    private mutating func checkDisturbance(_ field: SIMD3<Double>, _ acceleration: SIMD3<Double>) {
        // An expected field is known before the offset is: until the offset is known to a few µT
        // the corrected field cannot be compared with it.
        guard referenceStrength > 0, offsetSettled else {
            disturbed = false
            return
        }
        disturbed = !isReferenceField(field - offset, acceleration)
    }

    /// One stretch: `later` should equal Φ·`earlier` + (I − Φ)·b, Φ the rotation that takes a
    /// world-fixed vector from the earlier device axes to the later ones.
    private mutating func learn(from earlier: SIMD3<Double>, to later: SIMD3<Double>, acceleration: SIMD3<Double>, rotation: Quaternion, duration: Double, endRates: Double) {
        predict(duration)
        let phi = rotation.conjugate.rotationMatrix   // v_later = Φ v_earlier for a world-fixed v
        let h = Matrix3.identity - phi
        let y = later - phi * earlier
        // Noise per axis: two readings' noise, plus the rotation's error (timing and scale) acting
        // on the field's size.
        let strength = max(referenceStrength, ((earlier - offset) * (earlier - offset)).sum().squareRoot())
        let angleError = endRates * parameters.timingUncertainty + parameters.rotationScaleError * rotation.angle
        let r = 2 * parameters.fieldNoise * parameters.fieldNoise + (angleError * strength) * (angleError * strength)
        // The field where the board ended the stretch may differ from where it began it: the
        // stretch counts for less (the gate and the tests of a change use r alone).
        let moved = excursion.position - phi * stretchStartPosition
        let placeError = parameters.fieldGradient * (moved * moved).sum().squareRoot()
        let placeVariance = placeError * placeError

        let (accepted, nis) = state.update(h, y, r, unchecked: placeVariance, gate: parameters.gate, apply: !disturbed)
        if accepted {
            consistency += 0.05 * (nis / 3 - consistency)
            let p = covariance, bound = parameters.strengthStartSigma * parameters.strengthStartSigma
            offsetSettled = p.m11 <= bound && p.m22 <= bound && p.m33 <= bound
        }
        if accepted || nis <= parameters.gate {
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
            let (_, previousNIS) = before.state.update(h, y, r, gate: .infinity, apply: false)
            before.consistentTime = previousNIS <= parameters.gate ? before.consistentTime + duration : max(0, before.consistentTime - duration)
            previous = before
            if rejectedTime >= parameters.changeConfirmationTime && before.consistentTime >= parameters.changeConfirmationTime {
                adopt(before.state, strength: before.strength, dip: before.dip, dipKnown: before.dipKnown, strengthKnown: before.strengthKnown)
                learnReference(later, acceleration)
                return
            }
        }
        if var c = candidate {
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
            // learned more slowly, and on the simulated carrying about indoors took one false
            // change; session 15).
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
        learnReference(later, acceleration)
    }

    /// A second filter started from scratch (a hard-iron change suspected), the evidence for the
    /// last one dropped.
    private mutating func startCandidate() {
        candidate = OffsetState(offset: offset, sigma: parameters.initialSigma, fieldStrength: state.fieldStrength,
                                softIronAllowance: parameters.softIronAllowance)
        dropEvidence()
        candidateStrengthKnown = false
        candidateRefutedTime = 0
    }

    /// Forgets the evidence gathered for the second filter: its confirmation (time of fitting
    /// stretches, held pairs) and tests 1 and 2's sums.
    private mutating func dropEvidence() {
        candidateConsistentTime = 0
        heldConfirmations = 0
        candidateInformation = .zero
        strengthMisfit = .zero
    }

    /// Whether the second filter's stretches have fitted it for ``Parameters/changeConfirmationTime``,
    /// or two pairs of held readings did (``checkChange(earlier:later:rotation:variance:acceleration:)``).
    private var isConfirmed: Bool {
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
    private static func isKnown(_ c: OffsetState) -> Bool {
        largestEigenvalue(c.offsetCovariance) < 4
    }

    /// Test 1: whether rotation alone determines the second filter's offset to
    /// ``Parameters/changeRotationSigma`` in every direction (the information's smallest
    /// eigenvalue at least 1/σ²: the largest eigenvalue of its inverse at most σ²).
    private func isDeterminedByRotation(_ information: Matrix3) -> Bool {
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
    private var restoresTheReferenceStrength: Bool {
        referenceStrength <= 0 || 4 * strengthMisfit.y <= strengthMisfit.x
    }

    /// Test 2: whether `corrected` (µT, an offset removed) has the reference strength and, with a
    /// quiet accelerometer, the reference dip, within the disturbance guard's bounds; true while
    /// no reference is known.
    @inline(__always)
    private func isReferenceField(_ corrected: SIMD3<Double>, _ acceleration: SIMD3<Double>) -> Bool {
        guard referenceStrength > 0 else { return true }
        let strength = (corrected * corrected).sum().squareRoot()
        if abs(strength - referenceStrength) > parameters.normThreshold * referenceStrength { return false }
        if referenceDipKnown, let dip = Self.dip(corrected, acceleration, tolerance: 0.1) {
            return abs(dip - referenceDip) <= parameters.dipThreshold
        }
        return true
    }

    /// Test 3: whether a stretch the first filter explained (`h` = I − Φ, noise `r` per axis)
    /// would have shown a step from the first filter's offset to `c`'s: the step's innovation
    /// H·Δb against its covariance H (P₁ + P₂) Hᵀ + r·I beyond ``Parameters/gate``.
    private func refutesStep(to c: OffsetState, _ h: Matrix3, _ r: Double) -> Bool {
        let innovation = h * (c.offset - offset)
        let p = covariance + c.offsetCovariance
        let s = h * p * h.transposed + Matrix3(rows: SIMD3(r, 0, 0), SIMD3(0, r, 0), SIMD3(0, 0, r))
        guard let inverse = s.inverse else { return false }
        return (innovation * (inverse * innovation)).sum() > parameters.gate
    }

    /// A hard-iron change confirmed: `new` replaces the estimate, which is kept as ``previous``
    /// (with its reference field, learned or not, and whether its field strength was started).
    private mutating func adopt(_ new: OffsetState, strength: Double, dip: Double, dipKnown: Bool, strengthKnown: Bool) {
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
        if expectedField == nil {
            referenceStrength = strength
            referenceDip = dip
            referenceDipKnown = dipKnown
        }
    }

    /// Learns the reference field (strength, dip) once the offset is known well, if no expected
    /// field was given.
    private mutating func learnReference(_ field: SIMD3<Double>, _ acceleration: SIMD3<Double>) {
        guard expectedField == nil, !disturbed, candidate == nil, sigma <= 1.0 else { return }
        let corrected = field - offset
        let strength = (corrected * corrected).sum().squareRoot()
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
    private static func dip(_ field: SIMD3<Double>, _ acceleration: SIMD3<Double>, tolerance: Double) -> Double? {
        let g = (acceleration * acceleration).sum().squareRoot()
        let strength = (field * field).sum().squareRoot()
        guard abs(g - 1) < tolerance, strength > 0 else { return nil }
        // Core Motion's sign: the acceleration at rest points down, so its projection is the dip.
        return asin(max(-1, min(1, (field * acceleration).sum() / (strength * g))))
    }

}

/// The estimated offset b (µT) and k = F² − |b|² (µT², F the field strength), with their
/// covariance: the state of the Kalman filter.
private struct OffsetState: Sendable {
    var x: SIMD4<Double>
    /// Symmetric 4×4 covariance by columns.
    var p0, p1, p2, p3: SIMD4<Double>
    /// The soft iron E the background fits left (``HardIronEstimator/Parameters/softIronAllowance``
    /// bounds it), estimated with b and k: E's six entries (xx, yy, zz, xy, xz, yz in lanes 0–5),
    /// their covariance by columns (`q0`…`q5`, lanes 0–5) and x's covariance with each (`e0`…`e5`).
    /// The field-strength constraint sees E in every reading it takes (|m − b|² = F² + 2 hᵀE h to
    /// first order, h = m − b): the constraint is a recursive ellipsoid fit whose prior on E is the
    /// allowance. Over a cap of directions (a board tilted, never turned over) E is not determined
    /// and readings near one another share its error: b's information from the constraint stops
    /// growing where E's would dominate, instead of adding up as if each reading's error were new,
    /// and b along the cap is left to the stretches. Over the whole sphere (a figure-eight) E is
    /// learned and the constraint pins b as a sphere fit would.
    var softIron = SIMD8<Double>.zero
    var q0, q1, q2, q3, q4, q5: SIMD8<Double>
    var e0 = SIMD4<Double>.zero, e1 = SIMD4<Double>.zero, e2 = SIMD4<Double>.zero
    var e3 = SIMD4<Double>.zero, e4 = SIMD4<Double>.zero, e5 = SIMD4<Double>.zero

    /// `softIronAllowance`: the Frobenius norm of the soft iron feared (see
    /// ``HardIronEstimator/Parameters/softIronAllowance``). E's trace is left out (held at zero):
    /// a soft iron that scales every direction alike only scales the field's strength, which k
    /// already carries, so the two could not be told apart (and, linearized at a moving estimate,
    /// would drift apart without limit); a fitted soft iron is normalized the same way (determinant
    /// 1). The rest independent, the off-diagonal entries of variance v, the diagonal's 2v less
    /// their mean: E's expected squared norm 4v + 6v = a², so v = a²/10.
    init(offset: SIMD3<Double>, sigma: Double, fieldStrength: Double, softIronAllowance: Double) {
        let v = softIronAllowance * softIronAllowance / 10
        let same = 2 * v * 2 / 3, other = -2 * v / 3
        q0 = SIMD8(same, other, other, 0, 0, 0, 0, 0)
        q1 = SIMD8(other, same, other, 0, 0, 0, 0, 0)
        q2 = SIMD8(other, other, same, 0, 0, 0, 0, 0)
        q3 = SIMD8(0, 0, 0, v, 0, 0, 0, 0)
        q4 = SIMD8(0, 0, 0, 0, v, 0, 0, 0)
        q5 = SIMD8(0, 0, 0, 0, 0, v, 0, 0)
        x = SIMD4(offset, fieldStrength * fieldStrength - (offset * offset).sum())
        let variance = sigma * sigma
        // k is F² − |b|²: F within 20–70 µT and |b| up to the prior's size make it uncertain by
        // several thousand µT².
        let vk = 5000.0 * 5000.0
        p0 = SIMD4(variance, 0, 0, 0)
        p1 = SIMD4(0, variance, 0, 0)
        p2 = SIMD4(0, 0, variance, 0)
        p3 = SIMD4(0, 0, 0, vk)
    }

    var offset: SIMD3<Double> { SIMD3(x.x, x.y, x.z) }
    var offsetCovariance: Matrix3 {
        Matrix3(rows: SIMD3(p0.x, p0.y, p0.z), SIMD3(p1.x, p1.y, p1.z), SIMD3(p2.x, p2.y, p2.z))
    }
    /// F = √(k + |b|²), µT.
    var fieldStrength: Double { (max(x.w + (offset * offset).sum(), 0)).squareRoot() }

    /// Starts k from a field strength `strength` (µT) known to `sigma` (µT), independent of b:
    /// k = F² − |b|², so var k = (2Fσ)² + 4 bᵀP b and cov(k, b) = −2 P b.
    mutating func startStrength(_ strength: Double, sigma: Double) {
        let b = offset
        let pb = p0 * b.x + p1 * b.y + p2 * b.z   // P·b (its w part is dropped below)
        x.w = strength * strength - (b * b).sum()
        let variance = 4 * strength * strength * sigma * sigma + 4 * (SIMD3(pb.x, pb.y, pb.z) * b).sum()
        p0.w = -2 * pb.x
        p1.w = -2 * pb.y
        p2.w = -2 * pb.z
        p3 = SIMD4(-2 * pb.x, -2 * pb.y, -2 * pb.z, variance)
        // cov(k, E) = −2 bᵀ cov(b, E).
        func restarted(_ e: SIMD4<Double>) -> SIMD4<Double> { SIMD4(e.x, e.y, e.z, -2 * (SIMD3(e.x, e.y, e.z) * b).sum()) }
        e0 = restarted(e0); e1 = restarted(e1); e2 = restarted(e2)
        e3 = restarted(e3); e4 = restarted(e4); e5 = restarted(e5)
    }

    /// A measurement that E is zero: each off-diagonal entry to `variance` (the diagonal's,
    /// held to zero trace, to twice that, as E's prior).
    mutating func observeNoSoftIron(_ variance: Double) {
        for entry in 0..<6 {
            var g = SIMD8<Double>.zero
            g[entry] = 1
            _ = update(.zero, 0, entry < 3 ? 2 * variance : variance, gate: .infinity, softIron: g)
        }
    }

    mutating func addProcessNoise(_ q: Double) {
        p0.x += q
        p1.y += q
        p2.z += q
    }

    /// One scalar measurement y = hᵀx + noise (variance r): applied when its normalized innovation
    /// squared is within `gate`; returns that NIS. The soft iron E is in none of them (the
    /// stretches'), but what is known of it still changes as x does. `unchecked`: the variance of
    /// an error the gate does not test (the field's change over the board's excursion): it lowers
    /// the measurement's weight, and a measurement the model without it cannot explain is still
    /// skipped.
    @inline(__always)
    mutating func update(_ h: SIMD4<Double>, _ y: Double, _ r: Double, unchecked: Double = 0, gate: Double) -> Double {
        update(h, y, r, unchecked: unchecked, gate: gate, softIron: .zero)
    }

    /// The same for y = hᵀx + gᵀE + noise, `g` E's coefficients (lanes as ``softIron``): one
    /// Kalman update of the whole state (b, k, E).
    @inline(__always)
    mutating func update(_ h: SIMD4<Double>, _ y: Double, _ r: Double, unchecked: Double = 0, gate: Double, softIron g: SIMD8<Double>) -> Double {
        // P·H for H = (h, g): its x part (P_xx h + P_xE g) and its E part (P_Ex h + P_EE g).
        var towardX: SIMD4<Double> = p0 * h.x + p1 * h.y + p2 * h.z + p3 * h.w
        towardX += e0 * g[0] + e1 * g[1] + e2 * g[2]
        towardX += e3 * g[3] + e4 * g[4] + e5 * g[5]
        var towardE = SIMD8<Double>((h * e0).sum(), (h * e1).sum(), (h * e2).sum(), (h * e3).sum(), (h * e4).sum(), (h * e5).sum(), 0, 0)
        towardE += q0 * g[0] + q1 * g[1] + q2 * g[2]
        towardE += q3 * g[3] + q4 * g[4] + q5 * g[5]
        let checked = (h * towardX).sum() + (g * towardE).sum() + r
        let s = checked + unchecked
        guard checked > 0 else { return .infinity }
        let innovation = y - (h * x).sum() - (g * softIron).sum()
        let nis = innovation * innovation / checked
        guard nis <= gate else { return nis }
        let gainX = towardX / s, gainE = towardE / s
        x += gainX * innovation
        softIron += gainE * innovation
        // P −= P H Hᵀ P / s, block by block.
        p0 -= gainX * towardX.x
        p1 -= gainX * towardX.y
        p2 -= gainX * towardX.z
        p3 -= gainX * towardX.w
        // Column j of P_xE and of P_EE, each less its gain times (P H)'s E part's entry j.
        e0 -= gainX * towardE[0]; q0 -= gainE * towardE[0]
        e1 -= gainX * towardE[1]; q1 -= gainE * towardE[1]
        e2 -= gainX * towardE[2]; q2 -= gainE * towardE[2]
        e3 -= gainX * towardE[3]; q3 -= gainE * towardE[3]
        e4 -= gainX * towardE[4]; q4 -= gainE * towardE[4]
        e5 -= gainX * towardE[5]; q5 -= gainE * towardE[5]
        return nis
    }

    /// The field-strength constraint |m|² = 2 mᵀb + k + 2 hᵀE h at reading `field` (h = m − b).
    @inline(__always)
    mutating func constrainStrength(_ field: SIMD3<Double>, _ r: Double, unchecked: Double, gate: Double) -> Double {
        let h = field - offset
        let g = SIMD8(2 * h.x * h.x, 2 * h.y * h.y, 2 * h.z * h.z, 4 * h.x * h.y, 4 * h.x * h.z, 4 * h.y * h.z, 0, 0)
        return update(SIMD4(2 * field, 1), (field * field).sum(), r, unchecked: unchecked, gate: gate, softIron: g)
    }

    /// A stretch: y = H b + noise (variance r per axis, H 3×3, k not involved; `unchecked` as in
    /// the scalar update), as three scalar updates in turn; applied as a whole when `apply` and the
    /// summed NIS (the vector's, since the axes' noise is independent) is within `gate`. Returns
    /// whether applied, and the NIS.
    mutating func update(_ h: Matrix3, _ y: SIMD3<Double>, _ r: Double, unchecked: Double = 0, gate: Double, apply: Bool) -> (Bool, Double) {
        var trial = self
        var nis = trial.update(SIMD4(h.rows.0, 0), y.x, r, unchecked: unchecked, gate: .infinity)
        nis += trial.update(SIMD4(h.rows.1, 0), y.y, r, unchecked: unchecked, gate: .infinity)
        nis += trial.update(SIMD4(h.rows.2, 0), y.z, r, unchecked: unchecked, gate: .infinity)
        guard apply, nis <= gate else { return (false, nis) }
        self = trial
        return (true, nis)
    }
}

/// The moments of the corrected readings h = m − b that the field-strength constraint used (up to
/// the third), for the bias unmodelled soft iron puts into a sphere's centre.
///
/// With m = (I + E)·h + b and |h| = F, |m − b|² = F² + 2 hᵀE h to first order: the sphere fit
/// |m|² = 2 mᵀb + k (linear least squares in b and k) regresses the extra 2 hᵀE h on 2m and 1,
/// which moves its centre by δb = C⁻¹·cov(h, hᵀE h), C = cov(h). Over the whole sphere of
/// directions the odd moments vanish and so does δb; over a cap (ordinary handling: the board is
/// tilted, never turned upside down) it does not, and a few per cent of soft iron move the centre
/// by µT — the offset then looks known (σ small) while it is not. (A first-order analysis of the
/// least-squares sphere fit, this estimator's own.) Computed for the directions actually seen: the
/// largest |δb| over symmetric E of unit Frobenius norm, i.e. the largest singular value of the
/// map E ↦ C⁻¹·cov(h, hᵀE h). The gyroscope's stretches, which the bound leaves out, only make the
/// true bias smaller: the bound errs on the safe side.
///
/// Cost: 16 products and sums per reading used; the bound (a few hundred operations) every 50th.
struct DirectionMoments: Sendable, Equatable {
    var count: Double = 0
    var first = SIMD3<Double>.zero
    /// xx, yy, zz, xy, xz, yz.
    var second = SIMD8<Double>.zero
    /// xxx, xxy, xxz, xyy, xyz, xzz, yyy, yyz, yzz, zzz.
    var third = SIMD16<Double>.zero

    mutating func add(_ h: SIMD3<Double>) {
        let q = SIMD8(h.x * h.x, h.y * h.y, h.z * h.z, h.x * h.y, h.x * h.z, h.y * h.z, 0, 0)
        count += 1
        first += h
        second += q
        third += SIMD16(
            q[0] * h.x, q[0] * h.y, q[0] * h.z, q[1] * h.x, q[3] * h.z, q[2] * h.x, q[1] * h.y, q[1] * h.z,
            q[2] * h.y, q[2] * h.z, 0, 0, 0, 0, 0, 0)
    }

    /// E[h_i h_j h_k] from the stored third moments (i, j, k in 0..<3).
    private func third(_ i: Int, _ j: Int, _ k: Int) -> Double {
        // Sorted indices i ≤ j ≤ k name the stored entry.
        var a = i, b = j, c = k
        if a > b { swap(&a, &b) }
        if b > c { swap(&b, &c) }
        if a > b { swap(&a, &b) }
        let index: Int
        switch (a, b, c) {
        case (0, 0, 0): index = 0
        case (0, 0, 1): index = 1
        case (0, 0, 2): index = 2
        case (0, 1, 1): index = 3
        case (0, 1, 2): index = 4
        case (0, 2, 2): index = 5
        case (1, 1, 1): index = 6
        case (1, 1, 2): index = 7
        case (1, 2, 2): index = 8
        default: index = 9
        }
        return third[index] / count
    }

    /// E[h_j h_k].
    private func second(_ j: Int, _ k: Int) -> Double {
        let index = j == k ? j : j + k + 2   // (0,1) → 3, (0,2) → 4, (1,2) → 5
        return second[index] / count
    }

    /// The largest |δb| (µT) that soft iron E with ‖E‖_F = 1 causes, given the readings used;
    /// infinity with fewer than 50 readings or directions in a plane.
    var softIronSensitivity: Double {
        guard count >= 50 else { return .infinity }
        let mean = first / count
        func covariance(_ i: Int, _ j: Int) -> Double { second(i, j) - mean[i] * mean[j] }
        let c = Matrix3(
            rows: SIMD3(covariance(0, 0), covariance(0, 1), covariance(0, 2)),
            SIMD3(covariance(1, 0), covariance(1, 1), covariance(1, 2)),
            SIMD3(covariance(2, 0), covariance(2, 1), covariance(2, 2)))
        guard let inverse = c.inverse, c.determinant > 1e-9 * pow(c.m11 + c.m22 + c.m33, 3) else { return .infinity }
        // cov(h_i, h_j h_k) for the six basis matrices of unit Frobenius norm (off-diagonal ones
        // with 1/√2 in both places: hᵀE h = √2 h_j h_k), each through C⁻¹, summed as L Lᵀ.
        var product = Matrix3.zero
        for element in 0..<6 {
            let (j, k, weight) = element < 3 ? (element, element, 1.0) : element == 3 ? (0, 1, 2.0.squareRoot())
                : element == 4 ? (0, 2, 2.0.squareRoot()) : (1, 2, 2.0.squareRoot())
            let t = SIMD3(third(0, j, k) - mean.x * second(j, k), third(1, j, k) - mean.y * second(j, k),
                          third(2, j, k) - mean.z * second(j, k)) * weight
            let column = inverse * t
            product = product + Matrix3(rows: column.x * column, column.y * column, column.z * column)
        }
        return HardIronEstimator.largestEigenvalue(product).squareRoot()
    }
}

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
/// ``holdFitSigma`` and finds some; again each time it knows it a tenth better), or once the
/// board has been turned through the directions a figure-eight covers, the ellipsoid
/// (``BackgroundSoftIron``); a fit is applied to the field before the estimator
/// (``softIronFit``), which continues from it (the status's offset is then the fit's plus what the
/// estimator adds, in the field's own frame). Not with a starting point that removed soft iron
/// already (an estimator whose ``HardIronEstimator/Parameters/softIronAllowance`` is at most the
/// 1 % a fit leaves).
/// The sampler and `motionctl evaluate --background-calibration` run the same.
package struct BackgroundFieldCorrection: Sendable {
    /// µT: 2 µT turns a 20 µT horizontal field by about 6°.
    package static let announcedMove = 2.0
    /// Seconds of sample time the estimator's `high` must last before it is reported, and its
    /// first `medium` before its offset is used.
    package static let highHoldTime = 1.0

    package private(set) var estimator: HardIronEstimator
    /// The status at the last check.
    package private(set) var status: HardIronEstimator.Status
    private var announcedOffset: SIMD3<Double>
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
        let before = input - offset
        var adopted = false
        if fitsSoftIron, appliedSoftIronSigma.map({ $0 > BackgroundSoftIron.residualSoftIronAllowance / 2 }) ?? true,
           softIronReadings.isFitDue, let fit = softIronReadings.fit(), let inverse = fit.softIron.inverse {
            adopt(fit, inverse: inverse, allowance: BackgroundSoftIron.residualSoftIronAllowance, sigma: BackgroundSoftIron.fittedOffsetSigma)
            appliedSoftIronSigma = 0
            adopted = true
        } else if fitsSoftIron, let solution = holds.solution, Self.improves(solution, on: appliedSoftIronSigma),
                  let fit = Self.calibration(solution, fieldStrength: status.fieldStrength), let inverse = fit.softIron.inverse {
            adopt(fit, inverse: inverse, allowance: 2 * solution.softIronSigma, sigma: BackgroundSoftIron.fittedOffsetSigma)
            appliedSoftIronSigma = solution.softIronSigma
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
        status = estimator.status
        status.changes += earlierChanges
        if status.reason == .relearning {
            if suspectedSince == nil { suspectedSince = holds.time }
        } else {
            suspectedSince = nil
        }
        if status.changes != changesSeen {
            changesSeen = status.changes
            holds.reset()
        }
        collecting = fitsSoftIron && status.sigma <= BackgroundSoftIron.collectingSigma && status.fieldStrength > 0
            && status.reason != .disturbed
        if fitted { status.offset = fitOffset + inverseSoftIron * status.offset }
        if !trusted, Self.held(status.offsetAccuracy >= .medium, since: &mediumSince, at: timestamp) {
            trusted = true
            offset = estimate
        }
        if !Self.held(status.accuracy == .high, since: &highSince, at: timestamp), status.accuracy == .high {
            status.accuracy = .medium
            if status.reason == .calibrated { status.reason = .learning }
        }
        // A fit applied tells the filter when it moves the field as much as an offset must.
        let moved = offset - announcedOffset, jump = input - offset - before
        let changed = (adopted && (jump * jump).sum() > Self.announcedMove * Self.announcedMove)
            || (moved * moved).sum() > Self.announcedMove * Self.announcedMove
        if changed { announcedOffset = offset }
        return (input - offset, true, changed)
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
        announcedOffset = estimator.estimate
    }

    /// Soft iron's σ a hold fit must reach before it is applied: 2 % for its worst combination
    /// (the allowance it leaves is twice that; the 8 % allowance without a fit).
    package static let holdFitSigma = 0.02

    /// Whether a hold fit is worth applying: known to ``holdFitSigma``, its soft iron plausible
    /// (``BackgroundSoftIron/maximumSoftIron``) and there (three times its σ: a magnetometer
    /// without soft iron would otherwise be given the fit's own error, about 1 %), and a tenth
    /// better than the one applied.
    private static func improves(_ solution: RotationPairFit.Solution, on applied: Double?) -> Bool {
        let size = (solution.correction - .identity).frobeniusNorm
        guard solution.softIronSigma <= holdFitSigma, size <= BackgroundSoftIron.maximumSoftIron, size >= 3 * solution.softIronSigma
        else { return false }
        return applied.map { solution.softIronSigma <= $0 * 0.9 } ?? true
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
