extension ChipInfo.Family {
    package static let bmi270 = Self(rawValue: "Bosch BMI270")
}

/// Register map of the Bosch BMI270 (datasheet BST-BMI270-DS000, "Register description"; the same
/// addresses in Bosch's BMI270 SensorAPI bmi2_defs.h, BMI2_*_ADDR, and in the Linux kernel's
/// drivers/iio/imu/bmi270/bmi270_core.c, BMI270_*_REG, which Debian's 6.1 kernel does not ship).
enum BMI270Register {
    /// CHIP_ID, reads 0x24.
    static let chipID: UInt8 = 0x00
    /// DATA_8 … DATA_13: accelerometer x, y, z, little-endian; the gyroscope follows at 0x12
    /// (DATA_14 … DATA_19), so one 12-byte burst from here holds both (the BMI160's order reversed).
    static let accelerometerData: UInt8 = 0x0C
    static let gyroscopeData: UInt8 = 0x12
    /// INTERNAL_STATUS: message bits 3:0 (0x00 not_init, 0x01 init_ok, 0x02 init_err, 0x03
    /// drv_err, 0x04 sns_stop, 0x05 nvm_error, 0x06 start_up_error, 0x07 compat_error),
    /// axes_remap_error bit 5, odr_50hz_error bit 6.
    static let internalStatus: UInt8 = 0x21
    /// FIFO_LENGTH_0/1 0x24–0x25: fifo_byte_counter bits 13:0, little-endian.
    static let fifoLength: UInt8 = 0x24
    /// FIFO_DATA: a burst read stays on this register and returns successive FIFO bytes.
    static let fifoData: UInt8 = 0x26
    /// FEAT_PAGE: which 16-byte page of the feature engine's memory 0x30–0x3F show (0 … 7).
    static let featurePage: UInt8 = 0x2F
    /// FEATURES 0x30–0x3F: the selected feature page.
    static let features: UInt8 = 0x30
    /// ACC_CONF: acc_filter_perf bit 7, acc_bwp bits 6:4, acc_odr bits 3:0; reset 0xA8.
    static let accelerometerConfig: UInt8 = 0x40
    /// ACC_RANGE: acc_range bits 1:0; reset 0x02 = ±8 g.
    static let accelerometerRange: UInt8 = 0x41
    /// GYR_CONF: gyr_filter_perf bit 7, gyr_noise_perf bit 6, gyr_bwp bits 5:4, gyr_odr bits 3:0; reset 0xA9.
    static let gyroscopeConfig: UInt8 = 0x42
    /// GYR_RANGE: gyr_range bits 2:0; reset 0x00 = ±2000 °/s.
    static let gyroscopeRange: UInt8 = 0x43
    /// FIFO_CONFIG_0: fifo_time_en bit 1, fifo_stop_on_full bit 0; reset 0x02.
    static let fifoConfig0: UInt8 = 0x48
    /// FIFO_CONFIG_1: fifo_gyr_en bit 7, fifo_acc_en bit 6, fifo_aux_en bit 5, fifo_header_en bit 4; reset 0x10.
    static let fifoConfig1: UInt8 = 0x49
    /// INIT_CTRL: 0x00 before the configuration file is loaded, 0x01 once it is (start the engine).
    static let initControl: UInt8 = 0x59
    /// INIT_ADDR_0 (bits 3:0) and INIT_ADDR_1 (bits 7:0): where the next INIT_DATA byte goes, in
    /// 16-bit words: the byte offset / 2, its low 4 bits in INIT_ADDR_0, the rest in INIT_ADDR_1.
    static let initAddress0: UInt8 = 0x5B
    /// INIT_DATA: the configuration file's bytes, burst-written; the address stays on it.
    static let initData: UInt8 = 0x5E
    /// PWR_CONF: fifo_self_wake_up bit 1, adv_power_save bit 0; reset 0x03.
    static let powerConfig: UInt8 = 0x7C
    /// PWR_CTRL: temp_en bit 3, acc_en bit 2, gyr_en bit 1, aux_en bit 0; reset 0x00.
    static let powerControl: UInt8 = 0x7D
    /// CMD: commands below.
    static let command: UInt8 = 0x7E

