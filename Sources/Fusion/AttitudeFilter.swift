#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Online attitude filter for a gyroscope, an accelerometer and optionally a magnetometer.
///
/// Design (after Laidig & Seel, "VQF: Highly accurate IMU orientation estimation with bias
/// estimation and magnetic disturbance rejection", Information Fusion 91, 2023):
/// - the gyroscope (bias removed) is integrated into an almost-inertial frame `I`;
/// - the accelerometer is rotated into `I` and low-pass filtered there (2nd order, `τ_acc`), so
///   that accelerations average out while the sensor moves; a tilt-only correction `I → E₆` maps the
///   filtered vector onto the vertical;
/// - a Kalman filter estimates the gyroscope bias from the tilt corrections while moving, and from
///   the low-pass filtered gyroscope at rest (rest: gyro and accelerometer deviations below
///   thresholds for `restMinTime`);
/// - the magnetometer, rotated into `E₆`, corrects heading (a first-order filter with `τ_mag` on one
///   angle) unless its norm or dip angle deviates from a learned reference field; a new field is
///   accepted after it has been stable while the sensor moved.
///
/// Differences from VQF's published design: the first reference field is the one seen at rest
/// at start-up (the one that already set the initial heading), rather than one seen while turning;
/// it stays provisional until it has held for `magneticNewFieldFirstTime` of turning, and until
/// then a different field that is stable while turning replaces it after that same time; a new
/// field must be fixed in the earth frame to replace the reference (its heading, not only its
/// norm and dip, stays put while the sensor turns), so a magnet carried with the sensor (a change
/// of hard iron, whose field turns with it) never becomes the reference; a disturbance is never
/// followed at once; one that outlasts `magneticMaximumRejectionTime` is followed at a reduced
/// gain only while the field it shows has been fixed in the earth frame by the same test for
/// `magneticNewFieldFirstTime` of turning (a reference a few per cent off, a field that differs
/// across the room), never while it turns with the sensor, keeps changing or has not been seen
/// from enough directions (a magnet beside a resting sensor) (VQF follows any field at half gain after 60 s, which turns the
/// heading towards a magnet): the heading is then held by the gyroscope with accuracy `.low`;
/// two defaults differ (`magnetometerTimeConstant` 15 s instead of 9 s, `biasSigmaMotion`
/// 0.05 °/s instead of 0.1 °/s), chosen on all 15 BROAD trials together; the gyroscope is
/// integrated with the mean of two consecutive samples over the interval between them (VQF uses
/// each sample over the interval before it, which runs half an interval ahead of the other
/// sensors: 5 ms at 100 Hz, 10 ms at 50 Hz); and the sensors' latency can be compensated
/// (`sensorLatency`, a property of the chip's output filter, 0 by default).
///
/// Arithmetic is `Double`: the tilt low-pass (τ = 3 s at 286 Hz has poles 1.2·10⁻³ from the unit
/// circle) run with `Float` state deviates by up to 0.16 m/s² (≈ 1° of tilt) from the `Double`
/// run on a 60 000-sample synthetic signal (9.81 ± 2 m/s² with noise), more than the whole error
/// budget, while the cost target is met in `Double` (see `motion-bench`).
///
/// Frames: the 6D attitude maps sensor → an earth frame with z up and arbitrary heading; the 9D
/// attitude maps sensor → East-North-Up (magnetic north). No allocation per update. The sampler's
/// ``AttitudeEstimator`` unless a manager is given another.
package struct AttitudeFilter: Sendable {
    /// Sample interval, s.
    package let sampleInterval: Double
    package let parameters: Parameters

    // Coefficients.
    private let accLowPass: LowPassCoefficients
    private let restLowPass: LowPassCoefficients
    private let magneticLowPass: LowPassCoefficients
    private let magneticGain: Double
    private let magneticReferenceGain: Double
    private let biasClip: Double
    private let biasCorrectionClip: Double
    private let biasVariance0: Double
    private let biasProcessNoise: Double
    private let biasMotionNoise: Double
    private let biasVerticalNoise: Double
    private let biasRestNoise: Double
    private let restGyroThresholdSquared: Double
    private let restAccThresholdSquared: Double
    private let magneticDipThreshold: Double
    private let magneticNewFieldMinimumRate: Double
    /// 1 / sampleInterval: turns a correction per sample into a rate.
    private let inverseSampleInterval: Double
    /// The time this update covers: the measured interval when the caller gives one, else nominal.
    private var stepInterval: Double

    // Orientation: sensor → I (gyro integration), I → E₆ (tilt correction), E₆ → ENU (heading).
    private var gyroQuaternion = Quaternion.identity
    private var tiltQuaternion = Quaternion.identity
    /// Rotation about up by the heading correction, E₆ → ENU (unit, z-rotation only).
    private var headingQuaternion = Quaternion.identity
    /// `tiltQuaternion ⊗ gyroQuaternion`, refreshed once per update.
    private var attitude6D = Quaternion.identity
    /// Updates until the gyroscope and tilt quaternions are brought back to unit norm.
    private var normalizationCountdown = 32
    /// The last rate sample with the bias removed, rad/s, sensor frame: the outputs' extrapolation.
    private var latestRate = SIMD3<Double>.zero

    // Accelerometer in I, low-pass state; R (sensor → E₆) and R·bias (x, y) low-pass state.
    private var accInertialState = LowPassState<SIMD3<Double>>()
    private var biasModelState = LowPassState<SIMD8<Double>>()
    private var verticalModelState = LowPassState<SIMD4<Double>>()

    // Rest detection.
    private var restGyroState = LowPassState<SIMD3<Double>>()
    private var restAccState = LowPassState<SIMD3<Double>>()
    private var restGyroLowPass = SIMD3<Double>.zero
    private var restTime: Double = 0
    private var restDetected = false
    private var previousGyro = SIMD3<Double>(repeating: .nan)

    // Bias Kalman filter; variance in (0.01 °/s)² so that the numbers stay near 1.
    private var bias = SIMD3<Double>.zero
    /// Symmetric 3×3 covariance, by columns.
    private var biasCovariance: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    // Magnetometer.
    private var magneticState = LowPassState<SIMD4<Double>>()
    private var referenceNorm: Double = 0
    private var referenceDip: Double = 0
    private var candidateNorm: Double = -1
    private var candidateDip: Double = 0
    /// The candidate field's heading error (its north against the current heading), rad.
    private var candidateHeading: Double = 0
    private var candidateTime: Double = 0
    private var undisturbedTime: Double = 0
    private var rejectionTime: Double = 0
    private var initialMagneticGain: Double = 1
    /// The field has agreed with the candidate reference while the sensor turned for at least
    /// ``Parameters/magneticNewFieldFirstTime``: shown to be fixed in the earth frame.
    private var fieldFixedInEarth = false
    private var magneticDisturbed = false
    private var magneticSeen = false
    /// The reference was taken at rest at start-up: the first field seen while turning may replace it.
    private var referenceFromRest = false

    // The heading's error, by its sources (radians; ``headingSigma``). Each is a systematic error
    // (constant over the filter's time constant), so each is carried linearly: the gyroscope adds
    // to it, and a magnetic correction of gain g keeps (1 − g) of it and takes g of the field's.
    /// What the heading started from: unknown until the first magnetic correction.
    private var headingStartError = Double.pi
    /// The gyroscope bias's uncertainty about the vertical, integrated.
    private var headingBiasError: Double = 0
    /// The gyroscope's scale error on the rotation about the vertical, integrated signed (back and
    /// forth cancels, as a constant scale error does).
    private var headingScaleError: Double = 0
    /// The field's own heading error (its calibration's, ``AttitudeEstimatorInput/fieldHeadingSigma``),
    /// as taken in by the corrections so far.
    private var headingFieldError: Double = 0
    /// The field's heading σ the sampler gave with the latest sample, radians.
    private var fieldHeadingSigma: Double = 0

    /// - Parameters:
    ///   - sampleInterval: time between samples, s (> 0).
    ///   - parameters: tuning; the defaults suit 50–1000 Hz MEMS IMUs.
    package init(sampleInterval: Double, parameters: Parameters = Parameters()) {
        self.sampleInterval = sampleInterval
        self.parameters = parameters
        let ts = sampleInterval
        let degree = Double.pi / 180
        accLowPass = LowPassCoefficients(timeConstant: parameters.accelerometerTimeConstant, sampleInterval: ts)
        restLowPass = LowPassCoefficients(timeConstant: parameters.restFilterTimeConstant, sampleInterval: ts)
        magneticLowPass = LowPassCoefficients(timeConstant: parameters.magneticCurrentTimeConstant, sampleInterval: ts)
        magneticGain = 1 - exp(-ts / parameters.magnetometerTimeConstant)
        magneticReferenceGain = 1 - exp(-ts / parameters.magneticReferenceTimeConstant)
        biasClip = parameters.biasClip * degree
        biasCorrectionClip = min(parameters.biasClip, parameters.biasCorrectionClip) * degree
        biasVariance0 = (parameters.biasSigmaInitial * 100) * (parameters.biasSigmaInitial * 100)
        // Process noise: the variance grows by (0.1 °/s)² in biasForgettingTime.
        biasProcessNoise = 100 * ts / parameters.biasForgettingTime
        // Measurement noise chosen so that the steady-state standard deviation under continuous
        // measurements equals the given sigma: w = p²/v + p.
        let motion = (parameters.biasSigmaMotion * 100) * (parameters.biasSigmaMotion * 100)
        biasMotionNoise = motion * motion / biasProcessNoise + motion
        biasVerticalNoise = biasMotionNoise / max(parameters.biasVerticalForgettingFactor, 1e-10)
        let rest = (parameters.biasSigmaRest * 100) * (parameters.biasSigmaRest * 100)
        biasRestNoise = rest * rest / biasProcessNoise + rest
        biasCovariance = (SIMD3(biasVariance0, 0, 0), SIMD3(0, biasVariance0, 0), SIMD3(0, 0, biasVariance0))
        restGyroThresholdSquared = (parameters.restGyroscopeThreshold * degree) * (parameters.restGyroscopeThreshold * degree)
        restAccThresholdSquared = parameters.restAccelerometerThreshold * parameters.restAccelerometerThreshold
        magneticDipThreshold = parameters.magneticDipThreshold * degree
        magneticNewFieldMinimumRate = parameters.magneticNewFieldMinimumRate * degree
        stepInterval = sampleInterval
        inverseSampleInterval = 1 / sampleInterval
    }

    // MARK: Outputs

    /// Sensor → earth frame with z up and arbitrary (gyro-only, drifting) heading.
    package var quaternion6D: Quaternion { extrapolated(attitude6D) }

    /// Sensor → East-North-Up (magnetic north). Equals the 6D attitude until a magnetometer
    /// sample arrives.
    package var quaternion9D: Quaternion { headingQuaternion * extrapolated(attitude6D) }

    /// `q` turned on by the latest rate for ``Parameters/sensorLatency``.
    @inline(__always)
    private func extrapolated(_ q: Quaternion) -> Quaternion {
        let latency = parameters.sensorLatency
        guard latency != 0 else { return q }
        let (cosine, s) = halfAngleStep(normSquared: (latestRate * latestRate).sum(), sampleInterval: latency)
        return q * Quaternion(w: cosine, x: s * latestRate.x, y: s * latestRate.y, z: s * latestRate.z)
    }

    /// Estimated gyroscope bias, rad/s, sensor frame (already removed from the integration).
    package var gyroBias: SIMD3<Double> { bias }

    /// Standard deviation of the gyroscope bias estimate (largest axis), rad/s.
    package var gyroBiasUncertainty: Double {
        let p = max(biasCovariance.0.x, biasCovariance.1.y, biasCovariance.2.z)
        return p.squareRoot() / 100 * Double.pi / 180
    }

    /// True while the sensor is detected to be at rest.
    package var isAtRest: Bool { restDetected }

    /// How far the 9D heading may be off, degrees (one σ): the field's own heading error (its
    /// calibration's σ, given with each sample as ``AttitudeEstimatorInput/fieldHeadingSigma``) as
    /// the corrections have taken it in, the gyroscope bias's uncertainty about the vertical and
    /// its scale error (``Parameters/headingRateScaleError``) integrated since then, and what is
    /// left of the heading the filter started from. Each source is carried as a systematic error
    /// (linearly: the gyroscope adds to it, a correction of gain g keeps 1 − g of it); the sources
    /// are independent and add in quadrature. Not the accuracy of the field's calibration: how
    /// far the heading that followed it can be from the field's, plus that.
    package var headingSigma: Double {
        let sum = headingStartError * headingStartError + headingBiasError * headingBiasError
            + headingScaleError * headingScaleError + headingFieldError * headingFieldError
        return sum.squareRoot() * 180 / .pi
    }

    /// True while the magnetic field deviates from the learned reference (heading not corrected).
    package var isMagneticallyDisturbed: Bool { magneticDisturbed }

    /// How far the 9D heading can be trusted.
    public var magneticAccuracy: MagneticAccuracy {
        if !magneticSeen || referenceNorm == 0 { return .uncalibrated }
        if magneticDisturbed { return .low }
        if initialMagneticGain != 0 || rejectionTime > 0 { return .medium }
        return .high
    }

    /// The magnetometer's calibration changed: the reference field is learned again and the
    /// heading is taken afresh from the next readings (as at start-up); the 6D attitude and the
    /// gyroscope bias are kept.
    package mutating func magneticCalibrationChanged() {
        magneticState = LowPassState()
        referenceNorm = 0
        referenceDip = 0
        candidateNorm = -1
        candidateDip = 0
        candidateHeading = 0
        candidateTime = 0
        undisturbedTime = 0
        rejectionTime = 0
        initialMagneticGain = 1
        magneticDisturbed = false
        referenceFromRest = false
    }

    /// Gravity in the sensor frame, g, Core Motion sign (face up at rest: (0, 0, −1)).
    package var gravity: SIMD3<Double> { -quaternion6D.conjugate.rotate(SIMD3(0, 0, 1)) }

    // MARK: Update

    /// One sample.
    /// - Parameters:
    ///   - gyroscope: rotation rate, rad/s, sensor frame.
    ///   - accelerometer: specific force in any consistent unit (+g on z when lying flat, face up:
    ///     the opposite of Core Motion's sign). An all-zero sample is skipped.
    ///   - magnetometer: magnetic field, µT (any unit), sensor frame; `nil` for a 6D update.
    ///   - interval: the measured time since the previous sample, s, when sample times jitter
    ///     (real timestamps); `nil` for the nominal `sampleInterval`. It sets how far the
    ///     gyroscope is integrated and how fast the rest and magnetic timers run; it is clamped to
    ///     0…4 nominal intervals (a longer gap is not bridged by one rate sample). The low-pass
    ///     filters keep the nominal rate: a few per cent of jitter shifts their time constants by
    ///     as much, far below what the time constants need.
    /// A sample whose gyroscope or accelerometer holds NaN or infinity is skipped; such a
    /// magnetometer reading is ignored.
    package mutating func update(
        gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>, magnetometer: SIMD3<Double>?, interval: Double? = nil
    ) {
        // x · 0 is zero exactly for finite x: a sample with NaN or infinity is skipped.
        guard gyroscope * 0 + accelerometer * 0 == .zero else { return }
        if let interval, interval.isFinite {
            stepInterval = min(max(interval, 0), 4 * sampleInterval)
        } else {
            stepInterval = sampleInterval
        }
        integrateGyroscope(gyroscope)
        // The tilt correction recomputes the 6D attitude; without it, the gyroscope alone moves it.
        if accelerometer != .zero { correctTilt(accelerometer) } else { attitude6D = tiltQuaternion * gyroQuaternion }
        propagateHeadingError()
        if let magnetometer, magnetometer != .zero, magnetometer * 0 == .zero { correctHeading(magnetometer) }
    }

    /// The field's heading σ (degrees) for the samples from now on (``headingSigma``); a value
    /// that is not finite or negative counts as unknown (180°).
    package mutating func setFieldHeadingSigma(_ degrees: Double) {
        fieldHeadingSigma = degrees >= 0 && degrees.isFinite ? min(degrees, 180) * .pi / 180 : .pi
    }

    /// The gyroscope's part of ``headingSigma`` for one step: the bias's σ about the vertical (the
    /// bias filter's covariance, (0.01 °/s)² units, along the vertical in sensor axes) and the
    /// scale error on the rotation about the vertical.
    @inline(__always)
    private mutating func propagateHeadingError() {
        let ts = stepInterval
        let r = attitude6D.rotationMatrix
        let up = r.rows.2
        let p = biasCovariance
        let pu = p.0 * up.x + p.1 * up.y + p.2 * up.z
        let verticalVariance = max((up * pu).sum(), 0)
        headingBiasError += verticalVariance.squareRoot() * (Double.pi / 18_000) * ts
        headingScaleError += parameters.headingRateScaleError * (latestRate * up).sum() * ts
    }

    /// A magnetic correction of gain `gain` (the fraction of the field's heading error taken in).
    @inline(__always)
    private mutating func correctHeadingError(gain: Double) {
        let keep = 1 - gain
        headingStartError *= keep
        headingBiasError *= keep
        headingScaleError *= keep
        headingFieldError = keep * headingFieldError + gain * fieldHeadingSigma
    }

    @inline(__always)
    private mutating func integrateGyroscope(_ gyr: SIMD3<Double>) {
        let ts = stepInterval
        if previousGyro.x.isNaN { previousGyro = gyr }
        restGyroLowPass = restGyroState.filter(gyr, restLowPass)
        let deviation = gyr - restGyroLowPass
        if (deviation * deviation).sum() >= restGyroThresholdSquared
            || any(restGyroLowPass .> SIMD3(repeating: biasClip))
            || any(restGyroLowPass .< SIMD3(repeating: -biasClip)) {
            restTime = 0
            restDetected = false
        }
        // The rate samples are taken at instants. With the rate changing linearly between two of
        // them, the rotation over the interval is (ω₀ + ω₁) Δt / 2 + (ω₀ × ω₁) Δt² / 12 (the mean
        // plus the coning term, Bortz's equation to third order): the integrated attitude stays at
        // the sample's time, where the accelerometer's reading is.
        let previous = previousGyro - bias
        latestRate = gyr - bias
        let rate = 0.5 * (previous + latestRate) + (ts * (1.0 / 12)) * cross(previous, latestRate)
        previousGyro = gyr
        // The step rotates by θ = |rate| ts about rate: (cos θ/2, sin(θ/2) / |rate| · rate).
        let (cosine, s) = halfAngleStep(normSquared: (rate * rate).sum(), sampleInterval: ts)
        let step = Quaternion(w: cosine, x: s * rate.x, y: s * rate.y, z: s * rate.z)
        gyroQuaternion = gyroQuaternion * step
        // A product of unit quaternions drifts from unit norm by rounding alone (~1e-16 a step):
        // brought back every 32nd update, off the per-sample chain.
        normalizationCountdown -= 1
        if normalizationCountdown <= 0 {
            normalizationCountdown = 32
            gyroQuaternion = renormalized(gyroQuaternion)
            tiltQuaternion = renormalized(tiltQuaternion)
        }
    }

    @inline(__always)
    private mutating func correctTilt(_ acc: SIMD3<Double>) {
        let ts = stepInterval
        // Rest detection: the accelerometer must stay near its own low-pass.
        let accLow = restAccState.filter(acc, restLowPass)
        let deviation = acc - accLow
        if (deviation * deviation).sum() >= restAccThresholdSquared * (accLow * accLow).sum() {
            restTime = 0
            restDetected = false
        } else {
            restTime += ts
            if restTime >= parameters.restMinTime { restDetected = true }
        }

        // Low-pass in the almost-inertial frame, then into E₆, then the tilt correction that maps
        // it onto the vertical.
        let accInertial = accInertialState.filter(gyroQuaternion.rotate(acc), accLowPass)
        let accEarth = tiltQuaternion.rotate(accInertial)
        let length = (accEarth * accEarth).sum().squareRoot()
        guard length > Double.ulpOfOne else {
            attitude6D = tiltQuaternion * gyroQuaternion
            return
        }
        // The shortest rotation taking a = accEarth / |a| to +z: w = √((1 + a_z) / 2), (x, y) =
        // (a_y, −a_x) / (2w). With L = |a|, both come from k = 1 / √(2 L (L + a_z)) as
        // w = (L + a_z) k, (x, y) = (a_y, −a_x) k: one division fewer on the longest chain.
        let above = length + accEarth.z
        let k = 1 / (2 * length * above).squareRoot()
        let correction = above > 2e-12 * length
            ? Quaternion(w: above * k, x: accEarth.y * k, y: -accEarth.x * k, z: 0)
            : Quaternion(w: 0, x: 1, y: 0, z: 0)
        tiltQuaternion = correction * tiltQuaternion
        attitude6D = tiltQuaternion * gyroQuaternion

        if parameters.motionBiasEstimation || parameters.restBiasEstimation {
            estimateBias(tiltError: accEarth * (1 / length))
        }
    }

    @inline(__always)
    private mutating func estimateBias(tiltError accEarth: SIMD3<Double>) {
        let rateScale = inverseSampleInterval
        let r = attitude6D.rotationMatrix
        let rb0 = (r.rows.0 * bias).sum(), rb1 = (r.rows.1 * bias).sum()
        // Low-pass R and R·bias with the accelerometer's filter, so that they match the delay of
        // the filtered accelerometer whose corrections they explain.
        let f = biasModelState.filter(
            SIMD8(r.rows.0.x, r.rows.0.y, r.rows.0.z, r.rows.1.x, r.rows.1.y, r.rows.1.z, rb0, rb1), accLowPass)
        let f2 = verticalModelState.filter(SIMD4(r.rows.2.x, r.rows.2.y, r.rows.2.z, 0), accLowPass)

        // Predict: the variance grows (up to its initial value) even without a measurement.
        var p = biasCovariance
        if p.0.x < biasVariance0 { p.0.x += biasProcessNoise }
        if p.1.y < biasVariance0 { p.1.y += biasProcessNoise }
        if p.2.z < biasVariance0 { p.2.z += biasProcessNoise }

        // Measurement rows h₀…h₂ (H = R low-passed while moving, I at rest), error e, noise W.
        let h0: SIMD3<Double>, h1: SIMD3<Double>, h2: SIMD3<Double>
        var error: SIMD3<Double>
        let noise: SIMD3<Double>
        if restDetected && parameters.restBiasEstimation {
            (h0, h1, h2) = (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))
            error = restGyroLowPass - bias
            noise = SIMD3(repeating: biasRestNoise)
        } else if parameters.motionBiasEstimation {
            (h0, h1, h2) = (SIMD3(f[0], f[1], f[2]), SIMD3(f[3], f[4], f[5]), SIMD3(f2[0], f2[1], f2[2]))
            // The tilt correction rate (E₆ frame, x and y) is what a bias error R·(b − b̂) causes.
            error = SIMD3(
                -accEarth.y * rateScale + f[6] - (h0 * bias).sum(),
                accEarth.x * rateScale + f[7] - (h1 * bias).sum(),
                -(h2 * bias).sum())
            noise = SIMD3(biasMotionNoise, biasMotionNoise, biasVerticalNoise)
        } else {
            biasCovariance = p
            return
        }
        error = clamp(error, biasCorrectionClip)

        // Kalman update with U = P Hᵀ (columns uᵢ = P hᵢ, P symmetric), S = H P Hᵀ + W:
        // b += U S⁻¹ e, P −= U S⁻¹ Uᵀ.
        let u0 = p.0 * h0.x + p.1 * h0.y + p.2 * h0.z
        let u1 = p.0 * h1.x + p.1 * h1.y + p.2 * h1.z
        let u2 = p.0 * h2.x + p.1 * h2.y + p.2 * h2.z
        let s00 = (h0 * u0).sum() + noise.x, s11 = (h1 * u1).sum() + noise.y, s22 = (h2 * u2).sum() + noise.z
        let s01 = (h0 * u1).sum(), s02 = (h0 * u2).sum(), s12 = (h1 * u2).sum()
        // Inverse of the symmetric S by cofactors.
        let c00 = s11 * s22 - s12 * s12, c01 = s02 * s12 - s01 * s22, c02 = s01 * s12 - s02 * s11
        let c11 = s00 * s22 - s02 * s02, c12 = s01 * s02 - s00 * s12, c22 = s00 * s11 - s01 * s01
        let determinant = s00 * c00 + s01 * c01 + s02 * c02
        guard abs(determinant) > Double.ulpOfOne else {
            biasCovariance = p
            return
        }
        let inverseDeterminant = 1 / determinant
        let i0 = SIMD3(c00, c01, c02) * inverseDeterminant
        let i1 = SIMD3(c01, c11, c12) * inverseDeterminant
        let i2 = SIMD3(c02, c12, c22) * inverseDeterminant
        // V = U S⁻¹ (columns vⱼ).
        let v0 = u0 * i0.x + u1 * i0.y + u2 * i0.z
        let v1 = u0 * i1.x + u1 * i1.y + u2 * i1.z
        let v2 = u0 * i2.x + u1 * i2.y + u2 * i2.z
        bias = clamp(bias + v0 * error.x + v1 * error.y + v2 * error.z, biasClip)
        p.0 -= v0 * u0.x + v1 * u1.x + v2 * u2.x
        p.1 -= v0 * u0.y + v1 * u1.y + v2 * u2.y
        p.2 -= v0 * u0.z + v1 * u1.z + v2 * u2.z
        biasCovariance = p
    }

    @inline(__always)
    private mutating func correctHeading(_ mag: SIMD3<Double>) {
        let ts = stepInterval
        magneticSeen = true
        // The field as it was `magnetometerLag` ago, brought to now: a vector fixed in the earth
        // frame turns in the sensor frame as dv/dt = −ω × v. (Skipped at 0, where it is `mag`.)
        let lag = parameters.magnetometerLag
        let magEarth = attitude6D.rotate(lag == 0 ? mag : mag - lag * cross(latestRate, mag))
        // Heading error: magnetic north, rotated by the current heading correction, should lie
        // along +y of ENU. (cos h, sin h) of the correction angle h from its quaternion.
        let (qw, qz) = (headingQuaternion.w, headingQuaternion.z)
        let cosH = qw * qw - qz * qz, sinH = 2 * qw * qz
        let error = atan2(cosH * magEarth.x - sinH * magEarth.y, sinH * magEarth.x + cosH * magEarth.y)
        if parameters.magneticDisturbanceRejection {
            let norm = (magEarth * magEarth).sum().squareRoot()
            let current = magneticState.filter(SIMD4(norm, -asin(magEarth.z / norm), error, 0), magneticLowPass)
            let (currentNorm, currentDip, currentHeading) = (current.x, current.y, current.z)

            // Disturbance: norm or dip away from the reference field.
            let normDeviation = abs(currentNorm - referenceNorm), dipDeviation = abs(currentDip - referenceDip)
            let normThreshold = parameters.magneticNormThreshold * referenceNorm
            if normDeviation < normThreshold && dipDeviation < magneticDipThreshold {
                undisturbedTime += ts
                if undisturbedTime >= parameters.magneticMinimumUndisturbedTime {
                    magneticDisturbed = false
                    referenceNorm += magneticReferenceGain * (currentNorm - referenceNorm)
                    referenceDip += magneticReferenceGain * (currentDip - referenceDip)
                }
            } else {
                undisturbedTime = 0
                magneticDisturbed = true
            }

            // A new, stable field becomes the reference after long enough (while turning, so that
            // a constant field is not mistaken for a homogeneous one). Stable means fixed in the
            // earth frame: its norm, its dip and its heading (against the gyroscope-held one)
            // stay put while the sensor turns. A magnet carried with the sensor (a change of
            // hard iron) adds a field that turns with it, so the heading it gives swings as the
            // sensor turns, by more than the dip threshold (the same bound on the field's
            // direction) for any magnet the norm and dip checks would notice.
            var headingChange = currentHeading - candidateHeading
            if headingChange > Double.pi { headingChange -= 2 * Double.pi } else if headingChange < -Double.pi { headingChange += 2 * Double.pi }
            if abs(currentNorm - candidateNorm) < parameters.magneticNormThreshold * candidateNorm
                && abs(currentDip - candidateDip) < magneticDipThreshold && abs(headingChange) < magneticDipThreshold {
                let turning = (restGyroLowPass * restGyroLowPass).sum()
                    >= magneticNewFieldMinimumRate * magneticNewFieldMinimumRate
                if turning || referenceNorm == 0 { candidateTime += ts }
                fieldFixedInEarth = candidateTime >= parameters.magneticNewFieldFirstTime
                candidateNorm += magneticReferenceGain * (currentNorm - candidateNorm)
                candidateDip += magneticReferenceGain * (currentDip - candidateDip)
                candidateHeading += magneticReferenceGain * headingChange
                // The start-up reference is confirmed once it has held while turning.
                if referenceFromRest && !magneticDisturbed && candidateTime >= parameters.magneticNewFieldFirstTime {
                    referenceFromRest = false
                }
                if magneticDisturbed
                    && (candidateTime >= parameters.magneticNewFieldTime
                        || ((referenceNorm == 0 || referenceFromRest) && candidateTime >= parameters.magneticNewFieldFirstTime)) {
                    referenceFromRest = referenceNorm == 0 && !turning
                    if referenceFromRest { candidateTime = 0 }
                    referenceNorm = candidateNorm
                    referenceDip = candidateDip
                    magneticDisturbed = false
                    undisturbedTime = parameters.magneticMinimumUndisturbedTime
                }
            } else {
                fieldFixedInEarth = false
                candidateTime = 0
                candidateNorm = currentNorm
                candidateDip = currentDip
                candidateHeading = currentHeading
            }
        }

        var gain = magneticGain
        if parameters.magneticDisturbanceRejection {
            if magneticDisturbed {
                if rejectionTime <= parameters.magneticMaximumRejectionTime {
                    rejectionTime += ts
                    gain = 0
                } else {
                    gain = fieldFixedInEarth ? gain / parameters.magneticRejectionFactor : 0
                }
            } else {
                rejectionTime = max(rejectionTime - parameters.magneticRejectionFactor * ts, 0)
            }
        }
        // Start-up: gain 1/N for the N-th sample (a running mean) until it reaches the steady gain.
        if initialMagneticGain != 0 {
            gain = max(gain, initialMagneticGain)
            initialMagneticGain /= initialMagneticGain + 1
            if initialMagneticGain * parameters.magnetometerTimeConstant < ts { initialMagneticGain = 0 }
        }
        let (sine, cosine) = sinCos(gain * error / 2)
        headingQuaternion = renormalized(Quaternion(w: cosine, x: 0, y: 0, z: sine) * headingQuaternion)
        correctHeadingError(gain: gain)
    }
}

