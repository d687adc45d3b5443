/// Register model of the AsahiKASEI AK09916 magnetometer (inside the ICM-20948). Registers and
/// bits: AK09916 datasheet §9 and ICM-20948 DS-000189 §12–13 (register map and description): WIA1 0x00 = 0x48, WIA2 0x01 =
/// 0x09, ST1 0x10 (DOR[1] DRDY[0]), HXL…HZH 0x11–0x16 little-endian, TMPS 0x17 (dummy), ST2 0x18
/// (HOFL[3]), CNTL2 0x31 (MODE[4:0]), CNTL3 0x32 (SRST[0]); 0.15 µT/LSB, ±4912 µT; no fuse ROM.
struct AK09916Chip: AKMagnetometerChip, NamedChip {
    static let chipName = "AK09916"
    static let wia1: UInt8 = 0x00
    static let wia2: UInt8 = 0x01
    static let rsv2: UInt8 = 0x03
    static let st1: UInt8 = 0x10
    static let hxl: UInt8 = 0x11
    static let st2: UInt8 = 0x18
    static let cntl1: UInt8 = 0x30   // dummy
    static let cntl2: UInt8 = 0x31
    static let cntl3: UInt8 = 0x32

    /// The internal self-test field in µT (30, −50, −600 LSB), inside the self-test limits:
    /// X and Y −200…200, Z −1000…−200 LSB.
    static let selfTestField = SIMD3(4.5, -7.5, -90.0)
    /// Measurement range: |X|+|Y|+|Z| above this sets HOFL.
    static let overflowMicrotesla = 4912.0
    static let microteslaPerLSB = 0.15

    var core: ChipCore
    /// A measurement data register was read and ST2 not yet: new measurements do not overwrite
    /// the output registers.
    var readInProgress = false

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 0x35, presets: [Self.wia1: 0x48, Self.wia2: 0x09])
        readInProgress = false
    }

    /// MODE: 00000 power-down, 00001 single, 00010/00100/00110/01000 continuous 1–4
    /// (10/20/50/100 Hz), 10000 self-test.
    var mode: UInt8 { reg(Self.cntl2) & 0x1F }

    var continuousRate: Double? {
        switch mode {
        case 0b00010: 10
        case 0b00100: 20
        case 0b00110: 50
        case 0b01000: 100
        default: nil
        }
    }

    mutating func measure(_ field: SIMD3<Double>) {
        store(Encoding.littleEndian(Encoding.counts(sensed(field), perLSB: Self.microteslaPerLSB)), at: Self.hxl)
        let overflow = abs(field.x) + abs(field.y) + abs(field.z) > Self.overflowMicrotesla
        registers[Int(Self.st2)] = overflow ? 0x08 : 0x00
        flagNewData(in: Self.st1, ready: 0x01, overrun: 0x02)
    }

    /// The address counter runs 0x00…0x03, then 0x10…0x18, then back to 0x00; and 0x30…0x32,
    /// then back to 0x30 (DS-000189 §12, Table 20).
    func pointer(after register: UInt8) -> UInt8 {
        switch register {
        case Self.rsv2: Self.st1
        case Self.st2: Self.wia1
        case Self.cntl3: Self.cntl1
        default: register + 1
        }
    }

    func peek(_ register: UInt8) -> UInt8 {
        Int(register) < registers.count ? registers[Int(register)] : 0
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.cntl2:
            registers[Int(register)] = value & 0x1F
            switch mode {
            case 0b00001:  // single measurement, then power-down
                measure(source.state(at: time).magneticField)
                registers[Int(register)] = 0
            case 0b10000:  // self-test: one measurement of the internal field, then power-down
                measure(Self.selfTestField)
                registers[Int(register)] = 0
            default:
                break
            }
            clock.set(rate: continuousRate, at: time)
        case Self.cntl3 where value & 0x01 != 0:
            powerOnReset()  // SRST: all registers initialised; the bit clears itself
        default:
            return  // read-only or reserved
        }
    }
}

/// AsahiKASEI AK09916 magnetometer emulator (WIA1/WIA2 = 0x48, 0x09), at 0x0C behind the
/// ICM-20948's I2C bypass (see ``ICM20948Emulator``) or on its own.
///
/// Single, continuous (10/20/50/100 Hz) and self-test modes, DRDY/DOR in ST1 cleared by reading
/// ST2 (which also ends the data read that protects the output registers), HOFL on overflow,
/// soft reset (CNTL3).
package final class AK09916Emulator: ModelEmulator {
    let engine: EmulatorEngine<AK09916Chip>
    init(engine: EmulatorEngine<AK09916Chip>) { self.engine = engine }
}
