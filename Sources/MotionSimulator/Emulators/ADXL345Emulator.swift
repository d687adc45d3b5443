/// Register model of the Analog Devices ADXL345 accelerometer, from its datasheet (Rev. G:
/// Table 1 specifications, Table 7 data rates, Table 19 register map and "Register Definitions",
/// "FIFO", "Self-Test", "Serial Communications: I2C").
struct ADXL345Chip: SingleModelChip, NamedChip {
    static let chipName = "ADXL345"
    static let devid: UInt8 = 0x00        // 0xE5
    static let bwRate: UInt8 = 0x2C       // LOW_POWER[4] Rate[3:0], reset 0x0A
    static let powerCtl: UInt8 = 0x2D     // Link[5] AUTO_SLEEP[4] Measure[3] Sleep[2] Wakeup[1:0]
    static let intSource: UInt8 = 0x30    // DATA_READY[7] … Watermark[1] Overrun[0], reset 0x02
    static let dataFormat: UInt8 = 0x31   // SELF_TEST[7] SPI[6] INT_INVERT[5] FULL_RES[3] Justify[2] Range[1:0]
    static let dataX0: UInt8 = 0x32       // DATAX0 … DATAZ1: 0x32–0x37
    static let dataZ1: UInt8 = 0x37
    static let fifoCtl: UInt8 = 0x38      // FIFO_MODE[7:6] Trigger[5] Samples[4:0]
    static let fifoStatus: UInt8 = 0x39   // FIFO_TRIG[7] Entries[5:0]
    /// 32 levels ("FIFO").
    static let fifoDepth = 32
    /// The self-test deflection, g (x, y, z): inside Table 1's "Self-Test Output Change" limits
    /// (x 0.20…2.10 g, y −2.10…−0.20 g, z 0.30…3.40 g at VS = 2.5 V).
    static let selfTestDeflection = SIMD3(1.0, -1.0, 1.5)
    /// 3.9 mg/LSB in full resolution (Table 1: 256 LSB/g typical), and in 10-bit mode at ±2 g;
    /// the 10-bit sensitivity halves with each doubling of the range (Table 1).
    static let fullResolutionLSBPerG = 256.0

