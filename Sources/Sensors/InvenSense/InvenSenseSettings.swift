/// The InvenSense chips this driver knows.
package enum InvenSenseModel: String, Sendable, CaseIterable {
    case mpu6050 = "MPU-6050"
    /// An MPU-6050 die with an AK8975 magnetometer die behind its I2C bypass; WHO_AM_I 0x68 like
    /// the MPU-6050 (drivers/iio/imu/inv_mpu6050/inv_mpu_iio.h: INV_MPU9150_WHOAMI_VALUE 0x68;
    /// inv_mpu_core.c hw_info: the 6050 register set, 1024-byte FIFO and temperature scale).
    case mpu9150 = "MPU-9150"
    case mpu6500 = "MPU-6500"
    case mpu9250 = "MPU-9250"
}

/// The MPU-6050/6500/9150/9250 and the ICM-20948: the MPU register map and FIFO.
extension ChipInfo.Family {
    package static let invenSense = Self(rawValue: "InvenSense MPU")
}

/// Register map shared by the family (RM-MPU-6000A §3, RM-MPU-9250A §3: same addresses).
enum InvenSenseRegister {
    static let sampleRateDivider: UInt8 = 0x19  // SMPLRT_DIV
    static let config: UInt8 = 0x1A  // CONFIG: DLPF_CFG bits 2:0
    static let gyroConfig: UInt8 = 0x1B  // GYRO_CONFIG: XG/YG/ZG_ST bits 7:5, FS_SEL bits 4:3
    static let accelConfig: UInt8 = 0x1C  // ACCEL_CONFIG: XA/YA/ZA_ST bits 7:5, AFS_SEL bits 4:3
    static let accelConfig2: UInt8 = 0x1D  // ACCEL_CONFIG2 (6500/9250): A_DLPF_CFG bits 2:0
    static let fifoEnable: UInt8 = 0x23  // FIFO_EN: ACCEL bit 3, XG/YG/ZG bits 6:4
    static let interruptPinConfig: UInt8 = 0x37  // INT_PIN_CFG: BYPASS_EN bit 1
    static let interruptEnable: UInt8 = 0x38  // INT_ENABLE: FIFO_OFLOW_EN bit 4
    static let interruptStatus: UInt8 = 0x3A  // INT_STATUS: FIFO_OFLOW_INT bit 4 (cleared by reading)
    static let accelXHigh: UInt8 = 0x3B  // ACCEL_XOUT_H … GYRO_ZOUT_L at 0x48, big-endian
    static let userControl: UInt8 = 0x6A  // USER_CTRL: FIFO_EN bit 6, FIFO_RESET bit 2
    static let powerManagement1: UInt8 = 0x6B  // PWR_MGMT_1: DEVICE_RESET bit 7, SLEEP bit 6, CLKSEL 2:0
    static let fifoCountHigh: UInt8 = 0x72  // FIFO_COUNTH, FIFO_COUNTL
    static let fifoData: UInt8 = 0x74  // FIFO_R_W
    static let whoAmI: UInt8 = 0x75

    static let gyroRangeField = RegisterField(gyroConfig, mask: 0b0001_1000)
    static let accelRangeField = RegisterField(accelConfig, mask: 0b0001_1000)
    static let lowPassField = RegisterField(config, mask: 0b0000_0111)
    static let accelLowPassField = RegisterField(accelConfig2, mask: 0b0000_1111)
    static let bypassField = RegisterField(interruptPinConfig, mask: 0b0000_0010)
    static let deviceReset = RegisterField(powerManagement1, mask: 0b1000_0000)
}

/// How a chip's self-test is evaluated.
enum InvenSenseSelfTestMethod: Sendable {
    /// RM-MPU-6000A §4.1–4.2: change from factory trim within ±14 %.
    case factoryTrimChange
    /// AN-MPU-9250A-03 §3: ratio to the OTP self-test value.
    case otpRatio
}

