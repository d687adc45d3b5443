import I2C
import Locking
import MotionSimulator
import Sensors
import Testing

/// The emulators' pressure noise and offset temperature coefficient against each datasheet's
/// figures, written here again from the datasheets (not from the emulators): resting readings
/// through the driver scatter as the datasheet says at two settings each, a seeded chip's
/// offset per kelvin stays inside the datasheet's band, and an unseeded chip has neither.
@Suite struct BarometerNoiseTests {
    /// Mean and sample standard deviation.
    static func scatter(_ values: [Double]) -> (mean: Double, deviation: Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)
        return (mean, variance.squareRoot())
    }

    // MARK: BME280

    /// BST-BME280-DS002, key parameters for the pressure sensor: RMS noise 0.2 Pa in indoor
    /// navigation (§3.5.3: ×16, IIR filter 16), an IIR coefficient c passing 1/(2c − 1) of white
    /// noise's variance and oversampling n averaging n conversions.
    static let bme280IndoorNavigationRMS = 0.2

    /// Resting BME280 readings at the driver's rate, through its integer compensation. With the
    /// filter the readings are correlated (about 31 readings a independent one), so 2000 of them
    /// estimate the scatter within about 15 %; unfiltered, within about 4 %.
    @Test(arguments: [(16, 16), (4, 0)])
    func bme280RestingReadingsScatterAsTheDatasheetSays(oversampling: Int, filter: Int) throws {
        let expected = oversampling == 16 && filter == 16
            ? Self.bme280IndoorNavigationRMS
            : Self.bme280IndoorNavigationRMS * Double(31).squareRoot() * (16 / Double(oversampling)).squareRoot()
        for seed in [UInt64(7), nil] {
            let pressures = try boschReadings(oversampling: oversampling, filter: filter, celsius: 25, seed: seed, count: 2000)
            let (mean, deviation) = Self.scatter(pressures)
            if seed == nil {
                // The 20-bit counts: one step, at most.
                #expect(deviation < 0.2, "×\(oversampling) filter \(filter) without a seed: \(deviation) Pa")
            } else {
                print("BME280 ×\(oversampling) filter \(filter) at rest, seed 7: \(deviation) Pa RMS (datasheet model \(expected) Pa)")
                #expect(abs(deviation / expected - 1) < (filter == 0 ? 0.1 : 0.25),
                        "×\(oversampling) filter \(filter): \(deviation) Pa against \(expected) Pa")
                #expect(abs(mean - 100_000) < 0.6, "×\(oversampling) filter \(filter): mean \(mean) Pa")
            }
        }
    }

    /// ±1.5 Pa/K (BST-BMP280-DS001 and BST-BME280-DS002, key parameters): at 35 °C each seeded
    /// chip sits its own coefficient times 10 K from where it sits at 25 °C, inside the band, and
    /// the chips differ.
    @Test(arguments: [false, true])
    func boschOffsetFollowsTheDieTemperatureInsideTheBand(bme280: Bool) throws {
        var coefficients: [Double] = []
        for seed in UInt64(1)...8 {
            let warm = Self.scatter(try boschReadings(bme280: bme280, oversampling: 16, filter: 0, celsius: 35, seed: seed, count: 400)).mean
            let reference = Self.scatter(try boschReadings(bme280: bme280, oversampling: 16, filter: 0, celsius: 25, seed: seed, count: 400)).mean
            coefficients.append((warm - reference) / 10)
        }
        print("\(bme280 ? "BME280" : "BMP280") offset per kelvin, seeds 1–8: \(coefficients.map { (($0 * 1000).rounded() / 1000) }) Pa/K")
        // Each mean is within about 0.06 Pa (1.1 Pa / √400), and the integer compensation moves a few
        // hundredths of a pascal with temperature: 0.05 Pa/K allowed on the coefficient.
        #expect(coefficients.allSatisfy { abs($0) <= 1.5 + 0.05 }, "\(coefficients)")
        #expect(coefficients.contains { abs($0) > 0.3 }, "\(coefficients)")
        #expect(Set(coefficients.map { ($0 * 100).rounded() }).count > 4, "\(coefficients)")
    }

    func boschReadings(bme280: Bool = true, oversampling: Int, filter: Int, celsius: Double, seed: UInt64?, count: Int) throws -> [Double] {
        let time = Locked(0.0)
        let bus = SimulatedBus(now: { time.withLock { $0 } })
        let atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double) = { _ in (100_000, celsius) }
        let now: @Sendable () -> Double = { time.withLock { $0 } }
        if bme280 {
            bus.attach(BME280Emulator(atmosphere: atmosphere, now: now, noiseSeed: seed), at: I2CAddress(0x76))
        } else {
            bus.attach(BMP280Emulator(atmosphere: atmosphere, now: now, noiseSeed: seed), at: I2CAddress(0x76))
        }
        let barometer = BMP280(model: bme280 ? .bme280 : .bmp280, bus: bus, pause: .none)
        var configuration = barometer.defaultConfiguration
        configuration.pressureOversampling = oversampling
        configuration.filterCoefficient = filter
        try barometer.configure(configuration)
        let rate = try #require(barometer.outputDataRate)
        var pressures: [Double] = []
        for index in 0..<(count + 100) {
            time.withLock { $0 = Double(index) / rate }
            let pressure = try barometer.readSample().pressure
            if index >= 100 { pressures.append(pressure) }  // past the filter's start
        }
        return pressures
    }

    // MARK: LPS25H

    /// The LPS25H's "high-resolution mode" noise, 0.01 hPa RMS (datasheet features; LPS25HB
    /// DocID027112 the same), at AVGP 512, the most averaging; AVGP n averaging n conversions.
    static let lps25hRMSAtAverages512 = 1.0

    /// 600 resting readings through the driver at AVGP 512 and 32: their scatter within 12 % of
    /// the figure (the sample deviation of 600 is within 3 % at 1σ; the counts' 0.024 Pa step adds
    /// nothing visible); unseeded, none.
    @Test(arguments: [512, 32])
    func lps25hRestingReadingsScatterAsTheDatasheetSays(averages: Int) throws {
        let expected = Self.lps25hRMSAtAverages512 * (512 / Double(averages)).squareRoot()
        for seed in [UInt64(7), nil] {
            let bus = SimulatedBus(now: { 0 })
            bus.attach(LPS25HEmulator(atmosphere: { _ in (100_000, 25) }, now: { 0 }, noiseSeed: seed), at: I2CAddress(0x5C))
            let barometer = LPS25H(bus: bus, pause: .none)
            var configuration = barometer.defaultConfiguration
            configuration.pressureOversampling = averages
            try barometer.configure(configuration)
            let (mean, deviation) = Self.scatter(try (0..<600).map { _ in try barometer.readSample().pressure })
            if seed == nil {
                #expect(deviation == 0, "AVGP \(averages) without a seed: \(deviation) Pa")
            } else {
                print("LPS25H AVGP \(averages) at rest, seed 7: \(deviation) Pa RMS (datasheet model \(expected) Pa)")
                #expect(abs(deviation / expected - 1) < 0.12, "AVGP \(averages): \(deviation) Pa against \(expected) Pa")
                #expect(abs(mean - 100_000) < 4 * expected / Double(600).squareRoot() + 0.05, "AVGP \(averages): mean \(mean) Pa")
            }
        }
    }

    // MARK: LPS22HH

    /// DS12503 features: pressure noise 0.65 Pa RMS (low-noise mode), TCO 0.65 Pa/°C.
    static let lps22hhRMS = 0.65, lps22hhTemperatureCoefficient = 0.65

    /// 600 resting readings through the driver (low-noise mode) at 25 Hz and at 1 Hz: their
    /// scatter within 12 % of the figure; unseeded, none.
    @Test(arguments: [40.0, 1000])
    func lps22hhRestingReadingsScatterAsTheDatasheetSays(standby: Double) throws {
        for seed in [UInt64(7), nil] {
            let pressures = try lps22hhReadings(standby: standby, celsius: 25, seed: seed, count: 600)
            let (mean, deviation) = Self.scatter(pressures)
            if seed == nil {
                #expect(deviation == 0, "\(standby) ms without a seed: \(deviation) Pa")
            } else {
                print("LPS22HH \(standby) ms at rest, seed 7: \(deviation) Pa RMS (datasheet \(Self.lps22hhRMS) Pa)")
                #expect(abs(deviation / Self.lps22hhRMS - 1) < 0.12, "\(standby) ms: \(deviation) Pa against \(Self.lps22hhRMS) Pa")
                #expect(abs(mean - 100_000) < 4 * Self.lps22hhRMS / Double(600).squareRoot() + 0.05, "\(standby) ms: mean \(mean) Pa")
            }
        }
    }

    /// At 35 °C each seeded LPS22HH sits its own coefficient times 10 K from 25 °C, inside ±0.65 Pa/K.
    @Test func lps22hhOffsetFollowsTheDieTemperatureInsideTheBand() throws {
        var coefficients: [Double] = []
        for seed in UInt64(1)...8 {
            let warm = Self.scatter(try lps22hhReadings(standby: 40, celsius: 35, seed: seed, count: 400)).mean
            let reference = Self.scatter(try lps22hhReadings(standby: 40, celsius: 25, seed: seed, count: 400)).mean
            coefficients.append((warm - reference) / 10)
        }
        print("LPS22HH offset per kelvin, seeds 1–8: \(coefficients.map { (($0 * 1000).rounded() / 1000) }) Pa/K")
        // Each mean is within about 0.035 Pa (0.65 Pa / √400): under 0.01 Pa/K on the coefficient.
        #expect(coefficients.allSatisfy { abs($0) <= Self.lps22hhTemperatureCoefficient + 0.01 }, "\(coefficients)")
        #expect(coefficients.contains { abs($0) > 0.15 }, "\(coefficients)")
        #expect(Set(coefficients.map { ($0 * 100).rounded() }).count > 4, "\(coefficients)")
    }

    func lps22hhReadings(standby: Double, celsius: Double, seed: UInt64?, count: Int) throws -> [Double] {
        let bus = SimulatedBus(now: { 0 })
        bus.attach(LPS22HHEmulator(atmosphere: { _ in (100_000, celsius) }, now: { 0 }, noiseSeed: seed), at: I2CAddress(0x5C))
        let barometer = LPS22(model: .lps22hh, bus: bus, pause: .none)
        var configuration = barometer.defaultConfiguration
        configuration.standby = standby
        try barometer.configure(configuration)
        return try (0..<count).map { _ in try barometer.readSample().pressure }
    }
}
