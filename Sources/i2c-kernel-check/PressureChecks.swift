// The kernel's barometer drivers on i2c-stub beside ours: for each pressure driver Debian's kernel
// ships (bmp280, st_pressure, dps310), a register image is preloaded, read through our driver,
// written again (our configuration changed some registers), then the kernel driver is bound to it
// (`new_device`) and its IIO channels read (IIOBarometer: in_pressure_input kPa or raw × scale,
// in_temp m°C). Both must agree within the step the datasheet or the kernel's arithmetic gives.
import I2C
import IIO
import LinuxI2C
import Sensors

/// One barometer driver tried against ours on one image.
struct PressureCase {
    var module: String
    /// The I2C client name its id table matches.
    var client: String
    var address: I2CAddress
    var image: [UInt8]
    /// The IIO `name` it registers.
    var iioName: String
    /// Our driver for the same chip.
    var descriptor: ChipDescriptor
    /// Sysfs attributes to write before reading (to set the kernel's oversampling to ours).
    var kernelSettings: [(attribute: String, value: String)] = []
    /// How far the pressures may differ, Pa, and why.
    var tolerance: Double
    var why: String
}

/// BMP280 (BST-BMP280-DS001 §3.11.3 worked example): CHIP_ID 0xD0 = 0x58, trimming at 0x88
/// (dig_T1 27504 … dig_P9 6000), adc_P 415148 and adc_T 519888 at 0xF7…0xFC.
let bmp280PressureImage = registerImage([
    0xD0: [0x58],
    0x88: BMP280Calibration(t1: 27504, t2: 26435, t3: -1000, p1: 36477, p2: -10685, p3: 3024, p4: 2855, p5: 140, p6: -7,
                            p7: 15500, p8: -14600, p9: 6000).registers,
    0xF7: [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00],
])

/// LPS25H (AN4450 §4.3 example): WHO_AM_I 0x0F = 0xBD, PRESS_OUT 0x3FF58D and TEMP_OUT 0xE07C at
/// 0x28…0x2C, and again at 0xA8…0xAC, where both drivers' auto-incrementing reads (address | 0x80)
/// land on i2c-stub, whose registers know nothing of that bit.
let lps25hPressureImage = registerImage([
    0x0F: [0xBD], 0x28: [0x8D, 0xF5, 0x3F, 0x7C, 0xE0], 0xA8: [0x8D, 0xF5, 0x3F, 0x7C, 0xE0],
])

/// DPS310: product ID 0x0D = 0x10, MEAS_CFG 0xF0 (coefficients, sensor, both results ready),
/// 0x32 bit 1 set (no temperature workaround needed), COEF_SRCE 0x80, coefficients at 0x10, and
/// P_raw −94000, T_raw 161700 at 0x00…0x05; PRS_CFG ×16, TMP_CFG ×1 with TMP_EXT, CFG_REG P_SHIFT.
let dps310PressureImage = registerImage([
    0x00: [0xFE, 0x90, 0xD0, 0x02, 0x77, 0xA4], 0x06: [0x44, 0xC0, 0xF0, 0x04], 0x0D: [0x10],
    0x10: DPS310Calibration(c0: 204, c1: -261, c00: 80_000, c10: -54_000, c01: -2_000, c11: 1_200, c20: -9_000, c21: 100, c30: -1_000).registers,
    0x28: [0x80], 0x32: [0x02],
])

let pressureCases = [
    PressureCase(
        module: "bmp280-i2c", client: "bmp280", address: I2CAddress(0x76), image: bmp280PressureImage, iioName: "bmp280", descriptor: .bmp280,
        tolerance: 1.0 / 256, why: "both compute the datasheet's 64-bit integer formula: equal to its 1/256 Pa step"),
    PressureCase(
        module: "st_pressure_i2c", client: "lps25h", address: I2CAddress(0x5C), image: lps25hPressureImage, iioName: "lps25h", descriptor: .lps25h,
        tolerance: 0.4, why: "the kernel's scale is printed to the nano-kPa (0.000024414 for 1/40960), 0.26 Pa low at 1023 hPa"),
    PressureCase(
        module: "dps310", client: "dps310", address: I2CAddress(0x76), image: dps310PressureImage, iioName: "dps310", descriptor: .dps310,
        kernelSettings: [("in_pressure_oversampling_ratio", "16"), ("in_temp_oversampling_ratio", "1")],
        tolerance: 1, why: "the kernel computes whole pascals (dps310_calculate_pressure); ours is the datasheet's floating point"),
]

func pressureChecks(bus: LinuxI2CBus, path: String) -> [Check] {
    guard let number = busNumber(path) else { return [] }
    let adapter = "/sys/bus/i2c/devices/i2c-\(number)"
    return pressureCases.map { pressure in
        Check(name: "\(pressure.module) on i2c-stub at \(pressure.address) and our \(pressure.descriptor.name) driver agree on one register image (\(pressure.why))") {
            try bus.writeRegisters(pressure.address, 0x00, pressure.image)
            guard let ours = pressure.descriptor.makeBarometer(bus: bus, address: pressure.address, pause: .system) else {
                throw CheckFailure(message: "\(pressure.descriptor.name) is no barometer")
            }
            let sample = try driver("\(pressure.descriptor.name) configure and readSample") { () throws(SensorError) in
                try ours.configure(ours.defaultConfiguration)
                return try ours.readSample()
            }
            try bus.writeRegisters(pressure.address, 0x00, pressure.image)
            do {
                try SysfsFiles.write("\(pressure.client) 0x\(String(pressure.address.rawValue, radix: 16))", to: "\(adapter)/new_device")
            } catch {
                throw CheckFailure(message: "new_device: \(error)")
            }
            defer { try? SysfsFiles.write("0x\(String(pressure.address.rawValue, radix: 16))", to: "\(adapter)/delete_device") }
            let log = kernelLog(mentioning: clientName(bus: number, pressure.address))
            guard let barometer = IIOBarometer.devices(root: iioRoot).devices.first(where: { $0.name == pressure.iioName }) else {
                throw CheckFailure(message: "no IIO barometer named \(pressure.iioName); kernel log: \(log.joined(separator: " | "))")
            }
            do {
                for setting in pressure.kernelSettings { try SysfsFiles.write(setting.value, to: "\(barometer.directory)/\(setting.attribute)") }
                let kernel = try barometer.read()
                let difference = abs(kernel.pascal - sample.pressure)
                print("  ours \(sample.pressure) Pa, \(sample.temperature) °C; kernel \(kernel.pascal) Pa, \(kernel.celsius.map { "\($0) °C" } ?? "no temperature"); difference \(difference) Pa")
                try expect(difference <= pressure.tolerance, "pressure: ours \(sample.pressure) Pa, kernel \(kernel.pascal) Pa")
                if let celsius = kernel.celsius {
                    try expect(abs(celsius - sample.temperature) <= 0.01, "temperature: ours \(sample.temperature) °C, kernel \(celsius) °C")
                }
            } catch let error as IIOError {
                throw CheckFailure(message: "\(error)")
            }
        }
    }
}
