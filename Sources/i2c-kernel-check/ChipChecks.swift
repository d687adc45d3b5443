// Hardware-in-the-loop checks on i2c-stub: the real drivers (Sensors) and the real Linux bus
// against register images of an MPU-6050 (0x68), an ICM-20948 (0x69), an LSM6DSOX (0x6A), an
// LSM9DS1 (0x6B), a LIS3MDL (0x1C) and a BNO055 (0x28); the MPU-9150 follows (MPU9150Checks.swift).
//
// i2c-stub is a plain file of 256 byte registers per address: it keeps whatever is written and
// never clears a reset bit, so the drivers run with `resetCompletion: .fixedDelay` (documented
// in Sensors). Register addresses, reset values and sensitivities below come from the datasheets,
// independently of the drivers' tables.
import I2C
import LinuxI2C
import Sensors

/// 16-bit values as big-endian bytes (InvenSense data registers).
func bigEndianBytes(_ values: [Int16]) -> [UInt8] {
    values.flatMap { [UInt8(UInt16(bitPattern: $0) >> 8), UInt8(UInt16(bitPattern: $0) & 0xFF)] }
}

/// 16-bit values as little-endian bytes (ST data registers).
func littleEndianBytes(_ values: [Int16]) -> [UInt8] {
    values.flatMap { [UInt8(UInt16(bitPattern: $0) & 0xFF), UInt8(UInt16(bitPattern: $0) >> 8)] }
}

/// A chip's 256 registers: zero except `values` (register → bytes written from there on).
func registerImage(_ values: [UInt8: [UInt8]]) -> [UInt8] {
    var image = [UInt8](repeating: 0, count: 256)
    for (register, bytes) in values {
        for (offset, byte) in bytes.enumerated() { image[Int(register) + offset] = byte }
    }
    return image
}

/// One emulated chip: where it sits, its power-on image, the raw sample placed in it.
struct StubChip {
    var name: String
    var address: I2CAddress
    var image: [UInt8]
}

/// MPU-6050 (RM-MPU-6000A): WHO_AM_I 0x75 = 0x68, PWR_MGMT_1 0x6B resets to 0x40 (SLEEP);
/// ACCEL_XOUT_H 0x3B … GYRO_ZOUT_L 0x48, big-endian: accel x, y, z, temperature, gyro x, y, z.
let mpu6050AccelerometerRaw: [Int16] = [4096, -2048, 8192]
let mpu6050GyroscopeRaw: [Int16] = [655, -1310, 131]
let mpu6050 = StubChip(name: "MPU-6050", address: I2CAddress(0x68), image: registerImage([
    0x75: [0x68], 0x6B: [0x40],
    0x3B: bigEndianBytes(mpu6050AccelerometerRaw + [0] + mpu6050GyroscopeRaw),
]))

/// LSM6DSOX (DS12814 §9): WHO_AM_I 0x0F = 0x6C, CTRL3_C 0x12 resets to 0x04 (IF_INC);
/// OUT_TEMP_L 0x20 … OUTZ_H_A 0x2D, little-endian: temperature, gyro x, y, z, accel x, y, z.
let lsm6dsoxGyroscopeRaw: [Int16] = [1000, -2000, 500]
let lsm6dsoxAccelerometerRaw: [Int16] = [4098, -2049, 8197]
let lsm6dsox = StubChip(name: "LSM6DSO/LSM6DSOX", address: I2CAddress(0x6A), image: registerImage([
    0x0F: [0x6C], 0x12: [0x04],
    0x20: littleEndianBytes([0] + lsm6dsoxGyroscopeRaw + lsm6dsoxAccelerometerRaw),
]))

/// LIS3MDL (datasheet §7): WHO_AM_I 0x0F = 0x3D, CTRL_REG1…5 0x20…0x24 reset to 0x10, 0, 0x03, 0, 0;
/// OUT_X_L 0x28 … OUT_Z_H 0x2D little-endian. A multi-byte read sets the sub-address MSB
/// (auto-increment, §6.1.1): the driver asks for 0xA8, which i2c-stub takes as a plain register,
/// so the sample is placed at 0xA8…0xAD as well.
let lis3mdlRaw: [Int16] = [3421, -6842, 1711]
let lis3mdl = StubChip(name: "LIS3MDL", address: I2CAddress(0x1C), image: registerImage([
    0x0F: [0x3D], 0x20: [0x10, 0x00, 0x03, 0x00, 0x00],
    0x28: littleEndianBytes(lis3mdlRaw), 0xA8: littleEndianBytes(lis3mdlRaw),
]))