/// What differs between InvenSense chips; everything else is the shared register map.
struct InvenSenseSettings: Sendable {
    /// WHO_AM_I (0x75) value (RM-MPU-6000A §4.32, RM-MPU-9250A §4.39).
    var identity: UInt8
    /// Gyroscope bandwidth (Hz) → DLPF_CFG. Codes with an 8 kHz internal rate are left out so the
    /// sample rate is always 1 kHz / (1 + SMPLRT_DIV).
    var lowPass: [SettingOption]
    /// The gyroscope's delay (s) for each DLPF_CFG code in ``lowPass``.
    var gyroscopeDelay: [UInt8: Double]
    /// ACCEL_CONFIG2 A_DLPF_CFG, written with the same code as DLPF_CFG (6500/9250); `nil` on the
    /// MPU-6050, whose single DLPF_CFG filters both sensors.
    var accelerometerLowPass: RegisterField?
    /// Temperature: °C = raw / sensitivity + offset.
    var temperatureLSBPerDegree: Double
    var temperatureOffset: Double
    var selfTest: InvenSenseSelfTestMethod
    /// The AK8963 inside an MPU-9250 or the AK8975 inside an MPU-9150, reached at 0x0C once
    /// INT_PIN_CFG BYPASS_EN is set.
    var bypassForMagnetometer: RegisterField?

    /// Rates (SMPLRT_DIV), accelerometer ranges (AFS_SEL) and gyroscope ranges (FS_SEL), shared by
    /// the family. Output data rates (Hz) with SMPLRT_DIV: 1 kHz / (1 + divider),
    /// divider 0…255. Sensitivities (PS-MPU-6000A §6.1–6.2, PS-MPU-9250A §3.1–3.2): ±2/4/8/16 g →
    /// 16384/8192/4096/2048 LSB/g; ±250/500/1000/2000 °/s → 131/65.5/32.8/16.4 LSB/(°/s).
    static let tables = IMUTables(
        outputDataRates: [1000, 500, 250, 200, 125, 100, 50, 40, 25, 20, 10, 8, 5, 4]
            .map { SettingOption(value: $0, code: UInt8(1000 / $0 - 1)) },
        accelerometerRanges: zip([2.0, 4, 8, 16], [16384.0, 8192, 4096, 2048]).enumerated()
            .map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1) },
        gyroscopeRanges: zip([250.0, 500, 1000, 2000], [131, 65.5, 32.8, 16.4]).enumerated()
            .map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1) })

    static func settings(for model: InvenSenseModel) -> InvenSenseSettings {
        switch model {
        case .mpu6050, .mpu9150:
            // RM-MPU-6000A §4.3 (CONFIG): gyro bandwidth 188/98/42/20/10/5 Hz, delay 1.9/2.8/4.8/
            // 8.3/13.4/18.6 ms for DLPF_CFG 1…6. §4.18 (TEMP_OUT): °C = raw / 340 + 36.53.
            return InvenSenseSettings(
                identity: 0x68,
                lowPass: [188, 98, 42, 20, 10, 5].enumerated().map { SettingOption(value: $1, code: UInt8($0 + 1)) },
                gyroscopeDelay: [1: 0.0019, 2: 0.0028, 3: 0.0048, 4: 0.0083, 5: 0.0134, 6: 0.0186],
                accelerometerLowPass: nil, temperatureLSBPerDegree: 340, temperatureOffset: 36.53,
                selfTest: .factoryTrimChange, bypassForMagnetometer: model == .mpu9150 ? InvenSenseRegister.bypassField : nil)
        case .mpu6500, .mpu9250:
            // RM-MPU-9250A §4.6 (CONFIG, FCHOICE_B = 0): 184/92/41/20/10/5 Hz, delay 2.9/3.9/5.9/
            // 9.9/17.85/33.48 ms for DLPF_CFG 1…6; §4.8 (ACCEL_CONFIG2): 218.1/99/44.8/21.2/10.2/
            // 5.05 Hz for the same codes. §4.23 (TEMP_OUT): °C = raw / 333.87 + 21.
            return InvenSenseSettings(
                identity: model == .mpu6500 ? 0x70 : 0x71,
                lowPass: [184, 92, 41, 20, 10, 5].enumerated().map { SettingOption(value: $1, code: UInt8($0 + 1)) },
                gyroscopeDelay: [1: 0.0029, 2: 0.0039, 3: 0.0059, 4: 0.0099, 5: 0.01785, 6: 0.03348],
                accelerometerLowPass: InvenSenseRegister.accelLowPassField,
                temperatureLSBPerDegree: 333.87, temperatureOffset: 21,
                selfTest: .otpRatio,
                bypassForMagnetometer: model == .mpu9250 ? InvenSenseRegister.bypassField : nil)
        }
    }
}
