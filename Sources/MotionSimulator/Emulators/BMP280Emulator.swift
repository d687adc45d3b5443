/// Register model of the Bosch BMP280 barometer, from BST-BMP280-DS001 alone: memory map §4.2,
/// chip ID 0x58 (§4.3.1), reset 0xB6 (§4.3.2), trimming parameters 0x88…0x9F (§3.11.2), ctrl_meas
/// and config (§4.3.4, §4.3.5), the 20-bit readings at 0xF7…0xFC (§4.3.6, §4.3.7). The chip holds
/// the datasheet example's trimming parameters (§3.11.3 table) and turns the true pressure and
/// temperature into the raw counts whose compensation (the datasheet's double-precision version,
/// §8.1) gives them back: the inverse of what a driver computes, so a driver's reading is
/// checked against the world, not against a copy of itself. The counts are whole (the 20-bit
/// quantisation).
///
/// In normal mode it measures once per cycle (§3.6.3, §3.8.2: the measurement time of the chosen
/// oversampling plus t_sb), adds the pressure noise of the oversampling (with a seed; none
/// without), and runs the IIR filter of §3.3.3 over the measurements, reset by a write to config.
/// The noise before the filter is set so that the indoor-navigation settings (×16, filter 16)
/// give Table 7's 1.6 cm RMS: an IIR filter with coefficient c passes 1/(2c − 1) of white noise's
/// variance, so the ADC's noise at ×16 is 1.6 cm · √31 = 8.9 cm, 1.07 Pa at 12.0 Pa/m (ρ₀g₀ of
/// the standard atmosphere at sea level); other oversamplings scale it by √(16/osrs), white noise
/// averaged. Seeded, the offset moves with the die temperature by the chip's own coefficient,
/// drawn within the datasheet's ±1.5 Pa/K (key parameters, "temperature coefficient offset", 25 …
/// 40 °C at 900 hPa; ``BarometerErrors``), zero at 25 °C. Not modelled: the temperature's noise.
///
/// The same model serves the BME280 (``BME280Emulator``): BST-BME280-DS002 keeps this memory map,
/// trimming block and compensation for pressure and temperature (§5.3, §4.2.3), with CHIP_ID 0x60
/// and a humidity channel whose control (ctrl_hum, 0xF2) it adds. Its own figures (the data
/// sheet's "Key parameters for pressure sensor"): RMS noise 0.2 Pa (1.7 cm), which §3.5.3 states
/// for indoor navigation (×16, filter 16), so 0.2 Pa · √31 = 1.11 Pa before the filter at ×16,
/// scaled as the BMP280's; and the offset temperature coefficient ±1.5 Pa/K, the BMP280's.
struct BMP280Chip: RegisterChip {
    static let chipName = "BMP280"
    static let chipID: UInt8 = 0xD0
    /// BME280 only: osrs_h (BST-BME280-DS002 §5.4.3).
    static let ctrlHum: UInt8 = 0xF2
    /// BME280 only: hum_msb, hum_lsb (BST-BME280-DS002 §5.4.9).
    static let humidityMSB: UInt8 = 0xFD
    static let reset: UInt8 = 0xE0
    static let calibration: UInt8 = 0x88
    static let status: UInt8 = 0xF3
    static let ctrlMeas: UInt8 = 0xF4
    static let config: UInt8 = 0xF5
    static let pressureMSB: UInt8 = 0xF7
    /// §3.11.3 table: dig_T1 … dig_T3, dig_P1 … dig_P9.
    static let trimming: [Int] = [27504, 26435, -1000, 36477, -10685, 3024, 2855, 140, -7, 15500, -14600, 6000]