/// LSM9DS1 accelerometer and gyroscope (DocID025715 §6–7): WHO_AM_I 0x0F = 0x68, CTRL_REG8 0x22
/// resets to 0x04 (IF_ADD_INC); OUT_TEMP_L 0x15, OUT_X_L_G 0x18 … 0x1D, OUT_X_L_XL 0x28 … 0x2D,
/// little-endian. The Raspberry Pi Sense HAT's IMU (there at 0x6A; here at 0x6B, beside the LSM6DSOX).
let lsm9ds1GyroscopeRaw: [Int16] = [-1500, 700, 2800]
let lsm9ds1AccelerometerRaw: [Int16] = [-4100, 2050, 8196]
let lsm9ds1 = StubChip(name: "LSM9DS1", address: I2CAddress(0x6B), image: registerImage([
    0x0F: [0x68], 0x22: [0x04], 0x15: littleEndianBytes([0]),
    0x18: littleEndianBytes(lsm9ds1GyroscopeRaw), 0x28: littleEndianBytes(lsm9ds1AccelerometerRaw),
]))

/// ICM-20948 (DS-000189 §7–8): bank 0 WHO_AM_I 0x00 = 0xEA, PWR_MGMT_1 0x06 resets to 0x41
/// (asleep); ACCEL_XOUT_H 0x2D … GYRO_ZOUT_L 0x38, TEMP_OUT 0x39–0x3A, big-endian. A register file
/// has no banks: the driver's bank-2 writes (rates and ranges) land at the same addresses of the one
/// file, which the sample read (bank 0, 0x2D–0x3A) does not touch. At 0x69, where the breakouts
/// ship (the kernel IIO checks later put a BMI160 there).
let icm20948AccelerometerRaw: [Int16] = [2048, -4096, 8190]
let icm20948GyroscopeRaw: [Int16] = [131, -655, 1310]
let icm20948 = StubChip(name: "ICM-20948", address: I2CAddress(0x69), image: registerImage([
    0x00: [0xEA], 0x06: [0x41],
    0x2D: bigEndianBytes(icm20948AccelerometerRaw + icm20948GyroscopeRaw + [0]),
]))

/// BNO055 (BST-BNO055-DS000 §4.2 register map, page 0; kernel drivers/iio/imu/bno055/bno055.c):
/// CHIP_ID 0x00 = 0xA0, ACC_ID 0x01 = 0xFB, MAG_ID 0x02 = 0x32, GYR_ID 0x03 = 0x0F; PAGE_ID 0x07 = 0;
/// from 0x08 on, 16-bit little-endian: ACC_DATA x, y, z (0x08), MAG_DATA (0x0E), GYR_DATA (0x14),
/// EUL_DATA heading, roll, pitch (0x1A), QUA_DATA w, x, y, z (0x20–0x27). Power-on values the
/// driver must change: UNIT_SEL 0x3B = 0x80 (ORI_Android_Windows: Android), OPR_MODE 0x3D = 0
/// (CONFIGMODE, §3.3); PWR_MODE 0x3E = 0 (normal), SYS_TRIGGER 0x3F = 0.
/// The driver's only read after a write is CHIP_ID after RST_SYS (it waits for the identity to
/// answer again, not for a bit to clear), which a register file keeps: the default reset wait
/// (`.pollResetBit`) works here. It reads neither SYS_STATUS nor CALIB_STAT while configuring
/// or sampling, so the image leaves them 0.
/// Units with UNIT_SEL = 0 (the unit tables of §3.6.5; kernel bno055.c scales): 1 m/s² = 100 LSB,
/// 1 µT = 16 LSB, 1 °/s = 16 LSB, 1° = 16 LSB; quaternion 1 = 2^14 LSB.
let bno055AccelerometerRaw: [Int16] = [-123, 456, 981]
let bno055MagnetometerRaw: [Int16] = [200, -320, 488]
let bno055GyroscopeRaw: [Int16] = [160, -480, 40]
let bno055EulerRaw: [Int16] = [1440, -240, 720]
let bno055QuaternionRaw: [Int16] = [8192, -8192, 8192, 8192]
let bno055 = StubChip(name: "BNO055", address: I2CAddress(0x28), image: registerImage([
    0x00: [0xA0, 0xFB, 0x32, 0x0F], 0x07: [0x00],
    0x08: littleEndianBytes(bno055AccelerometerRaw + bno055MagnetometerRaw + bno055GyroscopeRaw + bno055EulerRaw + bno055QuaternionRaw),
    0x3B: [0x80], 0x3D: [0x00, 0x00, 0x00],
]))

