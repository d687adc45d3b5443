import Fusion

/// The chips behind a manager, for calibration tools: which sensors they are (the keys of the
/// ``CalibrationStore``) and how to turn the manager's device-axes readings back into each chip's
/// own axes, in which calibrations are stored and applied.
///
/// The conversion undoes the board's mount matrix (and, for a magnetometer inside the IMU's
/// package such as the MPU-9250's AK8963, its axis mapping). It does not undo a stored
/// calibration: calibrate with a manager opened with `calibrationStore: nil`, whose readings are raw.
package struct CalibrationTarget: Sendable, Equatable {
    /// The IMU (gyroscope and accelerometer records).
    package let imu: SensorIdentity
    /// The magnetometer, nil when the board has none.
    package let magnetometer: SensorIdentity?
    /// IMU chip axes → device axes (the board's mount matrix).
    package let imuToDevice: Matrix3
    /// Magnetometer chip axes → device axes.
    package let magnetometerToDevice: Matrix3

    package init(imu: SensorIdentity, magnetometer: SensorIdentity?, imuToDevice: Matrix3 = .identity, magnetometerToDevice: Matrix3 = .identity) {
        self.imu = imu
        self.magnetometer = magnetometer
        self.imuToDevice = imuToDevice
        self.magnetometerToDevice = magnetometerToDevice
    }

    /// A device-axes acceleration (g) or rotation rate (rad/s) in the IMU's chip axes.
    package func imuChipAxes(_ device: SIMD3<Double>) -> SIMD3<Double> {
        (imuToDevice.inverse ?? imuToDevice.transposed) * device
    }

    /// A device-axes magnetic field (µT) in the magnetometer's chip axes.
    package func magnetometerChipAxes(_ device: SIMD3<Double>) -> SIMD3<Double> {
        (magnetometerToDevice.inverse ?? magnetometerToDevice.transposed) * device
    }
}
