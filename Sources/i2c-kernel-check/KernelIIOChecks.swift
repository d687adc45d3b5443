// The kernel's own IIO drivers on i2c-stub, beside ours: each driver is instantiated on a stub
// address preloaded with a register image (`new_device`, Documentation/i2c/instantiating-devices.rst),
// its probe outcome compared with what is expected and explained (the kernel log line), the
// same preloaded sample read through our I2C driver and through the kernel driver's IIO
// attributes, and our IIO source (Motion's `MotionSource.iio`) reading the kernel driver.
import Dispatch
import Glibc
import I2C
import IIO
import LinuxI2C
import Locking
import Motion
import Sensors

/// One kernel driver tried on i2c-stub.
struct KernelDriverCase {
    /// The module (for messages).
    var module: String
    /// The I2C client name its id table matches (written to `new_device`).
    var client: String
    var address: I2CAddress
    /// Registers written before the client is created; nil: the image already there stays.
    var image: [UInt8]?
    /// The IIO `name` it registers when it binds.
    var iioName: String
    /// Whether its probe survives i2c-stub, and why not when it does not.
    var binds: Bool
    var why: String
}

/// BMI160 (BMI160 datasheet §2.11): CHIP_ID 0x00 = 0xD1; DATA 0x0C–0x11 gyro x, y, z and
/// 0x12–0x17 accel x, y, z little-endian; ACC_CONF 0x40 = 0x28 (ODR 100 Hz), ACC_RANGE 0x41 = 0x03
/// (±2 g), GYR_CONF 0x42 = 0x28 (100 Hz), GYR_RANGE 0x43 = 0x00 (±2000 °/s). The driver reads
/// ranges and rates back and refuses codes outside its tables, so they must be valid here.
let bmi160GyroscopeRaw: [Int16] = [300, -600, 900]
let bmi160AccelerometerRaw: [Int16] = [1024, -2048, 16384]
let bmi160Image = registerImage([
    0x00: [0xD1], 0x0C: littleEndianBytes(bmi160GyroscopeRaw + bmi160AccelerometerRaw),
    0x40: [0x28, 0x03, 0x28, 0x00],
])

/// MMA8452Q (datasheet §6): WHO_AM_I 0x0D = 0x2A. Its driver's reset writes CTRL_REG2 (0x2B)
/// RST and polls until the chip clears it (drivers/iio/accel/mma8452.c, `mma8452_reset`).
let mma8452Image = registerImage([0x0D: [0x2A]])

let kernelDriverCases = [
    KernelDriverCase(
        module: "inv-mpu6050-i2c", client: "mpu6050", address: I2CAddress(0x68), image: nil, iioName: "mpu6050", binds: true,
        why: "WHO_AM_I matches; its reset (PWR_MGMT_1 H_RESET) is a fixed sleep, never polled"),
    KernelDriverCase(
        module: "st_lsm6dsx_i2c", client: "lsm6dsox", address: I2CAddress(0x6A), image: nil, iioName: "lsm6dsox_accel", binds: true,
        why: "WHO_AM_I matches; its reset (CTRL3_C SW_RESET, then BOOT) is a fixed 50 ms sleep, never polled"),
    KernelDriverCase(
        module: "bmi160_i2c", client: "bmi160", address: I2CAddress(0x69), image: bmi160Image, iioName: "bmi160", binds: true,
        why: "CHIP_ID matches; its soft reset (CMD 0xB6) and power-mode commands are followed by fixed sleeps"),
    KernelDriverCase(
        module: "mma8452", client: "mma8452", address: I2CAddress(0x1D), image: mma8452Image, iioName: "mma8452", binds: false,
        why: "its reset polls CTRL_REG2 until RST clears, and an i2c-stub register never changes by itself: -ETIMEDOUT"),
]

let iioRoot = IIODiscovery.defaultRoot

/// The IIO device the kernel registered under `name`, if any.
func iioDevice(named name: String) -> IIODevice? {
    IIODiscovery.devices(root: iioRoot).devices.first { $0.name == name }
}

/// The kernel log lines (from /dev/kmsg, non-blocking) that mention `needle`.
func kernelLog(mentioning needle: String) -> [String] {
    let descriptor = open("/dev/kmsg", O_RDONLY | O_NONBLOCK)
    guard descriptor >= 0 else { return ["(no /dev/kmsg: errno \(errno))"] }
    defer { close(descriptor) }
    var lines: [String] = []
    var record = [UInt8](repeating: 0, count: 8192)
    while true {
        let got = record.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if got < 0 && errno == EPIPE { continue }   // a record was overwritten: skip it
        guard got > 0 else { break }
        let text = String(decoding: record[..<got], as: UTF8.self)
        let message = text.split(separator: ";", maxSplits: 1).last.map { String($0.prefix { $0 != "\n" }) } ?? text
        if message.contains(needle) { lines.append(message) }
    }
    return lines
}

