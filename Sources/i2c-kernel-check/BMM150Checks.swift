// The kernel's BMM150 driver beside ours: bmc150_magn (drivers/iio/magnetometer/bmc150_magn.c,
// which Debian's kernel ships as bmc150_magn_i2c) and our BMM150 driver read one register image
// on the plain-I2C register-file adapter (i2c-stub's ten addresses are taken) and must compute the
// same compensated field, to the count: both follow Bosch's integer compensation.
import I2C
import IIO
import LinuxI2C
import Sensors

/// A powered BMM150 (CHIP_ID 0x40 = 0x32, power control 0x4B = 0x01, sleep mode 0x4C = 0x06)
/// with the trim of `BMM150Tests`' worked example at 0x5D–0x71 and its raw sample at 0x42–0x49:
/// x 100, y −200 (13 bits in 15:3), z 300 (15 bits in 15:1), RHALL 7200 (14 bits in 15:2, data
/// ready set). The worked example's result: 603, −1170, 1522 sixteenths of a µT.
let bmm150Image = registerImage([
    0x40: [0x32],
    0x42: littleEndianBytes([100 << 3, -200 << 3, 300 << 1, Int16(7200 << 2 | 1)]),
    0x4B: [0x01, 0x06],
    0x5D: [0x03, 0xFE, 0x00, 0x00, 0x00, 0x0C, 0x00, 0x1A, 0x19, 0x00, 0x00, 0xFB, 0x02, 0xAB, 0x60, 0x8D, 0x1B, 0xB3, 0xFF, 0xFD, 0x1D],
])
let bmm150Expected: [Double] = [603, -1170, 1522]

func bmm150Checks(bus: LinuxI2CBus, path: String) -> [Check] {
    guard let number = busNumber(path) else { return [] }
    let address = I2CAddress(0x10)
    return [Check(name: "bmc150_magn on the plain-I2C adapter at \(address) and our BMM150 driver agree on one register image, to the count") {
        try bus.writeRegisters(address, 0x00, bmm150Image)
        let ours = BMM150Magnetometer(bus: bus, address: address, pause: .system)
        let sample = try driver("BMM150 configure and readSample") { () throws(SensorError) in
            try ours.configure(ours.defaultConfiguration)
            return try ours.readSample()
        }
        let counts = [sample.field.x, sample.field.y, sample.field.z].map { $0 * BMM150Compensation.countsPerMicrotesla }
        try expect(counts == bmm150Expected, "ours \(counts), the worked example \(bmm150Expected)")
        try bus.writeRegisters(address, 0x00, bmm150Image)
        let adapter = "/sys/bus/i2c/devices/i2c-\(number)"
        do {
            try SysfsFiles.write("bmm150_magn 0x10", to: "\(adapter)/new_device")
        } catch {
            throw CheckFailure(message: "new_device: \(error)")
        }
        defer { try? SysfsFiles.write("0x10", to: "\(adapter)/delete_device") }
        let log = kernelLog(mentioning: clientName(bus: number, address))
        guard let device = iioDevice(named: "bmm150_magn") else {
            throw CheckFailure(message: "no IIO device named bmm150_magn; kernel log: \(log.joined(separator: " | "))")
        }
        let kernel = try kernelRaw(device, "magn")
        print("  ours \(counts), kernel \(kernel) (1/16 µT)")
        try expect(kernel == counts, "kernel \(kernel), ours \(counts)")
    }]
}
