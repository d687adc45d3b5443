import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The LPS22HB/LPS22HH driver: register sequence from the datasheets' register descriptions,
/// scales, identity and refusals.
@Suite struct LPS22Tests {
    /// Identity, power-down, CTRL_REG2 (IF_ADD_INC; the HH adds LOW_NOISE_EN), CTRL_REG1 (ODR 25 Hz
    /// = 011, EN_LPFP 1, LPFP_CFG 0, BDU 1 → 0x3A), then one five-byte burst from 0x28.
    @Test(arguments: [(LPS22.Model.lps22hb, UInt8(0x10)), (.lps22hh, 0x12)])
    func initialisationAndSample(model: LPS22.Model, ctrlReg2: UInt8) throws {
        let bus = ExpectationBus([
            .writeRead(0x5D, [0x0F], reply: [model.identity]),
            .write(0x5D, [0x10, 0x00]),
            .write(0x5D, [0x11, ctrlReg2]),
            .write(0x5D, [0x10, 0x3A]),
            .writeRead(0x5D, [0x28], reply: [0x8D, 0xF5, 0x3F, 0x28, 0x0A]),
            .writeRead(0x5D, [0x10], reply: [0x3A]),
        ])
        let barometer = LPS22(model: model, bus: bus, address: I2CAddress(0x5D), pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(sample.pressure == 102_334.6923828125)  // 0x3FF58D / 4096 hPa
        #expect(sample.temperature == 26)  // 0x0A28 = 2600 / 100 °C
        #expect(try barometer.isStillConfigured())
        expectFinished(bus)
    }

    /// A negative temperature count: TEMP_OUT is two's complement.
    @Test func negativeTemperature() {
        #expect(LPS22.sample(rawPressure: 0, rawTemperature: -1050).temperature == -10.5)
    }

    @Test func otherChipIsRefused() {
        let bus = ExpectationBus([.writeRead(0x5C, [0x0F], reply: [0xBD])])  // an LPS25H
        let barometer = LPS22(model: .lps22hb, bus: bus, pause: .none)
        let error = sensorError { () throws(SensorError) in try barometer.configure(barometer.defaultConfiguration) }
        #expect(error == .unexpectedIdentity(chip: "LPS22HB", address: I2CAddress(0x5C), register: 0x0F, expected: [0xB1], found: [0xBD]))
        expectFinished(bus)
    }

    /// The LPS22HH runs in low-noise mode, which its datasheet allows below 100 Hz only.
    @Test func lowNoiseModeRefusesTheFastRates() {
        var configuration = LPS22.altitude
        configuration.standby = 5
        let error = sensorError { () throws(SensorError) in _ = try LPS22.registers(for: configuration, model: .lps22hh) }
        #expect(error == .unsupportedSetting(chip: "LPS22HH", setting: "measurement period (ms)", requested: "5",
                                             supported: ["1000", "100", "40", "20", "13.333333333333334"]))
        configuration.pressureOversampling = 16
        let oversampling = sensorError { () throws(SensorError) in _ = try LPS22.registers(for: configuration, model: .lps22hb) }
        #expect(oversampling == .unsupportedSetting(chip: "LPS22HB", setting: "pressure oversampling", requested: "16", supported: ["1"]))
    }
}

/// The LPS22HB/LPS22HH driver against the datasheet-written emulators on the simulated bus.
@Suite struct LPS22EmulatorTests {
    typealias Atmosphere = @Sendable (Double) -> (pressure: Double, temperature: Double)

    @Test(arguments: [0.0, 3, 6, 9, 250])
    func floorHeightsComeBack(height: Double) throws {
        let chips: [(LPS22.Model, (@escaping Atmosphere) -> any SimulatedDevice)] = [
            (.lps22hb, { LPS22HBEmulator(atmosphere: $0, now: { 0 }) }),
            (.lps22hh, { LPS22HHEmulator(atmosphere: $0, now: { 0 }) }),
        ]
        for (model, make) in chips {
            let bus = SimulatedBus(now: { 0 })
            bus.attach(make { _ in (StandardAtmosphere.pressure(altitude: height), 21.5) }, at: I2CAddress(0x5C))
            let barometer = LPS22(model: model, bus: bus, pause: .none)
            try barometer.configure(barometer.defaultConfiguration)
            let sample = try barometer.readSample()
            #expect(abs(StandardAtmosphere.altitude(pressure: sample.pressure) - height) < 0.05, "\(model.name)")
            #expect(sample.temperature == 21.5, "\(model.name)")
        }
    }

    /// At 0x5C, WHO_AM_I names each ST chip among the barometers.
    @Test func stChipsAreToldApart() throws {
        let makers: [(String, (@escaping Atmosphere) -> any SimulatedDevice)] = [
            ("LPS25H", { LPS25HEmulator(atmosphere: $0, now: { 0 }) }),
            ("LPS22HB", { LPS22HBEmulator(atmosphere: $0, now: { 0 }) }),
            ("LPS22HH", { LPS22HHEmulator(atmosphere: $0, now: { 0 }) }),
        ]
        for (name, make) in makers {
            let bus = SimulatedBus(now: { 0 })
            bus.attach(make { _ in (101_325, 20) }, at: I2CAddress(0x5C))
            #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x5C), pause: .none, among: ChipRegistry.barometers)?.name == name)
        }
    }

    /// With IF_ADD_INC cleared the address stays put.
    @Test func addressIncrementCanBeTurnedOff() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(LPS22HBEmulator(atmosphere: { _ in (100_000, 20) }, now: { 0 }), at: I2CAddress(0x5C))
        #expect(try bus.readRegisters(I2CAddress(0x5C), 0x10, count: 2) == [0x00, 0x10])  // CTRL_REG1, CTRL_REG2
        try bus.writeRegister(I2CAddress(0x5C), 0x11, 0x00)
        #expect(try bus.readRegisters(I2CAddress(0x5C), 0x0F, count: 2) == [0xB1, 0xB1])
    }
}
