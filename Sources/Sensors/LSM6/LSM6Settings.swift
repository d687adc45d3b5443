/// The ST LSM6 chips this driver knows. Chips sharing a WHO_AM_I value are one model.
public enum LSM6Model: String, Sendable, CaseIterable {
    /// WHO_AM_I 0x69.
    case lsm6ds3 = "LSM6DS3"
    /// WHO_AM_I 0x6A: register-compatible, told apart by no register.
    case lsm6dsl = "LSM6DS3TR-C/LSM6DSL/LSM6DSM"
    /// WHO_AM_I 0x6C.
    case lsm6dso = "LSM6DSO/LSM6DSOX"
    /// WHO_AM_I 0x6C as well, with ±4…32 g ranges: only the caller (board file) can say so.
    case lsm6dso32 = "LSM6DSO32"
}

/// Register map shared by the family (LSM6DS3 / LSM6DSL / LSM6DSO datasheets §8–9: same addresses
/// for everything this driver touches outside the FIFO).
enum LSM6Register {
    static let whoAmI: UInt8 = 0x0F
    static let ctrl1XL: UInt8 = 0x10  // ODR_XL bits 7:4, FS_XL bits 3:2
    static let ctrl2G: UInt8 = 0x11  // ODR_G bits 7:4, FS_G bits 3:2, FS_125 bit 1
    static let ctrl3C: UInt8 = 0x12  // BOOT 7, BDU 6, IF_INC 2, SW_RESET 0; reset value 0x04
    static let ctrl5C: UInt8 = 0x14  // ST_G bits 3:2, ST_XL bits 1:0
    static let outTempL: UInt8 = 0x20  // OUT_TEMP_L/H, OUTX_L_G … OUTZ_H_G, OUTX_L_XL … OUTZ_H_XL (0x2D)

    static let accelerometerRate = RegisterField(ctrl1XL, mask: 0b1111_0000)
    static let accelerometerRange = RegisterField(ctrl1XL, mask: 0b0000_1100)
    static let gyroscopeRate = RegisterField(ctrl2G, mask: 0b1111_0000)
    /// FS_G (bits 3:2) and FS_125 (bit 1) as one 3-bit code.
    static let gyroscopeRange = RegisterField(ctrl2G, mask: 0b0000_1110)
    static let softwareReset: UInt8 = 0x01
    static let blockDataUpdate: UInt8 = 0x40
    static let autoIncrement: UInt8 = 0x04
}

/// How the chip's FIFO stores samples.
enum LSM6FIFOLayout: Sendable {
    /// LSM6DS3/DSL (datasheet §8 FIFO): untagged 16-bit words in a pattern Gx Gy Gz Ax Ay Az;
    /// FIFO_CTRL3 0x08 decimation, FIFO_CTRL5 0x0A ODR_FIFO 6:3 + FIFO_MODE 2:0, FIFO_STATUS1…4
    /// 0x3A…0x3D (DIFF_FIFO, OVER_RUN bit 6 of STATUS2, FIFO_PATTERN), FIFO_DATA_OUT_L 0x3E.
    /// `unreadHighMask`: DIFF_FIFO bits in FIFO_STATUS2.
    case pattern(unreadHighMask: UInt8)
    /// LSM6DSO (datasheet §9 FIFO): 7-byte words, a tag byte then 6 data bytes; FIFO_CTRL3 0x09
    /// BDR_GY 7:4 + BDR_XL 3:0, FIFO_CTRL4 0x0A FIFO_MODE 2:0, FIFO_STATUS1/2 0x3A/0x3B
    /// (DIFF_FIFO 9:0, FIFO_OVR_IA bit 6), FIFO_DATA_OUT_TAG 0x78.
    case tagged
}

struct LSM6Settings: Sendable {
    var model: LSM6Model
    var identity: UInt8
    /// Output data rate (Hz) → ODR code, used for both sensors (and for the FIFO).
    var outputDataRates: [SettingOption]
    /// Accelerometer full scale (g) → FS_XL, sensitivity LSB/g.
    var accelerometerRanges: [SettingOption]
    /// Gyroscope full scale (°/s) → FS_G:FS_125, sensitivity LSB/(°/s).
    var gyroscopeRanges: [SettingOption]
    /// °C = raw / sensitivity + 25.
    var temperatureLSBPerDegree: Double
    var fifo: LSM6FIFOLayout
    /// Self-test accelerometer response limits in mg (absolute value), gyroscope in °/s at ±2000 °/s.
    var accelerometerSelfTestLimits: ClosedRange<Double>
    var gyroscopeSelfTestLimits: ClosedRange<Double>

