import I2C

extension ChipDescriptor {
    /// WHO_AM_I 0x68.
    package static let mpu6050 = mpu(
        .mpu6050,
        gyroRestLimits: GyroRestLimits(biasDPS: 20, noiseDensityDPS: 0.005, source: "PS-MPU-6000A §6.1: ZRO tolerance ±20 °/s, 0.005 °/s/√Hz"),
        gravityRestTolerance: GravityRestTolerance(tolerance: 0.11, source: "PS-MPU-6000A §6.2: zero-g z ±80 mg, sensitivity ±3 %"))

    /// An MPU-6050 die with an AK8975 behind its I2C bypass: WHO_AM_I 0x68 like the MPU-6050, told
    /// from it by the AK8975 that answers at 0x0C only while INT_PIN_CFG BYPASS_EN is set.
    package static let mpu9150 = mpu(
        .mpu9150,
        gyroRestLimits: GyroRestLimits(biasDPS: 20, noiseDensityDPS: 0.005, source: "PS-MPU-9150A §6.1: ZRO tolerance ±20 °/s, 0.005 °/s/√Hz"),
        // The MPU-9150 carries the MPU-6050's accelerometer die (as ErrorModels.swift takes it);
        // its own product specification's table was not checked here.
        gravityRestTolerance: GravityRestTolerance(tolerance: 0.11, source: "PS-MPU-6000A §6.2: zero-g z ±80 mg, sensitivity ±3 %"),
        packagedMagnetometer: PackagedMagnetometer(chip: AKModel.ak8975.rawValue, behindBypass: true, axes: akInMPU),
        condition: .lookalikeWithMagnetometerBehindBypass(
            of: InvenSenseModel.mpu6050.rawValue,
            bypass: BypassSwitch(register: InvenSenseRegister.bypassField.address, mask: InvenSenseRegister.bypassField.mask)))

    /// WHO_AM_I 0x70, the MPU-9250's register map without its AK8963.
    package static let mpu6500 = mpu(
        .mpu6500,
        gyroRestLimits: GyroRestLimits(biasDPS: 5, noiseDensityDPS: 0.01, source: "PS-MPU-6500A §3.1: ZRO tolerance ±5 °/s, 0.01 °/s/√Hz"))

    /// WHO_AM_I 0x71, with an AK8963 behind its I2C bypass.
    package static let mpu9250 = mpu(
        .mpu9250,
        gyroRestLimits: GyroRestLimits(biasDPS: 5, noiseDensityDPS: 0.01, source: "PS-MPU-9250A §3.1: ZRO tolerance ±5 °/s, 0.01 °/s/√Hz"),
        gravityRestTolerance: GravityRestTolerance(tolerance: 0.11, source: "PS-MPU-9250A §3.2: zero-g z ±80 mg, sensitivity ±3 %"),
        packagedMagnetometer: PackagedMagnetometer(chip: AKModel.ak8963.rawValue, behindBypass: true, axes: akInMPU))

    /// The AK8963 inside an MPU-9250 (PS-MPU-9250A §9.1, orientation of axes), and likewise the
    /// AK8975 inside an MPU-9150 (PS-MPU-9150A, orientation of axes): magnetometer x = IMU y,
    /// y = IMU x, z = −IMU z. A second reading for the MPU-9150: RTIMULib2 (RTIMUMPU9150.cpp and
    /// RTIMUMPU9250.cpp) turns both chips' magnetometer into its own axes with the same exchange
    /// (x from y, y from −x, next to gyroscope y and z negated), which holds only if the AK8975
    /// sits in the MPU-9150 as the AK8963 sits in the MPU-9250.
    static let akInMPU = AxisMatrix(SIMD3(0, 1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, -1))

    /// One MPU chip: WHO_AM_I (0x75) from its settings, at 0x68 (AD0 low) or 0x69; the family's
    /// tables; 12-byte FIFO frames without timestamps; the gyroscope delay of each DLPF_CFG code.
    private static func mpu(
        _ model: InvenSenseModel, gyroRestLimits: GyroRestLimits, gravityRestTolerance: GravityRestTolerance? = nil,
        packagedMagnetometer: PackagedMagnetometer? = nil, condition: IdentityCondition = .always
    ) -> ChipDescriptor {
        let settings = InvenSenseSettings.settings(for: model)
        return ChipDescriptor(
            imu: model.rawValue, cliNames: [ChipRegistry.key(model.rawValue)], family: .invenSense,
            identity: ChipIdentity(
                register: InvenSenseRegister.whoAmI, value: [settings.identity], addresses: [I2CAddress(0x68), I2CAddress(0x69)],
                condition: condition),
            tables: InvenSenseSettings.tables, fifo: FIFOLayout(bytesPerSample: InvenSenseFIFO.frameSize),
            gyroRestLimits: gyroRestLimits, gravityRestTolerance: gravityRestTolerance,
            outputDelay: .byLowPassCode(settings.gyroscopeDelay), packagedMagnetometer: packagedMagnetometer
        ) { bus, address, pause, resetCompletion in
            InvenSenseIMU(bus: bus, address: address, model: model, pause: pause, resetCompletion: resetCompletion)
        }
    }
}
