/// The ST LSM6 chips this driver knows. Chips sharing a WHO_AM_I value are one model.
package enum LSM6Model: String, Sendable, CaseIterable {
    /// WHO_AM_I 0x69.
    case lsm6ds3 = "LSM6DS3"
    /// WHO_AM_I 0x6A: register-compatible, told apart by no register.
    case lsm6dsl = "LSM6DS3TR-C/LSM6DSL/LSM6DSM"
    /// WHO_AM_I 0x6C.
    case lsm6dso = "LSM6DSO/LSM6DSOX"
    /// WHO_AM_I 0x6C as well, with ±4…32 g ranges: only the caller (board file) can say so.
    case lsm6dso32 = "LSM6DSO32"
    /// WHO_AM_I 0x6B: the LSM6DSO's register map with a ±4000 dps gyroscope range; the ISM330DHCX
    /// (industrial grade) answers the same and is the same to this driver.
    case lsm6dsr = "LSM6DSR/ISM330DHCX"
    /// WHO_AM_I 0x70: the LSM6DSV16X, and the LSM6DSV, which answers the same and has the same
    /// register map (Linux st_lsm6dsx_core.c serves both with one entry, `.wai = 0x70`); no
    /// register tells them apart. Its map moved: ranges in CTRL6/CTRL8, FIFO status at 0x1B.
    case lsm6dsv16x = "LSM6DSV16X/LSM6DSV"
}

/// The ST LSM6 chips: one register map (``LSM6Register``), a settings entry per WHO_AM_I.
extension ChipInfo.Family {
    package static let lsm6 = Self(rawValue: "ST LSM6")
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


    /// ODR_XL 7:4 + FS_XL 3:2 in CTRL1_XL; ODR_G 7:4 + FS_G:FS_125:FS_4000 3:0 as one code in
    /// CTRL2_G (FS_4000 on the LSM6DSR/ISM330DHCX only); SW_RESET, BDU, IF_INC in CTRL3_C;
    /// ST_G 3:2, ST_XL 1:0 in CTRL5_C. A sample: 14 bytes from OUT_TEMP_L, gyroscope at 2,
    /// accelerometer at 8.
    static let st = STRegisterLayout(
        whoAmI: whoAmI, control: ctrl3C, accelerometerControl: ctrl1XL, gyroscopeControl: ctrl2G,
        rateMask: 0b1111_0000, rangeMasks: (0b0000_1100, 0b0000_1111), selfTestRegister: ctrl5C,
        sample: (outTempL, length: 14, gyroscope: 2, accelerometer: 8))

    /// LSM6DSV16X (ST DS13510, register mapping and register description chapters; Linux
    /// st_lsm6dsx_core.c LSM6DSV entry, after 6.1): CTRL1 (10h) ODR_XL bits 3:0 and CTRL2 (11h)
    /// ODR_G bits 3:0 (OP_MODE bits 6:4 left 000, high performance); CTRL3 (12h) as CTRL3_C;
    /// CTRL6 (15h) FS_G bits 3:0; CTRL8 (17h) FS_XL bits 1:0; CTRL10 (19h) ST_G bits 3:2,
    /// ST_XL bits 1:0. The sample burst from OUT_TEMP_L (20h) is laid out as the LSM6DSO's.
    static let dsvCTRL6: UInt8 = 0x15
    static let dsvCTRL8: UInt8 = 0x17
    static let dsvCTRL10: UInt8 = 0x19
    static let dsv = STRegisterLayout(
        whoAmI: whoAmI, control: ctrl3C, accelerometerControl: ctrl1XL, gyroscopeControl: ctrl2G,
        rateMask: 0b0000_1111, rangeMasks: (0b0000_0011, 0b0000_1111), rangeRegisters: (dsvCTRL8, dsvCTRL6),
        selfTestRegister: dsvCTRL10, sample: (outTempL, length: 14, gyroscope: 2, accelerometer: 8))
}

/// Where a tagged FIFO's status and timestamp switch sit.
struct LSM6TaggedFIFORegisters: Sendable {
    /// FIFO_STATUS1 (DIFF_FIFO 7:0), then FIFO_STATUS2 (FIFO_OVR_IA bit 6, DIFF_FIFO high bits).
    var status: UInt8
    var levelHighMask: UInt8
    /// TIMESTAMP_EN: its register and bit.
    var timestampEnable: (register: UInt8, bit: UInt8)
    /// Seconds per TIMESTAMP count.
    var timestampLSB: Double
    /// The 32-bit counter's wrap: 2³² counts (29.8 h at 25 µs, 25.9 h at 21.75 µs).
    var timestampWrap: Double { 4_294_967_296.0 * timestampLSB }

