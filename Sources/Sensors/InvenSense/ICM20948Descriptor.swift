import I2C

extension ICM20948IMU: BusPlacedDriver {}

extension ChipDescriptor {
    /// Bank-0 WHO_AM_I 0xEA at 0x00, at 0x68 (AD0 low) or 0x69; the MPU family's 12-byte FIFO
    /// frames; an AK09916 behind its I2C bypass.
    package static let icm20948 = ChipDescriptor(
        imu: ICM20948Settings.name, cliNames: ["icm20948"], family: .invenSense,
        identity: ChipIdentity(register: ICM20948Register.whoAmI, value: [ICM20948Settings.identity], addresses: [I2CAddress(0x68), I2CAddress(0x69)]),
        tables: ICM20948Settings.tables, fifo: FIFOLayout(bytesPerSample: InvenSenseFIFO.frameSize),
        gyroRestLimits: GyroRestLimits(biasDPS: 5, noiseDensityDPS: 0.015, source: "DS-000189 Table 1: ZRO initial tolerance ±5 °/s, 0.015 °/s/√Hz"),
        outputDelay: .byLowPassCode(Dictionary(uniqueKeysWithValues: ICM20948Settings.lowPass.map {
            ($0.code, ICM20948Settings.gyroscopeDelay(bandwidth: $0.value))
        })),
        packagedMagnetometer: PackagedMagnetometer(chip: AKModel.ak09916.rawValue, behindBypass: true, axes: ak09916InICM20948),
        make: factory(ICM20948IMU.self))

    /// The AK09916 inside an ICM-20948 (DS-000189 §11.1, orientation of axes): magnetometer
    /// x = IMU x, y = −IMU y, z = −IMU z.
    static let ak09916InICM20948 = AxisMatrix(SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1))
}
