#if canImport(Glibc)
import Glibc
#endif

/// The magnetometer's hard-iron offset and soft iron found in the background, from ordinary
/// handling: while the board turns, the Earth's field it sees turns with it, opposite to the
/// gyroscope's rotation; the part of the reading that does not turn is the board's own offset,
/// and the way the turning field's shape departs from a pure rotation is its soft iron.
///
/// Model: a reading is m = S·h + b (h the Earth's field in device axes, S the soft iron, b the
/// hard iron: ``Status/offset`` is b). The correction is A = S⁻¹ up to scale (symmetric, A = I + E
/// with E trace-free: the scale is not observable from rotations and does not change a direction),
/// and the corrected field A·(m − b) = A·m − c with c = A·b.
///
/// Method: the gyro-aided sensor model of Troni & Whitcomb ("Adaptive estimation of measurement
/// bias in three-dimensional field sensors with angular-rate sensors: theory and comparative
/// experimental evaluation", Robotics: Science and Systems 2013): a field fixed in the world seen
/// by a sensor turning at ω obeys dh/dt = −ω × h. Integrated over a short stretch (the rotation Φ
/// from one reading to the next is the gyroscope's) it gives, for the corrected field,
/// A·m₁ − c = Φ·(A·m₀ − c), i.e. m₁ − Φ·m₀ = (I − Φ)·c + (Φ·E·m₀ − E·m₁): linear in (c, E).
/// Troni & Whitcomb's sensor model is hard iron only; the soft-iron term is this estimator's
/// extension of the same equation (the corrected field, not the reading, turns with the body), in
/// the linear form of the attitude-independent ellipsoid calibrations (Crassidis, Lai & Harman,
/// "Real-time attitude-independent three-axis magnetometer calibration", Journal of Guidance,
/// Control, and Dynamics 28(1), 2005, section III, estimate the offset and a symmetric D this way,
/// from the field's strength alone, in a Kalman filter that keeps its covariance as the confidence).
/// (c, E) are estimated by a Kalman filter on the stretches; E needs turns about more than one
/// axis (a turn about one axis leaves the part of E that commutes with it, and c along the axis,
/// unseen), which the covariance says.
///
/// A stretch closes when the board has turned ``Parameters/stretchAngle`` (too little rotation
/// says nothing: a board at rest teaches nothing, and says so through ``Reason/needsRotation``).
/// Its ends are the mean of the readings while the board is still there (the holds of ordinary
/// handling), which cuts their noise. Guards: a stretch whose innovation the covariance cannot
/// explain is not learned from (``Parameters/gate``); while the field's strength or dip departs
/// from the reference (a magnet nearby, steel), nothing is learned (``Reason/disturbed``). A
/// lasting change of the offset itself (a magnet or a battery attached to the board) is told apart
/// from a passing disturbance by a second filter, its offset started from scratch, when
/// innovations stay too large: it replaces the first once it explains the readings as a constant
/// offset while the first still cannot, for ``Parameters/changeConfirmationTime``.
///
/// Cost: per sample one quaternion step of the gyroscope, the correction (a 3×3 product) and a
/// few comparisons; per stretch (every ``Parameters/stretchAngle`` of turning) three scalar
/// updates of the 8-state filter. No allocation.
public struct HardIronEstimator: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// Standard deviation of the offset before anything was learned, µT per axis: about the
        /// largest board offset met in practice (the simulator's presets: up to 31 µT per axis).
        public var initialSigma: Double = 60
        /// Standard deviation of each element of the soft-iron correction before anything was
        /// learned: a board's soft iron and a chip's sensitivity errors are a few per cent (the
        /// LIS3MDL's sensitivity tolerance alone, datasheet DocID024204 Table 3: not given as a
        /// bound; a board's steel adds a few per cent), taken as 5 %.
        public var initialSoftIronSigma: Double = 0.05
        /// White noise of one reading, µT per axis, quantization included (LIS3MDL: 0.32–0.41 µT
        /// RMS at 80 Hz, datasheet DocID024204 Table 2; QMC5883L: 0.2 µT).
        public var fieldNoise: Double = 0.4

        // The sensors' errors.

        /// How far the magnetometer's reading may lag or lead the gyroscope's beyond
        /// ``magnetometerLag``, s: a magnetometer read between two of its own output-data-rate
        /// updates is 0 to one period old (12.5 ms at 80 Hz), σ = period/√12 = 3.6 ms, taken as
        /// 4 ms. The rotation is wrong by the rates at the stretch's two ends times this.
        public var timingUncertainty: Double = 0.004
        /// Relative error of the gyroscope's rotation angle: 0.5 % (the simulated LSM6DSOX's
        /// scale errors are 0.2–0.5 %; a calibrated gyroscope's are of that order).
        public var rotationScaleError: Double = 0.005

        // The stretches.

        /// Rotation after which a stretch may close, radians (20°).
        public var stretchAngle: Double = 20 * .pi / 180
        /// How long the magnetometer's reading lags the gyroscope's on average, s: half its output
        /// data rate's period for a chip read between its updates (12.5 ms at 80 Hz → 6.25 ms).
        /// Each stretch's rotation is shifted by it at both ends.
        public var magnetometerLag: Double = 0.00625
        /// Rotation rate below which a stretch may end, rad/s (20 °/s).
        public var slowRate: Double = 20 * .pi / 180
        /// Longest stretch, s: one that turned less than ``stretchAngle`` by then is dropped.
        public var maximumStretchTime: Double = 2.0
        /// Rotation rate below which the board counts as still, rad/s (2 °/s): a stretch's end
        /// readings are averaged while it is.
        public var stillRate: Double = 2 * .pi / 180

        // Guards.

        /// How fast a constant offset may drift (temperature), µT/√s per axis.
        public var drift: Double = 0.003
        /// Innovation gate: a stretch whose normalized innovation squared (3 degrees of freedom)
        /// exceeds this is not learned from. 16.3 is the χ²₃ 99.9 % quantile.
        public var gate: Double = 16.3
        /// Largest relative departure of |A·(m − b)| from the reference field strength before the
        /// field counts as disturbed.
        public var normThreshold: Double = 0.08
        /// Largest departure of the dip angle from the reference, radians (6°).
        public var dipThreshold: Double = 6 * .pi / 180
        /// Seconds of stretches the first filter must keep rejecting, while the second explains
        /// them, before the second one's offset replaces it (a hard-iron change).
        public var changeConfirmationTime: Double = 3

        // Accuracy.

        /// Largest RMS scatter of the corrected readings about the reference strength (µT) with
        /// which the accuracy may be `high`: beyond it the model does not explain the readings
        /// (an uneven field), and the offset is no better than `medium`.
        public var highScatter: Double = 0.8
        /// Shortest time between two field-strength constraints, s (at most 25 per second: a cost
        /// bound; the readings of a magnetometer at 80 Hz are four times as many).
        public var strengthInterval: Double = 0.039
        /// What the field-strength constraint's model leaves out, µT (the field's unevenness where
        /// the board is turned, the magnetometer's nonlinearity).
        public var strengthModelError: Double = 0.3
        /// The σ of the offset (µT, the largest of its per-axis σ) below which the field-strength
        /// constraint starts, and the σ of the strength it starts from.
        public var strengthStartSigma: Double = 3
        /// Floor of the offset's uncertainty, µT per axis: what the model leaves out (gyroscope
        /// scale errors, the magnetometer's timing).
        public var modelErrorFloor: Double = 0.15
        /// The Earth's field strength (µT) and dip (radians, positive down) where the board is,
        /// e.g. from ``WorldMagneticModel``; nil: learned from the readings once the offset is known.
        public var expectedField: SIMD2<Double>?

        public init() {}
    }

    /// Why the accuracy is what it is.
    public enum Reason: String, Sendable, Equatable {
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
    public struct Status: Sendable, Equatable {
        /// The hard iron b, µT, the frame of the readings (m = S·h + b).
        public var offset: SIMD3<Double>
        /// The soft-iron correction A (symmetric, determinant 1 to first order): the calibrated
        /// field is A·(m − b).
        public var softIron: Matrix3
        /// Standard deviation of the offset along its worst direction, µT (floor included).
        public var sigma: Double
        /// Standard deviation of the heading this calibration's error gives in the current pose,
        /// degrees: the corrected field's σ along magnetic east over the horizontal field strength
        /// (reference or expected; 20 µT while not yet known).
        public var headingSigma: Double
        public var accuracy: MagneticFieldCalibrationAccuracy
        public var reason: Reason
        /// Hard-iron changes detected and relearned so far.
        public var changes: Int
        /// The reference field strength, µT (expected or learned); 0 while unknown.
        public var fieldStrength: Double
        /// RMS distance of recent corrected readings (while turning) from the reference strength,
        /// µT; 0 until the strength is known.
        public var fieldScatter: Double
        /// Running mean of the normalized innovation squared of the stretches learned from,
        /// divided by its expectation (3): near 1 when the noise model fits, below when it is
        /// pessimistic, above when the offset explains the readings badly. 0 before any.
        public var consistency: Double
    }

    public let parameters: Parameters

    private var state: CalibrationState
    /// The second filter (hard-iron change), while one is suspected.
    private var candidate: CalibrationState?
    /// The correction now: A and c (refreshed from `state` after every update).
    private var matrix = Matrix3.identity
    private var centre = SIMD3<Double>.zero
    /// The field-strength constraint's own state: the last reading it used (it uses each new
    /// reading once), whether k has been started, the mean square distance of recent corrected
    /// readings from the sphere of radius √k (µT²), and the seconds since it last ran.
    private var scatter = (lastReading: SIMD3<Double>.zero, known: false, meanSquare: 0.0, sinceLast: 0.0)
    private var candidateConsistentTime: Double = 0
    private var rejectedTime: Double = 0
    /// Seconds of stretches the first filter explained since it last could not.
    private var acceptedTime: Double = 0

    /// The stretch under way: the body rotation since its first reading, its first reading
    /// (the mean of `firstCount` readings while still), time.
    private var rotation = Quaternion.identity
    private var firstReading: SIMD3<Double>?
    private var firstCount: Double = 0
    private var stretchTime: Double = 0
    /// Radians turned along the way (the stretch closes on it; the net rotation decides its use).
    private var path: Double = 0
    /// The rotation rate at the stretch's first reading, rad/s, and its size.
    private var firstRateVector = SIMD3<Double>.zero
    private var firstRate: Double = 0
    /// A stretch that has turned far enough and reached a still board waits there, averaging its
    /// last reading, until the board moves again: the sum of those readings and their count.
    /// The rotation and path when it reached the end are kept: the end's readings are those
    /// within ``stillPath`` of it.
    private var pendingEnd: (sum: SIMD3<Double>, count: Double, rate: SIMD3<Double>, rotation: Quaternion, path: Double)?
    /// The latest reading and acceleration (for the heading uncertainty's east direction).
    private var lastField = SIMD3<Double>.zero
    private var lastAcceleration = SIMD3<Double>(0, 0, -1)
    private var stillTime: Double = 0

    /// Reference strength and dip (learned or expected); strength 0 while unknown.
    private var referenceStrength: Double = 0
    private var referenceDip: Double = 0
    private var referenceDipKnown = false
    private var disturbed = false
    private var changes = 0
    private var consistency: Double = 0

    /// - Parameters:
    ///   - offset: the starting estimate, µT (a stored calibration's residual; zero for none).
    ///   - sigma: its standard deviation per axis, µT; nil for ``Parameters/initialSigma``.
    ///   - softIronSigma: the standard deviation of each element of the soft-iron correction
    ///     left to learn; nil for ``Parameters/initialSoftIronSigma``.
    public init(parameters: Parameters = Parameters(), offset: SIMD3<Double> = .zero, sigma: Double? = nil, softIronSigma: Double? = nil) {
        self.parameters = parameters
        let s = max(sigma ?? parameters.initialSigma, 0)
        state = CalibrationState(
            offset: offset, sigma: s, softIronSigma: max(softIronSigma ?? parameters.initialSoftIronSigma, 0),
            fieldStrength: parameters.expectedField?.x ?? 50)
        if let expected = parameters.expectedField {
            referenceStrength = expected.x
            referenceDip = expected.y
            referenceDipKnown = true
        }
        refresh()
    }

    private mutating func refresh() {
        matrix = state.matrix
        centre = state.centre
    }

    /// The hard iron to subtract, µT.
    public var estimate: SIMD3<Double> { (matrix.inverse ?? .identity) * centre }

    /// The soft-iron correction A (``Status/softIron``).
    public var softIron: Matrix3 { matrix }

    /// The reading `field` (µT) corrected: A·(m − b).
    @inline(__always)
    public func corrected(_ field: SIMD3<Double>) -> SIMD3<Double> { matrix * field - centre }

    /// The covariance of the hard iron b = A⁻¹·c: δb = A⁻¹·(δc − M(b)·δe).
    private var offsetCovariance: Matrix3 {
        let inverse = matrix.inverse ?? .identity
        let b = inverse * centre
        let rows = CalibrationState.softIronRows(b)
        let g = (SIMD8<Double>(1, 0, 0, 0, 0, 0, 0, 0) - rows.0, SIMD8<Double>(0, 1, 0, 0, 0, 0, 0, 0) - rows.1,
                 SIMD8<Double>(0, 0, 1, 0, 0, 0, 0, 0) - rows.2)
        let v = (state.times(g.0), state.times(g.1), state.times(g.2))
        let pg = Matrix3(
            rows: SIMD3((g.0 * v.0).sum(), (g.0 * v.1).sum(), (g.0 * v.2).sum()),
            SIMD3((g.1 * v.0).sum(), (g.1 * v.1).sum(), (g.1 * v.2).sum()),
            SIMD3((g.2 * v.0).sum(), (g.2 * v.1).sum(), (g.2 * v.2).sum()))
        return inverse * pg * inverse.transposed
    }

    /// Standard deviation of the offset along its worst direction (the covariance's largest
    /// eigenvalue), µT, with the model error floor.
    public var sigma: Double {
        Self.withFloor(Self.largestEigenvalue(offsetCovariance), parameters.modelErrorFloor)
    }

    private static func withFloor(_ variance: Double, _ floor: Double) -> Double {
        (max(variance, 0) + floor * floor).squareRoot()
    }

    /// The largest eigenvalue of a symmetric positive semi-definite matrix: a few power steps
    /// from the column of the largest diagonal element (enough for a bound within a few per cent).
    private static func largestEigenvalue(_ p: Matrix3) -> Double {
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

    /// Standard deviation of the corrected field along magnetic east in device axes (the
    /// direction in which an error turns the heading), µT: δ(A·m − c) = M(m)·δe − δc; the worst
    /// direction while unknown.
    private var eastSigma: Double {
        let east = Self.cross(lastAcceleration, corrected(lastField))   // down × field points east
        let size = (east * east).sum().squareRoot()
        guard size > 0 else { return sigma }
        let u = east / size
        let rows = CalibrationState.softIronRows(lastField)
        let g = u.x * rows.0 + u.y * rows.1 + u.z * rows.2 - SIMD8(u.x, u.y, u.z, 0, 0, 0, 0, 0)
        return Self.withFloor(state.variance(g), parameters.modelErrorFloor)
    }

    private static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    /// The horizontal field strength the heading error is computed with, µT.
    private var horizontalField: Double {
        referenceStrength > 0 ? max(referenceStrength * cos(referenceDip), 1) : 20
    }

    public var status: Status {
        let sigma = self.sigma
        let headingSigma = atan(eastSigma / horizontalField) * 180 / .pi
        var accuracy = Self.accuracy(sigma: sigma, headingSigma: headingSigma)
        if accuracy == .high, scatter.known, scatter.meanSquare > parameters.highScatter * parameters.highScatter { accuracy = .medium }
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
        return Status(offset: estimate, softIron: matrix, sigma: sigma, headingSigma: headingSigma,
                      accuracy: disturbed ? min(accuracy, .low) : accuracy,
                      reason: reason, changes: changes, fieldStrength: referenceStrength, fieldScatter: scatter.meanSquare.squareRoot(),
                      consistency: consistency)
    }

    /// The accuracy an offset uncertainty gives (σ per axis in µT, and the heading σ in degrees it
    /// gives with the horizontal field): `high` needs σ ≤ 0.33 µT and heading σ ≤ 1° (three σ stay
    /// within 1 µT); `medium` heading σ ≤ 3°; `low` heading σ ≤ 10°; `uncalibrated` beyond.
    public static func accuracy(sigma: Double, headingSigma: Double) -> MagneticFieldCalibrationAccuracy {
        if sigma <= 0.33 && headingSigma <= 1 { return .high }
        if headingSigma <= 3 { return .medium }
        if headingSigma <= 10 { return .low }
        return .uncalibrated
    }

    /// The samples stop following one another (fusion paused, a gap): the stretch under way is
    /// dropped, since the board may have turned unseen; what was learned stays.
    public mutating func restartStretch() {
        firstReading = nil
        pendingEnd = nil
    }

    /// One sample.
    /// - Parameters:
    ///   - field: the magnetometer's reading, µT, device axes (any stored calibration applied).
    ///   - rotationRate: rad/s, device axes, gyroscope bias removed.
    ///   - acceleration: g, Core Motion sign (face up at rest `(0, 0, −1)`), for the dip angle.
    ///   - interval: seconds since the previous sample.
    public mutating func update(
        field: SIMD3<Double>, rotationRate: SIMD3<Double>, acceleration: SIMD3<Double>, interval: Double
    ) {
        guard field * 0 == .zero, rotationRate * 0 == .zero, interval.isFinite, interval > 0, interval < 1 else {
            restartStretch()
            return
        }
        let corrected = self.corrected(field)
        checkDisturbance(corrected, acceleration)
        // Only while turning: at rest every reading repeats the same direction.
        // At most once every `strengthInterval` (a cost bound at high sample rates).
        scatter.sinceLast += interval
        if scatter.sinceLast >= parameters.strengthInterval,
           (rotationRate * rotationRate).sum() >= parameters.slowRate * parameters.slowRate / 4 {
            scatter.sinceLast = 0
            constrainStrength(field, corrected)
        }
        lastField = field
        lastAcceleration = acceleration
        guard let first = firstReading else {
            startStretch(field, rate: rotationRate)
            return
        }
        let half = rotationRate * (0.5 * interval)
        let halfSquared = (half * half).sum()
        let rate = halfSquared.squareRoot() * 2 / interval
        let still = rate <= parameters.stillRate
        if rate < parameters.slowRate / 4 { stillTime += interval }
        if let end = pendingEnd {
            // The stretch has turned far enough and waits at a still board: its end is the mean of
            // the readings while the board stays still there.
            integrate(half, halfSquared)
            if still, end.count < Self.stillReadings, path - end.path < Self.stillPath {
                pendingEnd = (end.sum + field, end.count + 1, end.rate, end.rotation, end.path)
                return
            }
            let since = end.rotation.conjugate * rotation   // turned since the end: carried over
            rotation = end.rotation
            closeStretch(first, end: end.sum / end.count, endCount: end.count, endRate: end.rate, acceleration: acceleration)
            startStretch(end.sum / end.count, rate: end.rate, count: end.count)
            rotation = since
            path = since.angle
            if !still { stretchTime += interval }
            return
        }
        integrate(half, halfSquared)
        if firstRate <= parameters.stillRate, still, path < Self.stillPath, firstCount < Self.stillReadings, let start = firstReading {
            // Still at the start: the start is the mean of the readings there.
            firstReading = (start * firstCount + field) / (firstCount + 1)
            firstCount += 1
            return
        }
        stretchTime += interval
        // A stretch ends where the board is still or turns slowly (so that a lag between the
        // magnetometer and the gyroscope, which turns the field by rate × lag, matters least),
        // once it has turned far enough; or when it has turned three times as far; or after the
        // longest time.
        let slow = rate <= parameters.slowRate
        if path >= parameters.stretchAngle, still {
            pendingEnd = (field, 1, rotationRate, rotation, path)
        } else if (path >= parameters.stretchAngle && slow) || path >= 3 * parameters.stretchAngle
            || stretchTime >= parameters.maximumStretchTime {
            closeStretch(firstReading ?? first, end: field, endCount: 1, endRate: rotationRate, acceleration: acceleration)
            // The next stretch starts where the board turns slowly too: until then, the start moves on.
            startStretch(field, rate: rotationRate)
        } else if path < parameters.stretchAngle / 4, rate < firstRate {
            // Still near the start and turning slower than there: a better place to start.
            startStretch(field, rate: rotationRate)
        }
    }

    /// Readings averaged at most at a still end of a stretch (2 s at 100 Hz).
    private static let stillReadings = 200.0
    /// Radians the board may turn while readings are averaged as one (0.1°: 0.09 µT of a 50 µT field).
    private static let stillPath = 0.1 * Double.pi / 180

    /// The body's rotation since the stretch began (device at start → device now): one
    /// small-angle quaternion step (series to the θ³ term; a sample turns well under 0.1 rad).
    @inline(__always)
    private mutating func integrate(_ half: SIMD3<Double>, _ halfSquared: Double) {
        let v = half * (1 - halfSquared / 6)
        rotation = rotation * Quaternion(w: 1 - halfSquared / 2, x: v.x, y: v.y, z: v.z)
        path += 2 * halfSquared.squareRoot()
    }

    /// Learns from the stretch from `first` to `end` (`endRate` the rotation rate there), or
    /// drops it when it turned too little.
    private mutating func closeStretch(
        _ first: SIMD3<Double>, end: SIMD3<Double>, endCount: Double, endRate: SIMD3<Double>, acceleration: SIMD3<Double>
    ) {
        // The readings' own instants lie `magnetometerLag` earlier at both ends.
        let lag = parameters.magnetometerLag
        let turnedRotation = (Self.step(firstRateVector * lag) * rotation * Self.step(endRate * -lag)).normalized
        let endRateSize = (endRate * endRate).sum().squareRoot()
        if turnedRotation.angle >= parameters.stretchAngle / 2 {
            // Each end's noise: one reading's over the number averaged.
            let noise = parameters.fieldNoise * parameters.fieldNoise * (1 / max(firstCount, 1) + 1 / max(endCount, 1))
            learn(from: first, to: end, acceleration: acceleration, rotation: turnedRotation, duration: stretchTime,
                  endRates: firstRate + endRateSize, noise: noise)
            stillTime = 0
        } else {
            predict(stretchTime)
        }
        pendingEnd = nil
    }

    private mutating func startStretch(_ field: SIMD3<Double>, rate: SIMD3<Double>, count: Double = 1) {
        firstReading = field
        firstCount = count
        firstRateVector = rate
        firstRate = (rate * rate).sum().squareRoot()
        rotation = .identity
        stretchTime = 0
        path = 0
        pendingEnd = nil
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
    }

    /// The field-strength constraint |A·m − c|² = k (the corrected field lies on a sphere), once
    /// per new reading while the field is undisturbed and the board turns faster than half
    /// ``Parameters/slowRate``, linearized about the estimate (an extended Kalman filter update: the
    /// ellipsoid of readings, Crassidis, Lai & Harman 2005 section III, in this filter's
    /// parameters); a reading it cannot explain (χ²₁ beyond 10.8, 99.9 %) is skipped.
    private mutating func constrainStrength(_ field: SIMD3<Double>, _ corrected: SIMD3<Double>) {
        guard field != scatter.lastReading else { return }
        scatter.lastReading = field
        guard !disturbed, candidate == nil else { return }
        let squared = (corrected * corrected).sum()
        // Only once the stretches know the offset to a few µT: before, the constraint alone would
        // settle for any sphere through the readings seen (at rest: a sphere of radius zero).
        if !scatter.known {
            let start = parameters.strengthStartSigma * parameters.strengthStartSigma
            guard state.p[0][0] <= start, state.p[1][1] <= start, state.p[2][2] <= start else { return }
            state.startStrength(squared.squareRoot(), sigma: parameters.strengthStartSigma)
            scatter.known = true
            scatter.meanSquare = 0
            return
        }
        let strength = max(state.k, 100).squareRoot()
        // The readings' distance from the sphere, ≈ |A m − c| − F (µT): its mean square says how
        // well the model fits.
        let residual = (squared - state.k) / (2 * strength)
        scatter.meanSquare += 0.005 * (min(residual * residual, 100) - scatter.meanSquare)
        // ∂|A m − c|²/∂x = 2 (A m − c)ᵀ (M(m), −I) and ∂/∂k of the constraint: −1.
        let rows = CalibrationState.softIronRows(field)
        let h = 2 * (corrected.x * rows.0 + corrected.y * rows.1 + corrected.z * rows.2
            - SIMD8(corrected.x, corrected.y, corrected.z, 0, 0, 0, 0, 0))
        let variance = parameters.fieldNoise * parameters.fieldNoise + parameters.strengthModelError * parameters.strengthModelError
        _ = state.considerUpdate(h, k: -1, (h * state.x).sum() - squared, 4 * strength * strength * variance, gate: 10.8)
        refresh()
    }

    /// The corrected field's strength and dip now against the reference: sets `disturbed`.
    private mutating func checkDisturbance(_ corrected: SIMD3<Double>, _ acceleration: SIMD3<Double>) {
        guard referenceStrength > 0 else {
            disturbed = false
            return
        }
        let strength = (corrected * corrected).sum().squareRoot()
        var isDisturbed = abs(strength - referenceStrength) > parameters.normThreshold * referenceStrength
        if !isDisturbed, referenceDipKnown, let dip = Self.dip(corrected, acceleration, tolerance: 0.1) {
            isDisturbed = abs(dip - referenceDip) > parameters.dipThreshold
        }
        disturbed = isDisturbed
    }

    /// One stretch: the corrected `later` should equal Φ·(the corrected `earlier`), Φ the rotation
    /// that takes a world-fixed vector from the earlier device axes to the later ones.
    private mutating func learn(from earlier: SIMD3<Double>, to later: SIMD3<Double>, acceleration: SIMD3<Double>, rotation: Quaternion, duration: Double, endRates: Double, noise: Double) {
        predict(duration)
        let phi = rotation.conjugate.rotationMatrix   // v_later = Φ v_earlier for a world-fixed v
        // y = m₁ − Φ m₀ = (I − Φ) c + (Φ M(m₀) − M(m₁)) e
        let m0 = CalibrationState.softIronRows(earlier), m1 = CalibrationState.softIronRows(later)
        func row(_ i: SIMD3<Double>, _ phiRow: SIMD3<Double>, _ m1Row: SIMD8<Double>) -> SIMD8<Double> {
            let c = i - phiRow
            return SIMD8(c.x, c.y, c.z, 0, 0, 0, 0, 0) + phiRow.x * m0.0 + phiRow.y * m0.1 + phiRow.z * m0.2 - m1Row
        }
        let h = (row(SIMD3(1, 0, 0), phi.rows.0, m1.0), row(SIMD3(0, 1, 0), phi.rows.1, m1.1), row(SIMD3(0, 0, 1), phi.rows.2, m1.2))
        let y = later - phi * earlier
        // Noise per axis: the two ends' (`noise`), plus the rotation's error (timing and scale)
        // acting on the field's size.
        let before = corrected(earlier)
        let strength = max(referenceStrength, (before * before).sum().squareRoot())
        let angleError = endRates * parameters.timingUncertainty + parameters.rotationScaleError * rotation.angle
        let r = noise + (angleError * strength) * (angleError * strength)

        let (accepted, nis) = state.update(h, y, r, gate: parameters.gate, apply: !disturbed)
        if accepted {
            consistency += 0.05 * (nis / 3 - consistency)
            refresh()
        }
        if accepted || nis <= parameters.gate {
            // The first filter explains the readings again: after as long as a change needs to be
            // confirmed, the suspicion was a passing disturbance.
            acceptedTime += duration
            if acceptedTime >= parameters.changeConfirmationTime {
                rejectedTime = 0
                candidateConsistentTime = 0
                candidate = nil
            }
        } else {
            acceptedTime = 0
            rejectedTime += duration
            if candidate == nil {
                candidate = CalibrationState(restartingOffsetOf: state, sigma: parameters.initialSigma)
                candidateConsistentTime = 0
            }
        }
        if var c = candidate {
            // The second filter learns from every stretch, ungated (it is adopted only once its
            // stretches fit it, so what it learned from a passing disturbance is never adopted).
            let known = (c.p[0][0] + c.p[1][1] + c.p[2][2]) / 3 < 4
            let (_, candidateNIS) = c.update(h, y, r, gate: .infinity, apply: true)
            candidate = c
            // Consistent while its stretches fit; an odd one out costs as much as it lasted.
            candidateConsistentTime = known && candidateNIS <= parameters.gate
                ? candidateConsistentTime + duration : max(0, candidateConsistentTime - duration)
            if rejectedTime >= parameters.changeConfirmationTime && candidateConsistentTime >= parameters.changeConfirmationTime {
                state = c
                refresh()
                candidate = nil
                scatter.known = false
                rejectedTime = 0
                changes += 1
                if parameters.expectedField == nil {   // relearned with the new offset
                    referenceStrength = 0
                    referenceDipKnown = false
                }
            }
        }
        learnReference(later, acceleration)
    }

    /// Learns the reference field (strength, dip) once the offset is known well, if no expected
    /// field was given.
    private mutating func learnReference(_ field: SIMD3<Double>, _ acceleration: SIMD3<Double>) {
        guard parameters.expectedField == nil, !disturbed, candidate == nil, sigma <= 1.0 else { return }
        let corrected = self.corrected(field)
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

    /// The dip angle of `field` (µT, corrected) below the horizontal, radians, from a quiet
    /// accelerometer (|a| within `tolerance` g of 1 g); nil while it moves.
    private static func dip(_ field: SIMD3<Double>, _ acceleration: SIMD3<Double>, tolerance: Double) -> Double? {
        let g = (acceleration * acceleration).sum().squareRoot()
        let strength = (field * field).sum().squareRoot()
        guard abs(g - 1) < tolerance, strength > 0 else { return nil }
        // Core Motion's sign: the acceleration at rest points down, so its projection is the dip.
        return asin(max(-1, min(1, (field * acceleration).sum() / (strength * g))))
    }
}

/// The Kalman filter's state: x = (c, e) and k, c = A·b (µT) the offset as the corrected field
/// sees it, e the soft-iron correction A = I + E (E symmetric and trace-free: xx, yy, xy, xz, yz;
/// zz = −xx − yy), k = F² the squared field strength (µT²), with their covariance. The corrected
/// field is A·m − c = A·(m − b).
struct CalibrationState: Sendable {
    var x: SIMD8<Double>
    var k: Double
    /// Symmetric covariance: of x by columns, of x with k, of k.
    var p: InlineArray<8, SIMD8<Double>>
    var pk: SIMD8<Double>
    var vk: Double

    /// From an offset `offset` (µT, E = 0) with σ `sigma` per axis and a soft-iron correction
    /// whose elements have σ `softIronSigma`, independent: c = A·b, so with E = 0
    /// P_cc = σ_b² I + σ_E² M(b) M(b)ᵀ, P_ce = σ_E² M(b), P_ee = σ_E² I. k from `fieldStrength`,
    /// uncertain by several thousand µT² (F within 20–70 µT).
    init(offset: SIMD3<Double>, sigma: Double, softIronSigma: Double, fieldStrength: Double) {
        x = SIMD8(offset.x, offset.y, offset.z, 0, 0, 0, 0, 0)
        k = fieldStrength * fieldStrength
        p = InlineArray(repeating: .zero)
        pk = .zero
        vk = 5000.0 * 5000.0
        let vb = sigma * sigma, ve = softIronSigma * softIronSigma
        let rows = Self.softIronRows(offset)
        for j in 3..<8 {
            p[j][j] = ve
            p[j][0] = ve * rows.0[j]
            p[j][1] = ve * rows.1[j]
            p[j][2] = ve * rows.2[j]
            p[0][j] = p[j][0]
            p[1][j] = p[j][1]
            p[2][j] = p[j][2]
        }
        for i in 0..<3 {
            let ri = i == 0 ? rows.0 : i == 1 ? rows.1 : rows.2
            for j in 0..<3 {
                let rj = j == 0 ? rows.0 : j == 1 ? rows.1 : rows.2
                p[j][i] = (i == j ? vb : 0) + ve * (ri * rj).sum()
            }
        }
    }

    /// The same soft iron (with its uncertainty), the offset started afresh: the second filter of
    /// a hard-iron change (a magnet attached moves the offset, not the board's soft iron).
    init(restartingOffsetOf other: CalibrationState, sigma: Double) {
        self = other
        let v = sigma * sigma
        for j in 0..<8 {
            for i in 0..<3 {
                p[j][i] = i == j ? v : 0
                p[i][j] = i == j ? v : 0
            }
        }
        pk = .zero
        vk = 5000.0 * 5000.0
    }

    /// c, µT.
    var centre: SIMD3<Double> { SIMD3(x[0], x[1], x[2]) }
    /// A = I + E.
    var matrix: Matrix3 {
        Matrix3(rows: SIMD3(1 + x[3], x[5], x[6]), SIMD3(x[5], 1 + x[4], x[7]), SIMD3(x[6], x[7], 1 - x[3] - x[4]))
    }

    /// The rows of E·m as a linear function of x (zero on c): (E m)ᵢ = rowᵢ · x.
    static func softIronRows(_ m: SIMD3<Double>) -> (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>) {
        (SIMD8(0, 0, 0, m.x, 0, m.y, m.z, 0),
         SIMD8(0, 0, 0, 0, m.y, m.x, 0, m.z),
         SIMD8(0, 0, 0, -m.z, -m.z, 0, m.x, m.y))
    }

    /// The x block of P times v.
    @inline(__always)
    func times(_ v: SIMD8<Double>) -> SIMD8<Double> {
        var r = p[0] * v[0]
        for j in 1..<8 { r += p[j] * v[j] }
        return r
    }

    /// vᵀ P v on x.
    func variance(_ v: SIMD8<Double>) -> Double { (v * times(v)).sum() }

    mutating func addProcessNoise(_ q: Double) {
        p[0][0] += q
        p[1][1] += q
        p[2][2] += q
    }

    /// Starts k from a field strength `strength` (µT) known to `sigma` (µT), independent of x.
    mutating func startStrength(_ strength: Double, sigma: Double) {
        k = strength * strength
        pk = .zero
        vk = 4 * strength * strength * sigma * sigma
    }

    /// One scalar measurement y = h·x + hk·k + noise (variance r): applied when its normalized
    /// innovation squared is within `gate`; returns that NIS.
    @inline(__always)
    mutating func update(_ h: SIMD8<Double>, k hk: Double = 0, _ y: Double, _ r: Double, gate: Double) -> Double {
        let ph = times(h) + pk * hk
        let phk = (pk * h).sum() + vk * hk
        let s = (h * ph).sum() + hk * phk + r
        guard s > 0 else { return .infinity }
        let innovation = y - (h * x).sum() - hk * k
        let nis = innovation * innovation / s
        guard nis <= gate else { return nis }
        let gain = ph / s, gainK = phk / s
        x += gain * innovation
        k += gainK * innovation
        for j in 0..<8 { p[j] -= gain * ph[j] }
        pk -= gain * phk
        vk -= gainK * phk
        return nis
    }

    /// One scalar measurement as ``update(_:k:_:_:gate:)``, but in the manner of the
    /// Schmidt–Kalman ("consider") filter: the soft-iron elements are not changed by it, though
    /// their uncertainty is counted in its weight and carried into the covariance
    /// (P⁺ = P − K·(Ph)ᵀ − Ph·Kᵀ + s·K·Kᵀ with the gain K zero on them).
    mutating func considerUpdate(_ h: SIMD8<Double>, k hk: Double, _ y: Double, _ r: Double, gate: Double) -> Double {
        let ph = times(h) + pk * hk
        let phk = (pk * h).sum() + vk * hk
        let s = (h * ph).sum() + hk * phk + r
        guard s > 0 else { return .infinity }
        let innovation = y - (h * x).sum() - hk * k
        let nis = innovation * innovation / s
        guard nis <= gate else { return nis }
        let gain = ph / s * SIMD8(1, 1, 1, 0, 0, 0, 0, 0), gainK = phk / s
        x += gain * innovation
        k += gainK * innovation
        for j in 0..<8 { p[j] += s * gain * gain[j] - gain * ph[j] - ph * gain[j] }
        pk += s * gain * gainK - gain * phk - ph * gainK
        vk -= gainK * phk
        return nis
    }

    /// A stretch: y = H x + noise (variance r per axis, H by its three rows, k not involved), as
    /// three scalar updates in turn; applied as a whole when `apply` and the summed NIS (the
    /// vector's, since the axes' noise is independent) is within `gate`. Returns whether applied,
    /// and the NIS.
    mutating func update(
        _ h: (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>), _ y: SIMD3<Double>, _ r: Double, gate: Double, apply: Bool
    ) -> (Bool, Double) {
        var trial = self
        var nis = trial.update(h.0, y.x, r, gate: .infinity)
        nis += trial.update(h.1, y.y, r, gate: .infinity)
        nis += trial.update(h.2, y.z, r, gate: .infinity)
        guard apply, nis <= gate else { return (false, nis) }
        self = trial
        return (true, nis)
    }
}

/// The background calibration as a fusion loop runs it: the estimator, the field corrected, and
/// when to tell the attitude filter (``AttitudeEstimator/magneticCalibrationChanged()``) that the
/// calibration moved under it — when the correction of the current reading has moved by
/// ``announcedMove`` since it was last told (checked ten times a second of sample time): the first
/// learning, a relearned hard-iron change. Smaller refinements the filter's own heading correction
/// follows (a reset restarts its heading average, which costs more than a fraction of a µT while
/// the board moves). The sampler and `motionctl evaluate --background-calibration` run the same.
public struct BackgroundFieldCorrection: Sendable {
    /// µT: 2 µT turns a 20 µT horizontal field by about 6°.
    public static let announcedMove = 2.0

    public private(set) var estimator: HardIronEstimator
    /// The status at the last check.
    public private(set) var status: HardIronEstimator.Status
    private var announced: HardIronEstimator
    private var lastCheck: Double?

    /// See ``HardIronEstimator/restartStretch()``.
    public mutating func restartStretch() {
        estimator.restartStretch()
    }

    public init(_ estimator: HardIronEstimator) {
        self.estimator = estimator
        status = estimator.status
        announced = estimator
    }

    /// One reading through the estimator (see ``HardIronEstimator/update(field:rotationRate:acceleration:interval:)``)
    /// at `timestamp` (s): the field corrected, whether the status was refreshed, and whether the
    /// attitude filter should be told.
    public mutating func correct(
        _ field: SIMD3<Double>, rotationRate: SIMD3<Double>, acceleration: SIMD3<Double>, interval: Double, timestamp: Double
    ) -> (field: SIMD3<Double>, checked: Bool, changed: Bool) {
        estimator.update(field: field, rotationRate: rotationRate, acceleration: acceleration, interval: interval)
        let corrected = estimator.corrected(field)
        guard lastCheck.map({ timestamp - $0 >= 0.1 || timestamp < $0 }) ?? true else { return (corrected, false, false) }
        lastCheck = timestamp
        status = estimator.status
        let moved = corrected - announced.corrected(field)
        let changed = (moved * moved).sum() > Self.announcedMove * Self.announcedMove
        if changed { announced = estimator }
        return (corrected, true, changed)
    }
}
