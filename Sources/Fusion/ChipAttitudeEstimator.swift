/// The IMU chip's own sensor fusion as an estimator: passes the chip's orientation through
/// (``AttitudeEstimatorInput/chipOrientation``, e.g. a BNO055 in its fusion mode), so that
/// device motion's attitude, gravity and user acceleration all come from the chip.
///
/// Both quaternions are the chip's (device → magnetic East-North-Up); gravity is its vertical.
/// The chip removes its own gyroscope offset and keeps its calibration state to itself: ``gyroBias``
/// is zero and ``magneticAccuracy`` `.uncalibrated`. Until the first sample with a chip
/// orientation (and for a chip without fusion) the attitude stays the identity.
///
/// To keep this library's gravity and heading and take only the chip's attitude, set
/// `MotionManager.attitudeSource = .chip` instead.
package struct ChipAttitudeEstimator: AttitudeEstimator {
    /// Device → magnetic East-North-Up: the chip's latest orientation.
    package private(set) var quaternion9D = Quaternion.identity

    package init() {}

    /// For the sampler (``AttitudeEstimatorFactory``): nothing in `configuration` applies.
    package init(_ configuration: AttitudeEstimatorConfiguration) {}

    package mutating func update(_ input: AttitudeEstimatorInput) {
        if let orientation = input.chipOrientation { quaternion9D = orientation }
    }

    /// The chip's orientation: its heading is magnetic, which serves as an arbitrary one.
    package var quaternion6D: Quaternion { quaternion9D }
}
