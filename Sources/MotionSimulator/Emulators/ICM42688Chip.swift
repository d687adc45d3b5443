import Foundation

/// Register model of the TDK InvenSense ICM-42688-P (accelerometer, gyroscope, temperature,
/// FIFO, self-test). Registers, bits and packet layout from the datasheet DS-000347: §14 user
/// bank 0 register map, §6 FIFO (packet structure), Table 1/Table 2 sensitivities. Only bank 0
/// is modelled; the other banks are plain storage behind REG_BANK_SEL.
struct ICM42688Chip: SingleModelChip, NamedChip {
    static let chipName = "ICM-42688-P"
    static let deviceConfig: UInt8 = 0x11    // SOFT_RESET_CONFIG[0]
    static let fifoConfig: UInt8 = 0x16      // FIFO_MODE[7:6]: 00 bypass, 01 stream, 1x stop on full
    static let tempData1: UInt8 = 0x1D       // TEMP_DATA1/0, ACCEL_DATA_X1…Z0 0x1F–0x24, GYRO_DATA_X1…Z0 0x25–0x2A
    static let accelDataX1: UInt8 = 0x1F
    static let gyroDataX1: UInt8 = 0x25
    static let tmstFsyncH: UInt8 = 0x2B      // TMST_FSYNCH/L 0x2B–0x2C
    static let intStatus: UInt8 = 0x2D       // UI_FSYNC_INT[6] PLL_RDY_INT[5] RESET_DONE_INT[4] DATA_RDY_INT[3] FIFO_THS_INT[2] FIFO_FULL_INT[1]
    static let fifoCountH: UInt8 = 0x2E      // FIFO_COUNTH/L: bytes, big-endian (INTF_CONFIG0 reset 0x30)
    static let fifoCountL: UInt8 = 0x2F
    static let fifoData: UInt8 = 0x30
    static let signalPathReset: UInt8 = 0x4B // FIFO_FLUSH[1]
    static let intfConfig0: UInt8 = 0x4C
    static let pwrMgmt0: UInt8 = 0x4E        // TEMP_DIS[5] IDLE[4] GYRO_MODE[3:2] ACCEL_MODE[1:0]
    static let gyroConfig0: UInt8 = 0x4F     // GYRO_FS_SEL[7:5] GYRO_ODR[3:0]
    static let accelConfig0: UInt8 = 0x50    // ACCEL_FS_SEL[7:5] ACCEL_ODR[3:0]
    static let tmstConfig: UInt8 = 0x54      // TMST_RES[3] (0: 1 µs) TMST_EN[0]
    static let fifoConfig1: UInt8 = 0x5F     // TEMP_EN[2] GYRO_EN[1] ACCEL_EN[0]
    static let selfTestConfig: UInt8 = 0x70
    static let whoAmI: UInt8 = 0x75
    static let regBankSel: UInt8 = 0x76

    /// WHO_AM_I value of the ICM-42688-P.
    static let identity: UInt8 = 0x47
    /// FIFO size in bytes (§6).
    static let fifoCapacity = 2048
    /// ACCEL_FS_SEL 0…3 → LSB/g (Table 2: ±16, 8, 4, 2 g).
    static let accelSensitivity: [Double] = [2048, 4096, 8192, 16384]
    /// GYRO_FS_SEL 0…7 → LSB/(°/s) (Table 1: ±2000 … ±15.625 °/s).
    static let gyroSensitivity: [Double] = [16.4, 32.8, 65.5, 131, 262, 524.3, 1048.6, 2097.2]
    /// GYRO_ODR / ACCEL_ODR code → Hz (§14 GYRO_CONFIG0, ACCEL_CONFIG0); codes 0 and 12…14
    /// (low-power-only rates) are treated as off here.
    static let rates: [UInt8: Double] = [
        1: 32_000, 2: 16_000, 3: 8_000, 4: 4_000, 5: 2_000, 6: 1_000, 7: 200, 8: 100, 9: 50, 10: 25, 11: 12.5, 15: 500,
    ]
    /// Temperature: °C = TEMP_DATA / 132.48 + 25 (§14 TEMP_DATA1); FIFO: FIFO_TEMP_DATA / 2.07 + 25 (§6).
    static let temperatureSensitivity = 132.48, fifoTemperatureSensitivity = 2.07
    /// Data registers and FIFO axes of a sensor that produces no data.
    static let invalid = Int16.min
    /// XG/YG/ZG_ST_DATA (bank 1, 0x5F–0x61) and XA/YA/ZA_ST_DATA (bank 2, 0x3B–0x3D).
    static let gyroSelfTestData: (bank: Int, register: Int) = (1, 0x5F)
    static let accelSelfTestData: (bank: Int, register: Int) = (2, 0x3B)
    /// The factory self-test code this emulated part carries on every axis.
    static let factoryCode: UInt8 = 100
    /// The emulated part's self-test response relative to its factory value (inside 0.5…1.5).
    static let selfTestResponseRatio = 1.03
    /// Self-test deflection with EN_Gx (°/s) and EN_Ax (g): factory value
    /// (2620 / 2^(3 − FS_SEL)) · 1.01^(code − 1) counts, taken at ±250 °/s (131 LSB/(°/s),
    /// FS_SEL 3) and ±4 g (8192 LSB/g, FS_SEL 2), times the response ratio.
    static let gyroSelfTest = 2620 * pow(1.01, Double(factoryCode) - 1) / 131 * selfTestResponseRatio
    static let accelSelfTest = 1310 * pow(1.01, Double(factoryCode) - 1) / 8192 * selfTestResponseRatio

