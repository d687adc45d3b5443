/// An I2C bus: a real `/dev/i2c-N`, the simulator, or a test's list of expected transactions.
///
/// A bus implements one method, ``transaction(_:_:)``; every other access (`write`, `read`,
/// `writeRead`, register helpers) is built on it. Implementations run one transaction at a time
/// and may be called from any thread.
package protocol I2CBus: AnyObject, Sendable {
    /// How a person names this bus: `/dev/i2c-1`, `simulated`, …
    var name: String { get }

    /// Runs `operations` against one target as one transaction (repeated START between the steps).
    ///
    /// - Returns: the bytes of each `.read` step, in order (one array per read step).
    /// - Throws: ``I2CError`` naming the bus, the address and what failed.
    func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]]

    /// The most bytes one register read returns in a single transfer, or nil for no limit.
    /// A longer read still works, but in several transfers at advancing register addresses
    /// (SMBus block reads: 32 bytes) — wrong for a FIFO data register, which must be read in
    /// reads of at most this length.
    var maximumReadLength: Int? { get }

    /// Reads `buffer.count` consecutive registers from `register` on into `buffer` in one
    /// transaction, as ``readRegisters(_:_:count:)`` does, but into the caller's storage: the
    /// per-sample read path (a bus's own implementation allocates nothing).
    ///
    /// The default runs ``transaction(_:_:)`` and copies; a short read throws as there.
    func readRegisters(_ address: I2CAddress, _ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError)

    /// Writes one register (a two-byte write step), as ``write(_:_:)`` with `[register, value]`
    /// does; a bus's own implementation allocates nothing (a chip that needs a write per sample,
    /// like the AK8975's measurement trigger). The default runs ``transaction(_:_:)``.
    func writeRegister(_ address: I2CAddress, _ register: UInt8, _ value: UInt8) throws(I2CError)

    /// Sends one byte (a one-byte write step), as ``write(_:_:)`` with `[byte]` does; a bus's own
    /// implementation allocates nothing (a chip driven by commands, like the MS5611, whose every
    /// reading starts two conversions with a one-byte command each). The default runs
    /// ``transaction(_:_:)``.
    func writeByte(_ address: I2CAddress, _ byte: UInt8) throws(I2CError)
}

extension I2CBus {
    package var maximumReadLength: Int? { nil }

    /// Sends `bytes` to `address`.
    package func write(_ address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        _ = try transaction(address, [.write(bytes)])
    }

    /// Receives `count` bytes from `address`.
    package func read(_ address: I2CAddress, count: Int) throws(I2CError) -> [UInt8] {
        try checkedRead(transaction(address, [.read(count: count)]), count: count, address: address)
    }

    /// Sends `bytes`, then (repeated START) receives `count` bytes: the usual register read.
    package func writeRead(_ address: I2CAddress, _ bytes: [UInt8], readCount count: Int) throws(I2CError) -> [UInt8] {
        try checkedRead(transaction(address, [.write(bytes), .read(count: count)]), count: count, address: address)
    }

    /// Reads one register.
    package func readRegister(_ address: I2CAddress, _ register: UInt8) throws(I2CError) -> UInt8 {
        try writeRead(address, [register], readCount: 1)[0]
    }

    /// Reads `count` consecutive registers starting at `register` in one transaction
    /// (the device must auto-increment its register pointer).
    package func readRegisters(_ address: I2CAddress, _ register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try writeRead(address, [register], readCount: count)
    }

    package func readRegisters(_ address: I2CAddress, _ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let bytes = try readRegisters(address, register, count: buffer.count)
        buffer.copyBytes(from: bytes)
    }

    /// Writes one register.
    package func writeRegister(_ address: I2CAddress, _ register: UInt8, _ value: UInt8) throws(I2CError) {
        try write(address, [register, value])
    }

    package func writeByte(_ address: I2CAddress, _ byte: UInt8) throws(I2CError) {
        try write(address, [byte])
    }

    /// Writes consecutive registers starting at `register` in one transaction.
    package func writeRegisters(_ address: I2CAddress, _ register: UInt8, _ values: [UInt8]) throws(I2CError) {
        try write(address, [register] + values)
    }

    private func checkedRead(_ replies: [[UInt8]], count: Int, address: I2CAddress) throws(I2CError) -> [UInt8] {
        guard let data = replies.last, data.count == count else {
            throw shortRead(address, asked: count, got: replies.last?.count ?? 0)
        }
        return data
    }

    /// The error of a read that returned fewer (or more) bytes than asked for.
    package func shortRead(_ address: I2CAddress, asked count: Int, got received: Int) -> I2CError {
        I2CError(
            .busError, bus: name, address: address,
            detail: "asked for \(count) bytes, got \(received)",
            hint: "the bus driver returned a short read; check wiring and pull-ups")
    }
}