    /// The ADC's pressure noise at ×16 oversampling, before the IIR filter, Pa (see above).
    static let noiseAtOversampling16 = 1.07
    /// The BME280's: its 0.2 Pa RMS in indoor navigation (BST-BME280-DS002, key parameters;
    /// §3.5.3) before a coefficient-16 filter, which passes 1/31 of the variance.
    static let bme280NoiseAtOversampling16 = 0.2 * Double(31).squareRoot()
    /// The offset temperature coefficient band, Pa/K: 1.5 Pa/K (12.6 cm/K) in BST-BMP280-DS001's
    /// key parameters, ±1.5 Pa/K in BST-BME280-DS002's.
    static let temperatureCoefficient = 1.5
    /// Measurements a late read catches up on at most; further back the filter starts afresh
    /// (after 128 cycles a coefficient-16 filter keeps 0.03 % of its memory).
    static let catchUpLimit = 128

    var registers: [UInt8] = []
    var pointer: UInt8 = 0
    /// CHIP_ID: 0x58 (BMP280) or 0x60 (BME280).
    let identity: UInt8
    /// The true pressure (Pa) and temperature (°C) at a time, s.
    let atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double)
    /// Seed of the pressure noise; nil: an ideal chip (quantisation only).
    let noiseSeed: UInt64?
    /// The seeded chip's temperature offset.
    let errors: BarometerErrors
    /// When normal mode started (s); nil while the chip sleeps or measures in forced mode.
    var cycleStart: Double?
    /// The last measurement cycle whose result is in the output registers.
    var lastCycle = -1
    /// The IIR filter's memory (pressure Pa, temperature °C); nil after a reset of the filter.
    var filterMemory: (pressure: Double, temperature: Double)?

    init(identity: UInt8 = 0x58, atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), noiseSeed: UInt64? = nil) {
        self.identity = identity
        self.atmosphere = atmosphere
        self.noiseSeed = noiseSeed
        errors = BarometerErrors(seed: noiseSeed, channel: Self.noiseChannel(identity),
                                 temperatureCoefficient: Self.temperatureCoefficient)
        powerOnReset()
    }

    var hasHumidity: Bool { identity == 0x60 }

    /// The noise channel: the BMP280's, or the BME280's own (two chips from one seed differ).
    static func noiseChannel(_ identity: UInt8) -> UInt64 { identity == 0x60 ? 0xE280 : 0xB280 }

    /// §4.2 Table 18: every register 0x00 after reset but the ID, the trimming block and the
    /// readings' reset values (0x80000 in 0xF7…0xF9 and 0xFA…0xFC; on the BME280 0x8000 in
    /// 0xFD/0xFE too, BST-BME280-DS002 §5.3). The BME280's humidity trimming is left 0: humidity
    /// is not measured by this model (its readings stay 0x8000, what a skipped channel reads).
    mutating func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 256)
        registers[Int(Self.chipID)] = identity
        if hasHumidity { store([0x80, 0x00], at: Self.humidityMSB) }
        let words = Self.trimming.map { UInt16(truncatingIfNeeded: $0) }
        store(words.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, at: Self.calibration)
        store([0x80, 0x00, 0x00, 0x80, 0x00, 0x00], at: Self.pressureMSB)
        cycleStart = nil
        lastCycle = -1
        filterMemory = nil
    }

    /// Normal (11) or forced (01, 10) mode: the chip measures (§3.6).
    var isMeasuring: Bool { reg(Self.ctrlMeas) & 0b11 != 0 }

    /// §3.3.1 / §4.3.4: osrs_x codes 1…5 are ×1…×16, codes 6 and 7 ×16 too; 0 skips.
    static func oversampling(code: UInt8) -> Int { code == 0 ? 0 : 1 << Int(min(code, 5) - 1) }

    /// §3.3.3 Table 6 / §4.3.5: filter codes 0…4 are off, 2, 4, 8, 16; higher codes 16.
    var filterCoefficient: Int {
        let code = Int((reg(Self.config) >> 2) & 0b111)
        return code == 0 ? 1 : 1 << min(code, 4)
    }

    /// One normal-mode cycle, s: the typical measurement time (§3.8.1: 1 + 2·osrs_t + 2·osrs_p
    /// + 0.5 ms, the last term only when pressure is measured) and the standby t_sb (§3.6.3 Table 11).
    var cyclePeriod: Double {
        let control = reg(Self.ctrlMeas)
        let osrsT = Self.oversampling(code: control >> 5), osrsP = Self.oversampling(code: (control >> 2) & 0b111)
        let measurement = 1 + 2 * Double(osrsT) + (osrsP > 0 ? 2 * Double(osrsP) + 0.5 : 0)
        return (measurement + Self.standbys[Int(reg(Self.config) >> 5)]) / 1000
    }

    /// §3.6.3 Table 11: t_sb codes 0…7, ms.
    static let standbys = [0.5, 62.5, 125, 250, 500, 1000, 2000, 4000]

    mutating func advance(to time: Double) {
        guard isMeasuring else { return }
        guard reg(Self.ctrlMeas) & 0b11 == 0b11 else {
            // Forced: one measurement, then back to sleep (§3.6.2).
            measure(cycle: Int(time * 1000), at: time)
            registers[Int(Self.ctrlMeas)] &= ~0b11
            return
        }
        let start = cycleStart ?? time
        cycleStart = start
        let period = cyclePeriod
        // The cycle whose result is out by `time` (the first one at once: a read right after the
        // start finds the first measurement rather than the reset value).
        let latest = max(0, Int(((time - start) / period).rounded(.down)))
        guard latest > lastCycle else { return }
        if latest - lastCycle > Self.catchUpLimit { filterMemory = nil }
        for cycle in max(lastCycle + 1, latest - Self.catchUpLimit + 1)...latest {
            measure(cycle: cycle, at: start + Double(cycle) * period)
        }
        lastCycle = latest
    }

    /// One measurement: the truth, the ADC's noise, the IIR filter (§3.3.3: the new memory is
    /// (memory·(c − 1) + reading) / c; the first reading after a reset fills it), the counts.
    mutating func measure(cycle: Int, at time: Double) {
        let truth = atmosphere(time)
        let osrsP = Self.oversampling(code: (reg(Self.ctrlMeas) >> 2) & 0b111)
        var pressure = truth.pressure
        if let noiseSeed, osrsP > 0 {
            let atOversampling16 = hasHumidity ? Self.bme280NoiseAtOversampling16 : Self.noiseAtOversampling16
            let sigma = atOversampling16 * (16 / Double(osrsP)).squareRoot()
            pressure += sigma * SplitMix64.gaussian(seed: noiseSeed, index: Int64(cycle), channel: Self.noiseChannel(identity))
            pressure += errors.offsetPerKelvin * (truth.temperature - BarometerErrors.referenceTemperature)
        }
        let c = Double(filterCoefficient)
        let filtered = filterMemory.map {
            (($0.pressure * (c - 1) + pressure) / c, ($0.temperature * (c - 1) + truth.temperature) / c)
        } ?? (pressure, truth.temperature)
        filterMemory = filtered
        let adcT = Self.rawTemperature(for: filtered.1)
        let adcP = Self.rawPressure(for: filtered.0, fine: Self.fineTemperature(adcT))
        store20(adcP, at: Self.pressureMSB)
        store20(adcT, at: Self.pressureMSB + 3)
    }

    /// A 20-bit count into msb, lsb, xlsb from `register` on (without a temporary array: the
    /// measurement runs at every cycle and allocates nothing).
    mutating func store20(_ count: Int, at register: UInt8) {
        let bytes = Self.bytes20(count)
        registers[Int(register)] = bytes.msb
        registers[Int(register) + 1] = bytes.lsb
        registers[Int(register) + 2] = bytes.xlsb
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.reset: if value == 0xB6 { powerOnReset() }
        case Self.ctrlMeas:
            registers[Int(register)] = value
            if value & 0b11 != 0b11 { cycleStart = nil; lastCycle = -1 }  // a new normal mode starts its own cycles
        case Self.config:
            registers[Int(register)] = value
            filterMemory = nil  // §3.3.3: writing the filter resets it
        case Self.ctrlHum where hasHumidity: registers[Int(register)] = value & 0b111
        default: break  // read-only
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 { peek(register) }
    func peek(_ register: UInt8) -> UInt8 { registers[Int(register)] }
    /// §5.3: auto-increment on reads.
    func pointer(after register: UInt8) -> UInt8 { register &+ 1 }

    // MARK: The datasheet's compensation (§8.1, double precision) and its inverse

    static func fineTemperature(_ adcT: Int) -> Double {
        let (t1, t2, t3) = (Double(trimming[0]), Double(trimming[1]), Double(trimming[2]))
        let var1 = (Double(adcT) / 16384 - t1 / 1024) * t2
        let d = Double(adcT) / 131072 - t1 / 8192
        return var1 + d * d * t3
    }

    /// dig_P1 … dig_P9 as doubles.
    static let pressureTrimming = trimming[3...].map(Double.init)

    static func pressure(_ adcP: Int, fine: Double) -> Double {
        let p = pressureTrimming
        var var1 = fine / 2 - 64000
        var var2 = var1 * var1 * p[5] / 32768 + var1 * p[4] * 2
        var2 = var2 / 4 + p[3] * 65536
        var1 = (p[2] * var1 * var1 / 524288 + p[1] * var1) / 524288
        var1 = (1 + var1 / 32768) * p[0]
        var pressure = 1048576 - Double(adcP)
        pressure = (pressure - var2 / 4096) * 6250 / var1
        return pressure + (p[8] * pressure * pressure / 2147483648 + pressure * p[7] / 32768 + p[6]) / 16
    }

    /// The 20-bit count whose temperature (t_fine / 5120 °C) is nearest `celsius`: T rises with the count.
    static func rawTemperature(for celsius: Double) -> Int {
        nearest { fineTemperature($0) / 5120 - celsius }
    }

    /// The 20-bit count whose pressure is nearest `pascal`: pressure falls as the count rises.
    static func rawPressure(for pascal: Double, fine: Double) -> Int {
        nearest { pascal - pressure($0, fine: fine) }
    }

    /// The count in 0..<2^20 where the rising `error` is nearest 0 (bisection, then the nearer neighbour).
    static func nearest(_ error: (Int) -> Double) -> Int {
        var (low, high) = (0, (1 << 20) - 1)
        while high - low > 1 {
            let middle = (low + high) / 2
            if error(middle) < 0 { low = middle } else { high = middle }
        }
        return abs(error(low)) <= abs(error(high)) ? low : high
    }

    /// msb, lsb, xlsb (the count's low four bits in xlsb's high nibble: §4.3.6).
    static func bytes20(_ count: Int) -> (msb: UInt8, lsb: UInt8, xlsb: UInt8) {
        (UInt8((count >> 12) & 0xFF), UInt8((count >> 4) & 0xFF), UInt8((count & 0xF) << 4))
    }
}

