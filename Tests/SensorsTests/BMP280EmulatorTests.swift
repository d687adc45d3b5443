import I2C
import MotionSimulator
import Sensors
import Testing

/// The BMP280 driver against the datasheet-written emulator on the simulated bus: the world's
/// pressure comes back through raw counts and the driver's integer compensation.
@Suite struct BMP280EmulatorTests {
    /// ICAO Doc 7488 table values: 101325 Pa at 0 m, 89874.6 Pa at 1000 m, 79495.2 Pa at 2000 m.
    @Test func standardAtmosphereMatchesTheICAOTable() {
        #expect(StandardAtmosphere.pressure(altitude: 0) == 101_325)
        #expect(abs(StandardAtmosphere.pressure(altitude: 1000) - 89_874.6) < 0.5)
        #expect(abs(StandardAtmosphere.pressure(altitude: 2000) - 79_495.2) < 0.5)
        #expect(abs(StandardAtmosphere.altitude(pressure: StandardAtmosphere.pressure(altitude: 123.4)) - 123.4) < 1e-6)
    }

    /// Three floors at 3 m each: the driver's altitude at each floor within 5 cm of the truth (the
    /// integer compensation's 1/256 Pa step and the 20-bit count are a few millimetres).
    @Test(arguments: [0.0, 3, 6, 9, 250])
    func floorHeightsComeBack(height: Double) throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(BMP280Emulator(atmosphere: { _ in (StandardAtmosphere.pressure(altitude: height), 21.5) }, now: { 0 }),
                   at: I2CAddress(0x76))
        let barometer = BMP280(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(abs(StandardAtmosphere.altitude(pressure: sample.pressure) - height) < 0.05)
        #expect(abs(sample.temperature - 21.5) <= 0.01)
    }

    /// Before ctrl_meas starts a mode the chip sleeps, and its readings hold the reset value 0x80000.
    @Test func sleepingChipHoldsResetReadings() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(BMP280Emulator(atmosphere: { _ in (100_000, 20) }, now: { 0 }), at: I2CAddress(0x77))
        #expect(try bus.readRegisters(I2CAddress(0x77), 0xD0, count: 1) == [0x58])
        #expect(try bus.readRegisters(I2CAddress(0x77), 0xF7, count: 6) == [0x80, 0, 0, 0x80, 0, 0])
    }
}
