/// Madgwick's gradient-descent orientation filter (IMU and MARG), a reference to compare
/// ``AttitudeFilter`` with: `motion-bench fusion` times both in one run.
///
/// After S. O. H. Madgwick, "An efficient orientation filter for inertial and inertial/magnetic
/// sensor arrays", report, University of Bristol / x-io Technologies, 2010, and S. O. H. Madgwick,
/// A. J. L. Harrison, R. Vaidyanathan, "Estimation of IMU and MARG orientation using a gradient
/// descent algorithm", IEEE International Conference on Rehabilitation Robotics (ICORR) 2011:
/// the quaternion rate from the gyroscope, less `beta` times the normalised gradient of the
/// objective (gravity, and with a magnetometer the earth field reduced to its north and vertical
/// components, seen in the sensor frame, minus the measurements), integrated over the interval.
///
/// Its earth frame has x toward magnetic north, z up (y west): ``quaternion`` maps sensor →
/// North-West-Up; as an ``AttitudeEstimator`` it gives sensor → East-North-Up. It estimates no
/// gyroscope bias (``gyroBias`` is zero), does not judge the magnetic field (``magneticAccuracy``
/// is `.uncalibrated`), and runs one quaternion: with a magnetometer its 6D output is its 9D one.
/// No allocation per update.
package struct MadgwickFilter: Sendable {
    /// Sensor → North-West-Up (magnetic north), Madgwick's own frame.
    package private(set) var quaternion = Quaternion.identity
    /// Nominal seconds between samples.
    package let sampleInterval: Double
    /// The gradient step, rad/s (0.1 as in the benchmark; Madgwick suggests √(3/4) × the
    /// gyroscope's mean error).
    package let beta: Double

    package init(sampleInterval: Double, beta: Double = 0.1) {
        self.sampleInterval = sampleInterval
        self.beta = beta
    }

    /// For the sampler (``AttitudeEstimatorFactory``): the nominal interval of `configuration`;
    /// latency and bias range do not apply to this filter.
    package init(_ configuration: AttitudeEstimatorConfiguration, beta: Double = 0.1) {
        self.init(sampleInterval: configuration.sampleInterval, beta: beta)
    }

    /// One sample over the nominal ``sampleInterval``.
    /// - Parameters:
    ///   - gyroscope: rotation rate, rad/s, sensor frame.
    ///   - accelerometer: specific force in any unit (+z when lying face up: the opposite of
    ///     Core Motion's sign).
    ///   - magnetometer: magnetic field in any unit, sensor frame; nil for the IMU (6D) form.
    package mutating func update(gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>, magnetometer: SIMD3<Double>?) {
        update(gyroscope: gyroscope, accelerometer: accelerometer, magnetometer: magnetometer, interval: sampleInterval)
    }

    @inline(__always)
    private mutating func update(gyroscope gyr: SIMD3<Double>, accelerometer acc: SIMD3<Double>, magnetometer mag: SIMD3<Double>?, interval dt: Double) {
        let q = quaternion
        let (q0, q1, q2, q3) = (q.w, q.x, q.y, q.z)
        // Rate of change from the gyroscope: ½ q ⊗ (0, ω).
        var dot = q * Quaternion(w: 0, x: 0.5 * gyr.x, y: 0.5 * gyr.y, z: 0.5 * gyr.z)
        let a = acc / (acc * acc).sum().squareRoot()
        // Objective: gravity (0, 0, 1) seen in the sensor frame minus the accelerometer.
        let fg = SIMD3(2 * (q1 * q3 - q0 * q2) - a.x, 2 * (q0 * q1 + q2 * q3) - a.y, 2 * (0.5 - q1 * q1 - q2 * q2) - a.z)
        var s = SIMD4<Double>(
            -2 * q2 * fg.x + 2 * q1 * fg.y,
            2 * q3 * fg.x + 2 * q0 * fg.y - 4 * q1 * fg.z,
            -2 * q0 * fg.x + 2 * q3 * fg.y - 4 * q2 * fg.z,
            2 * q1 * fg.x + 2 * q2 * fg.y)
        if let mag {
            let m = mag / (mag * mag).sum().squareRoot()
            let h = q.rotate(m)
            let bx = (h.x * h.x + h.y * h.y).squareRoot(), bz = h.z
            let fb = SIMD3(
                2 * bx * (0.5 - q2 * q2 - q3 * q3) + 2 * bz * (q1 * q3 - q0 * q2) - m.x,
                2 * bx * (q1 * q2 - q0 * q3) + 2 * bz * (q0 * q1 + q2 * q3) - m.y,
                2 * bx * (q0 * q2 + q1 * q3) + 2 * bz * (0.5 - q1 * q1 - q2 * q2) - m.z)
            s += SIMD4(
                -2 * bz * q2 * fb.x + (-2 * bx * q3 + 2 * bz * q1) * fb.y + 2 * bx * q2 * fb.z,
                2 * bz * q3 * fb.x + (2 * bx * q2 + 2 * bz * q0) * fb.y + (2 * bx * q3 - 4 * bz * q1) * fb.z,
                (-4 * bx * q2 - 2 * bz * q0) * fb.x + (2 * bx * q1 + 2 * bz * q3) * fb.y + (2 * bx * q0 - 4 * bz * q2) * fb.z,
                (-4 * bx * q3 + 2 * bz * q1) * fb.x + (-2 * bx * q0 + 2 * bz * q2) * fb.y + 2 * bx * q1 * fb.z)
        }
        let norm = (s * s).sum().squareRoot()
        if norm > 0 {
            s /= norm
            dot.w -= beta * s[0]
            dot.x -= beta * s[1]
            dot.y -= beta * s[2]
            dot.z -= beta * s[3]
        }
        quaternion = Quaternion(w: q0 + dot.w * dt, x: q1 + dot.x * dt, y: q2 + dot.y * dt, z: q3 + dot.z * dt).normalized
    }
}

extension MadgwickFilter: AttitudeEstimator {
    /// North-West-Up → East-North-Up: a quarter turn about up.
    private static let northWestUpToENU = Quaternion.aboutZ(Double.pi / 2)

    /// One sample over `input.interval`, clamped to 0…4 nominal intervals (a longer gap is not
    /// bridged by one rate sample) and the nominal interval when it is not a number. An
    /// all-zero or non-finite accelerometer or gyroscope sample is skipped; such a magnetometer
    /// sample is ignored.
    package mutating func update(_ input: AttitudeEstimatorInput) {
        // x · 0 is zero exactly for finite x.
        guard input.acceleration != .zero, input.rotationRate * 0 + input.acceleration * 0 == .zero else { return }
        let interval = input.interval.isFinite ? min(max(input.interval, 0), 4 * sampleInterval) : sampleInterval
        var magnetometer = input.magneticField
        if let field = magnetometer, field == .zero || field * 0 != .zero { magnetometer = nil }
        update(gyroscope: input.rotationRate, accelerometer: -input.acceleration, magnetometer: magnetometer, interval: interval)
    }

    /// Sensor → East-North-Up (magnetic north with a magnetometer).
    package var quaternion9D: Quaternion { Self.northWestUpToENU * quaternion }
    /// The same as ``quaternion9D``: one quaternion (its heading is magnetic with a magnetometer).
    package var quaternion6D: Quaternion { quaternion9D }
}
