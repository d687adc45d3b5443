import CI2C
import I2C

/// One SMBus transfer, issued through libi2c when an adapter cannot send plain I2C messages.
package enum SMBusStep: Sendable, Equatable, CustomStringConvertible {
    /// The address with the write bit and no data (`i2c_smbus_write_quick`).
    case quickWrite
    /// One byte with no register (`i2c_smbus_write_byte`).
    case sendByte(UInt8)
    /// One byte with no register (`i2c_smbus_read_byte`).
    case receiveByte
    /// A register and one value (`i2c_smbus_write_byte_data`).
    case writeByteData(register: UInt8, value: UInt8)
    /// One byte from a register (`i2c_smbus_read_byte_data`).
    case readByteData(register: UInt8)
    /// A register and 2–32 values (`i2c_smbus_write_i2c_block_data`).
    case writeBlock(register: UInt8, values: [UInt8])
    /// 2–32 bytes from a register on (`i2c_smbus_read_i2c_block_data`).
    case readBlock(register: UInt8, count: Int)

    /// The adapter capability this step needs.
    package var requiredFunctionality: I2CFunctionality {
        switch self {
        case .quickWrite: .smbusQuick
        case .sendByte: .smbusWriteByte
        case .receiveByte: .smbusReadByte
        case .writeByteData: .smbusWriteByteData
        case .readByteData: .smbusReadByteData
        case .writeBlock: .smbusWriteI2CBlock
        case .readBlock: .smbusReadI2CBlock
        }
    }

    package var description: String {
        switch self {
        case .quickWrite: "SMBus quick write"
        case .sendByte(let value): "SMBus send byte [\([value].hexList)]"
        case .receiveByte: "SMBus receive byte"
        case .writeByteData(let register, let value):
            "SMBus write byte data [\([value].hexList)] to register \([register].hexList)"
        case .readByteData(let register): "SMBus read byte data from register \([register].hexList)"
        case .writeBlock(let register, let values):
            "SMBus I2C-block write of \(values.count) bytes to register \([register].hexList)"
        case .readBlock(let register, let count):
            "SMBus I2C-block read of \(count) bytes from register \([register].hexList)"
        }
    }
}

/// How a transaction is expressed as SMBus transfers; pure, so the chunking can be tested.
package enum SMBusPlan {
    /// The longest SMBus block (`I2C_SMBUS_BLOCK_MAX`, SMBus 2.0 §5.5.7): 32 bytes.
    package static let maxBlockLength = Int(I2C_SMBUS_BLOCK_MAX)

    /// The SMBus steps that perform `operations`, or nil when SMBus cannot express them.
    ///
    /// Expressible transactions:
    /// - `[.write([])]` → quick write
    /// - `[.write([b])]` → send byte
    /// - `[.write([register] + values)]` → write byte data (one value) or I2C-block writes of ≤ 32 bytes
    /// - `[.write([register]), .read(count: n)]` → read byte data (n = 1) or I2C-block reads of ≤ 32 bytes
    /// - `[.read(count: n)]` → n receive-byte transfers
    ///
    /// A chunk after the first addresses `register + offset` (wrapping at 0xFF): this matches a device
    /// that auto-increments its register pointer, not one that streams a FIFO from a fixed register.
    /// Read counts must be positive (the bus checks this first).
    package static func steps(for operations: [I2COperation]) -> [SMBusStep]? {
        switch (operations.first, operations.dropFirst().first, operations.count) {
        case (.write(let bytes), nil, 1) where bytes.isEmpty:
            return [.quickWrite]
        case (.write(let bytes), nil, 1) where bytes.count == 1:
            return [.sendByte(bytes[0])]
        case (.write(let bytes), nil, 1):
            let values = Array(bytes.dropFirst())
            return chunks(count: values.count, from: bytes[0]).map { chunk in
                let slice = Array(values[chunk.offset..<chunk.offset + chunk.count])
                return slice.count == 1
                    ? .writeByteData(register: chunk.register, value: slice[0])
                    : .writeBlock(register: chunk.register, values: slice)
            }
        case (.write(let bytes), .read(let count), 2) where bytes.count == 1:
            return chunks(count: count, from: bytes[0]).map { chunk in
                chunk.count == 1
                    ? .readByteData(register: chunk.register)
                    : .readBlock(register: chunk.register, count: chunk.count)
            }
        case (.read(let count), nil, 1):
            return Array(repeating: .receiveByte, count: count)
        default:
            return nil
        }
    }

    /// Splits `count` bytes starting at `register` into blocks of at most ``maxBlockLength``.
    ///
    /// A 70-byte transfer from 0x10 is 0x10 (32), 0x30 (32), 0x50 (6).
    package static func chunks(count: Int, from register: UInt8) -> [(register: UInt8, offset: Int, count: Int)] {
        stride(from: 0, to: count, by: maxBlockLength).map { offset in
            (register: register &+ UInt8(truncatingIfNeeded: offset), offset: offset,
             count: min(maxBlockLength, count - offset))
        }
    }
}
