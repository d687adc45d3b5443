import Fusion
import Sensors

/// Everything between a chip's reading and a device-axes value: the stored calibration (chip
/// axes) and the board's mount matrix (chip → device axes).
struct SensorCorrection: Sendable, Equatable {
    var mount = Matrix3.identity
    /// Magnetometer chip axes → IMU chip axes (identity unless the magnetometer sits in the IMU's
    /// package with other axes, like the AK8963 inside an MPU-9250: the IMU's
    /// `ChipDescriptor.packagedMagnetometer`).
    var magnetometerAxes = Matrix3.identity
    /// rad/s, chip axes.
    var gyroBias = SIMD3<Double>.zero
    /// g, chip axes.
    var accelerometerOffset = SIMD3<Double>.zero
    var accelerometerScale = SIMD3<Double>(1, 1, 1)
    /// µT, chip axes; nil without a magnetometer calibration.
    var hardIronOffset: SIMD3<Double>?
    var softIron = Matrix3.identity
    var magnetometerAccuracy: MagneticFieldCalibrationAccuracy?

    init(mount: Matrix3 = .identity, imu: CalibrationRecord? = nil, magnetometer: CalibrationRecord? = nil) {
        self.mount = mount
        if let gyro = imu?.gyroscope, gyro.bias.count == 3 {
            gyroBias = SIMD3(gyro.bias[0], gyro.bias[1], gyro.bias[2])
        }
        if let accel = imu?.accelerometer, accel.offset.count == 3, accel.scale.count == 3 {
            accelerometerOffset = SIMD3(accel.offset[0], accel.offset[1], accel.offset[2])
            accelerometerScale = SIMD3(accel.scale[0], accel.scale[1], accel.scale[2])
        }
        if let mag = magnetometer?.magnetometer, let softIron = Matrix3(rowMajor: mag.softIronMatrix), mag.hardIronOffset.count == 3 {
            hardIronOffset = SIMD3(mag.hardIronOffset[0], mag.hardIronOffset[1], mag.hardIronOffset[2])
            self.softIron = softIron
            magnetometerAccuracy = MagneticFieldCalibrationAccuracy(name: mag.accuracy)
        }
    }

    func acceleration(_ chip: SIMD3<Double>) -> SIMD3<Double> { mount * ((chip - accelerometerOffset) * accelerometerScale) }
    func rotationRate(_ chip: SIMD3<Double>) -> SIMD3<Double> { mount * (chip - gyroBias) }
    func magneticField(_ chip: SIMD3<Double>) -> SIMD3<Double> { mount * (magnetometerAxes * chip) }
    /// A chip's own orientation (chip → ENU) as the device's: device → ENU, through the mount.
    func attitude(_ chip: ChipOrientation) -> Quaternion {
        let chipToENU = Quaternion(w: chip.wxyz[0], x: chip.wxyz[1], y: chip.wxyz[2], z: chip.wxyz[3]).normalized
        // device = mount · chip, so device → chip is the mount's transpose (it is orthonormal).
        return mount == .identity ? chipToENU : chipToENU * Quaternion(rotationMatrix: mount.transposed)
    }

    func calibratedMagneticField(_ chip: SIMD3<Double>) -> SIMD3<Double>? {
        hardIronOffset.map { mount * (magnetometerAxes * (softIron * (chip - $0))) }
    }
}

extension MagneticFieldCalibrationAccuracy {
    /// From the name stored in a calibration file (`uncalibrated`, `low`, `medium`, `high`).
    init?(name: String) {
        switch name {
        case "uncalibrated": self = .uncalibrated
        case "low": self = .low
        case "medium": self = .medium
        case "high": self = .high
        default: return nil
        }
    }

    var name: String {
        switch self {
        case .uncalibrated: "uncalibrated"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}