    var core: ChipCore
    /// The FIFO: a ring of `fifoDepth` samples made once, `fifoCount` of them held from `fifoHead` on.
    var fifo = [SIMD3<Int16>](repeating: .zero, count: ADXL345Chip.fifoDepth)
    var fifoHead = 0
    var fifoCount = 0
    /// The latest sample, which the data registers show while the FIFO is bypassed or empty.
    var latest = SIMD3<Int16>.zero
    /// A sample taken since the data registers were last read (DATA_READY).
    var dataReady = false

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 0x40, presets: [Self.devid: 0xE5, Self.bwRate: 0x0A, Self.intSource: 0x02])
        fifoHead = 0
        fifoCount = 0
        latest = .zero
        dataReady = false
    }

    /// Table 7: 3200 Hz at Rate 1111, halving with each code below (0.10 Hz at 0000).
    var rate: Double? {
        guard reg(Self.powerCtl) & 0x08 != 0 else { return nil }  // standby
        return 3200 / Double(1 << (15 - Int(reg(Self.bwRate) & 0x0F)))
    }

    private var fifoMode: UInt8 { reg(Self.fifoCtl) >> 6 }

    mutating func advance(to time: Double) {
        _ = sampleClock(to: time, keepingLast: Self.fifoDepth + 1) { chip, tick in chip.take(chip.sample(chip.source.state(at: tick))) }
        // The data registers follow the input while the part measures (as the other emulators'
        // outputs do); the FIFO's samples are those of its ticks.
        if rate != nil { latest = sample(source.state(at: time)) }
        refreshOutputs()
    }

    /// One sample into the FIFO (in FIFO mode only while it has room; in stream and trigger mode
    /// the oldest is dropped for it).
    private mutating func take(_ counts: SIMD3<Int16>) {
        dataReady = true
        switch fifoMode {
        case 0b00: return
        case 0b01 where fifoCount == Self.fifoDepth: return
        default: break
        }
        if fifoCount == Self.fifoDepth {
            fifoHead = (fifoHead + 1) % Self.fifoDepth
            fifoCount -= 1
        }
        fifo[(fifoHead + fifoCount) % Self.fifoDepth] = counts
        fifoCount += 1
    }

    /// The data registers (the FIFO's oldest sample, else the latest), FIFO_STATUS and INT_SOURCE.
    private mutating func refreshOutputs() {
        let shown = fifoMode != 0 && fifoCount > 0 ? fifo[fifoHead] : latest
        store(Encoding.littleEndian(justified(shown)), at: Self.dataX0)
        registers[Int(Self.fifoStatus)] = UInt8(fifoCount)
        let watermark = fifoCount >= Int(reg(Self.fifoCtl) & 0x1F)
        // Overrun: in the FIFO modes, set while the FIFO is full; in bypass, never here (the
        // driver reads the data registers as they follow the input).
        let overrun = fifoMode != 0 && fifoCount == Self.fifoDepth
        registers[Int(Self.intSource)] = (dataReady ? 0x80 : 0) | (watermark ? 0x02 : 0) | (overrun ? 0x01 : 0)
    }

    /// The counts of `state`: specific force plus any self-test deflection, in full resolution
    /// (4 mg/LSB, 10 bits at ±2 g up to 13 at ±16 g) or 10 bits at the range's sensitivity,
    /// clamped to the range's width.
    private func sample(_ state: PhysicalState) -> SIMD3<Int16> {
        let format = reg(Self.dataFormat)
        let range = Int(format & 0x03)
        let fullResolution = format & 0x08 != 0
        let lsbPerG = fullResolution ? Self.fullResolutionLSBPerG : Self.fullResolutionLSBPerG / Double(1 << range)
        let limit = fullResolution ? 512 << range : 512
        let selfTest = format & 0x80 != 0 ? Self.selfTestDeflection : .zero
        let counts = accelCounts(of: state, selfTest: selfTest, gPerLSB: 1 / lsbPerG)
        let clamped = { (count: Int16) in Int16(max(-limit, min(limit - 1, Int(count)))) }
        return SIMD3(clamped(counts.x), clamped(counts.y), clamped(counts.z))
    }

    /// Right-justified with sign extension, or (Justify) left-justified: the MSB in bit 15.
    private func justified(_ counts: SIMD3<Int16>) -> SIMD3<Int16> {
        let format = reg(Self.dataFormat)
        guard format & 0x04 != 0 else { return counts }
        let bits = format & 0x08 != 0 ? 10 + Int(format & 0x03) : 10
        return counts &<< Int16(16 - bits)
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.devid, Self.intSource, Self.dataX0...Self.dataZ1, Self.fifoStatus: return  // read-only
        case Self.fifoCtl:
            registers[Int(register)] = value
            // Bypass empties the FIFO ("FIFO_CTL": switching into bypass clears it).
            if value >> 6 == 0 { fifoCount = 0 }
        default: registers[Int(register)] = value
        }
        clock.set(rate: rate, at: time)
        refreshOutputs()
    }

    /// Reading DATAZ1, the end of a sample's 6-byte read, pops the FIFO's oldest sample
    /// ("Retrieving Data from FIFO": each read of the data registers takes one sample).
    mutating func read(_ register: UInt8) -> UInt8 {
        let value = reg(register)
        if register >= Self.dataX0, register <= Self.dataZ1 { dataReady = false }
        if register == Self.dataZ1, fifoMode != 0, fifoCount > 0 {
            fifoHead = (fifoHead + 1) % Self.fifoDepth
            fifoCount -= 1
        }
        if register == Self.dataZ1 { refreshOutputs() }
        return value
    }

    /// Multiple-byte reads and writes advance the address ("I2C": the register address
    /// auto-increments); DATAZ1 runs on into FIFO_CTL.
    func pointer(after register: UInt8) -> UInt8 { (register + 1) & 0x3F }

    func peek(_ register: UInt8) -> UInt8 { reg(register) }
}

/// Analog Devices ADXL345 accelerometer emulator (DEVID 0x00 = 0xE5), at 0x53 (ALT ADDRESS low)
/// or 0x1D. Measures at BW_RATE's rate in measurement mode (POWER_CTL Measure), full resolution
/// or 10 bits, right- or left-justified; FIFO in bypass, FIFO, stream or trigger (as stream)
/// mode with its 32 levels, Entries and the Overrun flag; self-test deflection (DATA_FORMAT SELF_TEST).
/// No gyroscope: the source's rotation is not sensed.
package final class ADXL345Emulator: ModelEmulator {
    let engine: EmulatorEngine<ADXL345Chip>
    init(engine: EmulatorEngine<ADXL345Chip>) { self.engine = engine }
}

extension SimulatedBoard.IMU {
    /// The Analog Devices ADXL345 (an accelerometer alone).
    public static let adxl345 = Self("adxl345")
}
