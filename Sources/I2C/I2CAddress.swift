/// A 7-bit I2C target address (0x00–0x7F), printed the way `i2cdetect` prints it: `0x68`.
package struct I2CAddress: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    package let rawValue: UInt8

    /// Fails for values above 0x7F: 10-bit addressing is not supported.
    package init?(rawValue: UInt8) {
        guard rawValue <= 0x7F else { return nil }
        self.rawValue = rawValue
    }

    /// For literals in code: a value above 0x7F is masked to 7 bits.
    package init(_ value: UInt8) {
        self.rawValue = value & 0x7F
    }

    /// The addresses `i2cdetect` scans by default (0x08–0x77); the rest are reserved by the I2C
    /// specification (general call, CBUS, high-speed master codes, 10-bit prefixes).
    package static let scanRange: [I2CAddress] = (0x08...0x77).map { I2CAddress(UInt8($0)) }

    package static func < (lhs: I2CAddress, rhs: I2CAddress) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String {
        "0x" + (rawValue < 0x10 ? "0" : "") + String(rawValue, radix: 16, uppercase: true)
    }
}
