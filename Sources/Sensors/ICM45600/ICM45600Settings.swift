import I2C

/// The TDK InvenSense ICM-456xx chips (the family of mainline Linux's
/// drivers/iio/imu/inv_icm45600, added in 6.18; Debian's 6.1 kernel has no driver for them).
extension ChipInfo.Family {
    package static let icm45600 = Self(rawValue: "InvenSense ICM-456xx")
}

/// Direct-access registers of the ICM-456xx (datasheet DS-000577 register map and §16 register descriptions (REG_MISC2 is §16.84, as the kernel cites it), user bank
/// 0; the kernel's inv_icm45600.h names the same addresses INV_ICM45600_REG_*). Sensor data and
/// the FIFO are little-endian after reset (the kernel reads them with le16_to_cpu,
/// inv_icm45600_accel.c / inv_icm45600_buffer.h; its header's comment "all sensor data are 16
/// bits (2 registers wide) in big-endian" is contradicted by its own code, which reads
/// `__le16` everywhere).
enum ICM45600Register {
    /// ACCEL_DATA_X1_UI … GYRO_DATA_Z0_UI (0x00–0x0B), TEMP_DATA1_UI/TEMP_DATA0_UI (0x0C–0x0D).
    static let accelDataX: UInt8 = 0x00
    static let temperatureData: UInt8 = 0x0C
    static let powerManagement0: UInt8 = 0x10  // PWR_MGMT0: GYRO_MODE 3:2, ACCEL_MODE 1:0 (11 = low noise)
    static let interruptStatus: UInt8 = 0x19  // INT1_STATUS0: RESET_DONE bit 7 (kernel INV_ICM45600_INT_STATUS_RESET_DONE)
    static let accelConfig0: UInt8 = 0x1B  // ACCEL_CONFIG0: ACCEL_UI_FS_SEL 6:4, ACCEL_ODR 3:0
    static let gyroConfig0: UInt8 = 0x1C  // GYRO_CONFIG0: GYRO_UI_FS_SEL 7:4, GYRO_ODR 3:0
    static let whoAmI: UInt8 = 0x72  // WHO_AM_I (kernel INV_ICM45600_REG_WHOAMI)
    static let misc2: UInt8 = 0x7F  // REG_MISC2: SOFT_RST bit 1 (kernel INV_ICM45600_MISC2_SOFT_RESET)

    // FIFO (kernel inv_icm45600.h INV_ICM45600_REG_FIFO_*, INT1_*; inv_icm45600_buffer.c)
    /// FIFO_COUNT_0/1: packets waiting, 16-bit little-endian (kernel inv_icm45600_buffer_fifo_read:
    /// le16_to_cpup, times the packet size for the bytes to read).
    static let fifoCount: UInt8 = 0x12
    static let fifoData: UInt8 = 0x14  // FIFO_DATA (INV_ICM45600_REG_FIFO_DATA)
    static let interrupt1Config0: UInt8 = 0x16  // INT1_CONFIG0: FIFO_FULL_EN bit 0 (INV_ICM45600_INT1_CONFIG0_FIFO_FULL_EN)
    static let fifoConfig0: UInt8 = 0x1D  // FIFO_CONFIG0: FIFO_MODE 7:6, FIFO_DEPTH 5:0
    static let fifoConfig2: UInt8 = 0x20  // FIFO_CONFIG2: FIFO_FLUSH bit 7 (INV_ICM45600_REG_FIFO_CONFIG2_FIFO_FLUSH)
    static let fifoConfig3: UInt8 = 0x21  // FIFO_CONFIG3: GYRO_EN 2, ACCEL_EN 1, IF_EN 0
    static let fifoConfig4: UInt8 = 0x22  // FIFO_CONFIG4: TMST_FSYNC_EN bit 1, COMP_EN bit 2
    /// TMST_WOM_CONFIG: TMST_RESOL bit 5 (0: 1 µs, 1: 16 µs), TMST_DELTA_EN bit 6, WOM bits 4:0.
    /// Not in the kernel (it leaves the register alone); from TDK's ICM-456xx register header
    /// (inv_imu_regmap_le.h, `tmst_wom_config_t`) and driver (inv_imu_adv_get_timestamp_resolution_us).
    static let timestampConfig: UInt8 = 0x23
    /// IREG_ADDR_15_8, IREG_ADDR_7_0 (0x7D) and IREG_DATA (0x7E): the window onto the indirect
    /// registers, written as one burst of address and first data byte (kernel
    /// INV_ICM45600_REG_IREG_ADDR / _DATA, inv_icm45600_ireg_write), ≥ 4 µs apart
    /// (INV_ICM45600_IREG_DELAY_US, "Datasheet: 13.3 MINIMUM WAIT TIME-GAP").
    static let indirectAddress: UInt8 = 0x7C
    static let indirectData: UInt8 = 0x7E
    static let indirectGap = Duration.microseconds(4)
    /// SMC_CONTROL_0 in the indirect space (bank 0xA2, 0x58): TMST_EN bit 0 turns the timestamp
    /// counter on (kernel INV_ICM45600_REG_SMC_CONTROL_0 0xA258, inv_icm45600_timestamp_setup).
    static let smcControl0: (bank: UInt8, register: UInt8) = (0xA2, 0x58)
    static let timestampEnable: UInt8 = 0x01

