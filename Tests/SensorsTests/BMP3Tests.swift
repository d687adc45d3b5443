import Foundation
import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The BMP388/BMP390 driver: its coefficient scaling against Bosch Sensortec's sample calculation
/// sheet (the datasheets give the formulas, Appendix 9, but no worked example), its register
/// sequence written from the memory map (§4.2), and its refusals.
@Suite struct BMP3Tests {
    /// A coefficient block: T1 … P8 as in Bosch's sample sheet, P9 … P11 small.
    static let block = BMP3Calibration(t1: 27322, t2: 18880, t3: -10, p1: 395, p2: -2608, p3: 35, p4: 0, p5: 25371, p6: 30991,
                                       p7: -13, p8: -10, p9: 4000, p10: 20, p11: -50)

    /// The sheet's "quantized" column, each value rounded to the significant digits the sheet prints.
    @Test func coefficientScalingMatchesBoschSheet() {
        func printed(_ value: Double, digits: Int) -> Double {
            let scale = pow(10, Double(digits - 1) - floor(log10(abs(value))))
            return (value * scale).rounded() / scale
        }
        let c = Self.block.scaled
        let sheet: [(Double, printed: Double, digits: Int)] = [
            (c.t1, 6_994_432, 7), (c.t2, 1.758e-05, 4), (c.t3, -3.553e-14, 4),
            (c.p5, 202_968, 6), (c.p6, 484.23438, 8), (c.p7, -0.0507813, 6), (c.p8, -0.0003052, 4),
            (c.p1, -0.0152483, 6), (c.p2, -3.538e-05, 4), (c.p3, 8.149e-09, 4),
        ]
        for (value, expected, digits) in sheet {
            #expect(abs(printed(value, digits: digits) - expected) <= abs(expected) * 1e-12, "\(value)")
        }
        #expect(c.p4 == 0)
    }

    @Test func coefficientRegistersRoundTrip() {
        let bytes = Self.block.registers
        #expect(bytes.count == 21)
        #expect(Array(bytes[0..<2]) == [0xBA, 0x6A])  // NVM_PAR_T1 27322 = 0x6ABA, LSB first
        #expect(bytes[4] == 0xF6)  // NVM_PAR_T3 −10
        #expect(BMP3Calibration(registers: bytes) == Self.block)
    }

