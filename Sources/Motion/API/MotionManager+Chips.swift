import Fusion
import Sensors

// What the command line's tools read of a manager's chips (package access): in the API layer,
// beside the manager, so that the devices and the calibration below it never name it.

extension MotionManager {
    /// The chips this manager reads and their rates and ranges; nil for a device not made of
    /// chip drivers (tests' scripted devices).
    package var chipSettings: ChipSettings? {
        guard let device = hub.device as? DriverDevice else { return nil }
        return ChipSettings(
            imu: device.imu.chip, imuConfiguration: device.imu.configuration,
            magnetometer: device.magnetometer?.chip, magnetometerConfiguration: device.magnetometer?.configuration)
    }
}

extension MotionManager {
    /// The chips this manager reads and how their axes relate to the device's; nil for a device
    /// not made of chip drivers (tests' scripted devices).
    package var calibrationTarget: CalibrationTarget? {
        guard let device = hub.device as? DriverDevice else { return nil }
        return CalibrationTarget(
            imu: device.imuIdentity, magnetometer: device.magnetometerIdentity,
            imuToDevice: device.correction.mount, magnetometerToDevice: device.correction.mount * device.correction.magnetometerAxes)
    }
}
