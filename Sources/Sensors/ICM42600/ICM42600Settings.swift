/// The TDK InvenSense ICM-426xx chips this driver knows (the family of the Linux kernel's
/// drivers/iio/imu/inv_icm42600, which shares one bank-0 register map between them).
package enum ICM42600Model: String, Sendable, CaseIterable {
    /// WHO_AM_I 0x47 (DS-000347 §14; kernel INV_ICM42600_WHOAMI_ICM42688).
    case icm42688p = "ICM-42688-P"
}

/// The TDK InvenSense ICM-426xx chips (Linux drivers/iio/imu/inv_icm42600).
extension ChipInfo.Family {
    package static let icm42600 = Self(rawValue: "InvenSense ICM-426xx")
}

/// Bank-0 registers of the family (DS-000347 §14 "Register map"; the kernel's inv_icm42600.h
/// names the same addresses INV_ICM42600_REG_*). Sensor data are big-endian after reset
/// (INTF_CONFIG0 SENSOR_DATA_ENDIAN = 1, FIFO_COUNT_ENDIAN = 1; the driver never changes them).
enum ICM42600Register {
    static let deviceConfig: UInt8 = 0x11  // DEVICE_CONFIG: SOFT_RESET_CONFIG bit 0 (§14)
    static let fifoConfig: UInt8 = 0x16  // FIFO_CONFIG: FIFO_MODE bits 7:6 (00 bypass, 01 stream)
    static let temperatureHigh: UInt8 = 0x1D  // TEMP_DATA1, TEMP_DATA0, ACCEL_DATA_X1 (0x1F) … GYRO_DATA_Z0 (0x2A)
    static let interruptStatus: UInt8 = 0x2D  // INT_STATUS: FIFO_FULL_INT bit 1 (clears on read)
    static let fifoCountHigh: UInt8 = 0x2E  // FIFO_COUNTH, FIFO_COUNTL (0x2F): bytes, big-endian
    static let fifoData: UInt8 = 0x30  // FIFO_DATA
    static let signalPathReset: UInt8 = 0x4B  // SIGNAL_PATH_RESET: FIFO_FLUSH bit 1
    static let interfaceConfig0: UInt8 = 0x4C  // INTF_CONFIG0: FIFO_COUNT_ENDIAN 5, SENSOR_DATA_ENDIAN 4, UI_SIFS_CFG 1:0
    static let powerManagement0: UInt8 = 0x4E  // PWR_MGMT0: GYRO_MODE 3:2, ACCEL_MODE 1:0 (11 = low noise)
    static let gyroConfig0: UInt8 = 0x4F  // GYRO_CONFIG0: GYRO_FS_SEL 7:5, GYRO_ODR 3:0
    static let accelConfig0: UInt8 = 0x50  // ACCEL_CONFIG0: ACCEL_FS_SEL 7:5, ACCEL_ODR 3:0
    static let fifoConfig1: UInt8 = 0x5F  // FIFO_CONFIG1: TEMP_EN bit 2, GYRO_EN bit 1, ACCEL_EN bit 0
    static let selfTestConfig: UInt8 = 0x70  // SELF_TEST_CONFIG: ACCEL_ST_POWER 6, EN_AZ/AY/AX 5:3, EN_GZ/GY/GX 2:0
    static let whoAmI: UInt8 = 0x75
    static let bankSelect: UInt8 = 0x76  // REG_BANK_SEL: BANK_SEL 2:0
    /// XG_ST_DATA, YG_ST_DATA, ZG_ST_DATA in bank 1 (0x5F…0x61) and XA_ST_DATA … ZA_ST_DATA in
    /// bank 2 (0x3B…0x3D): the factory self-test codes (§14 user banks 1 and 2).
    static let gyroSelfTestData: (bank: UInt8, register: UInt8) = (1, 0x5F)
    static let accelSelfTestData: (bank: UInt8, register: UInt8) = (2, 0x3B)

    static let fifoMode = RegisterField(fifoConfig, mask: 0b1100_0000)