    static func settings(for model: LSM6Model) -> LSM6Settings {
        // ODR codes 0001…1010 (CTRL1_XL / CTRL2_G tables in each datasheet §9.14–9.15).
        let dsoRates: [Double] = [12.5, 26, 52, 104, 208, 416, 833, 1666, 3333, 6667]
        // LSM6DS3: the gyroscope stops at 1.66 kHz (code 1000) and both sensors share the rate;
        // LSM6DS3TR-C/DSL/DSM run both up to 6.66 kHz.
        let ds3Rates: [Double] = [12.5, 26, 52, 104, 208, 416, 833, 1660]
        let dslRates: [Double] = ds3Rates + [3330, 6660]
        func rates(_ list: [Double]) -> [SettingOption] {
            list.enumerated().map { SettingOption(value: $1, code: UInt8($0 + 1)) }
        }
        // Sensitivities in mg/LSB (accelerometer) and mdps/LSB (gyroscope), §4.1 "Mechanical characteristics".
        func range(_ value: Double, _ code: UInt8, milliPerLSB: Double) -> SettingOption {
            SettingOption(value: value, code: code, sensitivity: 1000 / milliPerLSB)
        }
        let accelerometer = [
            range(2, 0b00, milliPerLSB: 0.061), range(4, 0b10, milliPerLSB: 0.122),
            range(8, 0b11, milliPerLSB: 0.244), range(16, 0b01, milliPerLSB: 0.488),
        ]
        let gyroscope = [
            range(125, 0b001, milliPerLSB: 4.375), range(250, 0b000, milliPerLSB: 8.75),
            range(500, 0b010, milliPerLSB: 17.5), range(1000, 0b100, milliPerLSB: 35),
            range(2000, 0b110, milliPerLSB: 70),
        ]
        switch model {
        case .lsm6ds3:
            // LSM6DS3 §4.3: temperature sensitivity 16 LSB/°C; self-test Table 3: 90…1700 mg, 150…700 dps.
            return LSM6Settings(
                model: model, identity: 0x69, outputDataRates: rates(ds3Rates),
                accelerometerRanges: accelerometer, gyroscopeRanges: gyroscope, temperatureLSBPerDegree: 16,
                fifo: .pattern(unreadHighMask: 0x0F), accelerometerSelfTestLimits: 90...1700,
                gyroscopeSelfTestLimits: 150...700)
        case .lsm6dsl:
            // LSM6DSL §4.3: 256 LSB/°C; Table 3 self-test 90…1700 mg, 150…700 dps.
            return LSM6Settings(
                model: model, identity: 0x6A, outputDataRates: rates(dslRates),
                accelerometerRanges: accelerometer, gyroscopeRanges: gyroscope, temperatureLSBPerDegree: 256,
                fifo: .pattern(unreadHighMask: 0x07), accelerometerSelfTestLimits: 90...1700,
                gyroscopeSelfTestLimits: 150...700)
        case .lsm6dso:
            // LSM6DSO §4.3: 256 LSB/°C; Table 2 self-test 50…1700 mg, 150…700 dps.
            return LSM6Settings(
                model: model, identity: 0x6C, outputDataRates: rates(dsoRates),
                accelerometerRanges: accelerometer, gyroscopeRanges: gyroscope, temperatureLSBPerDegree: 256,
                fifo: .tagged, accelerometerSelfTestLimits: 50...1700, gyroscopeSelfTestLimits: 150...700)
        case .lsm6dso32:
            // LSM6DSO32 Table 2: FS_XL 00 = ±4 g, 10 = ±8, 11 = ±16, 01 = ±32 (0.122…0.976 mg/LSB).
            let dso32 = [
                range(4, 0b00, milliPerLSB: 0.122), range(8, 0b10, milliPerLSB: 0.244),
                range(16, 0b11, milliPerLSB: 0.488), range(32, 0b01, milliPerLSB: 0.976),
            ]
            return LSM6Settings(
                model: model, identity: 0x6C, outputDataRates: rates(dsoRates),
                accelerometerRanges: dso32, gyroscopeRanges: gyroscope, temperatureLSBPerDegree: 256,
                fifo: .tagged, accelerometerSelfTestLimits: 50...1700, gyroscopeSelfTestLimits: 150...700)
        }
    }
}
