/// Gyroscope limits at rest for one chip, from its datasheet.
public struct GyroRestLimits: Sendable, Equatable {
    /// Largest zero-rate output (bias) per axis, °/s.
    public var biasDPS: Double
    /// Rate noise spectral density, °/s/√Hz.
    public var noiseDensityDPS: Double
    /// Where the numbers come from.
    public var source: String

    /// The RMS noise limit at `bandwidth` Hz, °/s: twice density × √bandwidth. The datasheets give
    /// noise as a typical value, not a guaranteed maximum; the factor 2 leaves room for the spread
    /// between parts while still catching a broken or vibrating sensor.
    public func noiseLimit(bandwidth: Double) -> Double { 2 * noiseDensityDPS * bandwidth.squareRoot() }

    /// The limits of the chip named `chip` (a ``Sensors/ChipInfo`` name); nil for an unknown chip.
    public static func forChip(_ chip: String) -> GyroRestLimits? {
        switch chip {
        case InvenSenseModel.mpu6050.rawValue:
            GyroRestLimits(biasDPS: 20, noiseDensityDPS: 0.005, source: "PS-MPU-6000A §6.1: ZRO tolerance ±20 °/s, 0.005 °/s/√Hz")
        case InvenSenseModel.mpu9150.rawValue:
            GyroRestLimits(biasDPS: 20, noiseDensityDPS: 0.005, source: "PS-MPU-9150A §6.1: ZRO tolerance ±20 °/s, 0.005 °/s/√Hz")
        case InvenSenseModel.mpu6500.rawValue:
            GyroRestLimits(biasDPS: 5, noiseDensityDPS: 0.01, source: "PS-MPU-6500A §3.1: ZRO tolerance ±5 °/s, 0.01 °/s/√Hz")
        case InvenSenseModel.mpu9250.rawValue:
            GyroRestLimits(biasDPS: 5, noiseDensityDPS: 0.01, source: "PS-MPU-9250A §3.1: ZRO tolerance ±5 °/s, 0.01 °/s/√Hz")
        case ICM42600Model.icm42688p.rawValue:
            GyroRestLimits(biasDPS: 0.5, noiseDensityDPS: 0.0028, source: "DS-000347 Table 1: ZRO ±0.5 °/s, 0.0028 °/s/√Hz")
        case ICM20948IMU.chipName:
            GyroRestLimits(biasDPS: 5, noiseDensityDPS: 0.015, source: "DS-000189 Table 1: ZRO initial tolerance ±5 °/s, 0.015 °/s/√Hz")
        case LSM6Model.lsm6dso.rawValue, LSM6Model.lsm6dso32.rawValue:
            GyroRestLimits(biasDPS: 1, noiseDensityDPS: 0.0038, source: "LSM6DSOX DS12814 Table 2: G_TyOff ±1 dps, Rn 3.8 mdps/√Hz")
        case LSM6Model.lsm6dsl.rawValue:
            GyroRestLimits(biasDPS: 2, noiseDensityDPS: 0.004, source: "LSM6DSL DocID028475 Table 3: G_TyOff ±2 dps, Rn 4 mdps/√Hz")
        case BMI160IMU.chipName:
            GyroRestLimits(biasDPS: 3, noiseDensityDPS: 0.007, source: "BST-BMI160-DS000 Table 2: zero-rate offset ±3 °/s, 0.007 °/s/√Hz")
        case LSM6Model.lsm6ds3.rawValue:
            GyroRestLimits(biasDPS: 10, noiseDensityDPS: 0.007, source: "LSM6DS3 DocID026899 Table 3: G_TyOff ±10 dps, Rn 7 mdps/√Hz")
        default:
            nil
        }
    }
}
