/// Register model of the ST LPS22HB and LPS22HH barometers, from their datasheets alone
/// (DocID027083, DS12503): WHO_AM_I at 0x0F (0xB1, 0xB3), CTRL_REG1/2, STATUS and the outputs at
/// 0x28…0x2C. The chip compensates inside: PRESS_OUT = hPa × 4096 (24-bit two's complement) and
/// TEMP_OUT = °C × 100, both rounded to whole counts (quantisation; noise not modelled).
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

    init(identity: UInt8, atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double)) {
        self.identity = identity
        self.atmosphere = atmosphere
        powerOnReset()
    }

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
        let p = UInt32(bitPattern: Int32(max(-8_388_608, min(8_388_607, (truth.pressure / 100 * 4096).rounded()))))
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
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double
    ) {
        engine = EmulatorEngine(LPS22Chip(identity: 0xB3, atmosphere: atmosphere), now: now)
    }
}
