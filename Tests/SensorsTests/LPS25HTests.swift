import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The LPS25H's conversion on AN4450's worked example (§4.3) and its register sequence written
/// from the datasheet's register map (DocID023722 §7), independently of the driver.
@Suite struct LPS25HTests {
    /// AN4450 §4.3: P = 0x3FF58D = 4191629 → 4191629 / 4096 = 1023.347 hPa; T = 0xE07C = −8068 →
    /// 42.5 + (−8068 / 480) = 25.7 °C (25.691666…).
    @Test func applicationNoteExample() {
        let sample = LPS25H.sample(rawPressure: 0x3FF58D, rawTemperature: Int16(bitPattern: 0xE07C))
        #expect(sample.pressure == 102_334.6923828125)  // exactly 4191629 × 100 / 4096 Pa
        #expect((sample.pressure / 100 * 1000).rounded() / 1000 == 1023.347)
        #expect(abs(sample.temperature - 25.691_666_666) < 1e-8)
        #expect((sample.temperature * 10).rounded() / 10 == 25.7)
        // The note's references: 0x6BD0 is 100 °C, 0xB050 is 0 °C.
        #expect(LPS25H.sample(rawPressure: 0, rawTemperature: 0x6BD0).temperature == 100)
        #expect(LPS25H.sample(rawPressure: 0, rawTemperature: Int16(bitPattern: 0xB050)).temperature == 0)
    }

    /// Identity, power-down, FIFO bypass, RES_CONF (AVGT 64 = 11, AVGP 512 = 11 → 0x0F), CTRL_REG2
    /// (FIFO off → 0x00), FIFO_CTRL (bypass), CTRL_REG1 (PD 1, ODR 25 Hz = 100, BDU 1 → 0xC4), then
    /// the sample as two auto-incrementing reads (sub-address MSB set: 0xA8 and 0xAB).
    @Test func initialisationAndSample() throws {
        let bus = ExpectationBus([
            .writeRead(0x5C, [0x0F], reply: [0xBD]),
            .write(0x5C, [0x20, 0x00]),
            .write(0x5C, [0x2E, 0x00]),
            .write(0x5C, [0x10, 0x0F]),
            .write(0x5C, [0x21, 0x00]),
            .write(0x5C, [0x2E, 0x00]),
            .write(0x5C, [0x20, 0xC4]),
            .writeRead(0x5C, [0xA8], reply: [0x8D, 0xF5, 0x3F]),
            .writeRead(0x5C, [0xAB], reply: [0x7C, 0xE0]),
            .writeRead(0x5C, [0x20], reply: [0xC4]),
            .writeRead(0x5C, [0x20], reply: [0x00]),
        ])
        let barometer = LPS25H(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(sample.pressure == 102_334.6923828125)
        #expect(abs(sample.temperature - 25.691_666_666) < 1e-8)
        #expect(try barometer.isStillConfigured())
        #expect(try !barometer.isStillConfigured())  // powered down after a brown-out
        expectFinished(bus)
    }

    /// A 32-sample FIFO mean at 12.5 Hz: FIFO_CTRL 110 11111 = 0xDF, FIFO_EN → CTRL_REG2 0x40,
    /// ODR code 3 → CTRL_REG1 0xB4; AVGP 32 (01), AVGT 16 (01) → RES_CONF 0x05.
    @Test func fifoMeanSettings() throws {
        let registers = try LPS25H.registers(for: BarometerConfiguration(
            pressureOversampling: 32, temperatureOversampling: 16, filterCoefficient: 32, standby: 80))
        #expect(registers.resConf == 0x05)
        #expect(registers.fifoCtrl == 0xDF)
        #expect(registers.ctrlReg2 == 0x40)
        #expect(registers.ctrlReg1 == 0xB4)
    }

    @Test func unsupportedAveragingIsNamed() {
        var configuration = LPS25H.altitude
        configuration.pressureOversampling = 16
        let error = sensorError { () throws(SensorError) in _ = try LPS25H.registers(for: configuration) }
        #expect(error == .unsupportedSetting(chip: "LPS25H", setting: "pressure averages (AVGP)", requested: "16",
                                             supported: ["8", "32", "128", "512"]))
    }

    @Test func otherChipIsRefused() {
        let bus = ExpectationBus([.writeRead(0x5C, [0x0F], reply: [0xB1])])  // an LPS22HB
        let barometer = LPS25H(bus: bus, pause: .none)
        let error = sensorError { () throws(SensorError) in try barometer.configure(barometer.defaultConfiguration) }
        #expect(error == .unexpectedIdentity(chip: "LPS25H", address: I2CAddress(0x5C), register: 0x0F, expected: [0xBD], found: [0xB1]))
        expectFinished(bus)
    }

    @Test func readBeforeConfigureIsRefused() {
        let barometer = LPS25H(bus: ExpectationBus([]), pause: .none)
        #expect(throws: SensorError.self) { try barometer.readSample() }
    }
}

