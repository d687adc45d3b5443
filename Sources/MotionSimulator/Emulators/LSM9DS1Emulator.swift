/// Register model of the ST LSM9DS1 accelerometer and gyroscope (datasheet DocID025715 Rev 3:
/// §3.5 FIFO, §4 operating modes, §6 register mapping, §7 register description, Table 3 sensor
/// characteristics). Written from the datasheet, independently of the driver's tables.
struct LSM9DS1Chip: SingleModelChip, NamedChip {
    static let chipName = "LSM9DS1"
    static let whoAmI: UInt8 = 0x0F        // WHO_AM_I (0Fh) = 68h
    static let ctrlReg1G: UInt8 = 0x10     // CTRL_REG1_G: ODR_G[7:5] FS_G[4:3] BW_G[1:0]
    static let outTempL: UInt8 = 0x15      // OUT_TEMP_L, OUT_TEMP_H (16h)
    static let statusReg: UInt8 = 0x17     // STATUS_REG: TDA[2] GDA[1] XLDA[0]
    static let outXLG: UInt8 = 0x18        // OUT_X_L_G … OUT_Z_H_G (1Dh)
    static let ctrlReg4: UInt8 = 0x1E      // CTRL_REG4: Zen_G Yen_G Xen_G[5:3], 38h at power-on
    static let ctrlReg5XL: UInt8 = 0x1F    // CTRL_REG5_XL: Zen_XL Yen_XL Xen_XL[5:3], 38h at power-on
    static let ctrlReg6XL: UInt8 = 0x20    // CTRL_REG6_XL: ODR_XL[7:5] FS_XL[4:3] BW_SCAL_ODR[2] BW_XL[1:0]
    static let ctrlReg8: UInt8 = 0x22      // CTRL_REG8: BOOT[7] BDU[6] … IF_ADD_INC[2] BLE[1] SW_RESET[0], 04h at power-on
    static let ctrlReg9: UInt8 = 0x23      // CTRL_REG9: FIFO_EN[1] STOP_ON_FTH[0]
    static let ctrlReg10: UInt8 = 0x24     // CTRL_REG10: ST_G[2] ST_XL[0]
    static let intGenSrcXL: UInt8 = 0x26   // INT_GEN_SRC_XL (read-only)
    static let statusReg2: UInt8 = 0x27    // STATUS_REG (second copy)
    static let outXLXL: UInt8 = 0x28       // OUT_X_L_XL … OUT_Z_H_XL (2Dh)
    static let fifoCtrl: UInt8 = 0x2E      // FIFO_CTRL: FMODE[7:5] FTH[4:0]
    static let fifoSrc: UInt8 = 0x2F       // FIFO_SRC: FTH[7] OVRN[6] FSS[5:0]

    /// ODR_G codes 001…110 in Hz (CTRL_REG1_G table); with the gyroscope on, the accelerometer
    /// samples at this rate too (§4).
    static let gyroscopeRates: [Double] = [14.9, 59.5, 119, 238, 476, 952]
    /// ODR_XL codes 001…110 in Hz, accelerometer alone (CTRL_REG6_XL table).
    static let accelerometerRates: [Double] = [10, 50, 119, 238, 476, 952]
    /// FS_XL code → mg/LSB (Table 3: ±2 g 0.061, ±16 g 0.732, ±4 g 0.122, ±8 g 0.244).
    static let accelerometerSensitivity: [Double] = [0.061, 0.732, 0.122, 0.244]
    /// FS_G code → mdps/LSB (Table 3: ±245 8.75, ±500 17.5, 10 "not available", ±2000 70). The
    /// emulator treats the unavailable code as ±2000.
    static let gyroscopeSensitivity: [Double] = [8.75, 17.5, 70, 70]
    /// Temperature sensor: 16 LSB/°C, 0 LSB at 25 °C.
    static let temperatureLSBPerDegree = 16.0
    /// FIFO depth in levels (§3.5), each a gyroscope and an accelerometer set.
    static let fifoCapacity = 32

    /// Self-test deflections: accelerometer in g (ST's limits 70–1500 mg at ±2 g), gyroscope in
    /// °/s (200–800 dps at ±2000 °/s).
    static let accelerometerSelfTest = 0.45
    static let gyroscopeSelfTest = 400.0

