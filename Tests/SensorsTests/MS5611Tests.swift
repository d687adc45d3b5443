import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The MS5611: the datasheet's worked example, the PROM CRC-4, the command sequence, the refusal
/// of a bad PROM, identification by the CRC, and the datasheet-written emulator.
@Suite struct MS5611Tests {
    /// The datasheet's example coefficients C1…C6, with a word 0 and a serial code; word 7's low
    /// nibble is set to the CRC by `valid`.
    static func words(crc: UInt16? = nil) -> [UInt16] {
        var words: [UInt16] = [0x0040, 40127, 36924, 23317, 23282, 33464, 28312, 0x5A20]
        words[7] |= crc ?? MS5611PROM.crc4(words)
        return words
    }

    /// The datasheet's "typical" example: D1 = 9085466, D2 = 8569150 give dT = 2366, TEMP = 2007
    /// (20.07 °C), OFF = 2420281617, SENS = 1315097036, P = 100009 (1000.09 mbar). dT, OFF and
    /// SENS are checked through the results: TEMP and P to their last digit.
    @Test func datasheetExample() {
        let prom = MS5611PROM(words: Self.words())
        let result = prom.compensate(d1: 9_085_466, d2: 8_569_150)
        #expect(result.centidegrees == 2007)
        #expect(result.pascal == 100_009)
    }

    /// Below 20 °C the second-order terms apply: at D2 = 8466784 (dT = −100000), TEMP first order
    /// is 2000 − 337.5… → 1663, T2 = 10¹⁰ / 2³¹ = 4, so 1659; OFF2 = 5 × 337² / 2, SENS2 = 5 × 337² / 4.
    @Test func secondOrderBelowTwentyDegrees() {
        let prom = MS5611PROM(words: Self.words())
        let result = prom.compensate(d1: 9_085_466, d2: 8_466_784)
        #expect(result.centidegrees == 1659)
        let dT: Int64 = -100_000
        let off = 36924 * 65536 + 23282 * dT / 128 - 5 * 337 * 337 / 2
        let sens = 40127 * 32768 + 23317 * dT / 256 - 5 * 337 * 337 / 4
        #expect(result.pascal == (9_085_466 * sens / 2_097_152 - off) / 32768)
    }

    @Test func crcAcceptsTheGoodPROMAndRefusesOthers() {
        #expect(MS5611PROM(words: Self.words()).isValid)
        var flipped = Self.words()
        flipped[3] ^= 0x0100
        #expect(!MS5611PROM(words: flipped).isValid)
        #expect(!MS5611PROM(words: [UInt16](repeating: 0, count: 8)).isValid)  // all zero: CRC 0, refused
    }

    /// Reset, the eight PROM reads, then D1 and D2 at OSR 4096 (0x48, 0x58), each read with 0x00.
    @Test func commandSequence() throws {
        let words = Self.words()
        var expectations: [I2CExpectation] = [.write(0x77, [0x1E])]
        for (index, word) in words.enumerated() {
            expectations.append(.writeRead(0x77, [0xA0 + UInt8(2 * index)], reply: [UInt8(word >> 8), UInt8(word & 0xFF)]))
        }
        expectations += [
            .write(0x77, [0x48]), .writeRead(0x77, [0x00], reply: [0x8A, 0xA2, 0x1A]),  // 9085466
            .write(0x77, [0x58]), .writeRead(0x77, [0x00], reply: [0x82, 0xC1, 0x3E]),  // 8569150
        ]
        let bus = ExpectationBus(expectations)
        let barometer = MS5611(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let sample = try barometer.readSample()
        #expect(sample.pressure == 100_009)
        #expect(sample.temperature == 20.07)
        expectFinished(bus)
    }

    /// A PROM whose CRC does not match is refused, naming the CRC and the fix.
    @Test func badPROMIsRefusedWithTheFix() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(MS5611Emulator(atmosphere: { _ in (101_325, 20) }, now: { 0 }, badPROM: true), at: I2CAddress(0x77))
        let barometer = MS5611(bus: bus, pause: .none)
        let error = sensorError { () throws(SensorError) in try barometer.configure(barometer.defaultConfiguration) }
        guard case .unsupportedSetting(let chip, let setting, _, let supported)? = error else {
            Issue.record("expected the PROM to be refused, got \(String(describing: error))")
            return
        }
        #expect(chip == "MS5611")
        #expect(setting == "PROM CRC-4")
        #expect(supported.first?.contains("power-cycle") == true)
        #expect(supported.first?.contains("replace the MS5611") == true)
        #expect(throws: SensorError.self) { try barometer.readSample() }
    }

    @Test func unsupportedOversamplingIsNamed() {
        var configuration = MS5611.altitude
        configuration.pressureOversampling = 8192
        let error = sensorError { () throws(SensorError) in _ = try MS5611.commands(for: configuration) }
        #expect(error == .unsupportedSetting(chip: "MS5611", setting: "pressure oversampling (OSR)", requested: "8192",
                                             supported: ["256", "512", "1024", "2048", "4096"]))
    }
}