/// The bus number of `/dev/i2c-N`.
func busNumber(_ path: String) -> Int? {
    Int(path.split(separator: "-").last ?? "")
}

/// "0-0068": the client directory the kernel names `%d-%04x` (i2c-core-base.c, i2c_dev_set_name).
func clientName(bus: Int, _ address: I2CAddress) -> String {
    let hex = String(address.rawValue, radix: 16)
    return "\(bus)-" + String(repeating: "0", count: 4 - hex.count) + hex
}

func sysfsNumber(_ path: String) throws -> Double {
    do { return try SysfsFiles.number(path) } catch { throw CheckFailure(message: "\(error)") }
}

/// Raw counts of a channel type read through the kernel driver's sysfs attributes.
func kernelRaw(_ device: IIODevice, _ type: String) throws -> [Double] {
    try ["x", "y", "z"].map { try sysfsNumber("\(device.directory)/in_\(type)_\($0)_raw") }
}

func kernelIIOChecks(bus: LinuxI2CBus, path: String, configured imus: ConfiguredDrivers) -> [Check] {
    // Our driver's readings of the preloaded samples, taken before a kernel driver owns the chip.
    let ours = ReadingsBeforeBinding()
    var checks: [Check] = [
        Check(name: "our I2C driver reads the MPU-6050 and LSM6DSOX samples before the kernel drivers bind") {
            guard let mpu = imus.mpu6050, let lsm = imus.lsm6dsox else { throw CheckFailure(message: "drivers were not configured") }
            ours.mpu6050 = try driver("MPU-6050 readSample") { () throws(SensorError) in try mpu.readSample() }
            ours.lsm6dsox = try driver("LSM6DSOX readSample") { () throws(SensorError) in try lsm.readSample() }
            // The kernel driver cases that bring an image of their own (BMI160 at 0x69, MMA8452Q at 0x1D).
            for driverCase in kernelDriverCases {
                guard let image = driverCase.image else { continue }
                try bus.writeRegisters(driverCase.address, 0x00, image)
                try expect(try bus.readRegisters(driverCase.address, 0x00, count: 256) == image, "\(driverCase.client) image read back differs")
            }
        },
    ]
    guard let number = busNumber(path) else {
        return checks + [Check(name: "bus number of \(path)") { throw CheckFailure(message: "cannot tell the bus number of \(path)") }]
    }
    for driverCase in kernelDriverCases {
        checks.append(Check(name: "\(driverCase.module) on i2c-stub at \(driverCase.address): \(driverCase.binds ? "binds" : "probe fails") (\(driverCase.why))") {
            let client = "/sys/bus/i2c/devices/\(clientName(bus: number, driverCase.address))"
            do {
                try SysfsFiles.write("\(driverCase.client) 0x\(String(driverCase.address.rawValue, radix: 16))", to: "/sys/bus/i2c/devices/i2c-\(number)/new_device")
            } catch {
                throw CheckFailure(message: "new_device: \(error)")
            }
            let bound = SysfsFiles.exists("\(client)/driver")
            let device = iioDevice(named: driverCase.iioName)
            let log = kernelLog(mentioning: clientName(bus: number, driverCase.address))
            print("  kernel log for \(clientName(bus: number, driverCase.address)): \(log.isEmpty ? "(nothing)" : log.joined(separator: " | "))")
            try expect(bound == driverCase.binds && (device != nil) == driverCase.binds,
                       "driver bound: \(bound), IIO device: \(device?.summary ?? "none"); kernel log: \(log.joined(separator: " | "))")
            if let device { print("  \(device.summary)") }
        })
    }
    checks += [
        Check(name: "our I2C access to 0x68 is refused busy (EBUSY) while inv-mpu6050 holds it, and the claim names the driver") {
            let error = try expectError("read at 0x68") { _ = try bus.readRegister(I2CAddress(0x68), 0x75) }
            try expect(error.errno == EBUSY, "\(error)")
            let claims = KernelDriverClaim.claims(bus: path, addresses: [I2CAddress(0x68)])
            try expect(claims.first?.driver == "inv-mpu6050-i2c" && claims.first?.clientName == "mpu6050", "claims: \(claims)")
        },
        Check(name: "the automatic choice reads the MPU-6050 through IIO, saying why") {
            let board = Board(
                name: "i2c-stub", id: "i2c-stub", match: [], i2cBuses: [], imuAddresses: [I2CAddress(0x68)], magnetometerAddresses: [],
                mountMatrix: .identity, setup: "")
            let choice = MotionSource.choose(board: board, bus: path, iio: IIOSelection(name: "mpu6050"))
            print("  \(choice?.reason ?? "no choice")")
            guard case .iio = choice?.source else { throw CheckFailure(message: "chose \(String(describing: choice?.source))") }
        },
    ]
    checks += agreementChecks(ours: ours)
    checks.append(Check(name: "our IIO source (MotionSource.iio) delivers the kernel driver's samples through sysfs") {
        guard let device = iioDevice(named: "mpu6050"), let group = device.group(.accelerometer) else {
            throw CheckFailure(message: "no mpu6050 IIO device")
        }
        let raw = try kernelRaw(device, "accel")
        let manager: MotionManager
        do {
            manager = try MotionManager(source: .iio(IIOSelection(name: "mpu6050", reading: .polling)), calibrationStore: nil)
        } catch {
            throw CheckFailure(message: "\(error)")
        }
        manager.startAccelerometerUpdates()
        // At least 0.3 s as always, then until five samples came (bounded at 10 s for a VM the host starves).
        let fiveArrived = waitUntil(seconds: 10, minimum: 0.3) { manager.counters.sampled >= 5 && manager.accelerometerData != nil }
        let latest = manager.accelerometerData
        manager.stopAccelerometerUpdates()
        guard let latest else { throw CheckFailure(message: "no sample in 10 s; counters \(manager.counters)") }
        let expected = -SIMD3(raw[0], raw[1], raw[2]) * group.scale / 9.80665
        print("  \(manager.deviceName): \(latest.acceleration) g after \(manager.counters.sampled) samples")
        try expect((0..<3).allSatisfy { abs(latest.acceleration[$0] - expected[$0]) < 1e-9 }, "read \(latest.acceleration), expected \(expected)")
        try expect(fiveArrived, "only \(manager.counters.sampled) samples in 10 s")
    })
    checks.append(Check(name: "the kernel driver unbound mid-stream (delete_device): MotionError.iio(deviceRemoved) once; samples resume when it is bound again") {
        try removalAndReturn(busNumber: number)
    })
    return checks
}