    /// FIFO_MODE codes (kernel INV_ICM45600_FIFO_CONFIG0_MODE_BYPASS 0 / _STREAM 1) and the
    /// largest FIFO_DEPTH, 0x1F: 8 KiB (INV_ICM45600_FIFO_CONFIG0_FIFO_DEPTH_MAX, "FIFO is
    /// configured for 8kb"), i.e. 512 packets.
    static let fifoBypass: UInt8 = 0x00 << 6 | 0x1F
    static let fifoStream: UInt8 = 0x01 << 6 | 0x1F
    static let fifoFlush: UInt8 = 0x80
    /// FIFO_CONFIG3: GYRO_EN | ACCEL_EN, then IF_EN last ("FIFO_CONFIG3_IF_EN must only be set at
    /// end of the FIFO configuration", kernel inv_icm45600_resume).
    static let fifoSensors: UInt8 = 0b0000_0110
    static let fifoWriting: UInt8 = 0b0000_0111
    /// FIFO_CONFIG4 TMST_FSYNC_EN, compression off: every packet carries the timestamp (kernel
    /// inv_icm45600_buffer_init, "Enable only timestamp in fifo, disable compression").
    static let fifoTimestamps: UInt8 = 0b0000_0010
    /// TMST_WOM_CONFIG with TMST_RESOL = 0 (1 µs) and wake-on-motion off.
    static let timestampMicroseconds: UInt8 = 0x00
    /// INT1_STATUS0 FIFO_FULL (bit 0; kernel INV_ICM45600_INT_STATUS_FIFO_FULL), set only while
    /// INT1_CONFIG0 FIFO_FULL_EN is (TDK's header names the INT1_CONFIG0 bits
    /// `int1_status_en_*`); cleared on read.
    static let fifoFullInterrupt: UInt8 = 0x01

    /// PWR_MGMT0 mode code "low noise" (kernel INV_ICM45600_SENSOR_MODE_LOW_NOISE = 3).
    static let lowNoise: UInt8 = 0b11
    /// A sensor not (yet) producing data reads −32768 on every axis (kernel INV_ICM45600_DATA_INVALID).
    static let invalidData: Int16 = -32768
    /// Bytes of one sample burst: accelerometer, gyroscope, temperature (0x00–0x0D).
    static let sampleBytes = 14

