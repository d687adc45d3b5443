import I2C

extension ChipInfo.Family {
    package static let hmc5883l = Self(rawValue: "Honeywell HMC5883L")
}

/// Driver for the Honeywell HMC5883L magnetometer (0x1E). It has no software reset.
///
/// Data output X, Z, Y (big-endian, 0x03…0x08) read in one burst and returned in x, y, z
/// order; ``TableMagnetometer/isStillConfigured()`` reads configuration register A (0x00): 0x10
/// at power-on, 0x60 (MA = 8 samples) | DO << 2 after ``TableMagnetometer/configure(_:)``.
package typealias HMC5883LMagnetometer = TableMagnetometer<HMC5883L>

/// The HMC5883L's table entry.
package enum HMC5883L: TableMagnetometerChip {
    /// HMC5883L datasheet Table 2 register list.
    enum Register {
        static let configA: UInt8 = 0x00  // MA 6:5, DO 4:2, MS 1:0
        static let configB: UInt8 = 0x01  // GN 7:5
        static let mode: UInt8 = 0x02  // MD 1:0 (00 continuous)
        static let dataXMSB: UInt8 = 0x03  // X MSB, X LSB, Z MSB, Z LSB, Y MSB, Y LSB
        static let identificationA: UInt8 = 0x0A  // 'H', '4', '3'
        static let rate = RegisterField(configA, mask: 0b0001_1100)
        static let averaging = RegisterField(configA, mask: 0b0110_0000)
        static let gain = RegisterField(configB, mask: 0b1110_0000)
    }

    /// Datasheet "Self Test Operation": CRA 0x71 (8 samples, 15 Hz, positive bias), CRB 0xA0
    /// (gain 5, 390 LSB/gauss), continuous mode; the first sample is discarded; each axis of the
    /// next (averaged over 5) must read 243…575 counts. Then restores the configuration.
    static let selfTest = MagnetometerSelfTest(
        procedure: MagnetometerSelfTestProcedure(
            setUp: [(Register.configA, 0x71), (Register.configB, 0xA0), (Register.mode, 0x00)], count: 5, interval: .milliseconds(67)),
        limits: Array(repeating: 243...575, count: 3), unit: "LSB")

    package static let entry = MagnetometerTableEntry(
        // Table 5 (DO: 0.75…75 Hz) and Table 9 (GN: ±0.88…8.1 gauss, 1370…230 LSB/gauss). Data
        // output X, Z, Y (big-endian, 0x03…0x08); Table 3: valid output is −2048…2047, and an axis
        // that overflowed (or whose ADC saturated) reads −4096.
        settings: MagnetometerSettings(
            name: "HMC5883L", family: .hmc5883l, identityRegister: Register.identificationA, identity: [0x48, 0x34, 0x33],
            outputDataRates: [0.75, 1.5, 3, 7.5, 15, 30, 75].enumerated().map { SettingOption(value: $1, code: UInt8($0)) },
            ranges: zip([88.0, 130, 190, 250, 400, 470, 560, 810], [1370.0, 1090, 820, 660, 440, 390, 330, 230])
                .enumerated().map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1 / 100) },
            softReset: nil, configurationRegister: Register.configA,
            outputRegister: Register.dataXMSB, outputCount: 6, axes: AxisLayout(offsets: [0, 4, 2], bigEndian: true),
            overflow: { _, counts in (0..<3).contains { counts[$0] == -4096 || counts[$0] < -2048 || counts[$0] > 2047 } }),
        // Configuration: 8-sample averaging (MA = 11), rate, normal measurement; gain; continuous mode.
        registers: MagnetometerRegisterMap(
            rate: Register.rate, range: Register.gain, fixed: [(Register.averaging, 0b11), (RegisterField(Register.mode, mask: 0xFF), 0x00)],
            writeOrder: [Register.configA, Register.configB, Register.mode]),
        // 75 Hz, ±1.3 gauss (130 µT), the power-on gain.
        defaultConfiguration: MagnetometerConfiguration(outputDataRate: 75, range: 130),
        address: I2CAddress(0x1E), selfTest: selfTest)
}

extension TableMagnetometer where Chip == HMC5883L {
    /// Positive-bias counts at gain 5: each axis within 243…575.
    package static func evaluateSelfTest(counts: SIMD3<Double>) -> SelfTestReport { evaluate(response: counts, HMC5883L.selfTest) }
}