/// Streams the mpu6050 through MotionSource.iio while the kernel's client is deleted and
/// created again (Documentation/i2c/instantiating-devices.rst: delete_device, new_device).
func removalAndReturn(busNumber number: Int) throws {
    let manager: MotionManager
    do {
        manager = try MotionManager(source: .iio(IIOSelection(name: "mpu6050", reading: .polling)), calibrationStore: nil)
    } catch {
        throw CheckFailure(message: "\(error)")
    }
    let events = Locked<(samples: Int, samplesAfterReturn: Int, errors: [MotionError], returned: Bool)>((0, 0, [], false))
    let queue = DispatchQueue(label: "removal")
    manager.startAccelerometerUpdates(to: queue) { data, error in
        events.withLock { events in
            if data != nil { events.samples += 1 }
            if data != nil, events.returned { events.samplesAfterReturn += 1 }
            if let error { events.errors.append(error) }
        }
    }
    let adapter = "/sys/bus/i2c/devices/i2c-\(number)"
    // Each step takes at least as long as it always did (0.3 s streaming, 1 s removed, 2 s back)
    // and then waits for what it needs to have seen, bounded at 10 s for a VM the host starves:
    // samples; the client deleted, the error; created again, samples again.
    _ = waitUntil(seconds: 10, minimum: 0.3) { events.withLock { $0.samples > 0 } }
    do {
        try SysfsFiles.write("0x68", to: "\(adapter)/delete_device")
        _ = waitUntil(seconds: 10, minimum: 1) { events.withLock { !$0.errors.isEmpty } }
        try SysfsFiles.write("mpu6050 0x68", to: "\(adapter)/new_device")
    } catch {
        manager.stopAccelerometerUpdates()
        throw CheckFailure(message: "\(error)")
    }
    events.withLock { $0.returned = true }
    _ = waitUntil(seconds: 10, minimum: 2) { events.withLock { $0.samplesAfterReturn > 0 } && manager.counters.recovered >= 1 }
    manager.stopAccelerometerUpdates()
    queue.sync {}
    let seen = events.withLock { $0 }
    print("  \(seen.samples) samples, \(seen.samplesAfterReturn) after the return, errors: \(seen.errors.map(\.description)), counters \(manager.counters)")
    try expect(seen.errors.count == 1, "errors: \(seen.errors)")
    guard case .iio(let cause) = seen.errors.first, cause.kind == .deviceRemoved else {
        throw CheckFailure(message: "expected MotionError.iio(deviceRemoved), got \(seen.errors)")
    }
    try expect(seen.samplesAfterReturn > 0 && manager.counters.recovered >= 1, "no samples after the driver came back")
    try expect(manager.counters.sampled + manager.counters.totalDropped > 0, "counters \(manager.counters)")
}

