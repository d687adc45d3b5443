/// Register model of the Infineon DPS310 barometer, from its datasheet: product ID 0x10 at 0x0D,
/// PRS_CFG/TMP_CFG/MEAS_CFG/CFG_REG, soft reset (0x09 into RESET), the coefficient block at
/// 0x10…0x21 and COEF_SRCE at 0x28, the 24-bit readings at 0x00…0x05 (most significant byte first).
/// It turns the true pressure and temperature into the raw counts whose compensation (datasheet
/// §4.9, with the scale factor of the set oversampling) gives them back. Counts are whole (24-bit
/// quantisation); noise and the measurement times are not modelled (results are there at once).
///
/// One behaviour is not in the datasheet: `faultyTemperature` models the chips Linux `dps310.c`
/// describes, which read about 60 °C at about 20 °C until the manufacturer's workaround is written
/// (register 0x32 bit 1 clear; 0xA5 to 0x0E, 0x96 to 0x0F, 0x02 to 0x62). How far off they read is
/// not documented: the model adds 40 °C to the temperature reading, and nothing to the pressure's.
struct DPS310Chip: RegisterChip {
    static let pressure: UInt8 = 0x00
    static let pressureConfig: UInt8 = 0x06
    static let temperatureConfig: UInt8 = 0x07
    static let measurementConfig: UInt8 = 0x08
    static let config: UInt8 = 0x09
    static let reset: UInt8 = 0x0C
    static let productID: UInt8 = 0x0D
    static let coefficients: UInt8 = 0x10
    static let coefficientSource: UInt8 = 0x28
    /// Compensation scale factors by oversampling code (datasheet table).
    static let scaleFactors: [Double] = [524_288, 1_572_864, 3_670_016, 7_864_320, 253_952, 516_096, 1_040_384, 2_088_960]
    /// c0, c1, c00, c10, c01, c11, c20, c21, c30 chosen for this model (the datasheet gives none):
    /// 0 °C is 102 °C − 261 × T_raw_sc, and 100 kPa near P_raw_sc −0.37.
    static let c: (c0: Int, c1: Int, c00: Int, c10: Int, c01: Int, c11: Int, c20: Int, c21: Int, c30: Int) =
        (204, -261, 80_000, -54_000, -2_000, 1_200, -9_000, 100, -1_000)

