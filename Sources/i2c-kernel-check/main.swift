// The kernel tier's test binary: runs the Linux bus against a real kernel I2C stack.
//
// Boot expects `i2c-stub` loaded with the chip addresses of scripts/kernel-tier.sh (`stub_chips`):
// each stub chip is 256 byte registers with an auto-incrementing pointer, and the adapter offers
// SMBus only (no plain I2C). After the bus checks, the real drivers run against register images
// of an MPU-6050, an ICM-20948, an LSM6DSOX, an LSM9DS1, a LIS3MDL and a BNO055 (ChipChecks.swift),
// then of an MPU-9150 with its AK8975 (MPU9150Checks.swift).
// With a second bus (the test-only plain-I2C adapter of scripts/i2c-regfile, loaded with the same
// chip addresses and the MPU-9150's bypass gate), its I2C_RDWR checks run too, and then the same
// chip checks through it. Last, the kernel's own IIO drivers on the stub (KernelIIOChecks.swift).
// Usage: i2c-kernel-check [/dev/i2c-N [/dev/i2c-M]]   (default /dev/i2c-0). Exit status 1 if any check fails.
import Glibc
import I2C
import LinuxI2C

let path = CommandLine.arguments.dropFirst().first ?? "/dev/i2c-0"
let stubChips = [I2CAddress(0x1C), I2CAddress(0x68), I2CAddress(0x6A)]
let absent = I2CAddress(0x50)

let bus: LinuxI2CBus
do {
    bus = try LinuxI2CBus(path: path)
} catch {
    print("FAIL open \(path): \(error)")
    print("0 passed, 1 failed")
    exit(1)
}
print("bus \(path): \(bus.functionality)")

/// Distinct bytes for a block test, so a shifted or repeated chunk is noticed.
func pattern(_ count: Int, seed: UInt8) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) ^ seed }
}