final class ReadingsBeforeBinding {
    var mpu6050: IMUSample?
    var lsm6dsox: IMUSample?
}

/// The same registers through both drivers. Raw counts must be equal. Values must agree within
/// one LSB of our driver plus what the kernel's scale loses by being printed with six decimals
/// (IIO_VAL_INT_PLUS_MICRO: up to 1e-6 m/s² per count, e.g. ±4 g: 0.001196 for 0.0011971).
func agreementChecks(ours: ReadingsBeforeBinding) -> [Check] {
    let cases: [(String, String, KeyPath<ReadingsBeforeBinding, IMUSample?>)] = [
        ("MPU-6050", "mpu6050", \.mpu6050), ("LSM6DSOX", "lsm6dsox", \.lsm6dsox),
    ]
    return cases.map { chip, name, keyPath in
        Check(name: "\(chip): our I2C driver and the kernel's IIO driver agree on the preloaded sample (raw counts equal; values within one LSB plus the kernel scale's rounding)") {
            guard let sample = ours[keyPath: keyPath], let raw = sample.raw else { throw CheckFailure(message: "our reading is missing") }
            let accelerometer = IIODiscovery.devices(root: iioRoot).devices.first { $0.name == name || $0.name == "\(name)_accel" }
            let gyroscope = IIODiscovery.devices(root: iioRoot).devices.first { $0.name == name || $0.name == "\(name)_gyro" }
            guard let accelerometer, let gyroscope else { throw CheckFailure(message: "no IIO device for \(name)") }
            // The kernel is set to the ranges our driver configured (±4 g, ±500 °/s): the listed
            // scale nearest our sensitivity.
            try setNearestScale("\(accelerometer.directory)/in_accel_scale", to: 9.80665 / raw.accelerometerLSBPerG)
            try setNearestScale("\(gyroscope.directory)/in_anglvel_scale", to: Double.pi / 180 / raw.gyroscopeLSBPerDPS)
            let kernelAccel = try kernelRaw(accelerometer, "accel")
            let kernelGyro = try kernelRaw(gyroscope, "anglvel")
            let ourAccel = (0..<3).map { Double(raw.accelerometer[$0]) }
            let ourGyro = (0..<3).map { Double(raw.gyroscope[$0]) }
            try expect(kernelAccel == ourAccel && kernelGyro == ourGyro, "raw counts: kernel \(kernelAccel) \(kernelGyro), ours \(ourAccel) \(ourGyro)")
            let aScale = try sysfsNumber("\(accelerometer.directory)/in_accel_scale")
            let gScale = try sysfsNumber("\(gyroscope.directory)/in_anglvel_scale")
            var worst = 0.0
            for axis in 0..<3 {
                // Ours: g, Core Motion sign; the kernel's: m/s² of specific force.
                let kernelG = -kernelAccel[axis] * aScale / 9.80665
                let lsb = 1 / raw.accelerometerLSBPerG
                let difference = abs(sample.acceleration[axis] - kernelG)
                worst = max(worst, difference / lsb)
                try expect(difference <= lsb + abs(kernelAccel[axis]) * 1e-6 / 9.80665,
                           "accel \(axis): ours \(sample.acceleration[axis]) g, kernel \(kernelG) g (scale \(aScale))")
                let gyroLSB = Double.pi / 180 / raw.gyroscopeLSBPerDPS
                let kernelRate = kernelGyro[axis] * gScale
                try expect(abs(sample.rotationRate[axis] - kernelRate) <= gyroLSB + abs(kernelGyro[axis]) * 1e-6,
                           "gyro \(axis): ours \(sample.rotationRate[axis]) rad/s, kernel \(kernelRate) rad/s (scale \(gScale))")
            }
            print("  raw counts equal; largest acceleration difference (the kernel scale's rounding) \((worst * 100).rounded() / 100) LSB (kernel scale \(aScale) m/s² per count)")
        }
    }
}

/// Writes the value listed in `<attribute>_available` nearest `target` (as listed: drivers
/// match the written text against their table, IIO_VAL_INT_PLUS_MICRO or _NANO).
func setNearestScale(_ attribute: String, to target: Double) throws {
    do {
        let listed = try SysfsFiles.read(attribute + "_available").split(separator: " ").map(String.init)
        guard let nearest = listed.min(by: { abs((Double($0) ?? .infinity) - target) < abs((Double($1) ?? .infinity) - target) }) else {
            throw CheckFailure(message: "\(attribute)_available lists nothing")
        }
        try SysfsFiles.write(nearest, to: attribute)
    } catch let error as IIOError {
        throw CheckFailure(message: "setting \(attribute): \(error)")
    }
}