    /// REG_MISC2 SOFT_RST, then ≥ 1 ms before any other access (DS-000577 REG_MISC2; kernel
    /// inv_icm45600_setup: fsleep(1 ms), "Datasheet: 16.84 REG_MISC2"), polled until it reads 0.
    /// Then GYRO_CONFIG0, ACCEL_CONFIG0 and last PWR_MGMT0, both sensors in low-noise mode.
    static let map = IMURegisterMap(
        identityRegister: whoAmI, reset: SoftResetStep(field: RegisterField(misc2, mask: 0b0000_0010), polls: 10, interval: .milliseconds(1)),
        accelerometerRate: RegisterField(accelConfig0, mask: 0b0000_1111), accelerometerRange: RegisterField(accelConfig0, mask: 0b0111_0000),
        gyroscopeRate: RegisterField(gyroConfig0, mask: 0b0000_1111), gyroscopeRange: RegisterField(gyroConfig0, mask: 0b1111_0000),
        fixed: [(RegisterField(powerManagement0, mask: 0b0000_1100), lowNoise), (RegisterField(powerManagement0, mask: 0b0000_0011), lowNoise)],
        writeOrder: [gyroConfig0, accelConfig0, powerManagement0], startupTime: ICM45600IMU.startupTime)
}

/// The ICM-45686's tables (what the driver needs besides the register map).
struct ICM45600Settings: Sendable {
    /// WHO_AM_I of the ICM-45686 (kernel INV_ICM45600_WHOAMI_ICM45686 = 0xE9).
    static let icm45686Identity: UInt8 = 0xE9
    /// °C = TEMP_DATA / 128 + 25 (kernel inv_icm45600_temp.c: scale 1000/128 m°C, offset 3200 LSB).
    static let temperatureLSBPerDegree = 128.0

    /// ODR codes shared by GYRO_ODR and ACCEL_ODR (kernel enum inv_icm45600_odr: 3 = 6.4 kHz …
    /// 12 = 12.5 Hz; 13–15, below 12.5 Hz, are low-power only and left out: both sensors run in
    /// low-noise mode).
    static let rates: [SettingOption] = [
        (6400.0, 0x3), (3200, 0x4), (1600, 0x5), (800, 0x6), (400, 0x7), (200, 0x8), (100, 0x9), (50, 0xA), (25, 0xB), (12.5, 0xC),
    ].map { SettingOption(value: $0.0, code: UInt8($0.1)) }

    /// ACCEL_UI_FS_SEL 0…4 = ±32/16/8/4/2 g (kernel enum inv_icm45686_accel_fs) at 1024 … 16384
    /// LSB/g, 32768 / full scale (DS-000577's sensitivity table was not reachable here: the value
    /// is InvenSense's convention, as in the ICM-42688-P's DS-000347 Table 2).
    static let accelerometerRanges = [32.0, 16, 8, 4, 2].enumerated()
        .map { SettingOption(value: $1, code: UInt8($0), sensitivity: 32768 / $1) }

    /// GYRO_UI_FS_SEL 0…8 = ±4000 … ±15.625 °/s (kernel enum inv_icm45686_gyro_fs) at 8.2 …
    /// 2097.2 LSB/(°/s): 32768 / full scale rounded as InvenSense tabulates it (the ICM-42688-P's
    /// DS-000347 Table 1; DS-000577's table was not reachable here), within 0.1 % of the kernel's
    /// scales (``KernelCrossCheckTests``).
    static let gyroscopeRanges = zip(
        [4000.0, 2000, 1000, 500, 250, 125, 62.5, 31.25, 15.625], [8.2, 16.4, 32.8, 65.5, 131, 262, 524.3, 1048.6, 2097.2]
    ).enumerated().map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1) }

    /// The FIFO packet: little-endian (kernel `__le16` fields), FIFO temperature °C = raw / 2 + 25
    /// (kernel inv_icm45600_accel.c scales it by 64 to the registers' 128 LSB/°C), timestamp in
    /// µs (``ICM45600Register/timestampMicroseconds``).
    static let fifoPacket = ICMFIFOPacket(byteOrder: .littleEndian, temperatureLSBPerDegree: 2)

    var tables = IMUTables(outputDataRates: rates, accelerometerRanges: accelerometerRanges, gyroscopeRanges: gyroscopeRanges)
}
