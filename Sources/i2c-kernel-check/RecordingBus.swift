import I2C
import LinuxI2C
import Locking

/// One bus access a driver made, as the ``RecordingBus`` passed it on.
enum BusAccess: Equatable, CustomStringConvertible {
    /// A register read of `count` bytes from `register` (one `readRegisters(_:_:into:)` call).
    case read(I2CAddress, register: UInt8, count: Int)
    /// One register write.
    case write(I2CAddress, register: UInt8, value: UInt8)
    /// Anything else, as the transaction it was.
    case transaction(I2CAddress, [I2COperation])

    var description: String {
        switch self {
        case .read(let address, let register, let count): "read \(count) from \([register].hexList) at \(address)"
        case .write(let address, let register, let value): "write \([value].hexList) to \([register].hexList) at \(address)"
        case .transaction(let address, let operations): "transaction at \(address): \(operations)"
        }
    }
}

/// The kernel bus under a driver, with each access recorded on its way to the kernel: which
/// registers a driver writes, in what order, and how many reads a sample takes. The accesses go
/// through ``LinuxI2CBus``'s own register paths (its transfer mode and chunking unchanged).
final class RecordingBus: I2CBus {
    let base: LinuxI2CBus
    private let log = Locked<[BusAccess]>([])

    init(_ base: LinuxI2CBus) { self.base = base }

    var name: String { base.name }
    var maximumReadLength: Int? { base.maximumReadLength }

    func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
        log.withLock { $0.append(.transaction(address, operations)) }
        return try base.transaction(address, operations)
    }

    func readRegisters(_ address: I2CAddress, _ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        log.withLock { $0.append(.read(address, register: register, count: buffer.count)) }
        try base.readRegisters(address, register, into: buffer)
    }

    func writeRegister(_ address: I2CAddress, _ register: UInt8, _ value: UInt8) throws(I2CError) {
        log.withLock { $0.append(.write(address, register: register, value: value)) }
        try base.writeRegister(address, register, value)
    }

    func writeByte(_ address: I2CAddress, _ byte: UInt8) throws(I2CError) {
        log.withLock { $0.append(.transaction(address, [.write([byte])])) }
        try base.writeByte(address, byte)
    }

    /// The accesses since the last call, oldest first; the log starts empty again.
    func takeAccesses() -> [BusAccess] {
        log.withLock { log in
            defer { log.removeAll() }
            return log
        }
    }
}
