import Foundation

/// Register model of the Bosch BMM150 magnetometer, from its datasheet BST-BMM150-DS001: §4 power
/// modes (suspend, sleep, normal, forced), §5 register map, the data registers' formats; and
/// Bosch's published compensation (BMM150 SensorAPI, the floating-point compensate_x/_y/_z), which
/// this model runs backwards: the true field becomes the raw Hall counts that, with RHALL and
/// this part's trim registers, compensate back to it. Constants written here independently of the driver.
struct BMM150Chip: SingleModelChip, NamedChip {
    static let chipName = "BMM150"
    static let chipID: UInt8 = 0x40        // 0x32, reads 0 in suspend
    static let dataXL: UInt8 = 0x42        // x[4:0] in 7:3, y likewise at 0x44; z[6:0] in 7:1 at 0x46; RHALL[5:0] in 7:2 at 0x48, bit 0 data ready
    static let rhallL: UInt8 = 0x48
    static let intStatus: UInt8 = 0x4A
    static let power: UInt8 = 0x4B         // soft reset [7] and [1], power control [0]
    static let opMode: UInt8 = 0x4C        // adv_st[7:6] data_rate[5:3] opmode[2:1] self_test[0]; 0x06 (sleep) once powered
    static let intCtrl: UInt8 = 0x4E       // 0x07 once powered
    static let repXY: UInt8 = 0x51
    static let repZ: UInt8 = 0x52
    static let trimFirst: UInt8 = 0x5D
    static let trimLast: UInt8 = 0x71

    /// The compensation's output: 16 counts per µT (its ``raw(field:rhall:)`` multiplies by 16).
    static let compensatedCountsPerMicrotesla = 16.0

    /// data_rate code → Hz (§4.2.4, normal mode: 10, 2, 6, 8, 15, 20, 25, 30 Hz for codes 0…7).
    static let rates: [Double] = [10, 2, 6, 8, 15, 20, 25, 30]

    /// This emulated part's trim registers 0x5D–0x71 (values of the size real parts carry):
    /// x1, y1, (reserved ×3), z4 (le16), x2, y2, (reserved ×2), z2 (le16), z1 (le16), xyz1 (le16),
    /// z3 (le16), xy2, xy1.
    static let trimX1: Int8 = 3, trimY1: Int8 = -2, trimZ4: Int16 = 12, trimX2: Int8 = 26, trimY2: Int8 = 25
    static let trimZ2: Int16 = 763, trimZ1: UInt16 = 24747, trimXYZ1: UInt16 = 7053, trimZ3: Int16 = -77
    static let trimXY2: Int8 = -3, trimXY1: UInt8 = 29

    /// RHALL of this part: XYZ1 at 25 °C, rising 0.35 % per kelvin (a model: the datasheet gives
    /// the Hall resistance's use, not its temperature coefficient).
    static func rhall(temperature: Double) -> UInt16 {
        UInt16(clamping: Int((Double(trimXYZ1) * (1 + 0.0035 * (temperature - 25))).rounded()))
    }

