/// Register model of the AsahiKASEI AK8963 magnetometer (inside the MPU-9250) and of its
/// predecessor the AK8975 (inside the MPU-9150), which has the same register addresses. Registers
/// and bits: AK8963 datasheet §8 (register map and description), §6.3–6.4 (operating modes, read
/// sequence), §7.2.3 (read address counter), §8.3.11 (sensitivity adjustment), §9.4.4 (self-test
/// limits); AK8975 datasheet: operating modes (power-down, single measurement, self-test, fuse
/// ROM; no continuous mode), register map (0x0B reserved, ST2 DERR[2] HOFL[3], no BIT),
/// characteristics (13-bit output, 0.3 µT/LSB, ±1229 µT); drivers/iio/magnetometer/ak8975.c.
struct AK8963Chip: AKMagnetometerChip, NamedChip {
    static let chipName = "AK8963"
    enum Model: Sendable { case ak8963, ak8975 }
    /// Which chip this models; set before ``powerOnReset()`` (the fuse ROM differs).
    var model = Model.ak8963

    static let wia: UInt8 = 0x00     // device ID 0x48
    static let info: UInt8 = 0x01
    static let st1: UInt8 = 0x02     // DOR[1] DRDY[0]
    static let hxl: UInt8 = 0x03     // HXL … HZH: 0x03–0x08, little-endian
    static let st2: UInt8 = 0x09     // BITM[4] HOFL[3]
    static let cntl1: UInt8 = 0x0A   // BIT[4] MODE[3:0]
    static let cntl2: UInt8 = 0x0B   // SRST[0]
    static let astc: UInt8 = 0x0C    // SELF[6]
    static let i2cdis: UInt8 = 0x0F
    static let asax: UInt8 = 0x10    // ASAX/ASAY/ASAZ 0x10–0x12: fuse ROM
    /// The AK8975 part's: others, so that a driver reading one chip's ASA for the other is caught.
    static let adjustment8975: [UInt8] = [0xA8, 0xB4, 0x9C]
    /// AK8975: the self-test field in µT (15, −20, −600 LSB after adjustment at 0.3 µT/LSB),
    /// inside its self-test limits: X and Y −100…100, Z −1000…−300 LSB.
    static let selfTestField8975 = SIMD3(4.5, -6.0, -180.0)
    /// AK8975: the 13-bit output range; a count beyond it saturates and sets HOFL (the HOFL
    /// threshold is this emulator's assumption: the measurement range, ±1229 µT).
    static let outputLimit8975 = 4095.0

    /// The fuse-ROM sensitivity adjustment values of this emulated part.
    static let adjustment: [UInt8] = [0xB0, 0xB1, 0xA5]
    /// The internal self-test field in µT (16-bit output: 30, −50, −1500 LSB before the
    /// adjustment), inside the §9.4.4 limits: X and Y −200…200, Z −3200…−800 LSB at 16 bit.
    static let selfTestField = SIMD3(4.5, -7.5, -225.0)
    /// Measurement range: |X|+|Y|+|Z| above this sets HOFL (§8.3.5).
    static let overflowMicrotesla = 4912.0

