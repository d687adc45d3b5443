/// One step of an I2C transaction: the bus sends a repeated START between steps, a STOP after the last.
package enum I2COperation: Sendable, Equatable, CustomStringConvertible {
    /// Send these bytes to the target (for register devices the first byte is the register address).
    case write([UInt8])
    /// Receive this many bytes from the target.
    case read(count: Int)

    package var description: String {
        switch self {
        case .write(let bytes): "write [\(bytes.hexList)]"
        case .read(let count): "read \(count)"
        }
    }
}

extension Array where Element == UInt8 {
    /// `0x0F, 0x6C` — how bytes are shown in errors and test failures.
    package var hexList: String {
        map { "0x" + ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: ", ")
    }
}