    /// LSM6DSO/DSOX/DSR (DS12814 §9: FIFO_STATUS1/2 3Ah/3Bh, DIFF_FIFO 9:0; CTRL10_C 19h
    /// TIMESTAMP_EN bit 5; kernel ts_settings timer_en 0x19 BIT(5)); 25 µs per count (DS12814
    /// TIMESTAMP0–3; kernel ST_LSM6DSX_TS_SENSITIVITY 25000 ns).
    static let dso = Self(status: 0x3A, levelHighMask: 0x03, timestampEnable: (0x19, 0x20), timestampLSB: 25e-6)
    /// LSM6DSV16X (DS13510: FIFO_STATUS1/2 1Bh/1Ch, DIFF_FIFO 8:0; FUNCTIONS_ENABLE 50h
    /// TIMESTAMP_EN bit 6; kernel st_lsm6dsx_core.c LSM6DSV: fifo_diff 0x1b GENMASK(8, 0),
    /// timer_en 0x50 BIT(6)). FIFO_CTRL3/4 (09h/0Ah) and FIFO_DATA_OUT_TAG (78h) as the LSM6DSO's.
    /// 21.75 µs per count (DS13510 TIMESTAMP0–3; ST's lsm6dsv16x_reg.c lsm6dsv16x_from_lsb_to_nsec
    /// multiplies by 21750 ns; the kernel applies its 25 µs to every tagged chip, this one too).
    static let dsv = Self(status: 0x1B, levelHighMask: 0x01, timestampEnable: (0x50, 0x40), timestampLSB: 21.75e-6)
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
    case tagged(LSM6TaggedFIFORegisters)

    /// Bytes of one untagged frame: six 16-bit words, gyroscope x, y, z then accelerometer x, y, z.
    static let patternFrameBytes = 12
    /// Bytes of one tagged word: the tag, then x, y, z as 16-bit words.
    static let taggedWordBytes = 7
}

struct LSM6Settings: STIMUSettings {
    /// WHO_AM_I (0x0F) value of each datasheet.
    var identity: UInt8
    /// Where the configuration, sample and self-test registers sit.
    var layout: STRegisterLayout = LSM6Register.st
    /// The default output data rate (Hz): 208, or the nearest the chip has (LSM6DSV16X: 240).
    var defaultRate: Double = 208
    /// Output data rate (Hz) → ODR code, used for both sensors (and for the FIFO); accelerometer
    /// full scale (g) → FS_XL, sensitivity LSB/g; gyroscope full scale (°/s) → FS_G:FS_125,
    /// sensitivity LSB/(°/s).
    var tables: IMUTables
    /// °C = raw / sensitivity + 25.
    var temperatureLSBPerDegree: Double
    var fifo: LSM6FIFOLayout
    /// The datasheet procedure (LSM6DSO §"Accelerometer/Gyroscope self-test procedure", same for
    /// DS3/DSL): accelerometer at 52 Hz ±4 g with ST_XL = 01 (positive), gyroscope at 208 Hz
    /// ±2000 °/s with ST_G = 01 (positive, CTRL5_C bits 3:2); 100 ms settling, 5 samples 20 ms
    /// apart after one discarded. Limits: accelerometer in mg per model, gyroscope 150…700 °/s.
    /// The LSM6DSV16X runs them at its own rates, 60 and 240 Hz (``selfTestRates``), ST_XL and
    /// ST_G in CTRL10 at the same bits with the same positive code 01.
    var selfTest: STSelfTestPlan? {
        guard let accelerometerSelfTestLimits else { return nil }
        return STSelfTestPlan(
            accelerometer: (fullScale: 4, rate: selfTestRates.accelerometer, selfTest: 0b01, settle: .milliseconds(100),
                            interval: .milliseconds(20)),
            gyroscope: (fullScale: 2000, rate: selfTestRates.gyroscope, selfTest: 0b0100, settle: .milliseconds(100),
                        interval: .milliseconds(20)),
            limits: (accelerometerSelfTestLimits, 150...700))
    }
    /// The accelerometer's and the gyroscope's rate (Hz) during the self-test.
    var selfTestRates: (accelerometer: Double, gyroscope: Double) = (52, 208)
    /// Self-test accelerometer response limits in mg (absolute value); nil: no self-test run.
    var accelerometerSelfTestLimits: ClosedRange<Double>?
    /// The pedometer among the embedded functions (LSM6DSO/DSOX/DSO32, ``LSM6EmbeddedFunctions``);
    /// nil where this driver does not run one (the LSM6DS3/DSL have a pedometer at other
    /// addresses, the LSM6DSR one not checked here).
    var stepCounter: StepCounterFeature? = nil

