import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The BMP280's compensation on BST-BMP280-DS001's worked example (§3.11.3 / §8.2 table) and its
/// register sequence written from the datasheet's memory map (§4.2), independently of the driver.
@Suite struct BMP280Tests {
    /// The datasheet example's trimming parameters (§3.11.3 table, "Register content").
    static let example = BMP280Calibration(
        t1: 27504, t2: 26435, t3: -1000,
        p1: 36477, p2: -10685, p3: 3024, p4: 2855, p5: 140, p6: -7, p7: 15500, p8: -14600, p9: 6000)
    /// The example's readings: adc_T = 519888 (0x7EED0), adc_P = 415148 (0x655AC).
    static let rawTemperature: Int32 = 519_888
    static let rawPressure: Int32 = 415_148

    @Test func datasheetExampleTemperature() {
        let fine = Self.example.fineTemperature(rawTemperature: Self.rawTemperature)
        #expect(fine == 128_422)  // the table's t_fine
        #expect(Self.example.temperature(fine: fine) == 2508)  // 25.08 °C
    }

    /// The table gives 100653.27 Pa from the double version; the 64-bit integer version's Q24.8
    /// result (1/256 Pa steps) is within 0.02 Pa of it.
    @Test func datasheetExamplePressure() throws {
        let sample = try #require(Self.example.compensate(rawPressure: Self.rawPressure, rawTemperature: Self.rawTemperature))
        #expect(abs(sample.pressure - 100_653.27) < 0.02)
        #expect(sample.temperature == 25.08)
    }

    @Test func zeroP1HasNoPressure() {
        var calibration = Self.example
        calibration.p1 = 0
        #expect(calibration.compensate(rawPressure: Self.rawPressure, rawTemperature: Self.rawTemperature) == nil)
    }

    @Test func calibrationRegistersRoundTrip() {
        let bytes = Self.example.registers
        #expect(bytes.count == 24)
        #expect(Array(bytes[0..<2]) == [0x70, 0x6B])  // dig_T1 27504 = 0x6B70, LSB first
        #expect(BMP280Calibration(registers: bytes) == Self.example)
    }

    /// Identity, reset, trimming read, config then ctrl_meas (§3.4 indoor navigation: osrs_t ×2 =
    /// 010, osrs_p ×16 = 101, normal mode 11 → 0x57; t_sb 0.5 ms = 000, filter 16 = 100 → 0x10),
    /// then one six-byte burst from 0xF7.
    @Test func initialisationAndSample() throws {
        let bus = ExpectationBus([
            .writeRead(0x76, [0xD0], reply: [0x58]),
            .write(0x76, [0xE0, 0xB6]),
            .writeRead(0x76, [0x88], reply: Self.example.registers),
            .write(0x76, [0xF5, 0x10]),
            .write(0x76, [0xF4, 0x57]),
            .writeRead(0x76, [0xF7], reply: [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00]),
            .writeRead(0x76, [0xF4], reply: [0x57]),
            .writeRead(0x76, [0xF4], reply: [0x00]),
        ])
        let barometer = BMP280(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(abs(sample.pressure - 100_653.27) < 0.02)
        #expect(sample.temperature == 25.08)
        #expect(try barometer.isStillConfigured())
        #expect(try !barometer.isStillConfigured())  // a chip back in sleep mode after a brown-out
        expectFinished(bus)
    }

    @Test func otherChipIsRefused() {
        let bus = ExpectationBus([.writeRead(0x77, [0xD0], reply: [0x60])])  // a BME280
        let barometer = BMP280(bus: bus, address: I2CAddress(0x77), pause: .none)
        let error = sensorError { () throws(SensorError) in try barometer.configure(barometer.defaultConfiguration) }
        #expect(error == .unexpectedIdentity(chip: "BMP280", address: I2CAddress(0x77), register: 0xD0, expected: [0x58], found: [0x60]))
        expectFinished(bus)
    }

    @Test func unsupportedOversamplingIsNamed() {
        var configuration = BMP280.indoorNavigation
        configuration.pressureOversampling = 3
        let error = sensorError { () throws(SensorError) in _ = try BMP280.registers(for: configuration) }
        #expect(error == .unsupportedSetting(chip: "BMP280", setting: "pressure oversampling", requested: "3",
                                             supported: ["1", "2", "4", "8", "16"]))
    }

    @Test func readBeforeConfigureIsRefused() {
        let barometer = BMP280(bus: ExpectationBus([]), pause: .none)
        #expect(throws: SensorError.self) { try barometer.readSample() }
    }
}

@Suite struct BarometerRegistryTests {
    @Test func bmp280IsListedWithBoschAddresses() throws {
        #expect(ChipRegistry.barometers.map(\.name) == ["BMP280", "BME280", "BMP388", "BMP390", "DPS310", "MS5611", "LPS25H", "LPS22HB", "LPS22HH"])
        #expect(ChipRegistry.barometerScanAddresses == [I2CAddress(0x76), I2CAddress(0x77), I2CAddress(0x5C), I2CAddress(0x5D)])
        let descriptor = try #require(ChipRegistry.barometers.first)
        #expect(descriptor.makeIMU(bus: ExpectationBus([]), address: I2CAddress(0x76)) == nil)
        let driver = try #require(descriptor.makeBarometer(bus: ExpectationBus([]), address: I2CAddress(0x77), pause: .none))
        #expect(driver.chip.address == I2CAddress(0x77))
        #expect(!ChipRegistry.magnetometers.contains { $0.name == "BMP280" })
    }

    /// The Sense HAT's LPS25H is named at 0x5C by its WHO_AM_I; a BMP280's 0xD0 is never read there.
    @Test func lps25hIsIdentifiedAtTheSenseHATAddress() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(LPS25HEmulator(atmosphere: { _ in (101_325, 20) }, now: { 0 }), at: I2CAddress(0x5C))
        let chip = try ChipCatalog.identify(bus: bus, address: I2CAddress(0x5C), pause: .none, among: ChipRegistry.barometers)
        #expect(chip?.name == "LPS25H")
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x5D), pause: .none, among: ChipRegistry.barometers) == nil)
    }
}
