extension ChipInfo.Family {
    package static let bmi160 = Self(rawValue: "Bosch BMI160")
}

/// Register map of the Bosch BMI160 (datasheet BST-BMI160-DS000 §2.11, "Register description";
/// addresses the same in the Linux kernel's drivers/iio/imu/bmi160/bmi160_core.c).
enum BMI160Register {
    /// CHIP_ID, reads 0xD1 (§2.11 CHIP_ID).
    static let chipID: UInt8 = 0x00
    /// PMU_STATUS: acc_pmu_status bits 5:4, gyr_pmu_status bits 3:2, mag_pmu_status bits 1:0;
    /// 00 suspend, 01 normal (§2.11 PMU_STATUS).
    static let pmuStatus: UInt8 = 0x03
    /// DATA_8 … DATA_13: gyroscope x, y, z, little-endian (§2.11 DATA); the accelerometer follows
    /// at 0x12 (DATA_14 … DATA_19), so one 12-byte burst from here holds both.
    static let gyroscopeData: UInt8 = 0x0C
    static let accelerometerData: UInt8 = 0x12
    /// STATUS: drdy_acc bit 7, drdy_gyr bit 6, gyr_self_test_ok bit 1 (§2.11 STATUS).
    static let status: UInt8 = 0x1B
    /// FIFO_LENGTH 0x22–0x23: fifo_byte_counter bits 10:0, little-endian (§2.11 FIFO_LENGTH).
    static let fifoLength: UInt8 = 0x22
    /// FIFO_DATA: a burst read stays on this register and returns successive FIFO bytes (§2.11 FIFO_DATA).
    static let fifoData: UInt8 = 0x24
    /// ACC_CONF: acc_us bit 7, acc_bwp bits 6:4, acc_odr bits 3:0; reset 0x28 (§2.11 ACC_CONF).
    static let accelerometerConfig: UInt8 = 0x40
    /// ACC_RANGE: acc_range bits 3:0; reset 0x03 = ±2 g (§2.11 ACC_RANGE).
    static let accelerometerRange: UInt8 = 0x41
    /// GYR_CONF: gyr_bwp bits 5:4, gyr_odr bits 3:0; reset 0x28 (§2.11 GYR_CONF).
    static let gyroscopeConfig: UInt8 = 0x42
    /// GYR_RANGE: gyr_range bits 2:0; reset 0x00 = ±2000 °/s (§2.11 GYR_RANGE).
    static let gyroscopeRange: UInt8 = 0x43
    /// FIFO_CONFIG_1: fifo_gyr_en bit 7, fifo_acc_en bit 6, fifo_mag_en bit 5, fifo_header_en
    /// bit 4; reset 0x10 (header mode, no sensor) (§2.11 FIFO_CONFIG).
    static let fifoConfig1: UInt8 = 0x47
    /// SELF_TEST: gyr_self_test_enable bit 4, acc_self_test_amp bit 3, acc_self_test_sign bit 2,
    /// acc_self_test_enable bits 1:0 (§2.11 SELF_TEST).
    static let selfTest: UInt8 = 0x6D
    /// CMD: commands below (§2.11 CMD).
    static let command: UInt8 = 0x7E

    static let accelerometerBandwidth = RegisterField(accelerometerConfig, mask: 0b0111_0000)
    /// acc_pmu_status and gyr_pmu_status as one 4-bit code: 0b0101 = both in normal mode.
    static let powerModes = RegisterField(pmuStatus, mask: 0b0011_1100)
    static let bothNormal: UInt8 = 0b0101