    /// The LSM6DSO's pedometer (DS12140 §11, embedded functions register description:
    /// STEP_COUNTER_L/H 62h/63h, 16 bits; §12, embedded advanced features page 1:
    /// PEDO_DEB_STEPS_CONF 184h, DEB_STEP default 0Ah = 10 steps; AN5192, pedometer section: it
    /// runs at 26 Hz, so the accelerometer at 26 Hz or faster).
    static let dsoStepCounter = StepCounterFeature(
        wrap: 1 << 16, minimumRate: 26, debounceSteps: 10,
        source: "LSM6DSO DS12140 §11 STEP_COUNTER_L/H (62h/63h), §12 PEDO_DEB_STEPS_CONF (184h, default 10 steps); AN5192 pedometer section (26 Hz)")

    /// ODR codes 0001…1010 (CTRL1_XL / CTRL2_G tables in each datasheet §9.14–9.15). LSM6DS3: the
    /// gyroscope stops at 1.66 kHz (code 1000) and both sensors share the rate; LSM6DS3TR-C/DSL/DSM
    /// run both up to 6.66 kHz.
    private static let ds3Rates = rates([12.5, 26, 52, 104, 208, 416, 833, 1660])
    private static let dslRates = rates([12.5, 26, 52, 104, 208, 416, 833, 1660, 3330, 6660])
    private static let dsoRates = rates([12.5, 26, 52, 104, 208, 416, 833, 1666, 3333, 6667])
    /// FS_XL 00 = ±2 g, 10 = ±4, 11 = ±8, 01 = ±16; sensitivities in mg/LSB (§4.1 "Mechanical
    /// characteristics"). The LSM6DSO32 (Table 2) has the same codes for ±4…32 g at 0.122…0.976 mg/LSB.
    private static let accelerometer = ranges([2, 4, 8, 16], [0b00, 0b10, 0b11, 0b01], milliPerLSB: [0.061, 0.122, 0.244, 0.488])
    private static let dso32Accelerometer = ranges([4, 8, 16, 32], [0b00, 0b10, 0b11, 0b01], milliPerLSB: [0.122, 0.244, 0.488, 0.976])
    /// FS_G:FS_125:FS_4000 and sensitivities in mdps/LSB (§4.1). The LSM6DSR and ISM330DHCX add
    /// ±4000 dps with FS_4000 (bit 0) at 140 mdps/LSB (DS12412 Table 2, §9.16; DS13012 Table 3).
    private static let gyroscope = ranges(
        [125, 250, 500, 1000, 2000], [0b0010, 0b0000, 0b0100, 0b1000, 0b1100], milliPerLSB: [4.375, 8.75, 17.5, 35, 70])
    private static let dsrGyroscope = gyroscope + ranges([4000], [0b0001], milliPerLSB: [140])
    /// LSM6DSV16X (DS13510 CTRL1/CTRL2 ODR tables; Linux st_lsm6dsx_core.c LSM6DSV odr_avl codes
    /// 2…9 for 7.5…960 Hz): 0010 = 7.5 Hz doubling to 1100 = 7.68 kHz in high-performance mode
    /// (0001, 1.875 Hz, is low-power only). FS_XL 00/01/10/11 = ±2/4/8/16 g at 0.061…0.488
    /// mg/LSB; FS_G 0000…0100 = ±125…2000 dps at 4.375…70 mdps/LSB, 1100 = ±4000 dps at 140
    /// (DS13510 Table 2 "Mechanical characteristics"; kernel fs_table 0x17 GENMASK(1, 0) and 0x15
    /// GENMASK(3, 0), codes 1…4 for 250…2000 dps).
    private static let dsvRates = (0..<11).map { SettingOption(value: 7.5 * Double(1 << $0), code: UInt8($0 + 2)) }
    private static let dsvAccelerometer = ranges([2, 4, 8, 16], [0, 1, 2, 3], milliPerLSB: [0.061, 0.122, 0.244, 0.488])
    private static let dsvGyroscope = ranges(
        [125, 250, 500, 1000, 2000, 4000], [0, 1, 2, 3, 4, 0b1100], milliPerLSB: [4.375, 8.75, 17.5, 35, 70, 140])

    private static func rates(_ list: [Double]) -> [SettingOption] {
        list.enumerated().map { SettingOption(value: $1, code: UInt8($0 + 1)) }
    }

    private static func ranges(_ values: [Double], _ codes: [UInt8], milliPerLSB: [Double]) -> [SettingOption] {
        (0..<values.count).map { SettingOption(value: values[$0], code: codes[$0], sensitivity: 1000 / milliPerLSB[$0]) }
    }

