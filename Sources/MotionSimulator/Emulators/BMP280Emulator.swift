/// Register model of the Bosch BMP280 barometer, from BST-BMP280-DS001 alone: memory map §4.2,
/// chip ID 0x58 (§4.3.1), reset 0xB6 (§4.3.2), trimming parameters 0x88…0x9F (§3.11.2), ctrl_meas
/// and config (§4.3.4, §4.3.5), the 20-bit readings at 0xF7…0xFC (§4.3.6, §4.3.7). The chip holds
/// the datasheet example's trimming parameters (§3.11.3 table) and turns the true pressure and
/// temperature into the raw counts whose compensation (the datasheet's double-precision version,
/// §8.1) gives them back: the inverse of what a driver computes, so a driver's reading is
/// checked against the world, not against a copy of itself. The counts are whole (the 20-bit
/// quantisation); the chip's noise is not modelled.
///
/// The same model serves the BME280 (``BME280Emulator``): BST-BME280-DS002 keeps this memory map,
/// trimming block and compensation for pressure and temperature (§5.3, §4.2.3), with CHIP_ID 0x60
/// and a humidity channel whose control (ctrl_hum, 0xF2) it adds.
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

    var registers: [UInt8] = []
    var pointer: UInt8 = 0
    /// CHIP_ID: 0x58 (BMP280) or 0x60 (BME280).
    let identity: UInt8
    /// The true pressure (Pa) and temperature (°C) at a time, s.
    let atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double)

    init(identity: UInt8 = 0x58, atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double)) {
        self.identity = identity
        self.atmosphere = atmosphere
        powerOnReset()
    }

    var hasHumidity: Bool { identity == 0x60 }

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
    }

    /// Normal (11) or forced (01, 10) mode: the chip measures (§3.6).
    var isMeasuring: Bool { reg(Self.ctrlMeas) & 0b11 != 0 }

    mutating func advance(to time: Double) {
        guard isMeasuring else { return }
        let truth = atmosphere(time)
        let adcT = Self.rawTemperature(for: truth.temperature)
        let adcP = Self.rawPressure(for: truth.pressure, fine: Self.fineTemperature(adcT))
        store(Self.bytes20(adcP) + Self.bytes20(adcT), at: Self.pressureMSB)
        if reg(Self.ctrlMeas) & 0b11 != 0b11 { registers[Int(Self.ctrlMeas)] &= ~0b11 }  // forced: back to sleep
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.reset: if value == 0xB6 { powerOnReset() }
        case Self.ctrlMeas, Self.config: registers[Int(register)] = value
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

    static func pressure(_ adcP: Int, fine: Double) -> Double {
        let p = trimming[3...].map(Double.init)
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
    static func bytes20(_ count: Int) -> [UInt8] {
        [UInt8((count >> 12) & 0xFF), UInt8((count >> 4) & 0xFF), UInt8((count & 0xF) << 4)]
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
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double
    ) {
        engine = EmulatorEngine(BMP280Chip(atmosphere: atmosphere), now: now)
    }
}