    /// Identity, soft reset, NVM read, OSR (osr_t ×2 = 001, osr_p ×16 = 100 → 0x0C), ODR (25 Hz =
    /// code 3), CONFIG (coefficient 3 = code 2 at bits 3:1 → 0x04), PWR_CTRL (normal, both on →
    /// 0x33), ERR_REG clear, then one six-byte burst from 0x04.
    @Test func initialisationAndSample() throws {
        let raw: (p: UInt32, t: UInt32) = (7_000_000, 8_400_000)
        let bus = ExpectationBus([
            .writeRead(0x77, [0x00], reply: [0x60]),
            .write(0x77, [0x7E, 0xB6]),
            .writeRead(0x77, [0x31], reply: Self.block.registers),
            .write(0x77, [0x1C, 0x0C]),
            .write(0x77, [0x1D, 0x03]),
            .write(0x77, [0x1F, 0x04]),
            .write(0x77, [0x1B, 0x33]),
            .writeRead(0x77, [0x02], reply: [0x00]),
            .writeRead(0x77, [0x04], reply: [0xC0, 0xCF, 0x6A, 0x80, 0x2C, 0x80]),
            .writeRead(0x77, [0x1B], reply: [0x33]),
        ])
        let barometer = BMP3(model: .bmp390, bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        let expected = Self.block.compensate(rawPressure: raw.p, rawTemperature: raw.t)
        #expect(sample == expected)
        // By hand from Appendix 9: t_lin = (8400000 − 6994432) × T2 + (…)² × T3.
        let partial = 8_400_000.0 - 6_994_432
        #expect(sample.temperature == partial * (18880 / 1_073_741_824.0) + partial * partial * (-10 / 281_474_976_710_656.0))
        #expect(try barometer.isStillConfigured())
        expectFinished(bus)
    }

    @Test func refusedConfigurationIsNamed() {
        let bus = ExpectationBus([
            .writeRead(0x76, [0x00], reply: [0x50]),
            .write(0x76, [0x7E, 0xB6]),
            .writeRead(0x76, [0x31], reply: Self.block.registers),
            .write(0x76, [0x1C, 0x2D]),
            .write(0x76, [0x1D, 0x00]),
            .write(0x76, [0x1F, 0x00]),
            .write(0x76, [0x1B, 0x33]),
            .writeRead(0x76, [0x02], reply: [0x04]),
        ])
        let barometer = BMP3(model: .bmp388, bus: bus, address: I2CAddress(0x76), pause: .none)
        let configuration = BarometerConfiguration(pressureOversampling: 32, temperatureOversampling: 32, filterCoefficient: 0, standby: 5)
        let error = sensorError { () throws(SensorError) in try barometer.configure(configuration) }
        guard case .unsupportedSetting(let chip, let setting, _, _)? = error else {
            Issue.record("expected an unsupported setting, got \(String(describing: error))")
            return
        }
        #expect(chip == "BMP388")
        #expect(setting == "oversampling at this rate")
        expectFinished(bus)
    }

    @Test func otherChipIsRefused() {
        let bus = ExpectationBus([.writeRead(0x77, [0x00], reply: [0x60])])  // a BMP390
        let barometer = BMP3(model: .bmp388, bus: bus, pause: .none)
        let error = sensorError { () throws(SensorError) in try barometer.configure(barometer.defaultConfiguration) }
        #expect(error == .unexpectedIdentity(chip: "BMP388", address: I2CAddress(0x77), register: 0x00, expected: [0x50], found: [0x60]))
        expectFinished(bus)
    }

    @Test func unsupportedFilterIsNamed() {
        var configuration = BMP3.altitude
        configuration.filterCoefficient = 4
        let error = sensorError { () throws(SensorError) in _ = try BMP3.registers(for: configuration, chip: "BMP390") }
        #expect(error == .unsupportedSetting(chip: "BMP390", setting: "IIR filter coefficient", requested: "4",
                                             supported: ["0", "1", "3", "7", "15", "31", "63", "127"]))
    }
}

/// The BMP388/BMP390 driver against the datasheet-written emulator on the simulated bus.
@Suite struct BMP3EmulatorTests {
    /// Floors and a hill come back within 5 cm through 24-bit counts and the floating-point compensation.
    @Test(arguments: [0.0, 3, 6, 9, 250])
    func floorHeightsComeBack(height: Double) throws {
        typealias Atmosphere = @Sendable (Double) -> (pressure: Double, temperature: Double)
        let chips: [(BMP3.Model, (@escaping Atmosphere) -> any SimulatedDevice)] = [
            (.bmp388, { BMP388Emulator(atmosphere: $0, now: { 0 }) }),
            (.bmp390, { BMP390Emulator(atmosphere: $0, now: { 0 }) }),
        ]
        for (model, make) in chips {
            let bus = SimulatedBus(now: { 0 })
            bus.attach(make { _ in (StandardAtmosphere.pressure(altitude: height), 21.5) }, at: I2CAddress(0x77))
            let barometer = BMP3(model: model, bus: bus, pause: .none)
            try barometer.configure(barometer.defaultConfiguration)
            let sample = try barometer.readSample()
            #expect(abs(StandardAtmosphere.altitude(pressure: sample.pressure) - height) < 0.05, "\(model.name)")
            #expect(abs(sample.temperature - 21.5) < 0.01, "\(model.name)")
        }
    }

    /// A measurement that does not fit the period: the emulated chip sets conf_err and stays asleep.
    @Test func tooMuchOversamplingForTheRateIsRefused() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(BMP390Emulator(atmosphere: { _ in (100_000, 20) }, now: { 0 }), at: I2CAddress(0x76))
        let barometer = BMP3(model: .bmp390, bus: bus, address: I2CAddress(0x76), pause: .none)
        let configuration = BarometerConfiguration(pressureOversampling: 32, temperatureOversampling: 2, filterCoefficient: 0, standby: 40)
        #expect(throws: SensorError.self) { try barometer.configure(configuration) }
        #expect(try bus.readRegisters(I2CAddress(0x76), 0x1B, count: 1) == [0x03])  // sensors on, still asleep
    }
}