    private init(
        identity: UInt8, rates: [SettingOption], accelerometerRanges: [SettingOption] = LSM6Settings.accelerometer,
        gyroscopeRanges: [SettingOption] = LSM6Settings.gyroscope,
        temperatureLSBPerDegree: Double, fifo: LSM6FIFOLayout, accelerometerSelfTestLimits: ClosedRange<Double>?,
        stepCounter: StepCounterFeature? = nil
    ) {
        self.identity = identity
        tables = IMUTables(outputDataRates: rates, accelerometerRanges: accelerometerRanges, gyroscopeRanges: gyroscopeRanges)
        self.temperatureLSBPerDegree = temperatureLSBPerDegree
        self.fifo = fifo
        self.accelerometerSelfTestLimits = accelerometerSelfTestLimits
        self.stepCounter = stepCounter
    }

    static func settings(for model: LSM6Model) -> LSM6Settings {
        switch model {
        case .lsm6ds3:
            // LSM6DS3 §4.3: temperature sensitivity 16 LSB/°C; self-test Table 3: 90…1700 mg, 150…700 dps.
            LSM6Settings(identity: 0x69, rates: ds3Rates, temperatureLSBPerDegree: 16, fifo: .pattern(unreadHighMask: 0x0F),
                         accelerometerSelfTestLimits: 90...1700)
        case .lsm6dsl:
            // LSM6DSL §4.3: 256 LSB/°C; Table 3 self-test 90…1700 mg, 150…700 dps.
            LSM6Settings(identity: 0x6A, rates: dslRates, temperatureLSBPerDegree: 256, fifo: .pattern(unreadHighMask: 0x07),
                         accelerometerSelfTestLimits: 90...1700)
        case .lsm6dso:
            // LSM6DSO §4.3: 256 LSB/°C; Table 2 self-test 50…1700 mg, 150…700 dps.
            LSM6Settings(identity: 0x6C, rates: dsoRates, temperatureLSBPerDegree: 256, fifo: .tagged(.dso),
                         accelerometerSelfTestLimits: 50...1700, stepCounter: dsoStepCounter)
        case .lsm6dso32:
            // LSM6DSO32: as the LSM6DSO, with ±4…32 g ranges.
            // DS13238: the LSM6DSO's embedded functions, pedometer included.
            LSM6Settings(identity: 0x6C, rates: dsoRates, accelerometerRanges: dso32Accelerometer, temperatureLSBPerDegree: 256,
                         fifo: .tagged(.dso), accelerometerSelfTestLimits: 50...1700, stepCounter: dsoStepCounter)
        case .lsm6dsr:
            // 256 LSB/°C and the self-test procedure as the LSM6DSO's. Self-test limits: the
            // LSM6DSO's (DS12140 Table 2: 50…1700 mg, 150…700 dps at ±2000 dps), applied until
            // they are checked against DS12412 Table 2 (LSM6DSR) and DS13012 Table 3 (ISM330DHCX),
            // which were not at hand when this entry was written.
            LSM6Settings(identity: 0x6B, rates: dsoRates, gyroscopeRanges: dsrGyroscope, temperatureLSBPerDegree: 256,
                         fifo: .tagged(.dso), accelerometerSelfTestLimits: 50...1700)
        case .lsm6dsv16x: dsv16x
        }
    }

    /// DS13510: 256 LSB/°C (temperature sensor characteristics), the tagged FIFO at its own
    /// status register. Self-test as ST's own procedure for the chip does it (ST's
    /// lsm6dsv16x_self_test.c, STMems_Standard_C_drivers; DS13510's procedure and Table 2 were not
    /// reachable here): accelerometer at 60 Hz ±4 g, gyroscope at 240 Hz ±2000 dps, 100 ms
    /// settling, 5 samples averaged after one discarded; limits 50…1700 mg and 150…700 dps
    /// (MIN/MAX_ST_LIMIT_mg, _mdps); CTRL10 ST_XL[1:0] and ST_G[3:2], 01 positive (ST's
    /// lsm6dsv16x_reg.h: XL_ST_POSITIVE / GY_ST_POSITIVE = 1, NEGATIVE = 2). Its pedometer is not driven.
    private static var dsv16x: LSM6Settings {
        var settings = LSM6Settings(
            identity: 0x70, rates: dsvRates, accelerometerRanges: dsvAccelerometer, gyroscopeRanges: dsvGyroscope,
            temperatureLSBPerDegree: 256, fifo: .tagged(.dsv), accelerometerSelfTestLimits: 50...1700)
        settings.layout = LSM6Register.dsv
        settings.selfTestRates = (60, 240)
        settings.defaultRate = 240
        return settings
    }
}
