// The MPU-9150 on the kernel tier: an MPU-6050 die at 0x69 (in place of the ICM-20948, after
// its checks) and its AK8975 magnetometer at 0x0C, reached through the MPU's I2C bypass.
//
// ChipCatalog tells an MPU-9150 from an MPU-6050 (both WHO_AM_I 0x68) by an AK8975 that answers
// at 0x0C exactly while INT_PIN_CFG BYPASS_EN is set. i2c-stub answers at every listed address
// always, so there the same image is an MPU-6050 beside a separate magnetometer; the plain-I2C
// adapter (scripts/i2c-regfile, bypass_host=0x69 bypass_chip=0x0c) acknowledges 0x0C only while
// 0x69's BYPASS_EN is set and I2C_MST_EN clear, as the chip does, so there the probe names the
// MPU-9150. Register facts below are from the datasheets, independently of the drivers' tables.
import I2C
import LinuxI2C
import Sensors

let mpu9150Address = I2CAddress(0x69)
let ak8975Address = I2CAddress(0x0C)

/// MPU-9150's MPU-6050 die (RM-MPU-9150A §4, the MPU-6050 register map): WHO_AM_I 0x75 = 0x68,
/// PWR_MGMT_1 0x6B = 0x40 (SLEEP), INT_PIN_CFG 0x37 = 0 and USER_CTRL 0x6A = 0 at power-on (bypass
/// off, I2C master off); ACCEL_XOUT_H 0x3B … GYRO_ZOUT_L 0x48 big-endian.
let mpu9150 = StubChip(name: "MPU-9150", address: mpu9150Address, image: registerImage([
    0x75: [0x68], 0x6B: [0x40], 0x37: [0x00], 0x6A: [0x00],
    0x3B: bigEndianBytes([2048, -4096, 6144, 0, -655, 131, 1310]),
]))

/// AK8975 (AK8975 datasheet register map; kernel drivers/iio/magnetometer/ak8975.c): WIA 0x00 =
/// 0x48, INFO 0x01; ST1 0x02 DRDY bit 0; HXL 0x03 … HZH 0x08 little-endian, 13 bits two's
/// complement; ST2 0x09 (DERR bit 2, HOFL bit 3); CNTL 0x0A MODE (0 power-down at power-on, 1
/// single measurement, 0xF fuse ROM access); ASAX, ASAY, ASAZ 0x10–0x12 in the fuse ROM. A
/// finished measurement: DRDY set, ST2 clear.
let ak8975Raw: [Int16] = [120, -85, 230]
let ak8975SensitivityAdjustment: [UInt8] = [160, 128, 92]
let ak8975 = StubChip(name: "AK8975", address: ak8975Address, image: registerImage([
    0x00: [0x48, 0x00, 0x01], 0x03: littleEndianBytes(ak8975Raw), 0x09: [0x00, 0x00],
    0x10: ak8975SensitivityAdjustment,
]))

/// The drivers one check configures and a later check reads from.
final class MPU9150Drivers {
    var imu: InvenSenseIMU?
    var magnetometer: AKMagnetometer?
}

