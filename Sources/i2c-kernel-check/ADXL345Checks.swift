// The kernel's adxl345 driver on i2c-stub beside ours: an ADXL345 register image at 0x1D (the
// MMA8452Q's client there, whose probe fails, is deleted first: i2c-stub takes ten addresses and
// all are in use), read through our driver, written again (our configuration changed some
// registers), then the kernel driver asked to bind it (`new_device`).
//
// Debian's 6.1 adxl345_core takes the chip type from device_get_match_data() (since "iio: accel:
// adxl345: Make use of device properties", 2022), which a client made by new_device, with no
// device-tree or ACPI node, does not have: its probe fails with -EINVAL there, and the check
// expects exactly that. A kernel that binds such a client (one that looks the type up in its I2C
// id table) has its IIO values compared with ours instead. The kernel's constants are compared
// with ours in KernelCrossCheckTests either way.
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
    return [Check(name: "adxl345 on i2c-stub at \(address): our ADXL345 driver reads the image; the kernel's probe fails with -EINVAL on 6.1 "
        + "(no match data for a new_device client), or, where it binds, agrees with ours within 0.1 % (its 0.0383 m/s² per LSB is ~4 mg rounded)") {
        try? SysfsFiles.write("0x1d", to: "\(adapter)/delete_device")  // the MMA8452Q client, if any
        try bus.writeRegisters(address, 0x00, adxl345Image)
        guard let ours = ChipDescriptor.adxl345.makeIMU(bus: bus, address: address, pause: .system) else {
            throw CheckFailure(message: "the ADXL345 is no IMU")
        }
        let sample = try driver("ADXL345 configure and readSample") { () throws(SensorError) in
            try ours.configure(ours.defaultConfiguration)
            return try ours.readSample()
        }
        // Specific force −0.5, 0.25, 1 g in counts of 1/256 g: Core Motion's sign is the opposite.
        let expected = -SIMD3(Double(adxl345Raw[0]), Double(adxl345Raw[1]), Double(adxl345Raw[2])) / 256
        try expect(sample.acceleration == expected, "ours \(sample.acceleration) g, image \(expected) g")
        try bus.writeRegisters(address, 0x00, adxl345Image)
        do {
            try SysfsFiles.write("adxl345 0x1d", to: "\(adapter)/new_device")
        } catch {
            throw CheckFailure(message: "new_device: \(error)")
        }
        defer { try? SysfsFiles.write("0x1d", to: "\(adapter)/delete_device") }
        let log = kernelLog(mentioning: clientName(bus: number, address))
        print("  kernel log for \(clientName(bus: number, address)): \(log.isEmpty ? "(nothing)" : log.joined(separator: " | "))")
        guard let device = iioDevice(named: "adxl345") else {
            let failed = log.contains { $0.contains("adxl345") && $0.contains("failed with error -22") }
            try expect(failed, "no IIO device named adxl345, and not the -EINVAL of a probe without match data; kernel log: \(log.joined(separator: " | "))")
            return
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
