import Foundation

/// Register model of the TDK InvenSense ICM-20948 (accelerometer and gyroscope part). Registers
/// and bits: ICM-20948 datasheet DS-000189 rev 1.3, §7 register map (four user banks chosen by
/// REG_BANK_SEL 0x7F bits 5:4, present in every bank), §8 bank 0, §9 bank 1, §10 bank 2;
/// sensitivities §3.1–3.2; self-test §9 (SELF_TEST_X/Y/Z_GYRO, _ACCEL).
///
/// `registers` holds the four banks one after the other (bank `b`, register `r` at `b·128 + r`),
/// so the shared `reg(_:)` reads bank 0.
struct ICM20948Chip: SingleModelChip, InvenSenseFamilyChip {
    // Bank 0
    static let whoAmI: UInt8 = 0x00          // 0xEA
    static let userCtrl: UInt8 = 0x03        // DMP_EN[7] FIFO_EN[6] I2C_MST_EN[5] I2C_IF_DIS[4] DMP_RST[3] SRAM_RST[2] I2C_MST_RST[1]
    static let pwrMgmt1: UInt8 = 0x06        // DEVICE_RESET[7] SLEEP[6] LP_EN[5] TEMP_DIS[3] CLKSEL[2:0]; 0x41 at power-on
    static let pwrMgmt2: UInt8 = 0x07        // DISABLE_ACCEL[5:3] DISABLE_GYRO[2:0]
    static let intPinCfg: UInt8 = 0x0F       // INT_ANYRD_2CLEAR[4] BYPASS_EN[1]
    static let intStatus1: UInt8 = 0x1A      // RAW_DATA_0_RDY_INT[0]
    static let intStatus2: UInt8 = 0x1C      // FIFO_OVERFLOW_INT[4:0]
    static let accelXoutH: UInt8 = 0x2D      // ACCEL 0x2D–0x32, GYRO 0x33–0x38, TEMP 0x39–0x3A
    static let tempOutL: UInt8 = 0x3A
    static let extSlvSensDataLast: UInt8 = 0x52
    static let fifoEn2: UInt8 = 0x67         // ACCEL_FIFO_EN[4] GYRO_Z[3] GYRO_Y[2] GYRO_X[1] TEMP[0]
    static let fifoRst: UInt8 = 0x68         // FIFO_RESET[4:0]: held in reset while set
    static let fifoMode: UInt8 = 0x69        // FIFO_MODE[0]: 0 stream (replace oldest), 1 snapshot (keep)
    static let fifoCountH: UInt8 = 0x70      // FIFO_CNT[12:8]
    static let fifoCountL: UInt8 = 0x71
    static let fifoRW: UInt8 = 0x72
    static let bankSel: UInt8 = 0x7F         // USER_BANK[5:4]
    // Bank 1
    static let selfTestGyro: UInt8 = 0x02    // SELF_TEST_X/Y/Z_GYRO 0x02–0x04
    static let selfTestAccel: UInt8 = 0x0E   // SELF_TEST_X/Y/Z_ACCEL 0x0E–0x10
    // Bank 2
    static let gyroSmplrtDiv: UInt8 = 0x00   // 1.1 kHz / (1 + div)
    static let gyroConfig1: UInt8 = 0x01     // GYRO_DLPFCFG[5:3] GYRO_FS_SEL[2:1] GYRO_FCHOICE[0]
    static let gyroConfig2: UInt8 = 0x02     // XGYRO_CTEN[5] YGYRO_CTEN[4] ZGYRO_CTEN[3]
    static let accelConfig: UInt8 = 0x14     // ACCEL_DLPFCFG[5:3] ACCEL_FS_SEL[2:1] ACCEL_FCHOICE[0]
    static let accelConfig2: UInt8 = 0x15    // AX_ST_EN_REG[4] AY_ST_EN_REG[3] AZ_ST_EN_REG[2]

    /// GYRO_FS_SEL → LSB/(°/s) for ±250/500/1000/2000 °/s.
    static let gyroSensitivity: [Double] = [131, 65.5, 32.8, 16.4]
    /// The factory self-test code of every axis of this emulated part, and its response
    /// relative to the factory value (inside the 0.5–1.5 pass window).
    static let factoryCode: UInt8 = 100
    static let selfTestResponseRatio = 1.03

