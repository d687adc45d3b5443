import Locking
import CI2C
import Glibc
import I2C

/// An I2C bus behind a Linux `/dev/i2c-N` character device (kernel module `i2c-dev`).
///
/// Uses combined `I2C_RDWR` transfers (repeated START between steps) when the adapter speaks
/// plain I2C, and SMBus transfers through libi2c otherwise (see ``SMBusPlan``). Runs one
/// transaction at a time; safe to share between threads.
package final class LinuxI2CBus: I2CBus {
    /// How this bus carries transactions.
    package enum TransferMode: Sendable, Equatable {
        /// One `I2C_RDWR` ioctl per transaction: any sequence of writes and reads.
        case combined
        /// SMBus transfers through libi2c: the transactions ``SMBusPlan`` can express.
        case smbus
    }

    /// The device node, e.g. `/dev/i2c-1`.
    package let name: String
    /// What the adapter reported through `I2C_FUNCS` when the bus was opened.
    package let functionality: I2CFunctionality
    private let descriptor: Int32
    /// The target last selected with `I2C_SLAVE` (SMBus transfers go to it); held during a transaction.
    private let selectedAddress = Locked<I2CAddress?>(nil)

    /// Opens `path` for reading and writing and asks the adapter what it can do.
    ///
    /// - Throws: ``I2CError`` with kind `.noSuchBus`, `.permissionDenied`, … and a hint.
    package init(path: String) throws(I2CError) {
        try Self.checkIsBusNode(path)
        let descriptor = retryingInterrupted { Glibc.open(path, O_RDWR | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw Self.error(errno: -descriptor, stage: .open, bus: path, attempted: "open")
        }
        var funcs: UInt = 0
        let status = retryingInterrupted { CI2C_ioctl_funcs(descriptor, &funcs) }
        guard status >= 0 else {
            close(descriptor)
            throw Self.error(errno: -status, stage: .transfer, bus: path, attempted: "I2C_FUNCS")
        }
        self.name = path
        self.descriptor = descriptor
        self.functionality = I2CFunctionality(rawValue: funcs)
    }

    /// Opens `/dev/i2c-<number>`.
    package convenience init(number: Int) throws(I2CError) {
        try self.init(path: "/dev/i2c-\(number)")
    }

    deinit {
        close(descriptor)
    }

    /// Combined transfers when the adapter has plain I2C, SMBus otherwise.
    package var transferMode: TransferMode {
        functionality.contains(.i2c) ? .combined : .smbus
    }

    /// 32 bytes on an SMBus-only adapter (one I2C-block read); no limit with plain I2C.
    package var maximumReadLength: Int? {
        transferMode == .smbus ? 32 : nil
    }

    package func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
        try validate(address, operations)
        return try selectedAddress.withLock { (selected: inout I2CAddress?) throws(I2CError) -> [[UInt8]] in
            switch transferMode {
            case .combined:
                return try combinedTransfer(address, operations)
            case .smbus:
                return try smbusTransfer(address, operations, selected: &selected)
            }
        }
    }

    /// The register read straight into `buffer`: one `I2C_RDWR` with the register byte on the
    /// stack and the read message pointing at `buffer`, or SMBus reads of up to 32 bytes at
    /// advancing registers, each copied into its place in `buffer`. Allocates nothing; errors are
    /// those of the same read through ``transaction(_:_:)`` (which serves every unusual case:
    /// an empty or oversized read, an adapter without the needed SMBus reads).
    package func readRegisters(_ address: I2CAddress, _ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let count = buffer.count
        let usual = count >= 1 && count <= Int(UInt16.max)
        guard usual, let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self),
              transferMode == .combined || canReadSMBus(count: count) else {
            let bytes = try transaction(address, [.write([register]), .read(count: count)]).last ?? []
            guard bytes.count == count else { throw shortRead(address, asked: count, got: bytes.count) }
            buffer.copyBytes(from: bytes)
            return
        }
        try selectedAddress.withLock { (selected: inout I2CAddress?) throws(I2CError) in
            switch transferMode {
            case .combined: try combinedRead(address, register, into: base, count: count)
            case .smbus: try smbusRead(address, register, into: base, count: count, selected: &selected)
            }
        }
    }

    /// The register write without an array: one `I2C_RDWR` message of the two bytes on the
    /// stack, or SMBus write-byte-data; errors as through ``transaction(_:_:)``, which serves an
    /// adapter with neither.
    package func writeRegister(_ address: I2CAddress, _ register: UInt8, _ value: UInt8) throws(I2CError) {
        guard transferMode == .combined || functionality.contains(.smbusWriteByteData) else {
            _ = try transaction(address, [.write([register, value])])
            return
        }
        try selectedAddress.withLock { (selected: inout I2CAddress?) throws(I2CError) in
            switch transferMode {
            case .combined:
                var bytes = (register, value)
                let transferred = withUnsafeMutableBytes(of: &bytes) { raw in
                    var message = i2c_msg(
                        addr: UInt16(address.rawValue), flags: 0, len: 2, buf: raw.baseAddress?.assumingMemoryBound(to: UInt8.self))
                    return withUnsafeMutablePointer(to: &message) { pointer in
                        var request = i2c_rdwr_ioctl_data(msgs: pointer, nmsgs: 1)
                        return retryingInterrupted { CI2C_ioctl_rdwr(descriptor, &request) }
                    }
                }
                guard transferred != 1 else { return }
                let attempted = "I2C transfer [" + I2COperation.write([register, value]).description + "]"
                try checkCarried(transferred, of: 1, attempted: attempted, address: address)
            case .smbus:
                try select(address, &selected)
                let result = retryingInterrupted { i2c_smbus_write_byte_data(descriptor, register, value) }
                guard result >= 0 else {
                    throw Self.error(errno: -result, stage: .transfer, bus: name, address: address,
                                     attempted: SMBusStep.writeByteData(register: register, value: value).description)
                }
            }
        }
    }

    /// The one-byte write without an array: one `I2C_RDWR` message of the byte on the stack, or
    /// SMBus send-byte; errors as through ``transaction(_:_:)``, which serves an adapter with neither.
    package func writeByte(_ address: I2CAddress, _ byte: UInt8) throws(I2CError) {
        guard transferMode == .combined || functionality.contains(.smbusWriteByte) else {
            _ = try transaction(address, [.write([byte])])
            return
        }
        try selectedAddress.withLock { (selected: inout I2CAddress?) throws(I2CError) in
            switch transferMode {
            case .combined:
                var value = byte
                let transferred = withUnsafeMutablePointer(to: &value) { pointer in
                    var message = i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: 1, buf: pointer)
                    return withUnsafeMutablePointer(to: &message) { messagePointer in
                        var request = i2c_rdwr_ioctl_data(msgs: messagePointer, nmsgs: 1)
                        return retryingInterrupted { CI2C_ioctl_rdwr(descriptor, &request) }
                    }
                }
                guard transferred != 1 else { return }
                let attempted = "I2C transfer [" + I2COperation.write([byte]).description + "]"
                try checkCarried(transferred, of: 1, attempted: attempted, address: address)
            case .smbus:
                try select(address, &selected)
                let result = retryingInterrupted { i2c_smbus_write_byte(descriptor, byte) }
                guard result >= 0 else {
                    throw Self.error(errno: -result, stage: .transfer, bus: name, address: address,
                                     attempted: SMBusStep.sendByte(byte).description)
                }
            }
        }
    }

    private func canReadSMBus(count: Int) -> Bool {
        (count % SMBusPlan.maxBlockLength == 1 ? functionality.contains(.smbusReadByteData) : true)
            && (count > 1 ? functionality.contains(.smbusReadI2CBlock) : true)
    }

    private func combinedRead(_ address: I2CAddress, _ register: UInt8, into base: UnsafeMutablePointer<UInt8>, count: Int) throws(I2CError) {
        var registerByte = register
        let transferred = withUnsafeMutablePointer(to: &registerByte) { registerPointer in
            var messages = (
                i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: 1, buf: registerPointer),
                i2c_msg(addr: UInt16(address.rawValue), flags: UInt16(I2C_M_RD), len: UInt16(count), buf: base))
            return withUnsafeMutableBytes(of: &messages) { raw in
                var request = i2c_rdwr_ioctl_data(msgs: raw.baseAddress?.assumingMemoryBound(to: i2c_msg.self), nmsgs: 2)
                return retryingInterrupted { CI2C_ioctl_rdwr(descriptor, &request) }
            }
        }
        guard transferred != 2 else { return }
        let attempted = "I2C transfer [" + [I2COperation.write([register]), .read(count: count)].map(\.description).joined(separator: ", ") + "]"
        try checkCarried(transferred, of: 2, attempted: attempted, address: address)
    }

    private func smbusRead(
        _ address: I2CAddress, _ register: UInt8, into base: UnsafeMutablePointer<UInt8>, count: Int, selected: inout I2CAddress?
    ) throws(I2CError) {
        try select(address, &selected)
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SMBusPlan.maxBlockLength) { (block: UnsafeMutableBufferPointer<UInt8>) throws(I2CError) in
            var offset = 0
            while offset < count {
                let length = min(SMBusPlan.maxBlockLength, count - offset)
                let chunkRegister = register &+ UInt8(truncatingIfNeeded: offset)
                let step: SMBusStep = length == 1
                    ? .readByteData(register: chunkRegister) : .readBlock(register: chunkRegister, count: length)
                let result: Int32 = length == 1
                    ? retryingInterrupted { i2c_smbus_read_byte_data(descriptor, chunkRegister) }
                    : retryingInterrupted { i2c_smbus_read_i2c_block_data(descriptor, chunkRegister, UInt8(length), block.baseAddress) }
                guard result >= 0 else {
                    throw Self.error(errno: -result, stage: .transfer, bus: name, address: address, attempted: step.description)
                }
                if length == 1 {
                    base[offset] = UInt8(truncatingIfNeeded: result)
                } else {
                    guard result == length else { throw shortBlock(step, result, address: address) }
                    _ = UnsafeMutableBufferPointer(start: base + offset, count: length).update(fromContentsOf: block[0..<length])
                }
                offset += length
            }
        }
    }

    private func validate(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) {
        func invalid(_ detail: String) -> I2CError {
            I2CError(.invalidArgument, bus: name, address: address, detail: detail,
                     hint: "this is a mistake in the calling code, not in the wiring")
        }
        guard !operations.isEmpty else { throw invalid("a transaction needs at least one operation") }
        for operation in operations {
            switch operation {
            case .read(let count) where count < 1:
                throw invalid("a read must ask for at least one byte, not \(count)")
            case .read(let count) where count > Int(UInt16.max):
                throw invalid("a read of \(count) bytes is longer than one I2C message can carry")
            case .write(let bytes) where bytes.count > Int(UInt16.max):
                throw invalid("a write of \(bytes.count) bytes is longer than one I2C message can carry")
            default:
                continue
            }
        }
    }

    // MARK: Combined I2C transfers

    private func combinedTransfer(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
        guard operations.count <= Int(I2C_RDWR_IOCTL_MAX_MSGS) else {
            throw I2CError(
                .invalidArgument, bus: name, address: address,
                detail: "\(operations.count) operations in one transaction; the kernel accepts \(I2C_RDWR_IOCTL_MAX_MSGS)",
                hint: "split the transaction")
        }
        let buffers = operations.map { operation in
            switch operation {
            case .write(let bytes):
                let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
                _ = buffer.initialize(from: bytes)
                return buffer
            case .read(let count):
                let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
                buffer.initialize(repeating: 0)
                return buffer
            }
        }
        defer { buffers.forEach { $0.deallocate() } }

        var messages = zip(operations, buffers).map { operation, buffer in
            switch operation {
            case .write(let bytes):
                i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: UInt16(bytes.count), buf: buffer.baseAddress)
            case .read(let count):
                i2c_msg(addr: UInt16(address.rawValue), flags: UInt16(I2C_M_RD), len: UInt16(count), buf: buffer.baseAddress)
            }
        }
        let transferred = messages.withUnsafeMutableBufferPointer { messages in
            var request = i2c_rdwr_ioctl_data(msgs: messages.baseAddress, nmsgs: UInt32(messages.count))
            return retryingInterrupted { CI2C_ioctl_rdwr(descriptor, &request) }
        }
        let attempted = "I2C transfer [" + operations.map(\.description).joined(separator: ", ") + "]"
        try checkCarried(transferred, of: operations.count, attempted: attempted, address: address)
        return zip(operations, buffers).compactMap { operation, buffer in
            if case .read = operation { Array(buffer) } else { nil }
        }
    }

    /// Throws unless the `I2C_RDWR` ioctl carried all `expected` messages.
    private func checkCarried(_ transferred: Int32, of expected: Int, attempted: String, address: I2CAddress) throws(I2CError) {
        guard transferred >= 0 else {
            throw Self.error(errno: -transferred, stage: .transfer, bus: name, address: address, attempted: attempted)
        }
        guard transferred == expected else {
            throw I2CError(
                .busError, bus: name, address: address,
                detail: "\(attempted): the adapter carried \(transferred) of \(expected) messages",
                hint: "check the wiring and pull-up resistors; a retry may succeed")
        }
    }

    // MARK: SMBus transfers

    private func smbusTransfer(
        _ address: I2CAddress, _ operations: [I2COperation], selected: inout I2CAddress?
    ) throws(I2CError) -> [[UInt8]] {
        guard let steps = SMBusPlan.steps(for: operations) else {
            throw I2CError(
                .notSupported, bus: name, address: address,
                detail: "the adapter speaks SMBus only (no plain I2C), and SMBus cannot express the transaction ["
                    + operations.map(\.description).joined(separator: ", ") + "]",
                hint: "SMBus carries a one-byte register then a write or read of up to 32 bytes; "
                    + "use such transactions, or an adapter with plain I2C support")
        }
        if let step = steps.first(where: { !functionality.contains($0.requiredFunctionality) }) {
            throw I2CError(
                .notSupported, bus: name, address: address,
                detail: "the adapter cannot do a \(step) (it offers: \(functionality))",
                hint: "use an adapter with plain I2C or SMBus I2C-block support")
        }
        try select(address, &selected)
        var received: [UInt8] = []
        for step in steps {
            received += try perform(step, address: address)
        }
        let hasRead = operations.contains { if case .read = $0 { true } else { false } }
        return hasRead ? [received] : []
    }

    /// Points SMBus transfers at `address` (`I2C_SLAVE`) unless it is already the target.
    private func select(_ address: I2CAddress, _ selected: inout I2CAddress?) throws(I2CError) {
        guard selected != address else { return }
        selected = nil
        // I2C_SLAVE only records the target in the file; an absent device shows up on the transfer.
        let status = retryingInterrupted { CI2C_ioctl_slave(descriptor, Int(address.rawValue)) }
        guard status >= 0 else {
            throw Self.error(errno: -status, stage: .transfer, bus: name, address: address, attempted: "I2C_SLAVE")
        }
        selected = address
    }

    /// The error of an SMBus block read that returned `result` bytes, not the count asked for.
    private func shortBlock(_ step: SMBusStep, _ result: Int32, address: I2CAddress) -> I2CError {
        I2CError(
            .busError, bus: name, address: address,
            detail: "\(step) returned \(result) bytes",
            hint: "check the wiring and pull-up resistors; a retry may succeed")
    }

    /// Runs one SMBus step on the selected target; returns the bytes it read.
    private func perform(_ step: SMBusStep, address: I2CAddress) throws(I2CError) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: SMBusPlan.maxBlockLength)
        let result: Int32 = switch step {
        case .quickWrite:
            retryingInterrupted { i2c_smbus_write_quick(descriptor, UInt8(I2C_SMBUS_WRITE)) }
        case .sendByte(let value):
            retryingInterrupted { i2c_smbus_write_byte(descriptor, value) }
        case .receiveByte:
            retryingInterrupted { i2c_smbus_read_byte(descriptor) }
        case .writeByteData(let register, let value):
            retryingInterrupted { i2c_smbus_write_byte_data(descriptor, register, value) }
        case .readByteData(let register):
            retryingInterrupted { i2c_smbus_read_byte_data(descriptor, register) }
        case .writeBlock(let register, let values):
            retryingInterrupted { i2c_smbus_write_i2c_block_data(descriptor, register, UInt8(values.count), values) }
        case .readBlock(let register, let count):
            retryingInterrupted { i2c_smbus_read_i2c_block_data(descriptor, register, UInt8(count), &block) }
        }
        guard result >= 0 else {
            throw Self.error(errno: -result, stage: .transfer, bus: name, address: address, attempted: step.description)
        }
        switch step {
        case .receiveByte, .readByteData:
            return [UInt8(truncatingIfNeeded: result)]
        case .readBlock(_, let count):
            guard result == count else { throw shortBlock(step, result, address: address) }
            return Array(block.prefix(count))
        case .quickWrite, .sendByte, .writeByteData, .writeBlock:
            return []
        }
    }
}

/// Calls `call` again while it fails with `EINTR`; returns its result, or `-errno` on failure.
///
/// Accepts both conventions: libc's (`-1` and `errno`) and libi2c's (`-errno`).
func retryingInterrupted(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        let outcome = result == -1 ? -errno : result
        if outcome != -EINTR { return outcome }
    }
}
