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
        builtInMagnetometer: AKModel.ak8975.rawValue,
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
        builtInMagnetometer: AKModel.ak8963.rawValue)

    /// One MPU chip: WHO_AM_I (0x75) from its settings, at 0x68 (AD0 low) or 0x69; the family's
    /// tables; 12-byte FIFO frames without timestamps; the gyroscope delay of each DLPF_CFG code.
    private static func mpu(
        _ model: InvenSenseModel, gyroRestLimits: GyroRestLimits, gravityRestTolerance: GravityRestTolerance? = nil,
        builtInMagnetometer: String? = nil, condition: IdentityCondition = .always
    ) -> ChipDescriptor {
        let settings = InvenSenseSettings.settings(for: model)
        return ChipDescriptor(
            imu: model.rawValue, cliNames: [ChipRegistry.key(model.rawValue)], family: .invenSense,
            identity: ChipIdentity(
                register: InvenSenseRegister.whoAmI, value: [settings.identity], addresses: [I2CAddress(0x68), I2CAddress(0x69)],
                condition: condition),
            tables: InvenSenseSettings.tables, fifo: FIFOLayout(bytesPerSample: InvenSenseFIFO.frameSize),
            gyroRestLimits: gyroRestLimits, gravityRestTolerance: gravityRestTolerance,
            outputDelay: .byLowPassCode(settings.gyroscopeDelay), builtInMagnetometer: builtInMagnetometer
        ) { bus, address, pause, resetCompletion in
            InvenSenseIMU(bus: bus, address: address, model: model, pause: pause, resetCompletion: resetCompletion)
        }
    }
}
