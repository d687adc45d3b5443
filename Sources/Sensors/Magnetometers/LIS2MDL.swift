import I2C

extension ChipInfo.Family {
    package static let lis2mdl = Self(rawValue: "ST LIS2MDL")
}

/// Driver for the ST LIS2MDL magnetometer (0x1E).
///
/// Samples: OUTX_L … OUTZ_H (0x68…0x6D) in one read. ``TableMagnetometer/isStillConfigured()``
/// reads CFG_REG_A (0x60): 0x03 (idle) after a reset.
package typealias LIS2MDLMagnetometer = TableMagnetometer<LIS2MDL>

/// The LIS2MDL's table entry.
package enum LIS2MDL: TableMagnetometerChip {
    /// LIS2MDL datasheet §8 register map (auto-increment is always on, §6.1.1).
    enum Register {
        static let whoAmI: UInt8 = 0x4F  // 0x40
        static let cfgA: UInt8 = 0x60  // COMP_TEMP_EN 7, REBOOT 6, SOFT_RST 5, LP 4, ODR 3:2, MD 1:0
        static let cfgB: UInt8 = 0x61  // OFF_CANC 1, LPF 0
        static let cfgC: UInt8 = 0x62  // BDU 4, Self_test 1
        static let outXL: UInt8 = 0x68  // OUTX_L … OUTZ_H at 0x6D
        static let rate = RegisterField(cfgA, mask: 0b0000_1100)
    }

    /// Datasheet §"Self-test procedure": 100 Hz continuous with temperature compensation, offset
    /// cancellation, BDU; average 50 samples without and with Self_test (60 ms settling); each
    /// axis |difference| must be 15…500 LSB. Then resets and restores the configuration.
    static let selfTest = MagnetometerSelfTest(
        procedure: MagnetometerSelfTestProcedure(
            setUp: [(Register.cfgA, 0x8C), (Register.cfgB, 0x02), (Register.cfgC, 0x10)], settle: .milliseconds(20),
            count: 50, interval: .milliseconds(10), toggle: (enable: (Register.cfgC, 0x12), disable: (Register.cfgC, 0x10))),
        limits: Array(repeating: 15...500, count: 3), unit: "LSB")

    package static let entry = MagnetometerTableEntry(
        // CFG_REG_A ODR 00 = 10 Hz … 11 = 100 Hz; sensitivity 1.5 mgauss/LSB = 0.15 µT/LSB (Table 2).
        settings: MagnetometerSettings(
            name: "LIS2MDL", family: .lis2mdl, identityRegister: Register.whoAmI, identity: [0x40],
            outputDataRates: [10, 20, 50, 100].enumerated().map { SettingOption(value: $1, code: UInt8($0)) },
            ranges: [SettingOption(value: 4915.2, code: 0, sensitivity: 1 / 0.15)],
            softReset: RegisterField(Register.cfgA, mask: 0x20), configurationRegister: Register.cfgA,
            outputRegister: Register.outXL, outputCount: 6),
        // Configuration: temperature compensation + rate + continuous (CFG_REG_A), offset
        // cancellation (CFG_REG_B), BDU (CFG_REG_C).
        registers: MagnetometerRegisterMap(
            rate: Register.rate, range: nil,
            fixed: [(RegisterField(Register.cfgA, mask: 0xFF), 0x80), (RegisterField(Register.cfgB, mask: 0xFF), 0x02), (RegisterField(Register.cfgC, mask: 0xFF), 0x10)],
            writeOrder: [Register.cfgA, Register.cfgB, Register.cfgC]),
        // 100 Hz, the single ±49.152 gauss range (4915.2 µT).
        defaultConfiguration: MagnetometerConfiguration(outputDataRate: 100, range: 4915.2),
        address: I2CAddress(0x1E), selfTest: selfTest)
}

extension TableMagnetometer where Chip == LIS2MDL {
    /// |self-test on − off| per axis in counts, each within 15…500.
    package static func evaluateSelfTest(counts: SIMD3<Double>) -> SelfTestReport { evaluate(response: counts, LIS2MDL.selfTest) }
}