    var core: ChipCore
    var fifo: [UInt8] = []
    var lastFIFOByte: UInt8 = 0
    /// FIFO size in bytes. DS-000189 gives FIFO_CNT 13 bits wide; the emulated part holds 512
    /// bytes, the MPU-9250's size (an assumption of this emulator, not a datasheet figure).
    let fifoCapacity = 512
    /// ST_OTP = 2620·1.01^(code−1) LSB at ±250 °/s and ±2 g, as on the MPU-6500/9250.
    static let selfTestOTP = 2620 * pow(1.01, Double(factoryCode) - 1)
    /// Self-test deflection with an axis's self-test bit set: accelerometer in g, gyroscope in °/s.
    static let accelSelfTest = SIMD3(repeating: selfTestOTP / 16384 * selfTestResponseRatio)
    static let gyroSelfTest = SIMD3(repeating: selfTestOTP / 131 * selfTestResponseRatio)

    init(core: ChipCore) { self.core = core }

    /// The selected user bank, 0…3.
    var bank: Int { Int((reg(Self.bankSel) >> 4) & 0b11) }

    func value(bank: Int, _ register: UInt8) -> UInt8 { registers[bank * 128 + Int(register & 0x7F)] }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 4 * 128, presets: [
            Self.whoAmI: 0xEA,
            Self.pwrMgmt1: 0x41,  // asleep, auto clock
        ])
        for axis in 0..<3 {
            registers[128 + Int(Self.selfTestGyro) + axis] = Self.factoryCode
            registers[128 + Int(Self.selfTestAccel) + axis] = Self.factoryCode
        }
        registers[256 + Int(Self.gyroConfig1)] = 0x01  // GYRO_FCHOICE: DLPF in the path
        registers[256 + Int(Self.accelConfig)] = 0x01  // ACCEL_FCHOICE
        fifo.removeAll()
        lastFIFOByte = 0
    }

    /// Sensors sample while the chip is awake.
    var isRunning: Bool { reg(Self.pwrMgmt1) & 0x40 == 0 }

    /// The gyroscope output rate: 1.1 kHz / (1 + GYRO_SMPLRT_DIV) through the DLPF, 9 kHz without.
    var sampleRate: Double {
        guard value(bank: 2, Self.gyroConfig1) & 0x01 != 0 else { return 9_000 }
        return 1_100 / (1 + Double(value(bank: 2, Self.gyroSmplrtDiv)))
    }

    /// g per LSB: 16384 LSB/g at ±2 g, halving per ACCEL_FS_SEL step.
    var accelGPerLSB: Double { Double(1 << ((value(bank: 2, Self.accelConfig) >> 1) & 0b11)) / 16384 }
    var gyroDPSPerLSB: Double { 1 / Self.gyroSensitivity[Int((value(bank: 2, Self.gyroConfig1) >> 1) & 0b11)] }

    /// The bypass switch joins the auxiliary bus (the AK09916) to the host bus: BYPASS_EN set and
    /// the I2C master off.
    var bypassEnabled: Bool { reg(Self.intPinCfg) & 0b10 != 0 && reg(Self.userCtrl) & 0x20 == 0 }

    private func selfTestMask(_ register: UInt8, firstBit: UInt8) -> SIMD3<Double> {
        let bits = value(bank: 2, register)
        return SIMD3(perAxis: { bits & (firstBit >> UInt8($0)) != 0 ? 1.0 : 0 })
    }

    func accelCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        accelCounts(of: state, selfTest: selfTestMask(Self.accelConfig2, firstBit: 0x10) * Self.accelSelfTest, gPerLSB: accelGPerLSB)
    }

    func gyroCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        gyroCounts(of: state, selfTest: selfTestMask(Self.gyroConfig2, firstBit: 0x20) * Self.gyroSelfTest, dpsPerLSB: gyroDPSPerLSB)
    }

    /// °C = LSB / 333.87 + 21 (room-temperature offset 0 LSB).
    func temperatureCounts(_ state: PhysicalState) -> Int16 { Encoding.int16((state.temperature - 21) * 333.87) }

    /// FIFO_EN_2's GYRO_X, Y, Z and TEMP_FIFO_EN bits and where each sits in ``sensorBlock(at:)``.
    static let fifoAxisBits: [(bit: UInt8, offset: Int)] = [(0x02, 6), (0x04, 8), (0x08, 10), (0x01, 12)]

    /// ACCEL_XOUT_H … TEMP_OUT_L (big-endian) at `time`: accelerometer, gyroscope, temperature.
    func sensorBlock(at time: Double) -> InlineBytes {
        let state = source.state(at: time)
        return Encoding.bigEndian(accelCounts(state)) + Encoding.bigEndian(gyroCounts(state)) + Encoding.bigEndian(temperatureCounts(state))
    }

    static let dataReadyFlag: (register: UInt8, bit: UInt8) = (intStatus1, 0x01)     // RAW_DATA_0_RDY_INT
    static let fifoOverflowFlag: (register: UInt8, bit: UInt8) = (intStatus2, 0x01)  // FIFO_OVERFLOW_INT
    var fifoSelection: UInt8 { reg(Self.fifoEn2) & 0x1F }
    var fifoCollects: Bool { reg(Self.userCtrl) & 0x40 != 0 && reg(Self.fifoRst) & 0x1F == 0 }

    /// Accelerometer (6 bytes), then gyroscope X, Y, Z and temperature (2 bytes each).
    static func frameSize(_ selection: UInt8) -> Int {
        (selection & 0x10 != 0 ? 6 : 0) + (selection & 0x0F).nonzeroBitCount * 2
    }

    /// PWR_MGMT_2 disables accelerometer and gyroscope axes; PWR_MGMT_1 TEMP_DIS the temperature.
    func isFrozen(word index: Int) -> Bool {
        let disabled = reg(Self.pwrMgmt2)
        return switch index {
        case 0...2: disabled & (0x20 >> index) != 0
        case 3...5: disabled & (0x04 >> (index - 3)) != 0
        default: reg(Self.pwrMgmt1) & 0x08 != 0
        }
    }

    /// One FIFO frame: the enabled sensors in register order (accelerometer, gyroscope X, Y, Z,
    /// temperature). Stream mode replaces the oldest data on overflow, snapshot mode drops the
    /// new; either sets FIFO_OVERFLOW_INT.
    mutating func appendFrame(_ block: InlineBytes, selection: UInt8) {
        var frame = InlineBytes()
        if selection & 0x10 != 0 { frame.append(contentsOf: block[0..<6]) }
        Self.appendWords(of: block, Self.fifoAxisBits, selection: selection, to: &frame)
        pushFIFOFrame(frame)
    }

    /// FIFO_MODE snapshot: a full FIFO takes no more data.
    var fifoKeepsOldDataOnOverflow: Bool { reg(Self.fifoMode) & 0x01 != 0 }

    /// Reads of FIFO_R_W (bank 0) return successive FIFO bytes without moving the pointer.
    func pointer(after register: UInt8) -> UInt8 {
        bank == 0 && register == Self.fifoRW ? register : (register + 1) & 0x7F
    }

    /// REG_BANK_SEL is one register seen from every bank; the rest is the selected bank's.
    func peek(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        if address == Self.bankSel { return reg(Self.bankSel) }
        guard bank == 0 else { return value(bank: bank, address) }
        return switch address {
        case Self.fifoCountH: UInt8((fifo.count >> 8) & 0x1F)
        case Self.fifoCountL: UInt8(fifo.count & 0xFF)
        case Self.fifoRW: fifo.first ?? lastFIFOByte
        default: reg(address)
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        guard bank == 0 else { return value }
        let address = register & 0x7F
        if address == Self.fifoRW, !fifo.isEmpty { lastFIFOByte = fifo.removeFirst() }  // an empty FIFO repeats the last byte
        let anyReadClears = reg(Self.intPinCfg) & 0x10 != 0  // INT_ANYRD_2CLEAR
        if address == Self.intStatus1 || anyReadClears { registers[Int(Self.intStatus1)] = 0 }
        if address == Self.intStatus2 || anyReadClears { registers[Int(Self.intStatus2)] = 0 }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        if address == Self.bankSel {
            registers[Int(Self.bankSel)] = value & 0x30  // one REG_BANK_SEL for all banks
            return
        }
        let bank = bank
        switch (bank, address) {
        case (0, Self.whoAmI), (0, Self.intStatus1), (0, Self.intStatus2), (0, Self.accelXoutH...Self.extSlvSensDataLast),
             (0, Self.fifoCountH), (0, Self.fifoCountL):
            return  // read-only
        case (0, Self.fifoRW):
            if fifo.count < fifoCapacity { fifo.append(value) }
            return
        case (0, Self.fifoRst):
            if value & 0x1F != 0 { fifo.removeAll() }  // FIFO_RESET: emptied, held while set
            registers[Int(address)] = value & 0x1F
        case (0, Self.pwrMgmt1) where value & 0x80 != 0:
            powerOnReset()  // DEVICE_RESET: all registers to their defaults, bank 0; the bit clears itself
            return
        case (0, Self.userCtrl):
            registers[Int(address)] = value & ~0x0E  // the reset bits clear themselves
        default:
            registers[bank * 128 + Int(address)] = value
        }
        clock.set(rate: isRunning ? sampleRate : nil, at: time)
    }
}

extension SimulatedBoard.IMU {
    /// the TDK InvenSense ICM-20948 (an AK09916 inside).
    public static let icm20948 = Self("icm20948")
}