    struct Level: Sendable {
        var gyroscope: InlineBytes
        var accelerometer: InlineBytes
    }

    var core: ChipCore
    var fifo: [Level] = []
    /// OVRN: the FIFO is full and a level was overwritten; cleared once a level is read.
    var overrun = false

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: [Self.whoAmI: 0x68, Self.ctrlReg4: 0x38, Self.ctrlReg5XL: 0x38, Self.ctrlReg8: 0x04])
        fifo.removeAll()
        overrun = false
    }

    // MARK: Configuration decoded from the registers

    private static func rate(_ code: UInt8, in table: [Double]) -> Double? {
        (1...6).contains(code) ? table[Int(code) - 1] : nil
    }

    var gyroscopeRate: Double? { Self.rate(reg(Self.ctrlReg1G) >> 5, in: Self.gyroscopeRates) }

    /// The accelerometer follows the gyroscope while it runs, else its own ODR_XL.
    var accelerometerRate: Double? { gyroscopeRate ?? Self.rate(reg(Self.ctrlReg6XL) >> 5, in: Self.accelerometerRates) }

    var gPerLSB: Double { Self.accelerometerSensitivity[Int((reg(Self.ctrlReg6XL) >> 3) & 0b11)] / 1000 }
    var dpsPerLSB: Double { Self.gyroscopeSensitivity[Int((reg(Self.ctrlReg1G) >> 3) & 0b11)] / 1000 }

    var fifoMode: UInt8 { reg(Self.fifoCtrl) >> 5 }
    var fifoEnabled: Bool { reg(Self.ctrlReg9) & 0x02 != 0 && fifoMode != 0 }

    // MARK: Samples

    func accelerometerCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        let selfTest = reg(Self.ctrlReg10) & 0x01 != 0 ? Self.accelerometerSelfTest : 0
        return accelCounts(of: state, selfTest: SIMD3(repeating: selfTest), gPerLSB: gPerLSB)
    }

    func gyroscopeCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        let selfTest = reg(Self.ctrlReg10) & 0x04 != 0 ? Self.gyroscopeSelfTest : 0
        return gyroCounts(of: state, selfTest: SIMD3(repeating: selfTest), dpsPerLSB: dpsPerLSB)
    }

    mutating func advance(to time: Double) {
        let fifoOn = fifoEnabled
        // Levels are pushed as the ticks come (push reads registers, never the clock).
        var ticker = clock
        var pushed = 0
        let due = ticker.advance(to: time, keepingLast: Self.fifoCapacity + 1) { tick in
            guard fifoOn else { return }
            push(at: tick)
            pushed += 1
        }
        clock = ticker
        if due > 0 {
            var status = reg(Self.statusReg) | 0b101  // XLDA, TDA
            if gyroscopeRate != nil { status |= 0b010 }  // GDA
            registers[Int(Self.statusReg)] = status
            registers[Int(Self.statusReg2)] = status
        }
        if fifoOn, due > pushed, fifoMode != 0b001 { overrun = true }  // ticks lost beyond the window

        // Output registers follow the input while the sensors run and keep their value in power-down.
        guard accelerometerRate != nil else { return }
        let state = source.state(at: time)
        store(Encoding.littleEndian(Encoding.int16((state.temperature - 25) * Self.temperatureLSBPerDegree)), at: Self.outTempL)
        if gyroscopeRate != nil { store(Encoding.littleEndian(gyroscopeCounts(state)), at: Self.outXLG) }
        store(Encoding.littleEndian(accelerometerCounts(state)), at: Self.outXLXL)
    }

    /// One level at an ODR tick. Continuous mode (FMODE 110, and the triggered modes, which the
    /// emulator runs as continuous) drops the oldest level when full and raises OVRN; FIFO mode
    /// (001) stops collecting when full.
    private mutating func push(at time: Double) {
        if fifo.count >= Self.fifoCapacity {
            if fifoMode == 0b001 { return }
            fifo.removeFirst()
            overrun = true
        }
        let state = source.state(at: time)
        let gyroscope = gyroscopeRate != nil ? gyroscopeCounts(state) : .zero
        fifo.append(Level(gyroscope: Encoding.littleEndian(gyroscope), accelerometer: Encoding.littleEndian(accelerometerCounts(state))))
    }

    // MARK: Bus access

    func pointer(after register: UInt8) -> UInt8 {
        reg(Self.ctrlReg8) & 0x04 != 0 ? (register + 1) & 0x7F : register  // IF_ADD_INC
    }

    func peek(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        if address == Self.fifoSrc {
            var value = UInt8(min(fifo.count, 63))  // FSS[5:0]
            let threshold = Int(reg(Self.fifoCtrl) & 0x1F)
            if fifo.count >= threshold, fifo.count > 0 { value |= 0x80 }  // FTH
            if overrun { value |= 0x40 }                                // OVRN
            return value
        }
        // With the FIFO on, the output registers show its oldest level (§3.5).
        if fifoEnabled, let level = fifo.first {
            if (Self.outXLG...(Self.outXLG + 5)).contains(address) { return level.gyroscope[Int(address - Self.outXLG)] }
            if (Self.outXLXL...(Self.outXLXL + 5)).contains(address) { return level.accelerometer[Int(address - Self.outXLXL)] }
        }
        return registers[Int(address)]
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        let value = peek(address)
        switch address {
        case Self.outTempL...(Self.outTempL + 1):
            clearStatus(0b100)
        case Self.outXLG...(Self.outXLG + 5):
            clearStatus(0b010)
        case Self.outXLXL...(Self.outXLXL + 5):
            clearStatus(0b001)
            // The level leaves the FIFO once its last byte (the accelerometer's OUT_Z_H_XL) was read.
            if address == Self.outXLXL + 5, fifoEnabled, !fifo.isEmpty {
                fifo.removeFirst()
                overrun = false
            }
        default:
            break
        }
        return value
    }

    private mutating func clearStatus(_ bits: UInt8) {
        registers[Int(Self.statusReg)] &= ~bits
        registers[Int(Self.statusReg2)] &= ~bits
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        switch address {
        case Self.whoAmI, Self.outTempL...Self.outXLG + 5, Self.intGenSrcXL, Self.statusReg2, Self.outXLXL...(Self.outXLXL + 5), Self.fifoSrc:
            return  // read-only
        case Self.ctrlReg8 where value & 0x01 != 0:
            powerOnReset()  // SW_RESET: every register to its power-on value; the bit clears itself
            return
        case Self.ctrlReg8:
            registers[Int(address)] = value & 0x7F  // BOOT clears itself once the reboot is done
        default:
            registers[Int(address)] = value
        }
        if address == Self.fifoCtrl, fifoMode == 0 {
            fifo.removeAll()  // bypass mode empties the FIFO
            overrun = false
        }
        clock.set(rate: accelerometerRate, at: time)
    }
}

