/// Register model of the Bosch BMP388/BMP390 barometers, from their datasheets alone
/// (BST-BMP388-DS001, BST-BMP390-DS002): memory map §4.2, CHIP_ID 0x50 or 0x60 and REV_ID 0x01
/// (§4.3.1, §4.3.2), ERR_REG's conf_err (§4.3.3, cleared on read), PWR_CTRL/OSR/ODR/CONFIG
/// (§4.3.17–§4.3.20), the NVM coefficients at 0x31…0x45 (§3.11.1), the 24-bit readings at
/// 0x04…0x09 and the soft reset command (§4.3.21). It turns the true pressure and temperature into
/// the raw counts whose floating-point compensation (Appendix 9) gives them back: a driver's
/// reading is checked against the world. The counts are whole (24-bit quantisation); noise, the
/// IIR filter's lag and the FIFO are not modelled.
///
/// Normal mode is refused as the datasheet describes (§3.9.2, §4.3.3) when one measurement
/// (234 µs + 392 µs + 2^osr_p × 2020 µs + 163 µs + 2^osr_t × 2020 µs) does not fit the ODR period:
/// conf_err is set and the chip stays asleep.
struct BMP3Chip: RegisterChip {
    static let chipID: UInt8 = 0x00
    static let revisionID: UInt8 = 0x01
    static let error: UInt8 = 0x02
    static let status: UInt8 = 0x03
    static let data: UInt8 = 0x04
    static let powerControl: UInt8 = 0x1B
    static let oversampling: UInt8 = 0x1C
    static let outputRate: UInt8 = 0x1D
    static let config: UInt8 = 0x1F
    static let nvm: UInt8 = 0x31
    static let command: UInt8 = 0x7E
    /// NVM_PAR_T1 … NVM_PAR_P11 of one chip: T1 … P8 are the values in Bosch Sensortec's sample
    /// BMP388 calculation sheet (posted on its community forum); P9 … P11 are chosen here (the
    /// sheet's were not shown), small and of the sign real parts carry, so that the pressure stays
    /// monotonic in the count over the whole 24-bit range.
    static let coefficients = (t1: 27322, t2: 18880, t3: -10, p1: 395, p2: -2608, p3: 35, p4: 0, p5: 25371, p6: 30991,
                               p7: -13, p8: -10, p9: 4000, p10: 20, p11: -50)