    var core: ChipCore
    /// The power control bit: 0 is suspend, where only 0x4B answers.
    var isPowered: Bool { registers[Int(Self.power)] & 0x01 != 0 }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128)
    }

    /// Registers once the power bit is set (or after a soft reset): sleep mode, the trim in place.
    private mutating func wake() {
        let power = registers[Int(Self.power)] & 0x01
        core.powerOn(registerCount: 128, presets: [Self.chipID: 0x32, Self.power: power, Self.opMode: 0x06, Self.intCtrl: 0x07])
        var trim = [UInt8](repeating: 0, count: Int(Self.trimLast - Self.trimFirst) + 1)
        func put(_ register: Int, _ value: UInt8) { trim[register - 0x5D] = value }
        func putWord(_ register: Int, _ value: UInt16) { put(register, UInt8(value & 0xFF)); put(register + 1, UInt8(value >> 8)) }
        put(0x5D, UInt8(bitPattern: Self.trimX1))
        put(0x5E, UInt8(bitPattern: Self.trimY1))
        putWord(0x62, UInt16(bitPattern: Self.trimZ4))
        put(0x64, UInt8(bitPattern: Self.trimX2))
        put(0x65, UInt8(bitPattern: Self.trimY2))
        putWord(0x68, UInt16(bitPattern: Self.trimZ2))
        putWord(0x6A, Self.trimZ1)
        putWord(0x6C, Self.trimXYZ1)
        putWord(0x6E, UInt16(bitPattern: Self.trimZ3))
        put(0x70, UInt8(bitPattern: Self.trimXY2))
        put(0x71, Self.trimXY1)
        store(trim, at: Self.trimFirst)
    }

    /// opmode: 00 normal, 01 forced, 1x sleep.
    var mode: UInt8 { (reg(Self.opMode) >> 1) & 0b11 }
    var rate: Double { Self.rates[Int((reg(Self.opMode) >> 3) & 0b111)] }

    /// The raw counts for a field (µT) at `rhall`: Bosch's compensation solved for the raw value.
    /// x, y: B·16 = raw·(c + 256)·(X2 + 160)/2¹³ + X1·8, with v = XYZ1·2¹⁴/RHALL − 2¹⁴ and
    /// c = XY2·v²/2²⁸ + v·XY1/2¹⁴. z: B·16 = ((raw − Z4)·2¹⁵ − Z3·(RHALL − XYZ1)/4) / (Z2 + Z1·RHALL/2¹⁵).
    static func raw(field: SIMD3<Double>, rhall: UInt16) -> (x: Double, y: Double, z: Double) {
        let r = Double(rhall)
        let v = Double(trimXYZ1) * 16384 / r - 16384
        let c = Double(trimXY2) * v * v / 268_435_456 + v * Double(trimXY1) / 16384
        func xy(_ field: Double, _ axis1: Int8, _ axis2: Int8) -> Double {
            (field * compensatedCountsPerMicrotesla - Double(axis1) * 8) * 8192 / ((c + 256) * (Double(axis2) + 160))
        }
        let divisor = Double(trimZ2) + Double(trimZ1) * r / 32768
        let z = Double(trimZ4) + (field.z * compensatedCountsPerMicrotesla * divisor + Double(trimZ3) * (r - Double(trimXYZ1)) / 4) / 32768
        return (xy(field.x, trimX1, trimX2), xy(field.y, trimY1, trimY2), z)
    }

    /// One measurement into 0x42–0x49: x, y 13 bits (−4096 on overflow), z 15 bits (−16384),
    /// RHALL 14 bits with the data-ready bit.
    mutating func measure(_ state: PhysicalState) {
        let field = Encoding.masking(state.magneticField, deadAxes: options.deadAxes, SensorAxis.magnetometer)
        let rhall = Self.rhall(temperature: state.temperature)
        let raw = Self.raw(field: field, rhall: rhall)
        func counts(_ value: Double, bits: Int) -> Int16 {
            let largest = Double((1 << (bits - 1)) - 1), rounded = value.rounded()
            guard rounded.isFinite, abs(rounded) <= largest else { return Int16(-(1 << (bits - 1))) }  // overflow marker
            return Int16(rounded)
        }
        let x = UInt16(bitPattern: counts(raw.x, bits: 13) << 3), y = UInt16(bitPattern: counts(raw.y, bits: 13) << 3)
        let z = UInt16(bitPattern: counts(raw.z, bits: 15) << 1), r = rhall << 2 | 0x01
        var bytes = InlineBytes(UInt8(x & 0xFF), UInt8(x >> 8))
        bytes.append(UInt8(y & 0xFF))
        bytes.append(UInt8(y >> 8))
        bytes.append(UInt8(z & 0xFF))
        bytes.append(UInt8(z >> 8))
        bytes.append(UInt8(r & 0xFF))
        bytes.append(UInt8(r >> 8))
        store(bytes, at: Self.dataXL)
    }

    mutating func advance(to time: Double) {
        guard isPowered, mode == 0b00, clock.advance(to: time) > 0 else { return }
        measure(source.state(at: time))
    }

    func peek(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        return isPowered || address == Self.power ? registers[Int(address)] : 0
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if register & 0x7F == Self.rhallL + 1 { registers[Int(Self.rhallL)] &= ~0x01 }  // data ready cleared once the block is read
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        if address == Self.power {
            let wasPowered = isPowered
            registers[Int(address)] = value & 0x01
            if value & 0x82 != 0 || (!wasPowered && isPowered) { wake() }  // soft reset, or out of suspend: sleep mode
            if !isPowered { powerOnReset() }
            clock.set(rate: nil, at: time)
            return
        }
        guard isPowered, (Self.opMode...Self.repZ).contains(address) else { return }  // suspend, or read-only
        let wasMeasuring = mode == 0b00
        registers[Int(address)] = value
        if address == Self.opMode, mode == 0b01 {
            measure(source.state(at: time))
            registers[Int(Self.opMode)] |= 0b110  // back to sleep
        } else if address == Self.opMode, mode == 0b00, !wasMeasuring {
            // Normal mode's first measurement, here at once (the chip's takes one measurement
            // time, about 10 ms with 9/15 repetitions), so no read finds the registers' reset zeros.
            measure(source.state(at: time))
        }
        clock.set(rate: mode == 0b00 ? rate : nil, at: time)
    }

    func pointer(after register: UInt8) -> UInt8 { (register + 1) & 0x7F }
}

/// Bosch BMM150 magnetometer emulator (CHIP_ID 0x40 = 0x32 once powered), at 0x10–0x13.
///
/// Powers up suspended: every register but power control (0x4B) reads 0 until its bit 0 is set,
/// which brings it to sleep mode with its trim registers (0x5D–0x71) in place; soft reset (0x4B
/// bits 7, 1) returns to sleep. Normal mode measures at 2–30 Hz (the first at once), forced mode once; each
/// measurement stores raw x, y, z and RHALL that compensate, with the trim, to the true field.
package final class BMM150Emulator: ModelEmulator {
    let engine: EmulatorEngine<BMM150Chip>
    init(engine: EmulatorEngine<BMM150Chip>) { self.engine = engine }
}

extension SimulatedBoard.Magnetometer {
    /// the Bosch BMM150.
    public static let bmm150 = Self("bmm150")
}
