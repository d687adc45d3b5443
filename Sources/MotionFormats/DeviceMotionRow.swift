import Fusion
import Motion

/// Device motion as one machine-readable row: the columns of `motionctl stream --device-motion`
/// (CSV header, JSON keys) and of `motionctl publish`'s MQTT payloads, one definition for both.
extension MachineOutput {
    /// The columns of one device-motion row, units in the names.
    package static let deviceMotionColumns = [
        "timestamp_s", "roll_rad", "pitch_rad", "yaw_rad", "qw", "qx", "qy", "qz",
        "gravity_x_g", "gravity_y_g", "gravity_z_g", "user_acc_x_g", "user_acc_y_g", "user_acc_z_g",
        "rot_x_rad_s", "rot_y_rad_s", "rot_z_rad_s", "heading_deg", "mag_x_uT", "mag_y_uT", "mag_z_uT", "mag_accuracy",
    ]

    /// One row of ``deviceMotionColumns``; the heading is missing (empty, null) without a magnetic
    /// reference, where Core Motion's property reads -1.
    package static func deviceMotionRow(_ motion: DeviceMotion) -> [Value] {
        let q = motion.attitude.quaternion
        let heading: Value = motion.heading >= 0 ? .number(motion.heading) : .missing
        return [.time(motion.timestamp)] + [motion.attitude.roll, motion.attitude.pitch, motion.attitude.yaw, q.w, q.x, q.y, q.z].map { .number($0) }
            + numbers(motion.gravity) + numbers(motion.userAcceleration) + numbers(motion.rotationRate)
            + [heading] + numbers(motion.magneticField.field) + [.name(motion.magneticField.accuracy.storedName)]
    }

    /// With a chip that fuses its sensors itself: its attitude next to ours, in the same frame,
    /// and the angle between the two.
    package static let chipAttitudeColumns = [
        "chip_roll_rad", "chip_pitch_rad", "chip_yaw_rad", "chip_qw", "chip_qx", "chip_qy", "chip_qz", "chip_vs_ours_deg",
    ]

    /// The chip's attitude columns; missing (empty, null) in a sample without one.
    package static func chipAttitudeRow(_ motion: DeviceMotion) -> [Value] {
        guard let chip = motion.chipAttitude else { return Array(repeating: .missing, count: chipAttitudeColumns.count) }
        let q = chip.quaternion
        let difference = chip.quaternion.angle(to: motion.attitude.quaternion) * 180 / .pi
        return [chip.roll, chip.pitch, chip.yaw, q.w, q.x, q.y, q.z, difference].map { .number($0) }
    }

    /// x, y, z as three values.
    package static func numbers(_ v: SIMD3<Double>) -> [Value] { [.number(v.x), .number(v.y), .number(v.z)] }
}
