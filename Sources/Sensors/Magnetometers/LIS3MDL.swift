import I2C

extension ChipInfo.Family {
    package static let lis3mdl = Self(rawValue: "ST LIS3MDL")
}

/// Driver for the ST LIS3MDL magnetometer (0x1C or 0x1E), and for the magnetometer inside the
/// ST LSM9DS1 (0x1C or 0x1E; the Sense HAT's is at 0x1C).
///
/// The LSM9DS1's magnetometer has the LIS3MDL's register map and identity (WHO_AM_I 0x0F =
/// 0x3D), so no register tells them apart and identification names it "LIS3MDL"; a board file
/// (e.g. `raspberry-pi-4b-sense-hat`) says which package it is. The Linux kernel serves both
/// with one settings entry (drivers/iio/magnetometer/st_magn_core.c: `.wai = 0x3d`,
/// LIS3MDL_MAGN_DEV_NAME and LSM9DS1_MAGN_DEV_NAME, gains 146/292/438/584 µgauss/LSB). The
/// LSM9DS1 datasheet (DocID025715 Table 3) gives 0.14/0.29/0.43/0.58 mgauss/LSB: the LIS3MDL's
/// 6842/3421/2281/1711 LSB/gauss (0.146/0.292/0.438/0.584 mgauss/LSB) rounded to two
/// decimals. Using the datasheet's rounded 0.14 would read 4 % low on the ±4 gauss range; the
/// unrounded LIS3MDL values agree with both datasheets and with the kernel, so they serve both.
///
/// Samples: OUT_X_L … OUT_Z_H (0x28…0x2D) in one auto-incrementing read.
/// ``TableMagnetometer/isStillConfigured()`` reads CTRL_REG1 (0x20): 0x10 after a reset, OM | DO
/// after ``TableMagnetometer/configure(_:)``.
package typealias LIS3MDLMagnetometer = TableMagnetometer<LIS3MDL>

/// The LIS3MDL's table entry.
package enum LIS3MDL: TableMagnetometerChip {
    /// LIS3MDL datasheet §7 register map.
    enum Register {
        static let whoAmI: UInt8 = 0x0F  // 0x3D
        static let ctrl1: UInt8 = 0x20  // TEMP_EN 7, OM 6:5, DO 4:2, FAST_ODR 1, ST 0
        static let ctrl2: UInt8 = 0x21  // FS 6:5, REBOOT 3, SOFT_RST 2
        static let ctrl3: UInt8 = 0x22  // MD 1:0 (00 continuous, 11 power-down)
        static let ctrl4: UInt8 = 0x23  // OMZ 3:2
        static let ctrl5: UInt8 = 0x24  // BDU 6
        static let outXL: UInt8 = 0x28
        /// §6.1.1: the sub-address MSB asks for auto-increment on multi-byte reads.
        static let autoIncrement: UInt8 = 0x80
        static let rate = RegisterField(ctrl1, mask: 0b0001_1100)
        static let xyMode = RegisterField(ctrl1, mask: 0b0110_0000)
        static let range = RegisterField(ctrl2, mask: 0b0110_0000)
        static let zMode = RegisterField(ctrl4, mask: 0b0000_1100)
    }

    /// AN4602 §"Self-test" with datasheet Table 2 limits at ±12 gauss: 80 Hz, ±12 gauss,
    /// continuous; average 5 samples without and with ST (60 ms settling); |difference| must be
    /// 1…3 gauss on X and Y, 0.1…1 gauss on Z. Then resets and restores the configuration.
    static let selfTest = MagnetometerSelfTest(
        // 80 Hz, ±12 gauss, continuous; ST on and off in CTRL_REG1. At ±12 gauss: 2281 LSB/gauss.
        procedure: MagnetometerSelfTestProcedure(
            setUp: [(Register.ctrl1, 0x1C), (Register.ctrl2, 0x40), (Register.ctrl3, 0x00)],
            count: 5, interval: .milliseconds(20), toggle: (enable: (Register.ctrl1, 0x1D), disable: (Register.ctrl1, 0x1C))),
        countsPerUnit: 2281, limits: [1...3, 1...3, 0.1...1], unit: "gauss")

    package static let entry = MagnetometerTableEntry(
        // Table 3 (CTRL_REG1 DO) and Table 2 (sensitivity 6842/3421/2281/1711 LSB/gauss; 1 gauss = 100 µT).
        settings: MagnetometerSettings(
            name: "LIS3MDL", family: .lis3mdl, identityRegister: Register.whoAmI, identity: [0x3D],
            outputDataRates: [0.625, 1.25, 2.5, 5, 10, 20, 40, 80].enumerated().map { SettingOption(value: $1, code: UInt8($0)) },
            ranges: [
                SettingOption(value: 400, code: 0, sensitivity: 68.42), SettingOption(value: 800, code: 1, sensitivity: 34.21),
                SettingOption(value: 1200, code: 2, sensitivity: 22.81), SettingOption(value: 1600, code: 3, sensitivity: 17.11),
            ],
            softReset: RegisterField(Register.ctrl2, mask: 0x04), configurationRegister: Register.ctrl1,
            outputRegister: Register.outXL | Register.autoIncrement, outputCount: 6),
        // Configuration: ultra-high-performance XY (OM = 11) and Z (OMZ = 11), rate, range; BDU
        // (CTRL_REG5 = 0x40); continuous mode (CTRL_REG3 = 0) last.
        registers: MagnetometerRegisterMap(
            rate: Register.rate, range: Register.range,
            fixed: [(Register.xyMode, 0b11), (Register.zMode, 0b11), (RegisterField(Register.ctrl5, mask: 0xFF), 0x40), (RegisterField(Register.ctrl3, mask: 0xFF), 0x00)],
            writeOrder: [Register.ctrl1, Register.ctrl2, Register.ctrl4, Register.ctrl5, Register.ctrl3]),
        // 80 Hz, ±4 gauss (400 µT).
        defaultConfiguration: MagnetometerConfiguration(outputDataRate: 80, range: 400),
        address: I2CAddress(0x1C), selfTest: selfTest)
}

extension TableMagnetometer where Chip == LIS3MDL {
    /// Pass/fail on the self-test response in gauss (|on − off|, per axis).
    package static func evaluateSelfTest(responseGauss: SIMD3<Double>) -> SelfTestReport { evaluate(response: responseGauss, LIS3MDL.selfTest) }
}
