import I2C

extension ChipInfo.Family {
    package static let qmc5883l = Self(rawValue: "QST QMC5883L")
}

/// Driver for the QST QMC5883L magnetometer (0x0D). It has no self-test.
///
/// Samples: X, Y, Z and the status byte in one read; OVL marks an overflow.
/// ``TableMagnetometer/isStillConfigured()`` reads control register 1 (0x09): 0x00 (standby)
/// after a reset.
package typealias QMC5883LMagnetometer = TableMagnetometer<QMC5883L>

/// The QMC5883L's table entry.
package enum QMC5883L: TableMagnetometerChip {
    /// QMC5883L datasheet §9.2 register map.
    enum Register {
        static let dataXL: UInt8 = 0x00  // X LSB … Z MSB at 0x05, status at 0x06
        static let control1: UInt8 = 0x09  // OSR 7:6, RNG 5:4, ODR 3:2, MODE 1:0
        static let control2: UInt8 = 0x0A  // SOFT_RST 7, ROL_PNT 6, INT_ENB 0
        static let setResetPeriod: UInt8 = 0x0B  // recommended value 0x01
        static let chipID: UInt8 = 0x0D  // 0xFF
        static let rate = RegisterField(control1, mask: 0b0000_1100)
        static let range = RegisterField(control1, mask: 0b0011_0000)
        static let mode = RegisterField(control1, mask: 0b0000_0011)
    }

    package static let entry = MagnetometerTableEntry(
        // §9.2.3 ODR 00 = 10 Hz … 11 = 200 Hz; RNG 00 = ±2 G (12000 LSB/G), 01 = ±8 G (3000 LSB/G).
        // Output: X, Y, Z (little-endian) and the status byte (OVL bit 1) in one 7-byte read from 0x00.
        settings: MagnetometerSettings(
            name: "QMC5883L", family: .qmc5883l, identityRegister: Register.chipID, identity: [0xFF],
            outputDataRates: [10, 50, 100, 200].enumerated().map { SettingOption(value: $1, code: UInt8($0)) },
            ranges: [SettingOption(value: 200, code: 0, sensitivity: 120), SettingOption(value: 800, code: 1, sensitivity: 30)],
            softReset: RegisterField(Register.control2, mask: 0x80), configurationRegister: Register.control1,
            outputRegister: Register.dataXL, outputCount: 7, overflow: { bytes, _ in bytes[6] & 0x02 != 0 }),
        // Configuration: SET/RESET period 0x01 (the recommended value), then OSR 512 (00), range,
        // rate and continuous mode (MODE = 01) in control register 1.
        registers: MagnetometerRegisterMap(
            rate: Register.rate, range: Register.range,
            fixed: [(RegisterField(Register.setResetPeriod, mask: 0xFF), 0x01), (Register.mode, 0b01)],
            writeOrder: [Register.setResetPeriod, Register.control1]),
        // 100 Hz, ±2 gauss (200 µT).
        defaultConfiguration: MagnetometerConfiguration(outputDataRate: 100, range: 200),
        address: I2CAddress(0x0D), selfTest: nil)
}