/// - Parameter bypassGated: whether the bus acknowledges 0x0C only while 0x69's bypass is on
///   (the plain-I2C adapter) or always (i2c-stub).
func mpu9150Checks(bus: LinuxI2CBus, bypassGated: Bool) -> [Check] {
    let drivers = MPU9150Drivers()
    let recording = RecordingBus(bus)
    let others = ["LIS3MDL at 0x1C", "BNO055 at 0x28", "MPU-6050 at 0x68"]
    let after = ["LSM6DSO/LSM6DSOX at 0x6A", "LSM9DS1 at 0x6B"]
    return [
        Check(name: "MPU-9150 image at 0x69 (in place of the ICM-20948) and AK8975 image at 0x0C preloaded; with the bypass off 0x0C \(bypassGated ? "does not answer" : "answers all the same (i2c-stub)")") {
            // The AK8975 is written while the bypass is on (it is unreachable otherwise), then
            // INT_PIN_CFG goes back to its power-on 0.
            var image = mpu9150.image
            image[0x37] = 0x02
            try bus.writeRegisters(mpu9150.address, 0x00, image)
            try bus.writeRegisters(ak8975.address, 0x00, ak8975.image)
            let magnetometerImage = try bus.readRegisters(ak8975.address, 0x00, count: 256)
            try expect(magnetometerImage == ak8975.image, "AK8975 image read back differs")
            try bus.writeRegister(mpu9150.address, 0x37, 0x00)
            let back = try bus.readRegisters(mpu9150.address, 0x00, count: 256)
            try expect(back == mpu9150.image, "MPU-9150 image read back differs")
            if bypassGated {
                let error = try expectError("read at 0x0C with the bypass off") { _ = try bus.readRegister(ak8975.address, 0x00) }
                try expect(error.kind == .noAcknowledge, "kind \(error.kind.rawValue): \(error)")
            } else {
                let identity = try bus.readRegister(ak8975.address, 0x00)
                try expect(identity == 0x48, "WIA \([identity].hexList)")
            }
        },
        bypassGated
            ? Check(name: "probe names the MPU-9150 at 0x69 (an AK8975 answers at 0x0C only once BYPASS_EN is set), leaves its bypass on and 0x68's as it was; the AK8975 inside is identified at 0x0C") {
                let chips = try driver("probe") { () throws(SensorError) in try ChipCatalog.probe(bus: bus) }
                let found = chips.map { "\($0.name) at \($0.address)" }
                try expect(found == others + ["MPU-9150 at 0x69"] + after, "found \(found)")
                try expectRegisters(bus, mpu9150, [(0x37, 0x02)])
                try expectRegisters(bus, mpu6050, [(0x37, 0x00)])
                let inside = ChipCatalog.builtInMagnetometer(inside: "MPU-9150")
                try expect(inside?.name == "AK8975" && inside?.address == ak8975.address, "built-in magnetometer \(String(describing: inside))")
                let magnetometer = try driver("identify 0x0C") { () throws(SensorError) in
                    try ChipCatalog.identify(bus: bus, address: ak8975.address, insidePackageOf: "MPU-9150")
                }
                try expect(magnetometer?.name == "AK8975", "identified \(String(describing: magnetometer))")
            }
            : Check(name: "probe on i2c-stub, where 0x0C answers with the bypass off: a separate AK magnetometer (AK8963 by WIA) and an MPU-6050 at 0x69, with nothing written to it") {
                let chips = try driver("probe") { () throws(SensorError) in try ChipCatalog.probe(bus: bus) }
                let found = chips.map { "\($0.name) at \($0.address)" }
                try expect(found == ["AK8963 at 0x0C"] + others + ["MPU-6050 at 0x69"] + after, "found \(found)")
                try expectRegisters(bus, mpu9150, [(0x37, 0x00)])
            },
        Check(name: "MPU-9150 configuration lands in its registers, INT_PIN_CFG BYPASS_EN included") {
            // As the MPU-6050 (RM-MPU-6000A §4.2–4.4, §4.28), plus INT_PIN_CFG 0x37 = I2C_BYPASS_EN
            // (bit 1, §4.15) for the AK8975.
            let imu = InvenSenseIMU(bus: bus, address: mpu9150.address, model: .mpu9150, resetCompletion: .fixedDelay)
            try driver("configure") { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
            try expectRegisters(bus, mpu9150, [(0x19, 0x04), (0x1A, 0x02), (0x1B, 0x08), (0x1C, 0x08), (0x6B, 0x01), (0x37, 0x02)])
            drivers.imu = imu
        },
        Check(name: "AK8975 configuration: fuse ROM access, ASA read, power-down, then a single measurement read and the next triggered (CNTL writes 0x0F, 0x00, 0x01, 0x01)") {
            // AK8975 datasheet operating modes: MODE 1111 fuse ROM access, 0000 power-down between
            // modes, 0001 single measurement (CNTL returns to 0000 when it is done).
            guard drivers.imu != nil else { throw CheckFailure(message: "the MPU-9150 was not configured (bypass off)") }
            let magnetometer = AKMagnetometer(bus: recording, address: ak8975.address, model: .ak8975)
            _ = recording.takeAccesses()
            try driver("configure") { () throws(SensorError) in try magnetometer.configure(magnetometer.defaultConfiguration) }
            let writes = recording.takeAccesses().filter { if case .write = $0 { true } else { false } }
            try expect(writes == [0x0F, 0x00, 0x01, 0x01].map { .write(ak8975.address, register: 0x0A, value: $0) }, "writes \(writes)")
            drivers.magnetometer = magnetometer
        },
        Check(name: "AK8975 sample: one 8-byte read from ST1, the next measurement triggered, µT in the AK8975's own axes with the ASA adjustment") {
            // H_adj = H · ((ASA − 128) · 0.5 / 128 + 1) (AK8975 datasheet, ASAX/Y/Z); 0.3 µT/LSB
            // (±1229 µT, 13 bits). The driver reports the magnetometer's axes; inside the MPU-9150
            // they are not the accelerometer's (x_mag = y, y_mag = x, z_mag = −z): the board's
            // mount matrix maps them.
            guard let magnetometer = drivers.magnetometer else { throw CheckFailure(message: "the AK8975 was not configured") }
            _ = recording.takeAccesses()
            let sample = try driver("readSample") { () throws(SensorError) in try magnetometer.readSample() }
            let accesses = recording.takeAccesses()
            try expect(accesses == [.read(ak8975.address, register: 0x02, count: 8), .write(ak8975.address, register: 0x0A, value: 0x01)],
                       "accesses \(accesses)")
            let field = SIMD3((0..<3).map { axis in
                Double(ak8975Raw[axis]) * ((Double(ak8975SensitivityAdjustment[axis]) - 128) * 0.5 / 128 + 1) * 0.3
            })
            try expect(same(sample.field, field), "field \(sample.field), expected \(field)")
            try expect(sample.raw?.counts == SIMD3(ak8975Raw), "raw counts \(String(describing: sample.raw?.counts))")
            try expect(!sample.isSaturated, "saturated")
        },
    ] + (bypassGated ? [
        Check(name: "BYPASS_EN cleared: the AK8975 read fails with the bus's no-acknowledge at 0x0C; set again, it reads") {
            try bus.writeRegister(mpu9150.address, 0x37, 0x00)
            guard let magnetometer = drivers.magnetometer else { throw CheckFailure(message: "the AK8975 was not configured") }
            let error = sensorError { () throws(SensorError) in _ = try magnetometer.readSample() }
            try bus.writeRegister(mpu9150.address, 0x37, 0x02)
            guard case .bus(let cause) = error, cause.kind == .noAcknowledge, cause.address == ak8975.address else {
                throw CheckFailure(message: "readSample with the bypass off gave \(String(describing: error))")
            }
            _ = try driver("readSample") { () throws(SensorError) in try magnetometer.readSample() }
        },
    ] : [])
}
