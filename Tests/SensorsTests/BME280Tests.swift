import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The BME280 through the BMP280's register map and compensation (BST-BME280-DS002 §4.2.3, §5.3),
/// with its own CHIP_ID, ctrl_hum written to skip humidity, and its own standby table.
@Suite struct BME280Tests {
    /// The BME280 datasheet has no worked example; its pressure and temperature formulas are the
    /// BMP280's, so the BMP280's example (BST-BMP280-DS001 §3.11.3) is the check: 25.08 °C and
    /// 100653.27 Pa (the 64-bit integer version within its 1/256 Pa step).
    /// The sequence: identity 0x60, reset, trimming, config (0x10), ctrl_hum 0x00 (humidity
    /// skipped, before ctrl_meas: §5.4.3), ctrl_meas 0x57, then one six-byte burst from 0xF7.
    @Test func initialisationAndSample() throws {
        let bus = ExpectationBus([
            .writeRead(0x77, [0xD0], reply: [0x60]),
            .write(0x77, [0xE0, 0xB6]),
            .writeRead(0x77, [0x88], reply: BMP280Tests.example.registers),
            .write(0x77, [0xF5, 0x10]),
            .write(0x77, [0xF2, 0x00]),
            .write(0x77, [0xF4, 0x57]),
            .writeRead(0x77, [0xF7], reply: [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00]),
        ])
        let barometer = try #require(ChipDescriptor.bme280.makeBarometer(bus: bus, address: I2CAddress(0x77), pause: .none))
        #expect(barometer.chip.name == "BME280")
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(abs(sample.pressure - 100_653.27) < 0.02)
        #expect(sample.temperature == 25.08)
        expectFinished(bus)
    }

    @Test func bmp280IsRefused() {
        let bus = ExpectationBus([.writeRead(0x76, [0xD0], reply: [0x58])])
        let barometer = BMP280(model: .bme280, bus: bus, pause: .none)
        let error = sensorError { () throws(SensorError) in try barometer.configure(barometer.defaultConfiguration) }
        #expect(error == .unexpectedIdentity(chip: "BME280", address: I2CAddress(0x76), register: 0xD0, expected: [0x60], found: [0x58]))
        expectFinished(bus)
    }

    /// t_sb 110 is 10 ms on the BME280 (§5.4.6 Table 27) and 2 s on the BMP280.
    @Test func standbyTablesDiffer() throws {
        var configuration = BMP280.indoorNavigation
        configuration.standby = 10
        #expect(try BMP280.registers(for: configuration, model: .bme280).config == 0b110_100_00)
        let error = sensorError { () throws(SensorError) in _ = try BMP280.registers(for: configuration, model: .bmp280) }
        #expect(error == .unsupportedSetting(chip: "BMP280", setting: "standby (ms)", requested: "10",
                                             supported: ["0.5", "62.5", "125", "250", "500", "1000", "2000", "4000"]))
    }

    @Test(arguments: [0.0, 3, 6, 9, 250])
    func floorHeightsComeBack(height: Double) throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(BME280Emulator(atmosphere: { _ in (StandardAtmosphere.pressure(altitude: height), 21.5) }, now: { 0 }),
                   at: I2CAddress(0x76))
        let barometer = BMP280(model: .bme280, bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(abs(StandardAtmosphere.altitude(pressure: sample.pressure) - height) < 0.05)
        #expect(abs(sample.temperature - 21.5) <= 0.01)
        // Humidity skipped: its readings hold 0x8000.
        #expect(try bus.readRegisters(I2CAddress(0x76), 0xFD, count: 2) == [0x80, 0x00])
    }
}
