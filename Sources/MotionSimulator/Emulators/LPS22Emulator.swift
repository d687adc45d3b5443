/// Register model of the ST LPS22HB and LPS22HH barometers, from their datasheets alone
/// (DocID027083, DS12503): WHO_AM_I at 0x0F (0xB1, 0xB3), CTRL_REG1/2, STATUS and the outputs at
/// 0x28…0x2C. The chip compensates inside: PRESS_OUT = hPa × 4096 (24-bit two's complement) and
/// TEMP_OUT = °C × 100, both rounded to whole counts (the quantisation: 1/4096 hPa, 0.024 Pa).
///
/// Seeded, the LPS22HH in low-noise mode (CTRL_REG2 LOW_NOISE_EN) has the figures of its data
/// sheet's features (DS12503): pressure noise 0.65 Pa RMS, white, on each measurement, and an
/// offset temperature coefficient (TCO) of 0.65 Pa/°C, each seeded chip drawing its own within
/// ±that (``BarometerErrors``). Not modelled, for want of a figure: the LPS22HH's noise in
/// low-current mode and every LPS22HB figure (those chips stay ideal but for the quantisation).
///
/// Modelled: power-down (ODR 0) and continuous mode, ONE_SHOT (measures once, clears itself), the
/// status bits, SWRESET, and IF_ADD_INC (on after reset: the address advances on multi-byte reads;
/// off: it stays). Not modelled: the low-pass filter (the output is the instantaneous truth), the
/// FIFO, interrupts, the reference pressure.
struct LPS22Chip: RegisterChip {
    static let whoAmI: UInt8 = 0x0F
    static let ctrlReg1: UInt8 = 0x10  // ODR 6:4
    static let ctrlReg2: UInt8 = 0x11  // BOOT 7, IF_ADD_INC 4, SWRESET 2, ONE_SHOT 0
    static let status: UInt8 = 0x27  // T_DA 1, P_DA 0
    static let pressOutXL: UInt8 = 0x28
    static let tempOutH: UInt8 = 0x2C
    static let writable: Set<UInt8> = [0x0B, 0x0C, 0x0D, 0x0E, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16]

    var registers: [UInt8] = []
    var pointer: UInt8 = 0
    let identity: UInt8
    let atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double)
    /// The seeded chip's noise and temperature offset (the LPS22HH's; none unseeded).
    var errors: BarometerErrors

    /// LPS22HH, low-noise mode: 0.65 Pa RMS (DS12503 features, "low pressure sensor noise").
    static let hhLowNoiseRMS = 0.65
    /// LPS22HH: TCO 0.65 Pa/°C (DS12503 features, "high-performance TCO").
    static let hhTemperatureCoefficient = 0.65

    init(identity: UInt8, atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), noiseSeed: UInt64? = nil) {
        self.identity = identity
        self.atmosphere = atmosphere
        let modelled = identity == 0xB3
        errors = BarometerErrors(seed: modelled ? noiseSeed : nil, channel: 0x22B3,
                                 temperatureCoefficient: modelled ? Self.hhTemperatureCoefficient : 0)
        powerOnReset()
    }

    /// The LPS22HH's CTRL_REG2 LOW_NOISE_EN (bit 1).
    var isLowNoise: Bool { identity == 0xB3 && reg(Self.ctrlReg2) & 0b10 != 0 }

    /// WHO_AM_I, and CTRL_REG2 = 0x10 (IF_ADD_INC on, both datasheets' default); every other
    /// register modelled here 0 (power-down, outputs 0).
    mutating func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 128)
        registers[Int(Self.whoAmI)] = identity
        registers[Int(Self.ctrlReg2)] = 0x10
    }

    var isContinuous: Bool { reg(Self.ctrlReg1) & 0x70 != 0 }

    mutating func advance(to time: Double) {
        if isContinuous { measure(at: time) }
    }

    mutating func measure(at time: Double) {
        let truth = atmosphere(time)
        // Low-current mode's noise has no figure: there the chip adds only its temperature offset.
        let pressure = errors.measured(truth.pressure, temperature: truth.temperature, rms: isLowNoise ? Self.hhLowNoiseRMS : 0)
        let p = UInt32(bitPattern: Int32(max(-8_388_608, min(8_388_607, (pressure / 100 * 4096).rounded()))))
        let t = UInt16(bitPattern: Int16(max(-32768, min(32767, (truth.temperature * 100).rounded()))))
        store([UInt8(p & 0xFF), UInt8(p >> 8 & 0xFF), UInt8(p >> 16 & 0xFF), UInt8(t & 0xFF), UInt8(t >> 8)], at: Self.pressOutXL)
        registers[Int(Self.status)] |= 0b11
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        guard Self.writable.contains(register) else { return }
        if register == Self.ctrlReg2 {
            if value & 0b100 != 0 { powerOnReset(); return }  // SWRESET
            registers[Int(register)] = value & ~0x80 & ~0x01  // BOOT and ONE_SHOT clear themselves
            if value & 0x01 != 0, !isContinuous { measure(at: time) }
            return
        }
        registers[Int(register)] = value
    }

    /// Reading TEMP_OUT_H clears T_DA, PRESS_OUT_H clears P_DA.
    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if register == Self.pressOutXL + 2 { registers[Int(Self.status)] &= ~0b01 }
        if register == Self.tempOutH { registers[Int(Self.status)] &= ~0b10 }
        return value
    }

    func peek(_ register: UInt8) -> UInt8 { registers[Int(register & 0x7F)] }

    func pointer(after register: UInt8) -> UInt8 {
        reg(Self.ctrlReg2) & 0x10 != 0 ? (register + 1) & 0x7F : register
    }
}

/// The LPS22HB (WHO_AM_I 0xB1) on a simulated bus, measuring `atmosphere(time)`.
package final class LPS22HBEmulator: EngineBackedDevice {
    let engine: EmulatorEngine<LPS22Chip>
    package var chipName: String { "LPS22HB" }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s).
    ///   - now: simulation time, s.
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double
    ) {
        engine = EmulatorEngine(LPS22Chip(identity: 0xB1, atmosphere: atmosphere), now: now)
    }
}

/// The LPS22HH (WHO_AM_I 0xB3) on a simulated bus, measuring `atmosphere(time)`.
package final class LPS22HHEmulator: EngineBackedDevice {
    let engine: EmulatorEngine<LPS22Chip>
    package var chipName: String { "LPS22HH" }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s).
    ///   - now: simulation time, s.
    ///   - noiseSeed: seed of the chip's pressure noise and temperature offset; nil: none (quantisation only).
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double,
        noiseSeed: UInt64? = nil
    ) {
        engine = EmulatorEngine(LPS22Chip(identity: 0xB3, atmosphere: atmosphere, noiseSeed: noiseSeed), now: now)
    }
}