    var registers: [UInt8] = []
    var pointer: UInt8 = 0
    let identity: UInt8
    /// The true pressure (Pa) and temperature (°C) at a time, s.
    let atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double)

    init(identity: UInt8, atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double)) {
        self.identity = identity
        self.atmosphere = atmosphere
        powerOnReset()
    }

    /// §4.2: CHIP_ID, REV_ID, the NVM block; every other register modelled here 0 (sleep mode).
    mutating func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 256)
        registers[Int(Self.chipID)] = identity
        registers[Int(Self.revisionID)] = 0x01
        let c = Self.coefficients
        func le(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        func byte(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value)] }
        let block = le(c.t1) + le(c.t2) + byte(c.t3) + le(c.p1) + le(c.p2) + byte(c.p3) + byte(c.p4) + le(c.p5) + le(c.p6)
            + byte(c.p7) + byte(c.p8) + le(c.p9) + byte(c.p10) + byte(c.p11)
        store(block, at: Self.nvm)
    }

    /// Mode bits 5:4 of PWR_CTRL: 00 sleep, 01/10 forced, 11 normal.
    var mode: UInt8 { (reg(Self.powerControl) >> 4) & 0b11 }

    mutating func advance(to time: Double) {
        guard mode != 0 else { return }
        let truth = atmosphere(time)
        let uT = Self.rawTemperature(for: truth.temperature)
        let uP = Self.rawPressure(for: truth.pressure, temperature: Self.temperature(uT))
        store24(uP, at: Self.data, leastFirst: true)
        store24(uT, at: Self.data + 3, leastFirst: true)
        registers[Int(Self.status)] |= 0b110_0000  // drdy_press, drdy_temp
        if mode != 0b11 { registers[Int(Self.powerControl)] &= ~0b11_0000 }  // forced: back to sleep
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.command: if value == 0xB6 { powerOnReset() }
        case Self.oversampling, Self.outputRate, Self.config: registers[Int(register)] = value
        case Self.powerControl:
            if (value >> 4) & 0b11 == 0b11, !measurementFits {
                registers[Int(Self.error)] |= 0b100  // conf_err; the chip stays asleep
                registers[Int(register)] = value & 0b11
            } else {
                registers[Int(register)] = value & 0b11_0011
            }
        default: break  // read-only or not modelled
        }
    }

    /// Whether one measurement at the OSR setting fits the ODR period (§3.9.2).
    var measurementFits: Bool {
        let osr = reg(Self.oversampling)
        let microseconds = 234 + 392 + (1 << Int(osr & 0b111)) * 2020 + 163 + (1 << Int((osr >> 3) & 0b111)) * 2020
        let period = 5000 * (1 << Int(reg(Self.outputRate) & 0x1F))
        return microseconds <= period
    }

    /// ERR_REG clears on read (§4.3.3).
    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if register == Self.error { registers[Int(register)] = 0 }
        return value
    }

    func peek(_ register: UInt8) -> UInt8 { registers[Int(register)] }
    func pointer(after register: UInt8) -> UInt8 { register &+ 1 }

    // MARK: The datasheet's compensation (Appendix 9, floating point) and its inverse

    static func pow2(_ n: Int) -> Double { Double(sign: .plus, exponent: n, significand: 1) }

    /// t_lin, °C.
    static func temperature(_ uT: Int) -> Double {
        let c = coefficients
        let partial1 = Double(uT) - Double(c.t1) / pow2(-8)
        return partial1 * (Double(c.t2) / pow2(30)) + partial1 * partial1 * (Double(c.t3) / pow2(48))
    }

    /// Pa.
    static func pressure(_ uP: Int, temperature t: Double) -> Double {
        let c = coefficients
        let (p1, p2) = ((Double(c.p1) - pow2(14)) / pow2(20), (Double(c.p2) - pow2(14)) / pow2(29))
        let (p3, p4, p5, p6) = (Double(c.p3) / pow2(32), Double(c.p4) / pow2(37), Double(c.p5) / pow2(-3), Double(c.p6) / pow2(6))
        let (p7, p8, p9) = (Double(c.p7) / pow2(8), Double(c.p8) / pow2(15), Double(c.p9) / pow2(48))
        let (p10, p11) = (Double(c.p10) / pow2(48), Double(c.p11) / pow2(65))
        let u = Double(uP)
        let out1 = p5 + p6 * t + p7 * (t * t) + p8 * (t * t * t)
        let out2 = u * (p1 + p2 * t + p3 * (t * t) + p4 * (t * t * t))
        return out1 + out2 + (u * u) * (p9 + p10 * t) + (u * u * u) * p11
    }

    /// The 24-bit count whose temperature is nearest `celsius`.
    static func rawTemperature(for celsius: Double) -> Int { nearest { temperature($0) - celsius } }

    /// The 24-bit count whose pressure is nearest `pascal`.
    static func rawPressure(for pascal: Double, temperature t: Double) -> Int { nearest { pressure($0, temperature: t) - pascal } }

    /// The count in 0..<2^24 where the monotonic `error` is nearest 0 (bisection in whichever
    /// direction it runs, then the nearer neighbour).
    static func nearest(_ error: (Int) -> Double) -> Int {
        var (low, high) = (0, (1 << 24) - 1)
        let rising = error(high) > error(low)
        while high - low > 1 {
            let middle = (low + high) / 2
            if (error(middle) < 0) == rising { low = middle } else { high = middle }
        }
        return abs(error(low)) <= abs(error(high)) ? low : high
    }

}

/// The BMP388 (CHIP_ID 0x50) on a simulated bus, measuring `atmosphere(time)`.
package final class BMP388Emulator: EngineBackedDevice {
    let engine: EmulatorEngine<BMP3Chip>
    package var chipName: String { "BMP388" }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s).
    ///   - now: simulation time, s.
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double
    ) {
        engine = EmulatorEngine(BMP3Chip(identity: 0x50, atmosphere: atmosphere), now: now)
    }
}

/// The BMP390 (CHIP_ID 0x60) on a simulated bus, measuring `atmosphere(time)`.
package final class BMP390Emulator: EngineBackedDevice {
    let engine: EmulatorEngine<BMP3Chip>
    package var chipName: String { "BMP390" }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s).
    ///   - now: simulation time, s.
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double
    ) {
        engine = EmulatorEngine(BMP3Chip(identity: 0x60, atmosphere: atmosphere), now: now)
    }
}
