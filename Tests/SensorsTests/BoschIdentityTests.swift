import I2C
import MotionSimulator
import Sensors
import Testing

/// 0x60 is a BME280 at 0xD0 and a BMP390 at 0x00: identification at one address tells them apart.
@Suite struct BoschIdentityTests {
    typealias Atmosphere = @Sendable (Double) -> (pressure: Double, temperature: Double)

    /// Each chip alone at 0x77 on its own bus (the DPS310 and the MS5611, which share the address, too), identified among every barometer.
    @Test func bme280AndBMP390AtTheSameAddress() throws {
        let makers: [(String, (@escaping Atmosphere) -> any SimulatedDevice)] = [
            ("BMP280", { BMP280Emulator(atmosphere: $0, now: { 0 }) }),
            ("BME280", { BME280Emulator(atmosphere: $0, now: { 0 }) }),
            ("BMP388", { BMP388Emulator(atmosphere: $0, now: { 0 }) }),
            ("BMP390", { BMP390Emulator(atmosphere: $0, now: { 0 }) }),
            ("DPS310", { DPS310Emulator(atmosphere: $0, now: { 0 }) }),
            ("MS5611", { MS5611Emulator(atmosphere: $0, now: { 0 }) }),
        ]
        for (name, make) in makers {
            let bus = SimulatedBus(now: { 0 })
            bus.attach(make { _ in (101_325, 20) }, at: I2CAddress(0x77))
            let chip = try ChipCatalog.identify(bus: bus, address: I2CAddress(0x77), pause: .none, among: ChipRegistry.barometers)
            #expect(chip?.name == name)
            // The driver the registry builds for it configures and reads it.
            let descriptor = try #require(ChipRegistry.barometers.first { $0.name == name })
            let driver = try #require(descriptor.makeBarometer(bus: bus, address: I2CAddress(0x77), pause: .none))
            try driver.configure(driver.defaultConfiguration)
            #expect(abs(try driver.readSample().pressure - 101_325) < 1, "\(name)")
        }
    }

    /// The reads identification makes at 0x76/0x77: CHIP_ID at 0xD0 (BMP280, BME280) before 0x00 (BMP388, BMP390).
    @Test func boschRegistersAreReadInRegistryOrder() throws {
        let bosch = ChipRegistry.barometers.filter { $0.identity.addresses.contains(I2CAddress(0x77)) }
        #expect(bosch.map(\.name).prefix(4) == ["BMP280", "BME280", "BMP388", "BMP390"])
        #expect(bosch.prefix(4).map(\.identity.register) == [0xD0, 0xD0, 0x00, 0x00])
    }
}