    /// PWR_MGMT0 mode code "low noise" (§14; kernel INV_ICM42600_SENSOR_MODE_LOW_NOISE = 3).
    static let lowNoise: UInt8 = 0b11
    /// FIFO_MODE codes (§14; kernel INV_ICM42600_FIFO_CONFIG_BYPASS / _STREAM).
    static let fifoBypass: UInt8 = 0b00, fifoStream: UInt8 = 0b01
    /// INT_STATUS FIFO_FULL_INT (§14; kernel INV_ICM42600_INT_STATUS_FIFO_FULL = BIT(1)).
    static let fifoFullInterrupt: UInt8 = 0x02
    /// INTF_CONFIG0 as the driver writes it: FIFO count and sensor data big-endian (the reset
    /// value, 0x30), FIFO count in bytes, UI_SIFS_CFG = 10 (SPI off: the chip stays on I2C
    /// whatever its CS pin does). The kernel does the same on I2C (inv_icm42600_i2c.c,
    /// INV_ICM42600_INTF_CONFIG0_UI_SIFS_CFG_SPI_DIS; inv_icm42600_core.c sets SENSOR_DATA_ENDIAN).
    static let interfaceI2COnlyBigEndian: UInt8 = 0x32
    /// SIGNAL_PATH_RESET FIFO_FLUSH (§14; kernel INV_ICM42600_SIGNAL_PATH_RESET_FIFO_FLUSH = BIT(1)).
    static let fifoFlush: UInt8 = 0x02
    /// FIFO_CONFIG1 ACCEL_EN | GYRO_EN | TEMP_EN (§14; kernel INV_ICM42600_FIFO_CONFIG1_*):
    /// with both sensors on, every FIFO packet is packet 3 (16 bytes, §6.1).
    static let fifoAccelGyroTemperature: UInt8 = 0b0000_0111

    /// DEVICE_CONFIG SOFT_RESET_CONFIG (bit 0): wait 1 ms before any other access (DS-000347 §14
    /// DEVICE_CONFIG; kernel INV_ICM42600_RESET_TIME_MS = 1), polled until it reads 0. Then in
    /// bank 0 the interface, GYRO_CONFIG0 and ACCEL_CONFIG0 (FS_SEL 7:5, ODR 3:0), and last
    /// PWR_MGMT0 with GYRO_MODE 3:2 and ACCEL_MODE 1:0 low noise, which turns the sensors on.
    static let map = IMURegisterMap(
        identityRegister: whoAmI, reset: SoftResetStep(field: RegisterField(deviceConfig, mask: 0b0000_0001), polls: 10, interval: .milliseconds(1)),
        accelerometerRate: RegisterField(accelConfig0, mask: 0b0000_1111), accelerometerRange: RegisterField(accelConfig0, mask: 0b1110_0000),
        gyroscopeRate: RegisterField(gyroConfig0, mask: 0b0000_1111), gyroscopeRange: RegisterField(gyroConfig0, mask: 0b1110_0000),
        fixed: [(RegisterField(interfaceConfig0, mask: 0xFF), interfaceI2COnlyBigEndian),
                (RegisterField(powerManagement0, mask: 0b0000_1100), lowNoise), (RegisterField(powerManagement0, mask: 0b0000_0011), lowNoise)],
        writeOrder: [interfaceConfig0, gyroConfig0, accelConfig0, powerManagement0], startupTime: ICM42600IMU.startupTime)
}

/// What differs between the family's chips; everything else is the shared register map.
struct ICM42600Settings: Sendable {
    /// WHO_AM_I (0x75) value.
    var identity: UInt8
    var tables: IMUTables
    /// Temperature: °C = raw / sensitivity + 25, 16-bit register data (DS-000347 §14 TEMP_DATA).
    var temperatureLSBPerDegree: Double
    /// FIFO temperature, 8 bit: °C = raw / sensitivity + 25 (§6.1; the kernel scales it by 64 to
    /// the register resolution: 132.48 / 64 = 2.07).
    var fifoTemperatureLSBPerDegree: Double
    /// Packet 3 (DS-000347 §6.1): big-endian (INTF_CONFIG0 as the driver leaves it), 1 µs
    /// timestamps (TMST_CONFIG TMST_RES = 0, its reset value 0x23; the driver does not write it).
    var fifoPacket: ICMFIFOPacket { ICMFIFOPacket(byteOrder: .bigEndian, temperatureLSBPerDegree: fifoTemperatureLSBPerDegree) }