/// For a rotation at rate ω (|ω|² = `normSquared`) for `sampleInterval` ts, with x = |ω| ts / 2:
/// (cos x, sin(x) / |ω|), the scalar part and the factor of ω in the step quaternion. For the small
/// angles of one sample's rotation (|x| < 0.01) by Taylor series in x², exact to double precision
/// (the first omitted terms are below 1e-19 relative) with neither a square root nor a division;
/// libm otherwise.
@inline(__always)
func halfAngleStep(normSquared: Double, sampleInterval ts: Double) -> (cos: Double, sinOverNorm: Double) {
    let x2 = normSquared * (ts * ts / 4)
    if x2 < 1e-4 {
        let sinOverNorm = ts / 2 * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42)))
        let cosine = 1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56)))
        return (cosine, sinOverNorm)
    }
    let norm = normSquared.squareRoot()
    let x = norm * ts / 2
    return (cos(x), sin(x) / norm)
}

/// (sin x, cos x); exact to double precision by Taylor series for small angles, libm otherwise.
@inline(__always)
func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
    let x2 = x * x
    if x2 < 1e-4 {
        let sine = x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42)))
        let cosine = 1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30 * (1 - x2 / 56)))
        return (sine, cosine)
    }
    return (sin(x), cos(x))
}

/// A product of unit quaternions brought back to unit norm: q · (3 − |q|²) / 2, which is exact to
/// second order in the rounding drift (|q|² = 1 + ε gives 1 + O(ε²)) without a square root or a
/// division.
@inline(__always)
func renormalized(_ q: Quaternion) -> Quaternion {
    let k = 1.5 - 0.5 * (q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z)
    return Quaternion(w: q.w * k, x: q.x * k, y: q.y * k, z: q.z * k)
}

