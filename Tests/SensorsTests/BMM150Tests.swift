import I2C
import MotionSimulator
@testable import Sensors
import Testing

/// The BMM150 driver: the trim-register compensation on a worked example, and the driver on its
/// emulator (identified behind its power bit at each address, the field read back).
@Suite struct BMM150Tests {
    /// A trim as the registers 0x5D–0x71 hold it: x1 3, y1 −2, (3 reserved), z4 12, x2 26, y2 25,
    /// (2 reserved), z2 763, z1 24747, xyz1 7053, z3 −77, xy2 −3, xy1 29.
    static let trimRegisters: [UInt8] = [
        0x03, 0xFE, 0x00, 0x00, 0x00, 0x0C, 0x00, 0x1A, 0x19, 0x00, 0x00,
        0xFB, 0x02, 0xAB, 0x60, 0x8D, 0x1B, 0xB3, 0xFF, 0xFD, 0x1D,
    ]

    @Test func trimRegistersDecode() {
        let trim = BMM150Trim(registers: Self.trimRegisters)
        #expect(trim.x1 == 3 && trim.y1 == -2 && trim.z4 == 12 && trim.x2 == 26 && trim.y2 == 25)
        #expect(trim.z2 == 763 && trim.z1 == 24747 && trim.xyz1 == 7053 && trim.z3 == -77 && trim.xy2 == -3 && trim.xy1 == 29)
    }

    /// Worked example, computed apart from this code (step by step as bmc150_magn.c's integer
    /// arithmetic, and with Bosch's floating-point formulas, which agree within a count): raw x 100,
    /// y −200, z 300 at RHALL 7200 → 603, −1170, 1522 (1/16 µT); the floating-point formulas give
    /// 603.90, −1169.57, 1522.44. At the extremes (−4095, 4095, −16000 at RHALL 6000): −24243,
    /// 24120, −99112.
    @Test func compensationWorkedExample() {
        let trim = BMM150Trim(registers: Self.trimRegisters)
        #expect(BMM150Compensation.xy(100, rhall: 7200, trim: trim, axis1: trim.x1, axis2: trim.x2) == 603)
        #expect(BMM150Compensation.xy(-200, rhall: 7200, trim: trim, axis1: trim.y1, axis2: trim.y2) == -1170)
        #expect(BMM150Compensation.z(300, rhall: 7200, trim: trim) == 1522)
        #expect(BMM150Compensation.xy(-4095, rhall: 6000, trim: trim, axis1: trim.x1, axis2: trim.x2) == -24243)
        #expect(BMM150Compensation.xy(4095, rhall: 6000, trim: trim, axis1: trim.y1, axis2: trim.y2) == 24120)
        #expect(BMM150Compensation.z(-16000, rhall: 6000, trim: trim) == -99112)
        let sample = BMM150Magnetometer.sample(raw: SIMD3(100, -200, 300), rhall: 7200, trim: trim)
        #expect(sample.field == SIMD3(603, -1170, 1522) / 16 && !sample.isSaturated)
    }

    /// RHALL 0 falls back to XYZ1 for x and y (the kernel's rule); overflow markers and a trim that
    /// leaves nothing to divide by give no value, never a trap.
    @Test func overflowAndDegenerateTrim() {
        let trim = BMM150Trim(registers: Self.trimRegisters)
        #expect(BMM150Compensation.xy(100, rhall: 0, trim: trim, axis1: trim.x1, axis2: trim.x2)
                == BMM150Compensation.xy(100, rhall: trim.xyz1, trim: trim, axis1: trim.x1, axis2: trim.x2))
        #expect(BMM150Compensation.xy(-4096, rhall: 7200, trim: trim, axis1: trim.x1, axis2: trim.x2) == nil)
        #expect(BMM150Compensation.z(-16384, rhall: 7200, trim: trim) == nil)
        let zeros = BMM150Trim(registers: [UInt8](repeating: 0, count: 21))
        #expect(BMM150Compensation.xy(100, rhall: 0, trim: zeros, axis1: 0, axis2: 0) == nil)
        #expect(BMM150Compensation.z(100, rhall: 0, trim: zeros) == nil)
        let saturated = BMM150Magnetometer.sample(raw: SIMD3(-4096, 0, 0), rhall: 7200, trim: trim)
        #expect(saturated.isSaturated && saturated.field.x == 0)
        // Every raw value and RHALL on one trim: none traps.
        for raw in stride(from: Int16.min, to: Int16.max, by: 97) {
            for rhall in stride(from: UInt16.min, to: UInt16.max, by: 4099) {
                _ = BMM150Magnetometer.sample(raw: SIMD3(raw, raw, raw), rhall: rhall, trim: trim)
            }
        }
    }

    /// Identified at each of its addresses only through its power bit (the identity preamble),
    /// then configured and read back: the emulator's field within its 0.3 µT resolution.
    @Test(arguments: [UInt8(0x10), 0x11, 0x12, 0x13])
    func identifiedAndReadOnTheEmulator(address: UInt8) throws {
        let field = SIMD3(23.5, -7.25, -41.0)
        var state = PhysicalState.flatAtRest()
        state.magneticField = field
        state.temperature = 31
        let bus = SimulatedBus(now: { 1 })
        bus.attach(BMM150Emulator(source: ConstantSource(state), now: { 1 }), at: I2CAddress(address))
        #expect(try bus.readRegister(I2CAddress(address), 0x40) == 0x00)  // suspended
        let chip = try #require(try ChipCatalog.identify(bus: bus, address: I2CAddress(address)))
        #expect(chip.name == "BMM150" && chip.identity == [0x32])
        let driver = try #require(ChipCatalog.makeMagnetometer(for: chip, bus: bus, pause: .none))
        #expect(throws: SensorError.self) { try driver.readSample() }  // no trim before configure
        try driver.configure(driver.defaultConfiguration)
        #expect(try driver.isStillConfigured())
        try bus.writeRegister(I2CAddress(address), 0x4C, 0x02)  // forced mode: one measurement now
        let sample = try driver.readSample()
        #expect(largestDifference(sample.field, field) <= 0.3, "\(sample.field)")
        #expect(!sample.isSaturated)
        try bus.writeRegister(I2CAddress(address), 0x4B, 0x00)  // suspend: the configuration is gone
        #expect(try !driver.isStillConfigured())
    }

    @Test func unsupportedRatesAreRefusedByName() throws {
        let bus = SimulatedBus(now: { 1 })
        bus.attach(BMM150Emulator(source: ConstantSource(), now: { 1 }), at: I2CAddress(0x10))
        let driver = BMM150Magnetometer(bus: bus, pause: .none)
        #expect(throws: SensorError.unsupportedSetting(chip: "BMM150", setting: "output data rate", requested: "100 Hz",
                                                       supported: ["2 Hz", "6 Hz", "8 Hz", "10 Hz", "15 Hz", "20 Hz", "25 Hz", "30 Hz"])) {
            try driver.configure(MagnetometerConfiguration(outputDataRate: 100, range: 1300))
        }
    }
}