    /// INTERNAL_STATUS message: bits 3:0.
    static let initMessage = RegisterField(internalStatus, mask: 0x0F)
    static let initOK: UInt8 = 0x01

    /// PWR_CTRL with the temperature sensor, the accelerometer and the gyroscope on.
    static let sensorsOn: UInt8 = 0b1110

    /// acc_odr 3:0 (ACC_CONF), acc_range 1:0 (ACC_RANGE), gyr_odr 3:0 (GYR_CONF), gyr_range 2:0
    /// (GYR_RANGE); the filters in performance mode with the normal bandwidth (acc_filter_perf =
    /// 1, acc_bwp = 0b010; gyr_filter_perf = 1, gyr_noise_perf = 0, gyr_bwp = 0b10: the reset
    /// values); FIFO_CONFIG_1 = 0 (FIFO off); PWR_CTRL on last. No reset bit: the driver's
    /// start-up sends the CMD soft reset and loads the configuration file.
    static let map = IMURegisterMap(
        identityRegister: chipID, reset: nil,
        accelerometerRate: RegisterField(accelerometerConfig, mask: 0b0000_1111), accelerometerRange: RegisterField(accelerometerRange, mask: 0b0000_0011),
        gyroscopeRate: RegisterField(gyroscopeConfig, mask: 0b0000_1111), gyroscopeRange: RegisterField(gyroscopeRange, mask: 0b0000_0111),
        fixed: [(RegisterField(accelerometerConfig, mask: 0b1111_0000), 0b1010), (RegisterField(gyroscopeConfig, mask: 0b1111_0000), 0b1010),
                (RegisterField(fifoConfig1, mask: 0xFF), 0), (RegisterField(powerControl, mask: 0xFF), sensorsOn)],
        writeOrder: [accelerometerConfig, accelerometerRange, gyroscopeConfig, gyroscopeRange, fifoConfig1, powerControl])
}

/// CMD (0x7E) values.
enum BMI270Command {
    static let fifoFlush: UInt8 = 0xB0
    static let softReset: UInt8 = 0xB6
}

/// What the BMI270 driver looks up: identity and the rate and range tables.
struct BMI270Settings: Sendable {
    static let name = "BMI270"
    /// CHIP_ID value (BMI270 SensorAPI bmi270.h BMI270_CHIP_ID; kernel BMI270_CHIP_ID_VAL).
    static let identity: UInt8 = 0x24

    /// Output data rates both sensors share, Hz → acc_odr / gyr_odr code: rate = 100 / 2^(8 −
    /// code), as the BMI160's (ACC_CONF and GYR_CONF). The accelerometer runs 0.78 Hz (code 1) …
    /// 1600 Hz (code 12), the gyroscope 25 Hz (code 6) … 3200 Hz (code 13); one rate drives
    /// both here, so the table is their overlap, codes 6 … 12.
    ///
    /// Full scales (ACC_RANGE, GYR_RANGE) with the sensitivities of the datasheet's
    /// "Specification" tables: ±2/4/8/16 g = 0…3 at 16384/8192/4096/2048 LSB/g; ±2000/1000/500/
    /// 250/125 °/s = 0…4 at 16.4/32.8/65.6/131.2/262.4 LSB/(°/s) (SensorAPI BMI2_ACC_RANGE_*,
    /// BMI2_GYR_RANGE_*).
    static let tables = IMUTables(
        outputDataRates: (6...12).map { SettingOption(value: 100 * pow2(Int($0) - 8), code: UInt8($0)) },
        accelerometerRanges: [2.0, 4, 8, 16].enumerated().map {
            SettingOption(value: $1, code: UInt8($0), sensitivity: 16384 / pow2($0))
        },
        gyroscopeRanges: [2000.0, 1000, 500, 250, 125].enumerated().map {
            SettingOption(value: $1, code: UInt8($0), sensitivity: 16.4 * pow2($0))
        })
}

/// 2^exponent for small exponents, exactly.
private func pow2(_ exponent: Int) -> Double {
    exponent >= 0 ? Double(1 << exponent) : 1 / Double(1 << -exponent)
}