    var core: ChipCore
    /// A data read has started (a measurement data register was read) and ST2 not read yet:
    /// the output registers are protected from new measurements (§6.4.3.2).
    var readInProgress = false

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 0x13, presets: [Self.wia: 0x48])
        store(asa, at: Self.asax)
        readInProgress = false
    }

    /// MODE: 0000 power-down, 0001 single, 0010 continuous 1 (8 Hz), 0110 continuous 2 (100 Hz),
    /// 0100 external trigger (not emulated: behaves as power-down), 1000 self-test, 1111 fuse ROM.
    var mode: UInt8 { reg(Self.cntl1) & 0x0F }

    var continuousRate: Double? {
        switch (model, mode) {
        case (.ak8963, 0b0010): 8
        case (.ak8963, 0b0110): 100
        default: nil
        }
    }

    /// µT per LSB: 0.6 in 14-bit output, 0.15 in 16-bit output (BIT = 1).
    /// AK8975: 0.3 at its one 13-bit output.
    var microteslaPerLSB: Double {
        guard model == .ak8963 else { return 0.3 }
        return reg(Self.cntl1) & 0x10 != 0 ? 0.15 : 0.6
    }

    var asa: [UInt8] { model == .ak8963 ? Self.adjustment : Self.adjustment8975 }

    /// The sensitivity adjustment of the ASA registers: H_adj = H·((ASA−128)·0.5/128 + 1).
    /// The chip outputs raw values; a driver applying this factor gets the true field.
    var adjustmentFactor: SIMD3<Double> {
        (SIMD3(Double(asa[0]), Double(asa[1]), Double(asa[2])) - 128) * 0.5 / 128 + 1
    }

    mutating func measure(_ field: SIMD3<Double>) {
        let masked = sensed(field)
        var counts = Encoding.counts(masked / adjustmentFactor, perLSB: microteslaPerLSB)
        var st2: UInt8
        if model == .ak8975 {
            let limit = SIMD3<Int16>(repeating: Int16(Self.outputLimit8975))
            let overflow = any(counts .> limit) || any(counts .< 0 &- limit &- 1)
            counts = counts.clamped(lowerBound: 0 &- limit &- 1, upperBound: limit)
            st2 = overflow ? 0x08 : 0x00
        } else {
            st2 = reg(Self.cntl1) & 0x10  // BITM mirrors BIT
            if abs(field.x) + abs(field.y) + abs(field.z) > Self.overflowMicrotesla { st2 |= 0x08 }
        }
        store(Encoding.littleEndian(counts), at: Self.hxl)
        registers[Int(Self.st2)] = st2
        flagNewData(in: Self.st1, ready: 0x01, overrun: 0x02)  // DRDY; DOR: previous data skipped
    }

    /// The address counter runs 0x00…0x0C then back to 0x00, and 0x10…0x12 then back to 0x10.
    func pointer(after register: UInt8) -> UInt8 {
        switch register {
        case Self.astc: Self.wia
        case Self.asax + 2: Self.asax
        default: register + 1
        }
    }

    func peek(_ register: UInt8) -> UInt8 {
        guard Int(register) < registers.count else { return 0 }
        // The fuse ROM reads as 0 outside fuse-ROM access mode.
        if register >= Self.asax, mode != 0b1111 { return 0 }
        return registers[Int(register)]
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.cntl1:
            // The AK8975's CNTL has no BIT: MODE only.
            let value = model == .ak8963 ? value : value & 0x0F
            registers[Int(register)] = value
            switch value & 0x0F {
            case 0b0001:  // single measurement, then power-down
                measure(source.state(at: time).magneticField)
                registers[Int(register)] = value & 0x10
            case 0b1000:  // self-test: one measurement of the internal field, then power-down
                let selfTest = reg(Self.astc) & 0x40 == 0 ? .zero : model == .ak8963 ? Self.selfTestField : Self.selfTestField8975
                measure(selfTest)
                registers[Int(register)] = value & 0x10
            default:
                break
            }
            clock.set(rate: continuousRate, at: time)
        case Self.cntl2 where value & 0x01 != 0 && model == .ak8963:
            powerOnReset()  // SRST: all registers initialised; the bit clears itself
        case Self.astc, Self.i2cdis:
            registers[Int(register)] = value
        default:
            return  // read-only or reserved
        }
    }
}

/// AsahiKASEI AK8963 magnetometer emulator (WIA 0x00 = 0x48), at 0x0C behind the MPU-9250's
/// I2C bypass (see ``MPU9250Emulator``) or on its own.
///
/// Single, continuous (8/100 Hz) and self-test modes, 14/16-bit output, DRDY/DOR in ST1 cleared
/// by reading ST2, HOFL on overflow, fuse-ROM sensitivity adjustment (ASAX–Z = 0xB0, 0xB1,
/// 0xA5; the output is the raw value a driver must scale by the adjustment), soft reset (CNTL2).
package final class AK8963Emulator: ModelEmulator {
    let engine: EmulatorEngine<AK8963Chip>
    init(engine: EmulatorEngine<AK8963Chip>) { self.engine = engine }
}

extension AK8963Chip {
    /// An AK8975: the AK8963 model switched over, then powered on.
    static func ak8975(source: any PhysicalSource, options: EmulatorOptions) -> Self {
        var chip = Self(source: source, options: options)
        chip.model = .ak8975
        chip.powerOnReset()
        return chip
    }
}

/// AsahiKASEI AK8975 magnetometer emulator (WIA 0x00 = 0x48, like the AK8963), at 0x0C behind the
/// MPU-9150's I2C bypass (see ``MPU9150Emulator``) or on its own.
///
/// Single-measurement and self-test modes only (no continuous mode: each measurement is one
/// CNTL = 0001 command, after which the chip is back in power-down), 13-bit output at 0.3 µT/LSB,
/// DRDY in ST1 cleared by reading the data or ST2, HOFL beyond ±4095 counts, fuse-ROM sensitivity
/// adjustment (ASAX–Z = 0xA8, 0xB4, 0x9C; the output is the raw value a driver must scale by the
/// adjustment), no soft reset. A measurement completes at its command: the conversion time (typ.
/// 7.3 ms, max. 9 ms) and DERR (a data read during a conversion) are not emulated.
package final class AK8975Emulator: ModelEmulator {
    static let chipName = "AK8975"
    let engine: EmulatorEngine<AK8963Chip>
    init(engine: EmulatorEngine<AK8963Chip>) { self.engine = engine }

    static func makeChip(source: any PhysicalSource, options: EmulatorOptions) -> AK8963Chip {
        .ak8975(source: source, options: options)
    }
}