@Suite struct MS5611EmulatorTests {
    /// Floors and a hill at 21.5 °C and at 5 °C (second order): back within 15 cm (a count of P is
    /// 1 Pa, about 8 cm of air near sea level).
    @Test(arguments: [0.0, 3, 6, 9, 250])
    func floorHeightsComeBack(height: Double) throws {
        for celsius in [21.5, 5.0] {
            let bus = SimulatedBus(now: { 0 })
            bus.attach(MS5611Emulator(atmosphere: { _ in (StandardAtmosphere.pressure(altitude: height), celsius) }, now: { 0 }),
                       at: I2CAddress(0x76))
            let barometer = MS5611(bus: bus, address: I2CAddress(0x76), pause: .none)
            try barometer.configure(barometer.defaultConfiguration)
            let sample = try barometer.readSample()
            #expect(abs(StandardAtmosphere.altitude(pressure: sample.pressure) - height) < 0.15, "\(celsius) °C")
            #expect(abs(sample.temperature - celsius) <= 0.01, "\(celsius) °C")
        }
    }

    /// Identification: a good PROM names an MS5611 at 0x77; a bad one names nothing.
    @Test func identifiedByItsPROM() throws {
        for (bad, expected) in [(false, "MS5611" as String?), (true, nil)] {
            let bus = SimulatedBus(now: { 0 })
            bus.attach(MS5611Emulator(atmosphere: { _ in (101_325, 20) }, now: { 0 }, badPROM: bad), at: I2CAddress(0x77))
            #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x77), pause: .none, among: ChipRegistry.barometers)?.name == expected)
        }
    }

    /// The ADC result reads once: a second read without a conversion gives 0 (datasheet).
    @Test func resultReadsOnce() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(MS5611Emulator(atmosphere: { _ in (101_325, 20) }, now: { 0 }), at: I2CAddress(0x77))
        try bus.write(I2CAddress(0x77), [0x48])
        #expect(try bus.readRegisters(I2CAddress(0x77), 0x00, count: 3) != [0, 0, 0])
        #expect(try bus.readRegisters(I2CAddress(0x77), 0x00, count: 3) == [0, 0, 0])
    }

    /// The bus's one-byte write (what the driver sends its commands with) starts the conversion
    /// as `write([byte])` does, and the bus logs it as that transaction.
    @Test func oneByteWriteIsTheOneByteTransaction() throws {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(MS5611Emulator(atmosphere: { _ in (101_325, 20) }, now: { 0 }), at: I2CAddress(0x77))
        try bus.writeByte(I2CAddress(0x77), 0x48)
        let viaByte = try bus.readRegisters(I2CAddress(0x77), 0x00, count: 3)
        try bus.write(I2CAddress(0x77), [0x48])
        #expect(try bus.readRegisters(I2CAddress(0x77), 0x00, count: 3) == viaByte)
        #expect(viaByte != [0, 0, 0])
        let log = bus.log
        #expect(log.map(\.operations) == [[.write([0x48])], [.write([0x00]), .read(count: 3)],
                                          [.write([0x48])], [.write([0x00]), .read(count: 3)]])
        #expect(log.map(\.number) == [1, 2, 3, 4])
        #expect(throws: I2CError.self) { try bus.writeByte(I2CAddress(0x76), 0x48) }
    }
}

/// The emulator's noise: the datasheet's pressure resolution (RMS) at each OSR (MS5611-01BA03,
/// "Technical data: sensor performances", note 1: 0.065 / 0.042 / 0.027 / 0.018 / 0.012 mbar at
/// OSR 256 … 4096), written here from the datasheet again.
@Suite struct MS5611NoiseTests {
    static let datasheetRMS: [Int: Double] = [256: 6.5, 512: 4.2, 1024: 2.7, 2048: 1.8, 4096: 1.2]

    /// 600 readings at rest through the driver: their standard deviation within 12 % of the
    /// datasheet's (the sample deviation of 600 is within 3 % at 1σ; the driver's whole pascals
    /// add 1/12 Pa² of variance, under 3 % of the smallest); unseeded, none.
    @Test(arguments: [256, 512, 1024, 2048, 4096])
    func restingReadingsScatterAsTheDatasheetSays(oversampling: Int) throws {
        for seed in [UInt64(7), nil] {
            let bus = SimulatedBus(now: { 0 })
            bus.attach(MS5611Emulator(atmosphere: { _ in (101_325, 20) }, now: { 0 }, noiseSeed: seed), at: I2CAddress(0x77))
            let barometer = MS5611(bus: bus, address: I2CAddress(0x77), pause: .none)
            var configuration = barometer.defaultConfiguration
            configuration.pressureOversampling = oversampling
            try barometer.configure(configuration)
            let pressures = try (0..<600).map { _ in try barometer.readSample().pressure }
            let mean = pressures.reduce(0, +) / Double(pressures.count)
            let deviation = (pressures.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(pressures.count - 1)).squareRoot()
            let expected = try #require(Self.datasheetRMS[oversampling])
            if seed == nil {
                #expect(deviation == 0, "OSR \(oversampling) without a seed: \(deviation) Pa")
            } else {
                #expect(abs(deviation / expected - 1) < 0.12, "OSR \(oversampling): \(deviation) Pa against \(expected) Pa")
                #expect(abs(mean - 101_325) < 4 * expected / Double(600).squareRoot() + 1, "OSR \(oversampling): mean \(mean) Pa")
            }
        }
    }
}
