// The kernel's adxl345 driver on i2c-stub beside ours: an ADXL345 register image at 0x1D (the
// MMA8452Q's client there, whose probe fails, is deleted first: i2c-stub takes ten addresses and
// all are in use), read through our driver, written again (our configuration changed some
// registers), then the kernel driver bound to it (`new_device`) and its IIO channels read. Both
// must agree within the kernel's rounding of the scale.
import I2C
import IIO
import LinuxI2C
import Sensors

/// ADXL345 (Rev. G, Table 19): DEVID 0x00 = 0xE5, BW_RATE 0x2C = 0x0A (100 Hz), DATAX0…DATAZ1
/// 0x32–0x37 little-endian: x −0.5 g, y +0.25 g, z +1 g at 256 LSB/g (within the ±2 g full
/// resolution the kernel driver sets: DATA_FORMAT FULL_RES alone, adxl345_core.c).
let adxl345Raw: [Int16] = [-128, 64, 256]
let adxl345Image = registerImage([0x00: [0xE5], 0x2C: [0x0A], 0x32: littleEndianBytes(adxl345Raw)])

func adxl345Checks(bus: LinuxI2CBus, path: String) -> [Check] {
    guard let number = busNumber(path) else { return [] }
    let adapter = "/sys/bus/i2c/devices/i2c-\(number)"
    let address = I2CAddress(0x1D)
    return [Check(name: "adxl345 on i2c-stub at \(address) and our ADXL345 driver agree on one register image (the kernel's scale 0.0383 m/s² per LSB is ~4 mg rounded: within 0.1 %)") {
        try? SysfsFiles.write("0x1d", to: "\(adapter)/delete_device")  // the MMA8452Q client, if any
        try bus.writeRegisters(address, 0x00, adxl345Image)
        guard let ours = ChipDescriptor.adxl345.makeIMU(bus: bus, address: address, pause: .system) else {
            throw CheckFailure(message: "the ADXL345 is no IMU")
        }
        let sample = try driver("ADXL345 configure and readSample") { () throws(SensorError) in
            try ours.configure(ours.defaultConfiguration)
            return try ours.readSample()
        }
        try bus.writeRegisters(address, 0x00, adxl345Image)
        do {
            try SysfsFiles.write("adxl345 0x1d", to: "\(adapter)/new_device")
        } catch {
            throw CheckFailure(message: "new_device: \(error)")
        }
        defer { try? SysfsFiles.write("0x1d", to: "\(adapter)/delete_device") }
        let log = kernelLog(mentioning: clientName(bus: number, address))
        guard let device = iioDevice(named: "adxl345") else {
            throw CheckFailure(message: "no IIO device named adxl345; kernel log: \(log.joined(separator: " | "))")
        }
        let raw = try kernelRaw(device, "accel")
        let scale = try sysfsNumber("\(device.directory)/in_accel_scale")
        try expect(raw == adxl345Raw.map(Double.init), "raw counts: kernel \(raw), image \(adxl345Raw)")
        // The kernel gives specific force in m/s²; ours is g with Core Motion's sign.
        let kernel = SIMD3(raw[0], raw[1], raw[2]) * scale / 9.80665
        let difference = sample.acceleration + kernel
        print("  ours \(sample.acceleration) g; kernel \(kernel) g (specific force, scale \(scale) m/s² per LSB)")
        for axis in 0..<3 {
            try expect(abs(difference[axis]) <= 0.001 * abs(kernel[axis]) + 1e-9, "axis \(axis): ours \(sample.acceleration[axis]) g, kernel \(-kernel[axis]) g")
        }
    }]
}
