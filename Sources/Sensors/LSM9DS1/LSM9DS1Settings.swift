/// The ST LSM9DS1's accelerometer and gyroscope (its magnetometer answers as a LIS3MDL).
extension ChipInfo.Family {
    package static let lsm9ds1 = Self(rawValue: "ST LSM9DS1")
}

/// Register map of the LSM9DS1 accelerometer and gyroscope (datasheet DocID025715 Rev 3, §6
/// "Register mapping" and §7 "Accelerometer and gyroscope register description"; each register
/// is cited by its datasheet name and address).
///
/// Where the Linux kernel serves the chip (drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c, the
/// entry with `.wai = 0x68` and `ST_LSM9DS1_ID`), its fields agree: reset/BDU/BOOT in 0x22,
/// gyroscope output at 0x18, accelerometer output at 0x28, ODR and FS fields in 0x10 and 0x20 at
/// GENMASK(7, 5) and GENMASK(4, 3).
enum LSM9DS1Register {
    static let whoAmI: UInt8 = 0x0F        // WHO_AM_I: 0x68
    static let ctrlReg1G: UInt8 = 0x10     // CTRL_REG1_G: ODR_G 7:5, FS_G 4:3, BW_G 1:0
    static let outTempL: UInt8 = 0x15      // OUT_TEMP_L/H; STATUS_REG 0x17; OUT_X_L_G…OUT_Z_H_G 0x18–0x1D 
    static let outXLG: UInt8 = 0x18
    static let ctrlReg6XL: UInt8 = 0x20    // CTRL_REG6_XL: ODR_XL 7:5, FS_XL 4:3, BW_SCAL_ODR 2, BW_XL 1:0
    static let ctrlReg8: UInt8 = 0x22      // CTRL_REG8: BOOT 7, BDU 6, IF_ADD_INC 2, SW_RESET 0; reset value 0x04
    static let ctrlReg9: UInt8 = 0x23      // CTRL_REG9: FIFO_EN 1, STOP_ON_FTH 0
    static let ctrlReg10: UInt8 = 0x24     // CTRL_REG10: ST_G 2, ST_XL 0
    static let outXLXL: UInt8 = 0x28       // OUT_X_L_XL…OUT_Z_H_XL 0x28–0x2D
    static let fifoCtrl: UInt8 = 0x2E      // FIFO_CTRL: FMODE 7:5, FTH 4:0
    static let fifoSrc: UInt8 = 0x2F       // FIFO_SRC: FTH 7, OVRN 6, FSS 5:0 (unread levels)

    static let fifoEnable: UInt8 = 0x02
    static let gyroscopeSelfTest: UInt8 = 0x04
    static let accelerometerSelfTest: UInt8 = 0x01
    /// FMODE (§3.5 "FIFO", FIFO_CTRL (2Eh)): 000 bypass (empties the FIFO), 110 continuous (oldest overwritten).
    static let fifoBypass: UInt8 = 0b000 << 5
    static let fifoContinuous: UInt8 = 0b110 << 5
    static let fifoOverrun: UInt8 = 0x40
    static let fifoUnreadMask: UInt8 = 0x3F

    /// ODR_XL 7:5 + FS_XL 4:3 in CTRL_REG6_XL, ODR_G 7:5 + FS_G 4:3 in CTRL_REG1_G (ODR_XL gets
    /// the same code: it only matters with the gyroscope off); SW_RESET, BDU, IF_ADD_INC in
    /// CTRL_REG8; ST_G (bit 2), ST_XL (bit 0) in CTRL_REG10. A sample: the burst OUT_TEMP_L
    /// (0x15) … OUT_Z_H_XL (0x2D): temperature at 0, STATUS_REG at 2, gyroscope at 3…8, the
    /// control registers 0x1E…0x27 (read, ignored), accelerometer at 19…24; within the SMBus
    /// 32-byte block limit, so one transaction on every adapter.
    static let st = STRegisterLayout(
        whoAmI: whoAmI, control: ctrlReg8, accelerometerControl: ctrlReg6XL, gyroscopeControl: ctrlReg1G,
        rateMask: 0b1110_0000, rangeMasks: (0b0001_1000, 0b0001_1000), selfTestRegister: ctrlReg10,
        sample: (outTempL, length: 25, gyroscope: 3, accelerometer: 19))
}

