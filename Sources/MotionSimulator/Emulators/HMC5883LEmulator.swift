/// Register model of the Honeywell HMC5883L magnetometer (datasheet Form #900405 Rev E:
/// register list Table 2, configuration registers Tables 3–13, data output and status registers,
/// self-test operation).
struct HMC5883LChip: MagnetometerChip, NamedChip {
    static let chipName = "HMC5883L"
    static let configA: UInt8 = 0x00    // MA[6:5] DO[4:2] MS[1:0]
    static let configB: UInt8 = 0x01    // GN[7:5]
    static let mode: UInt8 = 0x02       // HS[7] MD[1:0]
    static let dataXMSB: UInt8 = 0x03   // X MSB, X LSB, Z MSB, Z LSB, Y MSB, Y LSB: 0x03–0x08
    static let status: UInt8 = 0x09     // LOCK[1] RDY[0]
    static let identificationA: UInt8 = 0x0A  // 'H', '4', '3' at 0x0A–0x0C

    /// DO → Hz (0.75 … 75; code 7 is reserved and treated as 75 Hz).
    static let rates: [Double] = [0.75, 1.5, 3, 7.5, 15, 30, 75, 75]
    /// GN → LSB/gauss (Table 9): ±0.88 … ±8.1 gauss.
    static let gains: [Double] = [1370, 1090, 820, 660, 440, 390, 330, 230]
    /// Field of the self-test bias current, gauss: 1.16 on X and Y, 1.08 on Z.
    static let selfTestField = SIMD3(1.16, 1.16, 1.08)
    /// Output range 0xF800–0x07FF; −4096 marks an overflow of that axis.
    static let outputLimit = 2047.0
    static let overflow: Int16 = -4096

    var core: ChipCore
    /// Data registers read since the last update; part of them read locks the output.
    /// The data registers read since the last sample, one bit each (bit 0: DXRA, … bit 5: DYRB).
    var dataRead: UInt8 = 0

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 13, presets: [
            Self.configA: 0x10,  // 15 Hz, normal measurement
            Self.configB: 0x20,  // ±1.3 gauss
            Self.mode: 0x01,     // single-measurement mode selected, none taken yet
        ])
        store([0x48, 0x34, 0x33], at: Self.identificationA)  // 'H', '4', '3'
        dataRead = 0
    }

    var isContinuous: Bool { reg(Self.mode) & 0b11 == 0b00 }
    var rate: Double { Self.rates[Int((reg(Self.configA) >> 2) & 0b111)] }
    var isLocked: Bool { dataRead != 0 && dataRead.nonzeroBitCount < 6 }

    private mutating func measure(_ state: PhysicalState) {
        let bias: SIMD3<Double> = switch reg(Self.configA) & 0b11 {
        case 0b01: Self.selfTestField
        case 0b10: -Self.selfTestField
        default: .zero
        }
        let gauss = sensed(state.magneticField / Encoding.microteslaPerGauss + bias)
        let lsb = gauss * Self.gains[Int(reg(Self.configB) >> 5)]
        let ordered = SIMD3(lsb.x, lsb.z, lsb.y)  // the register order: X, Z, Y
        var axes = SIMD3<Int16>()
        for axis in 0..<3 {
            axes[axis] = abs(ordered[axis].rounded()) > Self.outputLimit ? Self.overflow : Encoding.int16(ordered[axis])
        }
        store(Encoding.bigEndian(axes), at: Self.dataXMSB)
        registers[Int(Self.status)] = 0x01  // RDY
        dataRead = 0
    }

    mutating func advance(to time: Double) {
        guard isContinuous, clock.advance(to: time) > 0 || reg(Self.status) & 0x01 == 0, !isLocked else { return }
        measure(source.state(at: time))
    }

    /// The pointer advances by one, rolls from 0x08 back to 0x03 and from 0x0C to 0x00.
    func pointer(after register: UInt8) -> UInt8 {
        if register == Self.dataXMSB + 5 { return Self.dataXMSB }
        return register >= 0x0C ? 0 : register + 1
    }

    func peek(_ register: UInt8) -> UInt8 {
        guard Int(register) < registers.count else { return 0 }
        if register == Self.status { return registers[Int(register)] | (isLocked ? 0x02 : 0) }
        return registers[Int(register)]
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if (Self.dataXMSB...(Self.dataXMSB + 5)).contains(register) { dataRead |= 1 << (register - Self.dataXMSB) }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        guard register <= Self.mode else { return }  // the rest is read-only
        registers[Int(register)] = value
        dataRead = 0  // a configuration or mode write releases the lock
        if register == Self.mode, value & 0b11 == 0b01 {
            // Single measurement, then idle.
            measure(source.state(at: time))
            registers[Int(Self.mode)] = value | 0b11
        }
        clock.set(rate: isContinuous ? rate : nil, at: time)
    }
}

/// Honeywell HMC5883L magnetometer emulator (identification 0x0A–0x0C = 'H', '4', '3'), at 0x1E.
///
/// Eight gains (±0.88 … ±8.1 gauss), outputs X, Z, Y big-endian in 0x03–0x08 limited to
/// −2048…2047 with −4096 on overflow; continuous and single modes; positive and negative bias
/// self-test (configuration A MS); RDY and LOCK; the pointer rolls from 0x08 to 0x03. The chip
/// has no software reset.
package final class HMC5883LEmulator: ModelEmulator {
    let engine: EmulatorEngine<HMC5883LChip>
    init(engine: EmulatorEngine<HMC5883LChip>) { self.engine = engine }
}

extension SimulatedBoard.Magnetometer {
    /// the Honeywell HMC5883L.
    public static let hmc5883l = Self("hmc5883l")
}
