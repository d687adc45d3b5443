import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The DPS310 driver: coefficient unpacking, the compensation by hand, the register sequence with
/// both temperature quirks, and the datasheet-written emulator on the simulated bus.
@Suite struct DPS310Tests {
    static let coefficients = DPS310Calibration(c0: 204, c1: -261, c00: 80_000, c10: -54_000, c01: -2_000, c11: 1_200,
                                                c20: -9_000, c21: 100, c30: -1_000)

    /// c0 = 204 = 0x0CC and c1 = −261 = 0xEFB (12-bit) share byte 1; c00 = 80000 = 0x13880 and
    /// c10 = −54000 = 0xF2D10 (20-bit) share byte 5.
    @Test func coefficientsUnpack() {
        let bytes = Self.coefficients.registers
        #expect(bytes.count == 18)
        #expect(Array(bytes[0..<8]) == [0x0C, 0xCE, 0xFB, 0x13, 0x88, 0x0F, 0x2D, 0x10])
        #expect(Array(bytes[8..<10]) == [0xF8, 0x30])  // c01 −2000
        #expect(DPS310Calibration(registers: bytes) == Self.coefficients)
    }

    /// §4.9 worked by hand for T_raw = 161700 (×1: kT 524288) and P_raw = −94000 (×16: kP 253952).
    @Test func compensationByHand() {
        let t = 161_700.0 / 524_288
        let p = -94_000.0 / 253_952
        let expectedT = 204 * 0.5 + -261 * t
        let expectedP = 80_000 + p * (-54_000 + p * (-9_000 + p * -1_000)) + t * -2_000 + t * p * (1_200 + p * 100)
        #expect(Self.coefficients.temperature(rawTemperature: 161_700, kT: 524_288) == expectedT)
        #expect(Self.coefficients.pressure(rawPressure: -94_000, kP: 253_952, rawTemperature: 161_700, kT: 524_288) == expectedP)
        #expect(abs(expectedT - 21.5) < 0.01)
    }

    /// Identity, reset, readiness, the workaround (0x32 bit 1 clear), coefficients, COEF_SRCE (here
    /// 0x00: the ASIC sensor, so TMP_EXT stays 0), PRS_CFG (16/s = 100, ×16 = 0100 → 0x44), TMP_CFG
    /// (16/s, ×1 → 0x40), CFG_REG (P_SHIFT for ×16 → 0x04), MEAS_CFG 0 then continuous 0x07.
    @Test func initialisationFollowsTheCoefficientSource() throws {
        let bus = ExpectationBus([
            .writeRead(0x77, [0x0D], reply: [0x10]),
            .write(0x77, [0x0C, 0x09]),
            .writeRead(0x77, [0x08], reply: [0xC0]),
            .writeRead(0x77, [0x32], reply: [0x00]),
            .write(0x77, [0x0E, 0xA5]), .write(0x77, [0x0F, 0x96]), .write(0x77, [0x62, 0x02]),
            .write(0x77, [0x0E, 0x00]), .write(0x77, [0x0F, 0x00]),
            .writeRead(0x77, [0x10], reply: Self.coefficients.registers),
            .writeRead(0x77, [0x28], reply: [0x00]),
            .write(0x77, [0x06, 0x44]),
            .write(0x77, [0x07, 0x40]),
            .write(0x77, [0x09, 0x04]),
            .write(0x77, [0x08, 0x00]),
            .write(0x77, [0x08, 0x07]),
            .writeRead(0x77, [0x00], reply: [0xFE, 0x90, 0xD0, 0x02, 0x77, 0xA4]),
        ])
        let barometer = DPS310(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(sample.temperature == Self.coefficients.temperature(rawTemperature: 161_700, kT: 524_288))
        #expect(sample.pressure == Self.coefficients.pressure(rawPressure: -94_000, kP: 253_952, rawTemperature: 161_700, kT: 524_288))
        expectFinished(bus)
    }

    /// A chip whose coefficients never become ready is reported after the polls.
    @Test func coefficientsNeverReady() {
        let bus = ExpectationBus([.writeRead(0x76, [0x0D], reply: [0x10]), .write(0x76, [0x0C, 0x09])]
            + Array(repeating: .writeRead(0x76, [0x08], reply: [0x00]), count: 5))
        let barometer = DPS310(bus: bus, address: I2CAddress(0x76), pause: .none)
        let error = sensorError { () throws(SensorError) in try barometer.configure(barometer.defaultConfiguration) }
        #expect(error == .resetTimeout(chip: "DPS310", address: I2CAddress(0x76), polls: 5))
    }

    @Test func otherChipIsRefused() {
        let bus = ExpectationBus([.writeRead(0x77, [0x0D], reply: [0x00])])
        let barometer = DPS310(bus: bus, pause: .none)
        let error = sensorError { () throws(SensorError) in try barometer.configure(barometer.defaultConfiguration) }
        #expect(error == .unexpectedIdentity(chip: "DPS310", address: I2CAddress(0x77), register: 0x0D, expected: [0x10], found: [0x00]))
    }

    /// ×128 pressure at 8/s is 8 × (206.8 + 3.6) ms a second: more than the chip has.
    @Test func tooMuchMeasuringIsRefused() {
        let configuration = BarometerConfiguration(pressureOversampling: 128, temperatureOversampling: 1, filterCoefficient: 0, standby: 125)
        let error = sensorError { () throws(SensorError) in _ = try DPS310.registers(for: configuration) }
        guard case .unsupportedSetting(_, let setting, _, _)? = error else {
            Issue.record("expected an unsupported setting, got \(String(describing: error))")
            return
        }
        #expect(setting == "oversampling at this rate")
    }
}

@Suite struct DPS310EmulatorTests {
    @Test(arguments: [0.0, 3, 6, 9, 250])
    func floorHeightsComeBack(height: Double) throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(DPS310Emulator(atmosphere: { _ in (StandardAtmosphere.pressure(altitude: height), 21.5) }, now: { 0 }), at: I2CAddress(0x77))
        let barometer = DPS310(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(abs(StandardAtmosphere.altitude(pressure: sample.pressure) - height) < 0.05)
        #expect(abs(sample.temperature - 21.5) < 0.01)
    }

    /// A chip with the temperature fault reads 40 °C high until the workaround is written; the
    /// driver writes it, and reads the true temperature.
    @Test func temperatureFaultIsWorkedAround() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(DPS310Emulator(atmosphere: { _ in (100_000, 20) }, now: { 0 }, faultyTemperature: true), at: I2CAddress(0x77))
        try bus.writeRegister(I2CAddress(0x77), 0x08, 0x07)
        let raw = try bus.readRegisters(I2CAddress(0x77), 0x03, count: 3)
        let count = Int32(bitPattern: UInt32(raw[0]) << 24 | UInt32(raw[1]) << 16 | UInt32(raw[2]) << 8) >> 8
        #expect(abs(DPS310Tests.coefficients.temperature(rawTemperature: count, kT: 524_288) - 60) < 0.01)
        let barometer = DPS310(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        #expect(abs(try barometer.readSample().temperature - 20) < 0.01)
    }
}
