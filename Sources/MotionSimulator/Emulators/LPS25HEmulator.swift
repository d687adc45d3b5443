/// Register model of the ST LPS25H barometer, from its datasheet (DocID023722) and application
/// note AN4450 alone: WHO_AM_I 0xBD at 0x0F, RES_CONF, CTRL_REG1/2, FIFO_CTRL, STATUS_REG and the
/// outputs at 0x28…0x2C. The chip compensates inside, so its outputs are the true values scaled:
/// PRESS_OUT = hPa × 4096 (24-bit two's complement) and TEMP_OUT = (°C − 42.5) × 480 (AN4450 §4.3),
/// both rounded to whole counts (the quantisation: 1/4096 hPa, 0.024 Pa). Seeded, each measurement
/// carries white noise of 0.01 hPa RMS at AVGP 512, the "high-resolution mode" figure of the
/// datasheet's features (LPS25HB DocID027112 gives the same), and √(512/AVGP) times that with fewer
/// internal averages (AVGP 8, 32, 128: 8, 4, 2 Pa), averages of independent conversions; the data
/// sheets give no other setting's figure. The temperature coefficient of offset is not modelled
/// (no figure found), nor the temperature's noise.
///
/// Modelled: power-down (PD = 0: no measurements), continuous mode at any ODR and one-shot
/// (ONE_SHOT sets, measures, clears itself), the status bits P_DA/T_DA, SWRESET and BOOT, and the
/// I2C sub-address rule (§5.2.1: the address advances only when the sub-address's MSB is set; with
/// FIFO_EN it wraps from PRESS_OUT_H back to PRESS_OUT_XL, AN4450 §5.1 Figure 8). Not modelled:
/// the averaging itself (the output is the instantaneous truth whatever AVGP/AVGT or FIFO mean mode
/// are set to), the FIFO's other modes, interrupts, differential mode (REF_P, RPDS).
struct LPS25HChip: RegisterChip {
    static let chipName = "LPS25H"
    static let whoAmI: UInt8 = 0x0F
    static let resConf: UInt8 = 0x10
    static let ctrlReg1: UInt8 = 0x20  // PD 7, ODR 6:4, BDU 2
    static let ctrlReg2: UInt8 = 0x21  // BOOT 7, FIFO_EN 6, SWRESET 2, ONE_SHOT 0
    static let status: UInt8 = 0x27  // P_DA 1, T_DA 0
    static let pressOutXL: UInt8 = 0x28
    static let pressOutH: UInt8 = 0x2A
    static let tempOutL: UInt8 = 0x2B
    static let fifoCtrl: UInt8 = 0x2E
    /// The read-only registers: WHO_AM_I, INT_SOURCE (0x25), STATUS_REG, the outputs, FIFO_STATUS (0x2F).
    static let readOnly: Set<UInt8> = [0x0F, 0x25, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2F]