let stubChipImages = [mpu6050, icm20948, lsm6dsox, lsm9ds1, lis3mdl, bno055]

/// |a − b| ≤ 1e-9 per axis.
func same(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Bool {
    (0..<3).allSatisfy { abs(a[$0] - b[$0]) <= 1e-9 }
}

func vector(_ values: [Int16], scale: Double) -> SIMD3<Double> {
    SIMD3(Double(values[0]), Double(values[1]), Double(values[2])) * scale
}

/// Runs a driver call, turning its error into a check failure that keeps the message.
func driver<T>(_ what: String, _ body: () throws(SensorError) -> T) throws(CheckFailure) -> T {
    do {
        return try body()
    } catch {
        throw CheckFailure(message: "\(what): \(error)")
    }
}

/// Reads `registers` raw and compares them with `expected` (register → value).
func expectRegisters(_ bus: LinuxI2CBus, _ chip: StubChip, _ expected: [(UInt8, UInt8)]) throws {
    for (register, value) in expected {
        let found = try bus.readRegister(chip.address, register)
        try expect(found == value, "\(chip.name) register \([register].hexList) holds \([found].hexList), expected \([value].hexList)")
    }
}

/// Configures `chipDriver` with its default configuration, then reads `expected` (register →
/// value) back from `chip`'s registers; returns the driver for the checks that read from it.
func configuredByDefault<Driver: ChipDriver>(
    _ chipDriver: Driver, _ bus: LinuxI2CBus, _ chip: StubChip, expecting expected: [(UInt8, UInt8)]
) throws -> Driver {
    try driver("configure") { () throws(SensorError) in try chipDriver.configure(chipDriver.defaultConfiguration) }
    try expectRegisters(bus, chip, expected)
    return chipDriver
}

/// The sample `imu` reads from its register image: acceleration = −`accelerometer` counts ×
/// `gPerLSB` (Core Motion sign), rotation rate = `gyroscope` counts × `radiansPerSecondPerLSB`,
/// and `temperature` (°C) where the check gives one.
func expectSample(
    _ imu: (any IMUDriver)?, accelerometer: [Int16], gPerLSB: Double, gyroscope: [Int16], radiansPerSecondPerLSB: Double,
    temperature: Double? = nil
) throws {
    guard let imu else { throw CheckFailure(message: "the IMU was not configured") }
    let sample = try driver("readSample") { () throws(SensorError) in try imu.readSample() }
    let acceleration = -vector(accelerometer, scale: gPerLSB)
    let rotation = vector(gyroscope, scale: radiansPerSecondPerLSB)
    try expect(same(sample.acceleration, acceleration), "acceleration \(sample.acceleration), expected \(acceleration)")
    try expect(same(sample.rotationRate, rotation), "rotation rate \(sample.rotationRate), expected \(rotation)")
    if let temperature {
        try expect(abs((sample.temperature ?? 0) - temperature) < 1e-9, "temperature \(String(describing: sample.temperature))")
    }
}

/// The drivers one check configures and a later check reads from.
final class ConfiguredDrivers {
    var mpu6050: InvenSenseIMU?
    var lsm6dsox: LSM6IMU?
    var lsm9ds1: LSM9DS1IMU?
    var icm20948: ICM20948IMU?
    var lis3mdl: LIS3MDLMagnetometer?
    var bno055: BNO055IMU?
}

/// The error a driver call threw, nil when it succeeded.
func sensorError(_ body: () throws(SensorError) -> Void) -> SensorError? {
    do { try body() } catch { return error }
    return nil
}

func chipChecks(bus: LinuxI2CBus, imus: ConfiguredDrivers) -> [Check] {
    let degree = Double.pi / 180
    let recording = RecordingBus(bus)
    return [
        Check(name: "register images of MPU-6050, ICM-20948, LSM6DSOX, LSM9DS1, LIS3MDL, BNO055 preloaded (256 registers each)") {
            for chip in stubChipImages {
                try bus.writeRegisters(chip.address, 0x00, chip.image)
                let back = try bus.readRegisters(chip.address, 0x00, count: 256)
                try expect(back == chip.image, "\(chip.name) image read back differs")
            }
        },
        Check(name: "probe identifies MPU-6050 at 0x68, ICM-20948 at 0x69, LSM6DSOX at 0x6A, LSM9DS1 at 0x6B, LIS3MDL at 0x1C, BNO055 at 0x28; nothing at the other usual addresses") {
            let chips = try driver("probe") { () throws(SensorError) in try ChipCatalog.probe(bus: bus) }
            let found = chips.map { "\($0.name) at \($0.address)" }
            try expect(found == ["LIS3MDL at 0x1C", "BNO055 at 0x28", "MPU-6050 at 0x68", "ICM-20948 at 0x69", "LSM6DSO/LSM6DSOX at 0x6A", "LSM9DS1 at 0x6B"],
                       "found \(found)")
        },
        Check(name: "MPU-6050 configuration lands in its registers") {
            // 200 Hz, ±4 g, ±500 °/s: SMPLRT_DIV 0x19 = 1 kHz / 200 Hz − 1 = 4 (RM §4.2);
            // CONFIG 0x1A DLPF_CFG 2 (98 Hz, < 200/2); GYRO_CONFIG 0x1B FS_SEL 1 (bits 4:3);
            // ACCEL_CONFIG 0x1C AFS_SEL 1 (bits 4:3); PWR_MGMT_1 0x6B = 0x01 (awake, PLL with X gyro).
            imus.mpu6050 = try configuredByDefault(
                InvenSenseIMU(bus: bus, address: mpu6050.address, model: .mpu6050, resetCompletion: .fixedDelay), bus, mpu6050,
                expecting: [(0x19, 0x04), (0x1A, 0x02), (0x1B, 0x08), (0x1C, 0x08), (0x6B, 0x01)])
        },
        Check(name: "LSM6DSOX configuration lands in its registers") {
            // 208 Hz, ±4 g, ±500 dps (DS12814 §9.13–9.15): CTRL1_XL 0x10 = ODR 0101, FS 10 → 0x58;
            // CTRL2_G 0x11 = ODR 0101, FS 01 → 0x54; CTRL3_C 0x12 = BDU | IF_INC → 0x44.
            imus.lsm6dsox = try configuredByDefault(
                LSM6IMU(bus: bus, address: lsm6dsox.address, model: .lsm6dso, resetCompletion: .fixedDelay), bus, lsm6dsox,
                expecting: [(0x10, 0x58), (0x11, 0x54), (0x12, 0x44)])
        },
        Check(name: "ICM-20948 configuration lands in its bank-0 registers and ends in bank 0") {
            // DS-000189 §8: PWR_MGMT_1 0x06 = CLKSEL 1, awake → 0x01; USER_CTRL 0x03 = 0 (I2C master
            // off); INT_PIN_CFG 0x0F = BYPASS_EN → 0x02; REG_BANK_SEL 0x7F = 0 (bank 0) at the end.
            imus.icm20948 = try configuredByDefault(
                ICM20948IMU(bus: bus, address: icm20948.address, resetCompletion: .fixedDelay), bus, icm20948,
                expecting: [(0x06, 0x01), (0x03, 0x00), (0x0F, 0x02), (0x7F, 0x00)])
        },
        Check(name: "LSM9DS1 configuration lands in its registers") {
            // 119 Hz, ±4 g, ±500 °/s (DocID025715 §7.12, §7.24, §7.26): CTRL_REG8 0x22 = BDU | IF_ADD_INC
            // → 0x44; CTRL_REG6_XL 0x20 = ODR_XL 011, FS_XL 10 → 0x70; CTRL_REG1_G 0x10 = ODR_G 011,
            // FS_G 01 → 0x68.
            imus.lsm9ds1 = try configuredByDefault(
                LSM9DS1IMU(bus: bus, address: lsm9ds1.address, resetCompletion: .fixedDelay), bus, lsm9ds1,
                expecting: [(0x22, 0x44), (0x20, 0x70), (0x10, 0x68)])
        },
        Check(name: "LIS3MDL configuration lands in its registers") {
            // 80 Hz, ±4 gauss (datasheet §7.2–7.6): CTRL_REG1 = OM 11 | DO 111 → 0x7C; CTRL_REG2 FS 00;
            // CTRL_REG3 MD 00 (continuous); CTRL_REG4 OMZ 11 → 0x0C; CTRL_REG5 BDU → 0x40.
            imus.lis3mdl = try configuredByDefault(
                LIS3MDLMagnetometer(bus: bus, address: lis3mdl.address, resetCompletion: .fixedDelay), bus, lis3mdl,
                expecting: [(0x20, 0x7C), (0x21, 0x00), (0x22, 0x00), (0x23, 0x0C), (0x24, 0x40)])
        },
        Check(name: "BNO055 configuration: CONFIGMODE, RST_SYS, page 0, normal power, UNIT_SEL 0, internal oscillator, NDOF last; the registers hold it") {
            // Datasheet §3.3 (modes are changed in CONFIGMODE, OPR_MODE 0x3D: 0 CONFIG, 0x0C NDOF),
            // §4.3 (PAGE_ID 0x07, UNIT_SEL 0x3B: 0 = m/s², °/s, degrees, °C, Windows; PWR_MODE 0x3E:
            // 0 normal; SYS_TRIGGER 0x3F: RST_SYS bit 5, CLK_SEL bit 7 = 0 internal oscillator).
            // The default reset wait: it polls CHIP_ID, which reads 0xA0 throughout.
            let imu = BNO055IMU(bus: recording, address: bno055.address)
            _ = recording.takeAccesses()
            try driver("configure") { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
            let writes = recording.takeAccesses().filter { if case .write = $0 { true } else { false } }
            let expected: [BusAccess] = [(0x3D, 0x00), (0x3F, 0x20), (0x07, 0x00), (0x3E, 0x00), (0x3B, 0x00), (0x3F, 0x00), (0x3D, 0x0C)]
                .map { .write(bno055.address, register: $0.0, value: $0.1) }
            try expect(writes == expected, "writes \(writes)")
            try expectRegisters(bus, bno055, [(0x07, 0x00), (0x3B, 0x00), (0x3D, 0x0C), (0x3E, 0x00), (0x3F, 0x00)])
            let configured = try driver("isStillConfigured") { () throws(SensorError) in try imu.isStillConfigured() }
            try expect(configured, "OPR_MODE does not read back NDOF")
            imus.bno055 = imu
        },
        Check(name: "BNO055 sample: one 32-byte read from 0x08 (the SMBus I2C-block limit on i2c-stub, one I2C_RDWR on the plain adapter) decodes to g, rad/s, µT and the chip's quaternion") {
            // 0x08–0x27 is 32 bytes: one SMBus I2C-block read (I2C_SMBUS_BLOCK_MAX) where the
            // adapter has SMBus only, one combined transfer otherwise.
            guard let imu = imus.bno055 else { throw CheckFailure(message: "the BNO055 was not configured") }
            switch bus.transferMode {
            case .smbus:
                try expect(bus.maximumReadLength == 32, "maximum read length \(String(describing: bus.maximumReadLength))")
                let steps = SMBusPlan.steps(for: [.write([0x08]), .read(count: 32)])
                try expect(steps == [.readBlock(register: 0x08, count: 32)], "SMBus steps \(String(describing: steps))")
            case .combined:
                try expect(bus.maximumReadLength == nil, "maximum read length \(String(describing: bus.maximumReadLength))")
            }
            _ = recording.takeAccesses()
            let sample = try driver("readSample") { () throws(SensorError) in try imu.readSample() }
            let magnetic = try driver("magnetometer readSample") { () throws(SensorError) in try imu.magnetometer.readSample() }
            let accesses = recording.takeAccesses()
            try expect(accesses == [.read(bno055.address, register: 0x08, count: 32)], "accesses \(accesses)")
            // m/s² → g (÷ 9.80665), Core Motion sign (negated); °/s → rad/s.
            let acceleration = -vector(bno055AccelerometerRaw, scale: 1 / 100 / 9.80665)
            let rotation = vector(bno055GyroscopeRaw, scale: degree / 16)
            let field = vector(bno055MagnetometerRaw, scale: 1.0 / 16)
            let quaternion = SIMD4(bno055QuaternionRaw.map { Double($0) / 16384 })
            try expect(same(sample.acceleration, acceleration), "acceleration \(sample.acceleration), expected \(acceleration)")
            try expect(same(sample.rotationRate, rotation), "rotation rate \(sample.rotationRate), expected \(rotation)")
            try expect(sample.chipOrientation?.wxyz == quaternion, "quaternion \(String(describing: sample.chipOrientation)), expected \(quaternion)")
            try expect(same(magnetic.field, field), "field \(magnetic.field), expected \(field)")
            try expect(!sample.isSaturated && !magnetic.isSaturated, "saturated: IMU \(sample.isSaturated), magnetometer \(magnetic.isSaturated)")
        },
        Check(name: "MPU-6050 sample decodes to g and rad/s (±4 g: 8192 LSB/g, ±500 °/s: 65.5 LSB/(°/s))") {
            // PS-MPU-6000A §6.1–6.2 sensitivities; Core Motion sign: acceleration negated.
            // TEMP_OUT 0 → 36.53 °C (RM §4.18: raw / 340 + 36.53).
            try expectSample(
                imus.mpu6050, accelerometer: mpu6050AccelerometerRaw, gPerLSB: 1 / 8192, gyroscope: mpu6050GyroscopeRaw,
                radiansPerSecondPerLSB: degree / 65.5, temperature: 36.53)
        },
        Check(name: "LSM6DSOX sample decodes to g and rad/s (±4 g: 0.122 mg/LSB, ±500 dps: 17.5 mdps/LSB)") {
            // DS12814 Table 2 sensitivities; Core Motion sign: acceleration negated.
            try expectSample(
                imus.lsm6dsox, accelerometer: lsm6dsoxAccelerometerRaw, gPerLSB: 0.122e-3, gyroscope: lsm6dsoxGyroscopeRaw,
                radiansPerSecondPerLSB: 17.5e-3 * degree)
        },
        Check(name: "ICM-20948 sample decodes to g and rad/s in one 14-byte read (±4 g: 8192 LSB/g, ±500 °/s: 65.5 LSB/(°/s))") {
            // DS-000189 Tables 1–2 sensitivities; TEMP_OUT 0 → 21 °C (§8: (raw − offset) / 333.87 + 21).
            try expectSample(
                imus.icm20948, accelerometer: icm20948AccelerometerRaw, gPerLSB: 1 / 8192, gyroscope: icm20948GyroscopeRaw,
                radiansPerSecondPerLSB: degree / 65.5, temperature: 21)
        },
        Check(name: "LSM9DS1 sample decodes to g and rad/s in one 25-byte read (±4 g: 0.122 mg/LSB, ±500 °/s: 17.5 mdps/LSB)") {
            // DocID025715 Table 3 sensitivities; temperature 0 LSB = 25 °C (§2.2); Core Motion sign.
            try expectSample(
                imus.lsm9ds1, accelerometer: lsm9ds1AccelerometerRaw, gPerLSB: 0.122e-3, gyroscope: lsm9ds1GyroscopeRaw,
                radiansPerSecondPerLSB: 17.5e-3 * degree, temperature: 25)
        },
        Check(name: "LIS3MDL sample decodes to µT through the 0xA8 auto-increment read (±4 gauss: 6842 LSB/gauss)") {
            // Datasheet Table 2 sensitivity; 1 gauss = 100 µT.
            guard let magnetometer = imus.lis3mdl else { throw CheckFailure(message: "the LIS3MDL was not configured") }
            let sample = try driver("readSample") { () throws(SensorError) in try magnetometer.readSample() }
            let field = vector(lis3mdlRaw, scale: 100.0 / 6842)
            try expect(same(sample.field, field), "field \(sample.field), expected \(field)")
        },
        Check(name: "polling for the reset (the default) times out on a plain register file, whose reset bit never clears") {
            // Why the checks above use `.fixedDelay`: SOFT_RST (CTRL_REG2 bit 2) stays as written.
            let magnetometer = LIS3MDLMagnetometer(bus: bus, address: lis3mdl.address)
            let error = sensorError { () throws(SensorError) in try magnetometer.configure(magnetometer.defaultConfiguration) }
            guard case .resetTimeout = error else {
                throw CheckFailure(message: "configure gave \(String(describing: error)), expected a reset timeout")
            }
        },
        Check(name: "a driver at an absent address fails with the bus's no-acknowledge error") {
            let imu = LSM6IMU(bus: bus, address: I2CAddress(0x50), model: .lsm6dso, resetCompletion: .fixedDelay)
            let error = sensorError { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
            guard case .bus(let cause) = error else {
                throw CheckFailure(message: "configure at 0x50 gave \(String(describing: error)), expected a bus error")
            }
            try expect(cause.kind == .noAcknowledge, "kind \(cause.kind.rawValue): \(cause)")
            try expect(cause.description.contains("no device acknowledged at 0x50"), "\(cause)")
        },
    ]
}