/// The LSM9DS1's tables, in the shape the other ST drivers use.
struct LSM9DS1Settings: STIMUSettings {
    /// WHO_AM_I (0x0F) of the accelerometer and gyroscope (WHO_AM_I (0Fh); kernel `.wai = 0x68`).
    var identity: UInt8 = 0x68
    /// Gyroscope ODR_G codes 001…110 (CTRL_REG1_G (10h) ODR_G table; kernel 14900…952000 mHz). With the
    /// gyroscope on, the accelerometer runs at the gyroscope's rate (§4 "Operating modes":
    /// with both sensors on, CTRL_REG1_G sets the rate), so these are the rates of both. FS_XL 00/10/11/01 = ±2/4/8/16 g at
    /// 0.061/0.122/0.244/0.732 mg/LSB and FS_G 00/01/11 = ±245/500/2000 °/s at 8.75/17.5/70
    /// mdps/LSB (§2.1 Table 3 "Sensor characteristics"; kernel fs_avl 61/122/244/732 µg and 8750/17500/70000 µdps, the
    /// same codes). FS_G 10 is "not available".
    var tables = IMUTables(
        outputDataRates: [14.9, 59.5, 119, 238, 476, 952].enumerated().map { SettingOption(value: $1, code: UInt8($0 + 1)) },
        accelerometerRanges: [
            SettingOption(value: 2, code: 0b00, sensitivity: 1000 / 0.061), SettingOption(value: 4, code: 0b10, sensitivity: 1000 / 0.122),
            SettingOption(value: 8, code: 0b11, sensitivity: 1000 / 0.244), SettingOption(value: 16, code: 0b01, sensitivity: 1000 / 0.732),
        ],
        gyroscopeRanges: [
            SettingOption(value: 245, code: 0b00, sensitivity: 1000 / 8.75), SettingOption(value: 500, code: 0b01, sensitivity: 1000 / 17.5),
            SettingOption(value: 2000, code: 0b11, sensitivity: 1000 / 70),
        ])
    /// Temperature sensor characteristics (§2.2): output change 16 LSB/°C, 0 LSB at 25 °C.
    var temperatureLSBPerDegree = 16.0
    /// ST's procedure for this chip (lsm9ds1_self_test.c in STMems_Standard_C_drivers; ST_XL
    /// bit 0 and ST_G bit 2 in CTRL_REG10): accelerometer alone at 50 Hz ±2 g, 200 ms settling,
    /// samples 20 ms apart; gyroscope at 238 Hz ±2000 °/s, 800 ms settling, samples 5 ms apart.
    /// Output change limits from the same file: 70…1500 mg, 200…800 dps. The accelerometer runs
    /// alone, at the accelerometer-only ODR_XL codes 001…110 (CTRL_REG6_XL (20h) ODR_XL table):
    /// 10, 50, 119, 238, 476, 952 Hz.
    var selfTest: STSelfTestPlan? = STSelfTestPlan(
        accelerometer: (
            fullScale: 2, rate: 50, selfTest: LSM9DS1Register.accelerometerSelfTest, settle: .milliseconds(200), interval: .milliseconds(20)),
        gyroscope: (
            fullScale: 2000, rate: 238, selfTest: LSM9DS1Register.gyroscopeSelfTest, settle: .milliseconds(800), interval: .milliseconds(5)),
        limits: (70...1500, 200...800),
        accelerometerOnlyRates: [10.0, 50, 119, 238, 476, 952].enumerated().map { SettingOption(value: $1, code: UInt8($0 + 1)) })
    /// The driver looks the rate and ranges up before it rejects a low-pass bandwidth.
    var looksUpTablesFirst: Bool { true }
    /// FIFO depth in levels (§3.5: 32 levels, each a gyroscope and an accelerometer set; kernel
    /// `max_fifo_size = 32`).
    var fifoDepth = 32
}