let checks: [Check] = [
    Check(name: "adapter is the i2c-stub SMBus adapter") {
        let info = LinuxI2CBus.availableBuses().first { $0.path == path }
        try expect(info?.adapterName == "SMBus stub driver", "sysfs names \(path) \(info?.adapterName ?? "nothing")")
    },
    Check(name: "no plain I2C, so the SMBus path is chosen") {
        try expect(!bus.functionality.contains(.i2c), "adapter reports plain I2C: \(bus.functionality)")
        try expect(bus.functionality.isSuperset(of: [.smbusQuick, .smbusReadI2CBlock, .smbusWriteI2CBlock]),
                   "adapter lacks SMBus features: \(bus.functionality)")
        try expect(bus.transferMode == .smbus, "transfer mode \(bus.transferMode)")
    },
    Check(name: "byte register write/read round trip") {
        try bus.writeRegister(stubChips[0], 0x05, 0xA5)
        let value = try bus.readRegister(stubChips[0], 0x05)
        try expect(value == 0xA5, "read back \([value].hexList)")
    },
    Check(name: "chips at different addresses keep separate registers") {
        try bus.writeRegister(stubChips[1], 0x05, 0x3C)
        let first = try bus.readRegister(stubChips[0], 0x05)
        let second = try bus.readRegister(stubChips[1], 0x05)
        try expect(first == 0xA5 && second == 0x3C, "read \([first, second].hexList)")
    },
    Check(name: "block write/read round trip (16 bytes)") {
        let values = pattern(16, seed: 0x5A)
        try bus.writeRegisters(stubChips[1], 0x20, values)
        let back = try bus.readRegisters(stubChips[1], 0x20, count: 16)
        try expect(back == values, "read back [\(back.hexList)]")
    },
    Check(name: "chunked block write/read past 32 bytes (70 bytes)") {
        let values = pattern(70, seed: 0xC3)
        try bus.writeRegisters(stubChips[2], 0x80, values)
        let back = try bus.readRegisters(stubChips[2], 0x80, count: 70)
        try expect(back == values, "read back [\(back.hexList)]")
    },
    Check(name: "chunks landed at the advancing registers") {
        let values = pattern(70, seed: 0xC3)
        for offset in [0, 31, 32, 33, 64, 69] {
            let value = try bus.readRegister(stubChips[2], 0x80 + UInt8(offset))
            try expect(value == values[offset], "register 0x\(String(0x80 + offset, radix: 16)) holds \([value].hexList)")
        }
    },
    Check(name: "plain read continues from the register pointer") {
        try bus.writeRegisters(stubChips[0], 0x40, [0x11, 0x22, 0x33])
        try bus.write(stubChips[0], [0x40])
        let back = try bus.read(stubChips[0], count: 3)
        try expect(back == [0x11, 0x22, 0x33], "read [\(back.hexList)]")
    },
    Check(name: "quick write answers at a present address") {
        try bus.write(stubChips[1], [])
    },
    Check(name: "absent address gives no-acknowledge with its hint") {
        let error = try expectError("read at \(absent)") { _ = try bus.readRegister(absent, 0x00) }
        try expect(error.kind == .noAcknowledge, "kind \(error.kind.rawValue): \(error)")
        try expect(error.address == absent, "address \(String(describing: error.address))")
        try expect(error.description.contains("no device acknowledged at 0x50 on \(path)"), "\(error)")
        try expect(error.hint?.contains("wiring") == true, "hint: \(error.hint ?? "none")")
    },
    Check(name: "absent address: quick write is not acknowledged either") {
        let error = try expectError("quick write at \(absent)") { try bus.write(absent, []) }
        try expect(error.kind == .noAcknowledge, "kind \(error.kind.rawValue): \(error)")
    },
    Check(name: "a transaction SMBus cannot express is refused clearly") {
        let error = try expectError("two-byte register read") {
            _ = try bus.writeRead(stubChips[0], [0x00, 0x10], readCount: 2)
        }
        try expect(error.kind == .notSupported && error.detail.contains("SMBus cannot express"), "\(error)")
    },
    Check(name: "a read of zero bytes is refused before reaching the kernel") {
        let error = try expectError("read of 0 bytes") { _ = try bus.read(stubChips[0], count: 0) }
        try expect(error.kind == .invalidArgument && error.errno == nil, "\(error)")
    },
    Check(name: "opening a missing bus gives no-such-bus with the enable hint") {
        let error = try expectError("open /dev/i2c-9") { _ = try LinuxI2CBus(path: "/dev/i2c-9") }
        try expect(error.kind == .noSuchBus, "kind \(error.kind.rawValue): \(error)")
        try expect(error.hint?.contains("raspi-config") == true, "hint: \(error.hint ?? "none")")
    },
    Check(name: "bus listing finds the stub adapter") {
        let buses = LinuxI2CBus.availableBuses()
        try expect(buses.contains { $0.path == path }, "listed \(buses.map(\.description))")
    },
]

// The chip checks overwrite the stub chips' registers with register images: they run after the
// bus checks; then the same through the plain-I2C adapter, if there is one; last, the kernel's own
// IIO drivers take the stub's images over (KernelIIOChecks.swift).
let configured = ConfiguredDrivers()
var all = checks + chipChecks(bus: bus, imus: configured) + mpu9150Checks(bus: bus, bypassGated: false)
if let plainPath = CommandLine.arguments.dropFirst(2).first {
    do {
        let plain = try LinuxI2CBus(path: plainPath)
        print("bus \(plainPath): \(plain.functionality)")
        all += plainI2CChecks(bus: plain, path: plainPath)
            + (chipChecks(bus: plain, imus: ConfiguredDrivers()) + mpu9150Checks(bus: plain, bypassGated: true))
                .map { check in Check(name: "plain I2C: " + check.name, run: check.run) }
            + bmm150Checks(bus: plain, path: plainPath)
    } catch {
        all.append(Check(name: "open the plain-I2C adapter \(plainPath)") { throw error })
    }
}
all += kernelIIOChecks(bus: bus, path: path, configured: configured)
all += pressureChecks(bus: bus, path: path)
all += adxl345Checks(bus: bus, path: path)
exit(runChecks(all) == 0 ? 0 : 1)
