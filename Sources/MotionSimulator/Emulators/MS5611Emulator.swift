/// Model of the TE Connectivity MS5611 barometer, from its datasheet (MS5611-01BA03) and TE's
/// AN520 (the PROM CRC-4) alone. The chip has commands, not registers: reset (0x1E) reloads the
/// PROM; 0x40…0x48 and 0x50…0x58 start a D1 (pressure) or D2 (temperature) conversion; 0x00 then
/// a three-byte read gives the last result, once (a second read gives 0, as does a read with no
/// conversion since the last); 0xA0 + 2n then a two-byte read gives PROM word n. Here the command
/// byte is kept as the pointer: the result sits at 0x00…0x02 and the PROM at 0xA0…0xAF, so a read
/// walks through them. Conversions are done by the next read (their 0.6–9 ms are not modelled).
///
/// The PROM holds the datasheet's example coefficients (C1…C6 = 40127, 36924, 23317, 23282,
/// 33464, 28312), word 0 and the serial code chosen here, and word 7's CRC-4 computed as AN520
/// gives it; `badPROM` flips a bit of C3 after that, a PROM whose CRC no longer matches. D1 and D2
/// are the counts whose datasheet compensation (first and second order) is nearest the truth, the
/// pressure first given the noise of the conversion's OSR when seeded: the datasheet's pressure
/// resolution (RMS) of 0.065 / 0.042 / 0.027 / 0.018 / 0.012 mbar at OSR 256 / 512 / 1024 / 2048 /
/// 4096 (MS5611-01BA03 datasheet, "Technical data: sensor performances", note 1), as white noise
/// per conversion. Not modelled: the temperature's noise (the datasheet gives only "< 0.01 °C")
/// and the error band over temperature (±2.5 mbar from −20 to +85 °C, a bound, not a coefficient).
struct MS5611Chip: RegisterChip {
    static let coefficients: [Int64] = [40127, 36924, 23317, 23282, 33464, 28312]
    static let factoryWord: UInt16 = 0x0040, serial: UInt16 = 0x5A20

