import I2C
import Locking
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

    /// The indoor-navigation settings at rest with noise: the readings scatter by Table 7's 1.6 cm
    /// RMS (0.19 Pa; 1.2–2.0 cm allowed) over 2000 readings of seed 7; the driver's rate is Table 7's
    /// 26.3 Hz and the emulator measures at it. At 25 °C, where the seeded chip's temperature
    /// offset is zero (BarometerNoiseTests checks that offset).
    @Test func indoorNavigationNoiseIsTheDatasheets() throws {
        let time = Locked(0.0)
        let bus = SimulatedBus(now: { time.withLock { $0 } })
        let truth = StandardAtmosphere.pressure(altitude: 35)
        bus.attach(BMP280Emulator(atmosphere: { _ in (truth, 25) }, now: { time.withLock { $0 } }, noiseSeed: 7), at: I2CAddress(0x76))
        let barometer = BMP280(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let rate = try #require(barometer.outputDataRate)
        #expect(abs(rate - 26.3) < 0.05, "\(rate) Hz")
        var readings: [Double] = []
        for index in 0..<2100 {
            time.withLock { $0 = Double(index) / rate }
            let pressure = try barometer.readSample().pressure
            if index >= 100 { readings.append(pressure) }   // past the filter's start
        }
        let mean = readings.reduce(0, +) / Double(readings.count)
        let rms = (readings.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(readings.count)).squareRoot()
        let centimetres = rms / (1.225 * 9.80665) * 100
        // The driver's integer compensation sits a few tenths of a pascal from the double-precision
        // one the emulator inverts (a few centimetres, as in floorHeightsComeBack).
        #expect(abs(mean - truth) < 0.5, "mean \(mean) Pa, truth \(truth) Pa")
        print(String(format: "BMP280 indoor navigation at rest, seed 7: RMS %.2f cm, mean %+.2f Pa from the truth", centimetres, mean - truth))
        #expect(centimetres > 1.2 && centimetres < 2.0, "RMS \(centimetres) cm")
    }

    /// The IIR filter (coefficient 16) follows a step as §3.3.3 Table 6 says: ≥ 75 % after 22
    /// measurements, not after 20.
    @Test func theFilterFollowsAStepInTable6sSamples() throws {
        let time = Locked(0.0)
        let bus = SimulatedBus(now: { time.withLock { $0 } })
        let stepAt = 10.0
        let (low, high) = (100_000.0, 100_036.0)
        bus.attach(BMP280Emulator(atmosphere: { $0 < stepAt ? (low, 20) : (high, 20) }, now: { time.withLock { $0 } }), at: I2CAddress(0x76))
        let barometer = BMP280(bus: bus, pause: .none)
        try barometer.configure(barometer.defaultConfiguration)
        let period = 1 / (try #require(barometer.outputDataRate))
        func reading(cycle: Int) throws -> Double {
            time.withLock { $0 = Double(cycle) * period + period / 2 }
            return try barometer.readSample().pressure
        }
        let firstAfter = Int((stepAt / period).rounded(.up))
        for cycle in 0..<firstAfter { _ = try reading(cycle: cycle) }
        var fractions: [Double] = []
        for cycle in firstAfter..<(firstAfter + 22) { fractions.append((try reading(cycle: cycle) - low) / (high - low)) }
        #expect(fractions[19] < 0.75, "after 20: \(fractions[19])")
        #expect(fractions[21] >= 0.75, "after 22: \(fractions[21])")
    }
}
