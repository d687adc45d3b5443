import CI2C

/// What an adapter can do, as reported by the kernel's `I2C_FUNCS` ioctl (`linux/i2c.h`).
package struct I2CFunctionality: OptionSet, Sendable, CustomStringConvertible {
    package let rawValue: UInt

    package init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    private init(_ flag: Int32) {
        self.rawValue = UInt(flag)
    }

    /// Plain I2C messages (`I2C_RDWR`), including combined write-then-read transfers.
    package static let i2c = Self(I2C_FUNC_I2C)
    /// SMBus quick command: the address and R/W bit, no data.
    package static let smbusQuick = Self(I2C_FUNC_SMBUS_QUICK)
    /// SMBus receive byte (no register).
    package static let smbusReadByte = Self(I2C_FUNC_SMBUS_READ_BYTE)
    /// SMBus send byte (no register).
    package static let smbusWriteByte = Self(I2C_FUNC_SMBUS_WRITE_BYTE)
    /// SMBus read byte data: register, then one byte.
    package static let smbusReadByteData = Self(I2C_FUNC_SMBUS_READ_BYTE_DATA)
    /// SMBus write byte data: register and one byte.
    package static let smbusWriteByteData = Self(I2C_FUNC_SMBUS_WRITE_BYTE_DATA)
    /// I2C-style block read through SMBus: register, then up to 32 bytes.
    package static let smbusReadI2CBlock = Self(I2C_FUNC_SMBUS_READ_I2C_BLOCK)
    /// I2C-style block write through SMBus: register and up to 32 bytes.
    package static let smbusWriteI2CBlock = Self(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK)

    private static let names: [(Self, String)] = [
        (.i2c, "I2C"), (.smbusQuick, "SMBus quick"),
        (.smbusReadByte, "SMBus receive byte"), (.smbusWriteByte, "SMBus send byte"),
        (.smbusReadByteData, "SMBus read byte data"), (.smbusWriteByteData, "SMBus write byte data"),
        (.smbusReadI2CBlock, "SMBus I2C-block read"), (.smbusWriteI2CBlock, "SMBus I2C-block write"),
    ]

    /// The capabilities swift-motion uses, by name: `I2C, SMBus quick, …`.
    package var description: String {
        let present = Self.names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "none of the transfers swift-motion uses" : present.joined(separator: ", ")
    }
}