/// Each component clamped to −limit…limit.
@inline(__always)
func clamp(_ v: SIMD3<Double>, _ limit: Double) -> SIMD3<Double> {
    SIMD3(min(max(v.x, -limit), limit), min(max(v.y, -limit), limit), min(max(v.z, -limit), limit))
}

// MARK: - As the sampler's estimator

extension AttitudeFilter: AttitudeEstimator {
    /// For the sampler (``AttitudeEstimatorFactory``): `parameters` with the sensor's
    /// ``Parameters/sensorLatency`` and ``Parameters/biasClip`` taken from `configuration`.
    package init(_ configuration: AttitudeEstimatorConfiguration) {
        self.init(configuration, parameters: Parameters())
    }

    /// The same with tuning `parameters` of your own (benchmarks and research).
    package init(_ configuration: AttitudeEstimatorConfiguration, parameters: Parameters) {
        var parameters = parameters
        parameters.sensorLatency = configuration.sensorLatency
        parameters.biasClip = configuration.gyroscopeBiasRange
        self.init(sampleInterval: configuration.sampleInterval, parameters: parameters)
    }

    /// One sample: ``update(gyroscope:accelerometer:magnetometer:interval:)`` with the
    /// acceleration turned into specific force.
    package mutating func update(_ input: AttitudeEstimatorInput) {
        if let sigma = input.fieldHeadingSigma { setFieldHeadingSigma(sigma) }
        update(gyroscope: input.rotationRate, accelerometer: -input.acceleration, magnetometer: input.magneticField, interval: input.interval)
    }
}