    /// acc_odr 3:0 (ACC_CONF), acc_range 3:0 (ACC_RANGE), gyr_odr 3:0 (GYR_CONF), gyr_range 2:0
    /// (GYR_RANGE); both filters in normal mode (acc_bwp 6:4, gyr_bwp 5:4); FIFO_CONFIG_1 = 0.
    /// No reset bit: the driver's start-up sends the CMD soft reset and power-mode commands.
    static let map = IMURegisterMap(
        identityRegister: chipID, reset: nil,
        accelerometerRate: RegisterField(accelerometerConfig, mask: 0b0000_1111), accelerometerRange: RegisterField(accelerometerRange, mask: 0b0000_1111),
        gyroscopeRate: RegisterField(gyroscopeConfig, mask: 0b0000_1111), gyroscopeRange: RegisterField(gyroscopeRange, mask: 0b0000_0111),
        fixed: [(accelerometerBandwidth, BMI160Settings.normalFilter), (RegisterField(gyroscopeConfig, mask: 0b0011_0000), BMI160Settings.normalFilter),
                (RegisterField(fifoConfig1, mask: 0xFF), 0)],
        writeOrder: [accelerometerConfig, accelerometerRange, gyroscopeConfig, gyroscopeRange, fifoConfig1])
}

/// CMD (0x7E) values (§2.11 CMD; the kernel's BMI160_CMD_*).
enum BMI160Command {
    static let accelerometerNormal: UInt8 = 0x11
    static let gyroscopeNormal: UInt8 = 0x15
    static let fifoFlush: UInt8 = 0xB0
    static let softReset: UInt8 = 0xB6
}

/// What the BMI160 driver looks up: identity and the rate and range tables.
struct BMI160Settings: Sendable {
    static let name = "BMI160"
    /// CHIP_ID value (§2.11 CHIP_ID; kernel BMI160_CHIP_ID_VAL).
    static let identity: UInt8 = 0xD1

    /// Output data rates both sensors share, Hz → acc_odr / gyr_odr code: rate = 100 / 2^(8 − code)
    /// (§2.11 ACC_CONF and GYR_CONF). The accelerometer runs 0.78125 Hz (code 1) … 1600 Hz
    /// (code 12), the gyroscope 25 Hz (code 6) … 3200 Hz (code 13); one rate drives both here, so
    /// the table is their overlap, codes 6 … 12 (kernel bmi160_accel_odr[], bmi160_gyro_odr[]).
    ///
    /// Full scales (§2.11 ACC_RANGE, GYR_RANGE) with the sensitivities of §1 "Specification"
    /// (Table 1 accelerometer, Table 2 gyroscope): ±2/4/8/16 g = 0x03/0x05/0x08/0x0C at
    /// 16384/8192/4096/2048 LSB/g; ±2000/1000/500/250/125 °/s = 0…4 at
    /// 16.4/32.8/65.6/131.2/262.4 LSB/(°/s) (kernel bmi160_accel_scale[], bmi160_gyro_scale[]).
    static let tables = IMUTables(
        outputDataRates: (6...12).map { SettingOption(value: 100 * pow2(Int($0) - 8), code: UInt8($0)) },
        accelerometerRanges: [
            SettingOption(value: 2, code: 0x03, sensitivity: 16384), SettingOption(value: 4, code: 0x05, sensitivity: 8192),
            SettingOption(value: 8, code: 0x08, sensitivity: 4096), SettingOption(value: 16, code: 0x0C, sensitivity: 2048),
        ],
        gyroscopeRanges: [2000.0, 1000, 500, 250, 125].enumerated().map {
            SettingOption(value: $1, code: UInt8($0), sensitivity: 16.4 * pow2($0))
        })

    /// acc_bwp = 0b010 with acc_us = 0: normal filter mode, 3 dB cut-off at about ODR / 4
    /// (§2.11 ACC_CONF); gyr_bwp = 0b10: normal mode (§2.11 GYR_CONF).
    static let normalFilter: UInt8 = 0b10

    /// Accelerometer self-test (§2.8.1): at ±8 g and 1600 Hz (ACC_CONF 0x2C), the difference
    /// between positive and negative excitation with high amplitude must be at least 2 g on every
    /// axis. The datasheet gives the procedure; the 2 g figure is Bosch's own SensorAPI limit,
    /// BMI160_ACCEL_SELF_TEST_LIMIT = 8192 LSB at ±8 g.
    static let accelerometerSelfTestLimitMilliG: ClosedRange<Double> = 2000...Double.greatestFiniteMagnitude
}

/// 2^exponent for small exponents, exactly.
private func pow2(_ exponent: Int) -> Double {
    exponent >= 0 ? Double(1 << exponent) : 1 / Double(1 << -exponent)
}