    var registers: [UInt8] = []
    var pointer: UInt8 = 0
    /// Set by the sub-address's MSB (§5.2.1).
    var autoIncrement = false
    /// The true pressure (Pa) and temperature (°C) at a time, s.
    let atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double)
    /// The seeded chip's noise (none unseeded).
    var errors: BarometerErrors

    /// The pressure noise at AVGP 512, Pa RMS: 0.01 hPa (datasheet features, "high-resolution mode").
    static let noiseAtAverages512 = 1.0

    init(atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), noiseSeed: UInt64? = nil) {
        self.atmosphere = atmosphere
        errors = BarometerErrors(seed: noiseSeed, channel: 0x025D, temperatureCoefficient: 0)
        powerOnReset()
    }

    /// RES_CONF AVGP (bits 1:0): 8, 32, 128 or 512 internal pressure averages.
    var pressureAverages: Int { 8 << (2 * Int(reg(Self.resConf) & 0b11)) }

    /// WHO_AM_I holds 0xBD; every other register is 0 in this model after power-on (power-down,
    /// FIFO bypass, outputs 0): a driver must write every setting it relies on.
    mutating func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 128)
        registers[Int(Self.whoAmI)] = 0xBD
        autoIncrement = false
    }

    var isPoweredOn: Bool { reg(Self.ctrlReg1) & 0x80 != 0 }
    var isContinuous: Bool { reg(Self.ctrlReg1) & 0x70 != 0 }

    mutating func advance(to time: Double) {
        guard isPoweredOn, isContinuous else { return }
        measure(at: time)
    }

    /// Latches the truth at `time` into the outputs and sets P_DA and T_DA.
    mutating func measure(at time: Double) {
        let truth = atmosphere(time)
        let rms = Self.noiseAtAverages512 * (512 / Double(pressureAverages)).squareRoot()
        let pressure = Self.pressureCount(pascal: errors.measured(truth.pressure, temperature: truth.temperature, rms: rms))
        let temperature = Self.temperatureCount(celsius: truth.temperature)
        let p = UInt32(bitPattern: pressure)
        let t = UInt16(bitPattern: temperature)
        store([UInt8(p & 0xFF), UInt8(p >> 8 & 0xFF), UInt8(p >> 16 & 0xFF), UInt8(t & 0xFF), UInt8(t >> 8)], at: Self.pressOutXL)
        registers[Int(Self.status)] |= 0b11
    }

    /// hPa × 4096, rounded, within the 24-bit two's-complement range.
    static func pressureCount(pascal: Double) -> Int32 {
        Int32(max(-8_388_608, min(8_388_607, (pascal / 100 * 4096).rounded())))
    }

    /// (°C − 42.5) × 480, rounded, within Int16 (the scale reaches about −25.8 °C … 110.8 °C).
    static func temperatureCount(celsius: Double) -> Int16 {
        Int16(max(-32768, min(32767, ((celsius - 42.5) * 480).rounded())))
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        guard !Self.readOnly.contains(register) else { return }
        if register == Self.ctrlReg2 {
            if value & 0b100 != 0 { powerOnReset(); return }  // SWRESET: the user registers to their defaults
            registers[Int(register)] = value & ~0x80  // BOOT reloads the trimming and clears itself
            if value & 0x01 != 0, isPoweredOn, !isContinuous {  // ONE_SHOT
                measure(at: time)
                registers[Int(register)] &= ~0x01
            }
            return
        }
        registers[Int(register)] = value
    }

    /// Reading the outputs clears the status bits they announce (pressure: P_DA on PRESS_OUT_H, temperature: T_DA on TEMP_OUT_H).
    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if register == Self.pressOutH { registers[Int(Self.status)] &= ~0b10 }
        if register == Self.tempOutL + 1 { registers[Int(Self.status)] &= ~0b01 }
        return value
    }

    func peek(_ register: UInt8) -> UInt8 { registers[Int(register & 0x7F)] }

    mutating func setPointer(fromSubAddress byte: UInt8) {
        autoIncrement = byte & 0x80 != 0
        pointer = byte & 0x7F
    }

    func pointer(after register: UInt8) -> UInt8 {
        guard autoIncrement else { return register }
        if register == Self.pressOutH, reg(Self.ctrlReg2) & 0x40 != 0 { return Self.pressOutXL }
        return (register + 1) & 0x7F
    }
}

/// The LPS25H on a simulated bus, measuring `atmosphere(time)`.
package final class LPS25HEmulator: EngineBackedDevice {
    let engine: EmulatorEngine<LPS25HChip>
    package var chipName: String { LPS25HChip.chipName }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s), e.g.
    ///     ``StandardAtmosphere/pressure(altitude:)`` of a path's height.
    ///   - now: simulation time, s.
    ///   - noiseSeed: seed of the chip's pressure noise; nil: none (quantisation only).
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double,
        noiseSeed: UInt64? = nil
    ) {
        engine = EmulatorEngine(LPS25HChip(atmosphere: atmosphere, noiseSeed: noiseSeed), now: now)
    }
}
