import Fusion
import Motion

/// The covariances ``ROSPublisher`` puts in each message when the application gives none: the
/// sensors' noise as measured on this board while it lay still, and the orientation's uncertainty
/// from what the library knows of its own accuracy. docs/ros2.md, "Covariances".
package struct ROSUncertainty: Sendable {
    /// The variance of roll and of pitch, rad²: a tilt error of 1° split equally between the two.
    /// The attitude filter's 6D inclination error on the BROAD trials at its defaults is 0.95° RMS
    /// at 285.7 Hz and 0.97° at 95.2 Hz (docs/benchmarks.md, `motion-lab evaluate`), rounded up.
    package static let tiltVariance = (1.0 * Double.pi / 180) * (1.0 * Double.pi / 180) / 2

    /// The variance of a heading nothing ties to north, rad²: that of an angle spread evenly over
    /// the circle, π²/3.
    package static let unknownHeadingVariance = Double.pi * Double.pi / 3

    /// The variance of the yaw, rad², for the accuracy a sample's magnetic field has: the heading
    /// error each level promises (docs/background-calibration.md: `high` σ ≤ 1°, `medium` ≤ 3°,
    /// `low` ≤ 10°); without a heading (6D, or uncalibrated) ``unknownHeadingVariance``.
    package static func yawVariance(accuracy: MagneticFieldCalibrationAccuracy, hasHeading: Bool) -> Double {
        let degrees: Double
        switch accuracy {
        case _ where !hasHeading, .uncalibrated: return unknownHeadingVariance
        case .low: degrees = 10
        case .medium: degrees = 3
        case .high: degrees = 1
        }
        return (degrees * Double.pi / 180) * (degrees * Double.pi / 180)
    }

    private var noise: RestNoise

    /// `windowLength`: samples in one window of stillness (a second of messages).
    package init(windowLength: Int) { noise = RestNoise(windowLength: windowLength) }

    /// Takes one published sample and writes its covariances into `covariances` (in place, so
    /// that the publishing thread allocates nothing per message): orientation from the sample's
    /// accuracy, the others from the latest still window (all zeros, "unknown", before one).
    package mutating func update(_ covariances: inout ROSCovariances, values: ROSImuValues, accuracy: MagneticFieldCalibrationAccuracy, hasHeading: Bool) {
        noise.add(values)
        Self.setDiagonal(&covariances.orientation, SIMD3(Self.tiltVariance, Self.tiltVariance, Self.yawVariance(accuracy: accuracy, hasHeading: hasHeading)))
        if let measured = noise.measured {
            Self.setDiagonal(&covariances.angularVelocity, measured.angularVelocity)
            Self.setDiagonal(&covariances.linearAcceleration, measured.linearAcceleration)
            Self.setDiagonal(&covariances.magneticField, measured.magneticField)
        }
    }

    private static func setDiagonal(_ matrix: inout [Double], _ diagonal: SIMD3<Double>) {
        guard matrix.count == 9 else { return }
        for index in 0..<9 { matrix[index] = 0 }
        matrix[0] = diagonal.x
        matrix[4] = diagonal.y
        matrix[8] = diagonal.z
    }
}

/// The per-axis variance of the published angular velocity, linear acceleration and magnetic
/// field over windows of ``windowLength`` samples, kept from the latest window in which the board
/// was still: every angular velocity under ``stillRate`` and the acceleration's spread on each axis
/// under ``stillAccelerationDeviation``. At rest a sample's variance is the sensor's noise at the
/// rate it is published; in motion it would be the motion's, so those windows are not taken.
package struct RestNoise: Sendable {
    package struct Variances: Sendable, Equatable {
        /// (rad/s)², body axes.
        package var angularVelocity: SIMD3<Double>
        /// (m/s²)², body axes.
        package var linearAcceleration: SIMD3<Double>
        /// T², body axes (zeros without a magnetometer).
        package var magneticField: SIMD3<Double>
    }

    /// 0.05 rad/s (2.9 °/s): over ten times a MEMS gyroscope's noise at rest at up to 100 Hz
    /// (an MPU-6050's 0.005 °/s/√Hz gives 0.035 °/s RMS in 50 Hz of bandwidth, datasheet §6.1),
    /// under a hand's or a robot's slowest deliberate turn.
    package static let stillRate = 0.05
    /// 0.2 m/s² (0.02 g): over twice an MPU-6050's accelerometer noise in 500 Hz of bandwidth
    /// (400 µg/√Hz, datasheet §6.2: 8.9 mg RMS), under the swing of a hand-held board.
    package static let stillAccelerationDeviation = 0.2

    package let windowLength: Int
    private var rate = AxisMoments(), acceleration = AxisMoments(), field = AxisMoments()
    private var still = true
    package private(set) var measured: Variances?

    package init(windowLength: Int) { self.windowLength = max(windowLength, 10) }

    package mutating func add(_ values: ROSImuValues) {
        let r = values.angularVelocity
        if (r * r).sum() > Self.stillRate * Self.stillRate { still = false }
        rate.add(r)
        acceleration.add(values.linearAcceleration)
        field.add(values.magneticField)
        guard rate.count >= windowLength else { return }
        let deviation = Self.stillAccelerationDeviation
        if still, acceleration.variance.max() <= deviation * deviation {
            measured = Variances(angularVelocity: rate.variance, linearAcceleration: acceleration.variance, magneticField: field.variance)
        }
        rate = AxisMoments()
        acceleration = AxisMoments()
        field = AxisMoments()
        still = true
    }
}

/// Running mean and variance of three axes (Welford's method: B. P. Welford, "Note on a method for
/// calculating corrected sums of squares and products", Technometrics 4(3), 1962).
struct AxisMoments: Sendable {
    private(set) var count = 0
    private var mean = SIMD3<Double>.zero
    private var sumOfSquares = SIMD3<Double>.zero

    mutating func add(_ x: SIMD3<Double>) {
        count += 1
        let before = x - mean
        mean += before / Double(count)
        sumOfSquares += before * (x - mean)
    }

    /// The sample variance (n − 1); zeros below two samples.
    var variance: SIMD3<Double> { count > 1 ? sumOfSquares / Double(count - 1) : .zero }
}