/// The BMP280 on a simulated bus, measuring `atmosphere(time)`.
package final class BMP280Emulator: EngineBackedDevice {
    let engine: EmulatorEngine<BMP280Chip>
    package var chipName: String { BMP280Chip.chipName }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s), e.g.
    ///     ``StandardAtmosphere/pressure(altitude:)`` of a path's height.
    ///   - now: simulation time, s.
    ///   - noiseSeed: seed of the chip's pressure noise; nil: none (quantisation only).
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double,
        noiseSeed: UInt64? = nil
    ) {
        engine = EmulatorEngine(BMP280Chip(atmosphere: atmosphere, noiseSeed: noiseSeed), now: now)
    }

    /// The BMP280 measuring the pressure and temperature `source` gives.
    package convenience init(source: any PhysicalSource, now: @escaping @Sendable () -> Double, noiseSeed: UInt64?) {
        self.init(atmosphere: { time in
            let state = source.state(at: time)
            return (state.pressure, state.temperature)
        }, now: now, noiseSeed: noiseSeed)
    }
}

extension SimulatedBoard.Barometer {
    /// Bosch BMP280, at 0x76 (SDO low) or 0x77 (SDO high) (BST-BMP280-DS001 §5.2).
    package static let bmp280 = Self("bmp280")
}