    /// ODR codes shared by GYRO_ODR and ACCEL_ODR (DS-000347 §14; kernel enum
    /// inv_icm42600_odr: 3 = 8 kHz … 11 = 12.5 Hz, 15 = 500 Hz). Low-power-only rates (below
    /// 12.5 Hz) are left out: the driver runs both sensors in low-noise mode.
    static let rates: [SettingOption] = [
        (8000.0, 0x3), (4000, 0x4), (2000, 0x5), (1000, 0x6), (500, 0xF), (200, 0x7), (100, 0x8), (50, 0x9),
        (25, 0xA), (12.5, 0xB),
    ].map { SettingOption(value: $0.0, code: UInt8($0.1)) }

    /// The gyroscope's group delay, s, at an output data rate of `rate` Hz with the filters the
    /// driver leaves at their reset values. DS-000347 §14: GYRO_CONFIG1 resets to 0x16, whose
    /// GYRO_UI_FILT_ORD (bits 3:2) = 01 is the 2nd-order UI filter; GYRO_ACCEL_CONFIG0 resets to
    /// 0x11, whose GYRO_UI_FILT_BW = 1 is "BW = max(400 Hz, ODR) / 4" (the register descriptions,
    /// quoted alike by TDK's and others' public drivers). The datasheet's per-order delay table
    /// (§5) was not reachable, so the delay is derived: the bandwidth taken as the 3-dB cut-off
    /// f of a 2nd-order Butterworth low-pass, whose group delay at low frequency is √2 / (2π f).
    /// At 200 Hz (the driver's default) that is 2.25 ms; at 1 kHz 0.90 ms. The anti-alias filter
    /// and the decimator ahead of the UI filter are not counted (their delay is a fraction of a
    /// millisecond at these rates), so this is a lower bound.
    static func gyroscopeDelay(rate: Double) -> Double {
        guard rate > 0 else { return 0 }
        let bandwidth = max(400, rate) / 4
        return 2.0.squareRoot() / (2 * Double.pi * bandwidth)
    }

    /// ACCEL_FS_SEL 0…3 = ±16/8/4/2 g at 2048/4096/8192/16384 LSB/g (DS-000347 Table 2; kernel
    /// inv_icm42600_accel_scale[]: 4788403…598550 nm/s² per LSB).
    static let accelerometerRanges = zip([16.0, 8, 4, 2], [2048.0, 4096, 8192, 16384]).enumerated()
        .map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1) }

    /// GYRO_FS_SEL 0…7 = ±2000 … ±15.625 °/s at 16.4 … 2097.2 LSB/(°/s) (DS-000347 Table 1;
    /// kernel inv_icm42600_gyro_scale[]: 1065264…8322 nrad/s per LSB, i.e. 32768 / full scale,
    /// 0.1 % from the datasheet's rounded 16.4).
    static let gyroscopeRanges = zip(
        [2000.0, 1000, 500, 250, 125, 62.5, 31.25, 15.625], [16.4, 32.8, 65.5, 131, 262, 524.3, 1048.6, 2097.2]
    ).enumerated().map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1) }

    static func settings(for model: ICM42600Model) -> ICM42600Settings {
        switch model {
        case .icm42688p:
            // DS-000347 §14: °C = TEMP_DATA / 132.48 + 25; §6.1: FIFO_TEMP_DATA / 2.07 + 25.
            ICM42600Settings(
                identity: 0x47,
                tables: IMUTables(outputDataRates: rates, accelerometerRanges: accelerometerRanges, gyroscopeRanges: gyroscopeRanges),
                temperatureLSBPerDegree: 132.48, fifoTemperatureLSBPerDegree: 2.07)
        }
    }
}