/// The LPS25H driver against the datasheet-written emulator on the simulated bus.
@Suite struct LPS25HEmulatorTests {
    /// Floors at 3 m and a hill: the height back within 5 cm (a count is 1/4096 hPa, 0.2 mm of air).
    @Test(arguments: [0.0, 3, 6, 9, 250])
    func floorHeightsComeBack(height: Double) throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(LPS25HEmulator(atmosphere: { _ in (StandardAtmosphere.pressure(altitude: height), 21.5) }, now: { 0 }),
                   at: I2CAddress(0x5C))
        let barometer = LPS25H(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(abs(StandardAtmosphere.altitude(pressure: sample.pressure) - height) < 0.05)
        #expect(abs(sample.temperature - 21.5) <= 1.0 / 960)
    }

    /// With the FIFO in mean mode, the address wraps inside PRESS_OUT (AN4450 §5.1), so the
    /// driver's separate temperature read is what reaches TEMP_OUT.
    @Test func fifoMeanModeWrapsInsidePressure() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(LPS25HEmulator(atmosphere: { _ in (101_325, 20) }, now: { 0 }), at: I2CAddress(0x5D))
        let barometer = LPS25H(bus: bus, address: I2CAddress(0x5D), pause: .none)
        try barometer.configure(BarometerConfiguration(pressureOversampling: 32, temperatureOversampling: 16, filterCoefficient: 32, standby: 40))
        let five = try bus.readRegisters(I2CAddress(0x5D), 0xA8, count: 5)
        #expect(Array(five[3...]) == Array(five[0..<2]))  // XL, L, H, XL, L
        let sample = try barometer.readSample()
        #expect(abs(sample.pressure - 101_325) <= 100.0 / 4096)
        #expect(abs(sample.temperature - 20) <= 1.0 / 960)
    }

    /// Without the sub-address MSB the address stays put; powered down, nothing is measured.
    @Test func addressAdvancesOnlyWithTheMSB() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(LPS25HEmulator(atmosphere: { _ in (100_000, 20) }, now: { 0 }), at: I2CAddress(0x5C))
        #expect(try bus.readRegisters(I2CAddress(0x5C), 0x0F, count: 2) == [0xBD, 0xBD])
        #expect(try bus.readRegisters(I2CAddress(0x5C), 0xA8, count: 3) == [0, 0, 0])
    }

    /// One-shot (CTRL_REG1 PD with ODR 0, then ONE_SHOT): one measurement, the bit clears itself.
    @Test func oneShotMeasuresOnce() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(LPS25HEmulator(atmosphere: { _ in (100_000, 20) }, now: { 0 }), at: I2CAddress(0x5C))
        try bus.writeRegister(I2CAddress(0x5C), 0x20, 0x84)
        try bus.writeRegister(I2CAddress(0x5C), 0x21, 0x01)
        #expect(try bus.readRegisters(I2CAddress(0x5C), 0x21, count: 1) == [0x00])
        #expect(try bus.readRegisters(I2CAddress(0x5C), 0x27, count: 1) == [0x03])
        let counts = try bus.readRegisters(I2CAddress(0x5C), 0xA8, count: 3)
        let pressure: Int = Int(counts[0]) | Int(counts[1]) << 8 | Int(counts[2]) << 16
        #expect(pressure == 4_096_000)  // 1000 hPa × 4096
    }
}