    var registers: [UInt8] = []
    var pointer: UInt8 = 0
    /// The conversion started and not yet read: D1 (pressure) or D2 (temperature), and its OSR code
    /// (0…4: 256 … 4096).
    var pending: Kind?
    var pendingOSR = 0
    let badPROM: Bool
    let atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double)
    /// Seed of the pressure noise; nil: an ideal chip (quantisation only).
    let noiseSeed: UInt64?
    /// Pressure conversions so far: the noise's index.
    var conversions: Int64 = 0

    enum Kind { case pressure, temperature }

    /// The pressure resolution, RMS, Pa, by OSR code (256, 512, 1024, 2048, 4096): the datasheet's
    /// 0.065 / 0.042 / 0.027 / 0.018 / 0.012 mbar (MS5611-01BA03, "Technical data", note 1).
    static let pressureNoise: [Double] = [6.5, 4.2, 2.7, 1.8, 1.2]

    init(badPROM: Bool, atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), noiseSeed: UInt64? = nil) {
        self.badPROM = badPROM
        self.atmosphere = atmosphere
        self.noiseSeed = noiseSeed
        powerOnReset()
    }

    /// The PROM words, word 7's low nibble the AN520 CRC-4 of all eight.
    static func prom(bad: Bool) -> [UInt16] {
        var words = [factoryWord] + coefficients.map { UInt16($0) } + [serial]
        words[7] = serial & 0xFFF0 | crc4(words)
        if bad { words[3] ^= 0x0100 }
        return words
    }

    /// AN520: the 16 bytes, word 7's CRC nibble cleared, through x⁴ + x + 1 in the top of a 16-bit remainder.
    static func crc4(_ words: [UInt16]) -> UInt16 {
        var prom = words
        prom[7] &= 0xFF00
        var remainder: UInt16 = 0
        for byte in prom.flatMap({ [$0 >> 8, $0 & 0xFF] }) {
            remainder ^= byte
            for _ in 0..<8 { remainder = remainder & 0x8000 != 0 ? (remainder << 1) ^ 0x3000 : remainder << 1 }
        }
        return remainder >> 12 & 0xF
    }

    mutating func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 256)
        store(Self.prom(bad: badPROM).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }, at: 0xA0)
        pending = nil
    }

    mutating func setPointer(fromSubAddress byte: UInt8) {
        switch byte {
        case 0x1E: powerOnReset()
        case 0x40...0x48 where byte & 1 == 0: (pending, pendingOSR) = (.pressure, Int(byte - 0x40) / 2)
        case 0x50...0x58 where byte & 1 == 0: (pending, pendingOSR) = (.temperature, Int(byte - 0x50) / 2)
        default: break
        }
        pointer = byte
    }

    /// A finished conversion lands in the result bytes before the read that follows it.
    mutating func advance(to time: Double) {
        guard let kind = pending, pointer == 0x00 else { return }
        pending = nil
        let truth = atmosphere(time)
        let d2 = Self.rawTemperature(for: truth.temperature)
        var pressure = truth.pressure
        if kind == .pressure, let noiseSeed {
            conversions += 1
            pressure += Self.pressureNoise[pendingOSR] * SplitMix64.gaussian(seed: noiseSeed, index: conversions, channel: 0x5611)
        }
        let count = kind == .temperature ? d2 : Self.rawPressure(for: pressure, d2: d2)
        store24(count, at: 0x00, leastFirst: false)
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {}

    /// The result reads once: its last byte read clears it.
    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if register == 0x02 { store24(0, at: 0x00, leastFirst: false) }
        return value
    }

    func peek(_ register: UInt8) -> UInt8 { registers[Int(register)] }
    func pointer(after register: UInt8) -> UInt8 { register &+ 1 }

    // MARK: The datasheet's compensation and its inverse

    /// TEMP (0.01 °C) and P (0.01 mbar) from D1 and D2, first and second order.
    static func compensate(d1: Int64, d2: Int64) -> (temperature: Int64, pressure: Int64) {
        let c = coefficients
        let dT = d2 - c[4] * 256
        var temp = 2000 + dT * c[5] / 8_388_608
        var off = c[1] * 65536 + c[3] * dT / 128
        var sens = c[0] * 32768 + c[2] * dT / 256
        if temp < 2000 {
            let square = (temp - 2000) * (temp - 2000)
            var (off2, sens2) = (5 * square / 2, 5 * square / 4)
            if temp < -1500 {
                let cold = (temp + 1500) * (temp + 1500)
                off2 += 7 * cold
                sens2 += 11 * cold / 2
            }
            temp -= dT * dT / 2_147_483_648
            off -= off2
            sens -= sens2
        }
        return (temp, (d1 * sens / 2_097_152 - off) / 32768)
    }

    /// The D2 whose TEMP is nearest `celsius` (TEMP rises with D2).
    static func rawTemperature(for celsius: Double) -> Int {
        nearest { Double(compensate(d1: 0, d2: Int64($0)).temperature) / 100 - celsius }
    }

    /// The D1 whose P is nearest `pascal` at that D2 (P rises with D1).
    static func rawPressure(for pascal: Double, d2: Int) -> Int {
        nearest { Double(compensate(d1: Int64($0), d2: Int64(d2)).pressure) - pascal }
    }

    /// The count in 0..<2^24 where the rising `error` is nearest 0.
    static func nearest(_ error: (Int) -> Double) -> Int {
        var (low, high) = (0, (1 << 24) - 1)
        while high - low > 1 {
            let middle = (low + high) / 2
            if error(middle) < 0 { low = middle } else { high = middle }
        }
        return abs(error(low)) <= abs(error(high)) ? low : high
    }
}

/// The MS5611 on a simulated bus, measuring `atmosphere(time)`.
package final class MS5611Emulator: EngineBackedDevice {
    let engine: EmulatorEngine<MS5611Chip>
    package var chipName: String { "MS5611" }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s).
    ///   - now: simulation time, s.
    ///   - badPROM: a PROM whose CRC-4 does not match its contents.
    ///   - noiseSeed: seed of the pressure noise of each conversion's OSR; nil: quantisation only.
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double,
        badPROM: Bool = false, noiseSeed: UInt64? = nil
    ) {
        engine = EmulatorEngine(MS5611Chip(badPROM: badPROM, atmosphere: atmosphere, noiseSeed: noiseSeed), now: now)
    }
}