    var core: ChipCore
    /// Banks 1–4 (REG_BANK_SEL 1…4): stored, not interpreted.
    var otherBanks = [[UInt8]](repeating: [UInt8](repeating: 0, count: 128), count: 4)
    var fifo: [UInt8] = []
    /// The ODR codes of the last packet written to the FIFO since power-on (header ODR flags).
    var lastPacketRates: (accel: UInt8, gyro: UInt8)?
    /// Simulation time of the power-on reset: the timestamp counter starts there.
    var powerOnTime = 0.0

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: [
            Self.whoAmI: Self.identity,
            Self.gyroConfig0: 0x06,   // ±2000 °/s, 1 kHz
            Self.accelConfig0: 0x06,  // ±16 g, 1 kHz
            Self.intfConfig0: 0x30,   // FIFO count and sensor data big-endian
            Self.tmstConfig: 0x23,
            Self.intStatus: 0x10,     // RESET_DONE_INT
        ])
        otherBanks = [[UInt8]](repeating: [UInt8](repeating: 0, count: 128), count: 4)
        for axis in 0..<3 {
            otherBanks[Self.gyroSelfTestData.bank - 1][Self.gyroSelfTestData.register + axis] = Self.factoryCode
            otherBanks[Self.accelSelfTestData.bank - 1][Self.accelSelfTestData.register + axis] = Self.factoryCode
        }
        store(Self.outputBlock(temperature: Self.invalid, accel: SIMD3(repeating: Self.invalid), gyro: SIMD3(repeating: Self.invalid)),
              at: Self.tempData1)
        fifo.removeAll()
        lastPacketRates = nil
    }

    var bank: Int { Int(reg(Self.regBankSel) & 0b111) }
    var gyroOn: Bool { reg(Self.pwrMgmt0) >> 2 & 0b11 == 0b11 && Self.rates[gyroRateCode] != nil }
    var accelOn: Bool { reg(Self.pwrMgmt0) & 0b11 != 0 && Self.rates[accelRateCode] != nil }
    var gyroRateCode: UInt8 { reg(Self.gyroConfig0) & 0x0F }
    var accelRateCode: UInt8 { reg(Self.accelConfig0) & 0x0F }

    /// Sensors sample at the faster of the rates of the sensors on (one clock for both).
    var sampleRate: Double? {
        let gyro = gyroOn ? Self.rates[gyroRateCode] : nil
        let accel = accelOn ? Self.rates[accelRateCode] : nil
        switch (gyro, accel) {
        case let (gyro?, accel?): return max(gyro, accel)
        case let (gyro, accel): return gyro ?? accel
        }
    }

    func accelCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        guard accelOn else { return SIMD3(repeating: Self.invalid) }
        return accelCounts(
            of: state, selfTest: selfTestMask(shift: 3) * Self.accelSelfTest,
            gPerLSB: 1 / Self.accelSensitivity[Int(reg(Self.accelConfig0) >> 5 & 0b11)])
    }

    func gyroCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        guard gyroOn else { return SIMD3(repeating: Self.invalid) }
        return gyroCounts(
            of: state, selfTest: selfTestMask(shift: 0) * Self.gyroSelfTest,
            dpsPerLSB: 1 / Self.gyroSensitivity[Int(reg(Self.gyroConfig0) >> 5)])
    }

    /// SELF_TEST_CONFIG EN_GX/GY/GZ (bits 2:0, `shift` 0) or EN_AX/AY/AZ (bits 5:3, `shift` 3) as 0/1.
    private func selfTestMask(shift: UInt8) -> SIMD3<Double> {
        let bits = reg(Self.selfTestConfig) >> shift
        return SIMD3(bits & 1 != 0 ? 1 : 0, bits & 2 != 0 ? 1 : 0, bits & 4 != 0 ? 1 : 0)
    }

    var temperatureOn: Bool { (accelOn || gyroOn) && reg(Self.pwrMgmt0) & 0x20 == 0 }

    static func outputBlock(temperature: Int16, accel: SIMD3<Int16>, gyro: SIMD3<Int16>) -> InlineBytes {
        Encoding.bigEndian(temperature) + Encoding.bigEndian(accel) + Encoding.bigEndian(gyro)
    }

    mutating func advance(to time: Double) {
        let fifoOn = reg(Self.fifoConfig) >> 6 != 0 && reg(Self.fifoConfig1) & 0b11 != 0
        let (due, kept) = sampleClock(to: time, keepingLast: fifoOn ? Self.fifoCapacity / 8 + 1 : 0) { chip, tick in
            chip.appendPacket(chip.source.state(at: tick), at: tick)
        }
        if due > 0 { registers[Int(Self.intStatus)] |= 0x08 }  // DATA_RDY_INT
        if due > kept, fifoOn { registers[Int(Self.intStatus)] |= 0x02 }  // packets lost: FIFO_FULL_INT
        guard sampleRate != nil else { return }
        let state = source.state(at: time)
        let temperature = temperatureOn ? Encoding.int16((state.temperature - 25) * Self.temperatureSensitivity) : Self.invalid
        store(Self.outputBlock(temperature: temperature, accel: accelCounts(state), gyro: gyroCounts(state)), at: Self.tempData1)
    }

    /// One FIFO packet (§6): packet 1 (accel, 8 bytes), 2 (gyro, 8 bytes) or 3 (both, 16 bytes:
    /// header, accel, gyro, 8-bit temperature, 16-bit ODR timestamp in µs of the chip's clock).
    private mutating func appendPacket(_ state: PhysicalState, at time: Double) {
        let mode = reg(Self.fifoConfig) >> 6
        let enabled = reg(Self.fifoConfig1)
        let withAccel = enabled & 0x01 != 0, withGyro = enabled & 0x02 != 0
        guard mode != 0, withAccel || withGyro else { return }
        var header: UInt8 = (withAccel ? 0x40 : 0) | (withGyro ? 0x20 : 0)
        if let last = lastPacketRates {
            if withAccel, last.accel != accelRateCode { header |= 0x02 }  // HEADER_ODR_ACCEL
            if withGyro, last.gyro != gyroRateCode { header |= 0x01 }     // HEADER_ODR_GYRO
        }
        lastPacketRates = (accelRateCode, gyroRateCode)
        let fifoTemperature = temperatureOn
            ? Int8(max(-128, min(127, ((state.temperature - 25) * Self.fifoTemperatureSensitivity).rounded()))) : Int8.min
        var packet = InlineBytes()
        if withAccel && withGyro {
            header |= 0x08  // HEADER_TIMESTAMP_FSYNC = 10: the packet carries the ODR timestamp
            packet.append(header)
            let microseconds = ((time - powerOnTime) * (1 + options.clockDriftPPM * 1e-6) * 1e6).rounded()
            let timestamp = UInt16(truncatingIfNeeded: Int64(max(0, min(microseconds, 1e15))))
            packet += Encoding.bigEndian(accelCounts(state)) + Encoding.bigEndian(gyroCounts(state))
            packet.append(UInt8(bitPattern: fifoTemperature))
            packet += Encoding.bigEndian(Int16(bitPattern: timestamp))
        } else {
            packet.append(header)
            packet += Encoding.bigEndian(withAccel ? accelCounts(state) : gyroCounts(state))
            packet.append(UInt8(bitPattern: fifoTemperature))
        }
        if fifo.count + packet.count > Self.fifoCapacity {
            registers[Int(Self.intStatus)] |= 0x02  // FIFO_FULL_INT
            if mode != 0b01 { return }              // stop on full: new packets are dropped
            fifo.removeFirst(min(fifo.count, packet.count))  // stream: the oldest packet goes
        }
        fifo += packet
    }

    func pointer(after register: UInt8) -> UInt8 {
        // FIFO_DATA reads return successive FIFO bytes without moving the pointer.
        bank == 0 && register == Self.fifoData ? register : (register + 1) & 0x7F
    }

    func peek(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        if address == Self.regBankSel { return registers[Int(address)] }
        if bank != 0 { return bank <= 4 ? otherBanks[bank - 1][Int(address)] : 0 }
        switch address {
        case Self.fifoCountH: return UInt8(fifo.count >> 8)
        case Self.fifoCountL: return UInt8(fifo.count & 0xFF)
        case Self.fifoData: return fifo.first ?? 0xFF  // empty FIFO: 0xFF (header HEADER_MSG set)
        default: return registers[Int(address)]
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        let value = peek(address)
        guard bank == 0 else { return value }
        if address == Self.fifoData, !fifo.isEmpty { fifo.removeFirst() }
        if address == Self.intStatus { registers[Int(Self.intStatus)] = 0 }  // cleared on read
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        if address == Self.regBankSel {
            registers[Int(address)] = value & 0b111
            return
        }
        if bank != 0 {
            if bank <= 4 { otherBanks[bank - 1][Int(address)] = value }
            return
        }
        switch address {
        case Self.whoAmI, Self.tempData1...Self.fifoData:
            return  // read-only (FIFO_DATA writes are not emulated)
        case Self.deviceConfig where value & 0x01 != 0:
            powerOnReset()  // SOFT_RESET_CONFIG: all registers to their defaults; the bit clears itself
            powerOnTime = time
            return
        case Self.signalPathReset:
            if value & 0x02 != 0 { fifo.removeAll() }  // FIFO_FLUSH; the bits clear themselves
            return
        default:
            registers[Int(address)] = value
        }
        clock.set(rate: sampleRate, at: time)
    }
}

extension SimulatedBoard.IMU {
    /// the TDK InvenSense ICM-42688-P.
    public static let icm42688 = Self("icm42688")
}
