import I2C
import LinuxI2C

/// Checks on the test-only plain-I2C adapter (scripts/i2c-regfile/i2c-regfile.c): `master_xfer`
/// with I2C_FUNC_I2C, so `LinuxI2CBus` sends each transaction as one `I2C_RDWR` ioctl. Its chips
/// are 256-byte register files: a write message sets the pointer with its first byte and stores
/// the rest; a read message reads from the pointer; both advance it.
func plainI2CChecks(bus: LinuxI2CBus, path: String) -> [Check] {
    let first = I2CAddress(0x1C), second = I2CAddress(0x68), third = I2CAddress(0x6A)
    let absent = I2CAddress(0x50)
    return [
        Check(name: "plain I2C: the register-file adapter offers I2C_FUNC_I2C, so I2C_RDWR is chosen") {
            let info = LinuxI2CBus.availableBuses().first { $0.path == path }
            try expect(info?.adapterName == "swift-motion register file", "sysfs names \(path) \(info?.adapterName ?? "nothing")")
            try expect(bus.functionality.contains(.i2c), "adapter reports no plain I2C: \(bus.functionality)")
            try expect(bus.transferMode == .combined, "transfer mode \(bus.transferMode)")
            try expect(bus.maximumReadLength == nil, "read length limited to \(bus.maximumReadLength ?? 0)")
        },
        Check(name: "plain I2C: register write, then write-then-read with a repeated start, round trip") {
            let values = pattern(8, seed: 0x21)
            try bus.writeRegisters(second, 0x10, values)
            let back = try bus.writeRead(second, [0x10], readCount: 8)
            try expect(back == values, "read back [\(back.hexList)]")
        },
        Check(name: "plain I2C: 256 registers written in one message, 200 read in one message (SMBus stops at 32)") {
            let values = pattern(256, seed: 0x96)
            try bus.writeRegisters(third, 0x00, values)
            let back = try bus.readRegisters(third, 0x10, count: 200)
            try expect(back == Array(values[0x10..<0xD8]), "read back differs from what was written")
        },
        Check(name: "plain I2C: the pointer wraps from 0xFF to 0x00 within one read") {
            let back = try bus.readRegisters(third, 0xFE, count: 4)
            let values = pattern(256, seed: 0x96)
            try expect(back == [values[0xFE], values[0xFF], values[0x00], values[0x01]], "read [\(back.hexList)]")
        },
        Check(name: "plain I2C: a two-byte write then a read, which SMBus cannot express") {
            try bus.writeRegisters(first, 0x30, [0x00, 0xAB, 0xCD])
            // Register file semantics: pointer 0x30, 0x99 stored there, then 0x31 and 0x32 read.
            let back = try bus.writeRead(first, [0x30, 0x99], readCount: 2)
            try expect(back == [0xAB, 0xCD], "read [\(back.hexList)]")
            let stored = try bus.readRegister(first, 0x30)
            try expect(stored == 0x99, "register 0x30 holds \([stored].hexList)")
        },
        Check(name: "plain I2C: four messages (write, read, write, read) in one I2C_RDWR transaction") {
            let reads = try bus.transaction(first, [.write([0x31]), .read(count: 2), .write([0x30]), .read(count: 1)])
            try expect(reads == [[0xAB, 0xCD], [0x99]], "reads \(reads.map { "[\($0.hexList)]" })")
        },
        Check(name: "plain I2C: chips at different addresses keep separate registers") {
            try bus.writeRegister(first, 0x05, 0x11)
            try bus.writeRegister(second, 0x05, 0x22)
            let values = [try bus.readRegister(first, 0x05), try bus.readRegister(second, 0x05)]
            try expect(values == [0x11, 0x22], "read [\(values.hexList)]")
        },
        Check(name: "plain I2C: absent address gives no-acknowledge through I2C_RDWR") {
            let error = try expectError("read at \(absent)") { _ = try bus.readRegister(absent, 0x00) }
            try expect(error.kind == .noAcknowledge, "kind \(error.kind.rawValue): \(error)")
            try expect(error.address == absent, "address \(String(describing: error.address))")
        },
    ]
}