/// ST LSM9DS1 accelerometer and gyroscope emulator (WHO_AM_I 0x0F = 0x68), usually at 0x6A
/// (the Sense HAT) or 0x6B. Pair it with a ``LIS3MDLEmulator`` at 0x1C for the package's
/// magnetometer, which has the LIS3MDL's registers.
///
/// Output registers follow `source` at `now()` while a sensor runs (CTRL_REG1_G ODR_G ≠ 0 runs
/// both at the gyroscope's rate; ODR_XL alone runs the accelerometer), STATUS_REG flags new
/// data at each ODR tick of the chip's clock. The 32-level FIFO (CTRL_REG9 FIFO_EN, FIFO_CTRL
/// FMODE) stores a gyroscope and an accelerometer set per tick; its oldest level is shown in the
/// output registers and leaves after OUT_Z_H_XL is read; FIFO_SRC gives the level count,
/// threshold and overrun. Self-test (CTRL_REG10) and software reset (CTRL_REG8) as in the
/// datasheet; IF_ADD_INC governs auto-increment.
package final class LSM9DS1Emulator: ModelEmulator {
    let engine: EmulatorEngine<LSM9DS1Chip>
    init(engine: EmulatorEngine<LSM9DS1Chip>) { self.engine = engine }
}

extension SimulatedBoard.IMU {
    /// the ST LSM9DS1 (the Raspberry Pi Sense HAT's), with its magnetometer die.
    public static let lsm9ds1 = Self("lsm9ds1")
}