    var registers: [UInt8] = []
    var pointer: UInt8 = 0
    let faultyTemperature: Bool
    var workaroundSteps = 0
    let atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double)

    init(faultyTemperature: Bool, atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double)) {
        self.faultyTemperature = faultyTemperature
        self.atmosphere = atmosphere
        powerOnReset()
    }

    /// Product ID, the coefficients (COEF_RDY and SENSOR_RDY set: the model needs no start-up
    /// time), COEF_SRCE 0x80 (trimmed against the MEMS sensor), 0x32 bit 1 set on a sound chip.
    mutating func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 256)
        registers[Int(Self.productID)] = 0x10
        registers[Int(Self.measurementConfig)] = 0xC0
        registers[Int(Self.coefficientSource)] = 0x80
        registers[0x32] = faultyTemperature ? 0x00 : 0x02
        workaroundSteps = 0
        store(Self.coefficientBytes, at: Self.coefficients)
    }

    static var coefficientBytes: [UInt8] {
        func u(_ value: Int, _ bits: Int) -> Int { value & ((1 << bits) - 1) }
        let (c0, c1, c00, c10) = (u(c.c0, 12), u(c.c1, 12), u(c.c00, 20), u(c.c10, 20))
        var bytes = [c0 >> 4, (c0 & 0xF) << 4 | c1 >> 8, c1 & 0xFF, c00 >> 12, (c00 >> 4) & 0xFF, (c00 & 0xF) << 4 | c10 >> 16,
                     (c10 >> 8) & 0xFF, c10 & 0xFF]
        for word in [c.c01, c.c11, c.c20, c.c21, c.c30] { bytes += [u(word, 16) >> 8, u(word, 16) & 0xFF] }
        return bytes.map { UInt8($0) }
    }

    var isWorkedAround: Bool { !faultyTemperature || workaroundSteps >= 3 }

    mutating func advance(to time: Double) {
        let mode = reg(Self.measurementConfig) & 0b111
        guard mode != 0 else { return }
        let truth = atmosphere(time)
        let kP = Self.scaleFactors[Int(reg(Self.pressureConfig) & 0x7)]
        let kT = Self.scaleFactors[Int(reg(Self.temperatureConfig) & 0x7)]
        let reported = truth.temperature + (isWorkedAround ? 0 : 40)
        let rawT = Self.clamp24(((reported - Double(Self.c.c0) * 0.5) / Double(Self.c.c1) * kT).rounded())
        let rawP = Self.rawPressure(for: truth.pressure, kP: kP, scaledTemperature: Double(rawT) / kT)
        store24(rawP & 0xFF_FFFF, at: Self.pressure, leastFirst: false)
        store24(rawT & 0xFF_FFFF, at: Self.pressure + 3, leastFirst: false)
        registers[Int(Self.measurementConfig)] |= 0b11_0000  // TMP_RDY, PRS_RDY
        if mode < 0b100 { registers[Int(Self.measurementConfig)] &= ~0b111 }  // command mode: one measurement
    }

    /// The nearest count to the pressure polynomial's root near the linear guess (Newton, then the
    /// nearer neighbour): the polynomial is monotonic over the range a real reading spans.
    static func rawPressure(for pascal: Double, kP: Double, scaledTemperature t: Double) -> Int {
        func pressure(_ p: Double) -> Double {
            Double(c.c00) + p * (Double(c.c10) + p * (Double(c.c20) + p * Double(c.c30))) + t * Double(c.c01)
                + t * p * (Double(c.c11) + p * Double(c.c21))
        }
        var p = (pascal - Double(c.c00)) / Double(c.c10)
        for _ in 0..<20 {
            let slope = (pressure(p + 1e-6) - pressure(p - 1e-6)) / 2e-6
            p -= (pressure(p) - pascal) / slope
        }
        let count = (p * kP).rounded()
        let candidates = [count - 1, count, count + 1]
        let best = candidates.min { abs(pressure($0 / kP) - pascal) < abs(pressure($1 / kP) - pascal) } ?? count
        return clamp24(best)
    }

    static func clamp24(_ value: Double) -> Int { Int(max(-8_388_608, min(8_388_607, value))) }


    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.reset: if value & 0x0F == 0x09 { powerOnReset() }
        case Self.pressureConfig, Self.temperatureConfig, Self.config: registers[Int(register)] = value
        case Self.measurementConfig: registers[Int(register)] = reg(register) & 0xF0 | value & 0b111
        case 0x0E where value == 0xA5 && workaroundSteps == 0, 0x0F where value == 0x96 && workaroundSteps == 1,
             0x62 where value == 0x02 && workaroundSteps == 2:
            workaroundSteps += 1
        default: break
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 { peek(register) }
    func peek(_ register: UInt8) -> UInt8 { registers[Int(register)] }
    func pointer(after register: UInt8) -> UInt8 { register &+ 1 }
}

/// The DPS310 on a simulated bus, measuring `atmosphere(time)`.
package final class DPS310Emulator: EngineBackedDevice {
    let engine: EmulatorEngine<DPS310Chip>
    package var chipName: String { "DPS310" }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s).
    ///   - now: simulation time, s.
    ///   - faultyTemperature: a chip with the temperature fault Linux `dps310.c` works around.
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double,
        faultyTemperature: Bool = false
    ) {
        engine = EmulatorEngine(DPS310Chip(faultyTemperature: faultyTemperature, atmosphere: atmosphere), now: now)
    }
}
