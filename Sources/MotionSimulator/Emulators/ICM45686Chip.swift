import I2C

/// Register model of the TDK InvenSense ICM-45686 (accelerometer, gyroscope, temperature, FIFO),
/// from its register facts: the DS-000577 register map (user bank 0 direct registers) as the
/// Linux kernel's inv_icm45600.h names it, TDK's ICM-456xx register header for TMST_WOM_CONFIG,
/// the full scales (sensitivities as InvenSense tabulates 32768 / full scale; DS-000577's own
/// table was not reachable when this was written) (accelerometer 1024…16384 LSB/g for ±32…±2 g;
/// gyroscope 8.2…2097.2 LSB/(°/s) for ±4000…±15.625 °/s), TEMP_DATA (°C = TEMP_DATA / 128 + 25).
///
/// The FIFO: FIFO_CONFIG0 FIFO_MODE (bypass, stream: the oldest packet gives way, stop on full:
/// the newest is dropped), FIFO_CONFIG3 (IF_EN, ACCEL_EN, GYRO_EN), FIFO_CONFIG2 FIFO_FLUSH,
/// FIFO_COUNT in packets (little-endian), FIFO_DATA popping a byte per read. Packets (kernel
/// inv_icm45600_buffer.c's layouts): both sensors: 16 bytes (header, accel, gyro little-endian,
/// int8 temperature at 2 LSB/°C + 25, 16-bit timestamp); one sensor: 8 bytes (header, axes,
/// temperature). The timestamp counts the chip's clock since the reset in µs (TMST_WOM_CONFIG
/// TMST_RESOL 0) or 16 µs (1) while SMC_CONTROL_0 TMST_EN (indirect 0xA258, through IREG_ADDR
/// 0x7C/0x7D and IREG_DATA 0x7E, the address counting up per data byte) is set; the header says
/// so (bits 3:2 = 10) when FIFO_CONFIG4 TMST_FSYNC_EN is set too. INT1_STATUS0 FIFO_FULL (bit 0,
/// with INT1_CONFIG0 FIFO_FULL_EN) when a packet was lost. The FIFO holds 8 KiB (FIFO_DEPTH
/// 0x1F, kernel INV_ICM45600_FIFO_CONFIG0_FIFO_DEPTH_MAX); other depths are not modelled. After a
/// long unread stretch in stop-on-full mode the FIFO holds the right number of packets but the
/// newest ones, not the oldest (the sample clock hands out only the last FIFO's worth).
struct ICM45686Chip: SingleModelChip, NamedChip {
    static let chipName = "ICM-45686"
    static let accelDataX: UInt8 = 0x00   // ACCEL_DATA_X1_UI … GYRO_DATA_Z0_UI 0x00–0x0B, little-endian
    static let tempData: UInt8 = 0x0C     // TEMP_DATA1_UI, TEMP_DATA0_UI 0x0C–0x0D
    static let pwrMgmt0: UInt8 = 0x10     // GYRO_MODE[3:2] ACCEL_MODE[1:0]: 00 off, 01 off, 10 low power, 11 low noise
    static let fifoCount: UInt8 = 0x12    // FIFO_COUNT_0/1: packets, little-endian
    static let fifoData: UInt8 = 0x14
    static let int1Config0: UInt8 = 0x16  // FIFO_FULL_EN[0]
    static let int1Status0: UInt8 = 0x19  // RESET_DONE[7] … DRDY[2] FIFO_THS[1] FIFO_FULL[0] (cleared on read)
    static let accelConfig0: UInt8 = 0x1B // ACCEL_UI_FS_SEL[6:4] ACCEL_ODR[3:0]
    static let gyroConfig0: UInt8 = 0x1C  // GYRO_UI_FS_SEL[7:4] GYRO_ODR[3:0]
    static let fifoConfig0: UInt8 = 0x1D  // FIFO_MODE[7:6]: 00 bypass, 01 stream, 10 stop on full; FIFO_DEPTH[5:0]
    static let fifoConfig2: UInt8 = 0x20  // FIFO_FLUSH[7]
    static let fifoConfig3: UInt8 = 0x21  // GYRO_EN[2] ACCEL_EN[1] IF_EN[0]
    static let fifoConfig4: UInt8 = 0x22  // TMST_FSYNC_EN[1]
    static let tmstWomConfig: UInt8 = 0x23 // TMST_RESOL[5]: 0 = 1 µs, 1 = 16 µs
    static let whoAmI: UInt8 = 0x72       // 0xE9
    static let iregAddress: UInt8 = 0x7C  // IREG_ADDR_15_8, IREG_ADDR_7_0 (0x7D)
    static let iregData: UInt8 = 0x7E
    static let misc2: UInt8 = 0x7F        // SOFT_RST[1]: all registers to their reset values; clears itself
    /// SMC_CONTROL_0 in the indirect space: TMST_EN[0].
    static let smcControl0: UInt16 = 0xA258

    static let identity: UInt8 = 0xE9
    /// ACCEL_UI_FS_SEL 0…4 → LSB/g (±32, 16, 8, 4, 2 g).
    static let accelSensitivity: [Double] = [1024, 2048, 4096, 8192, 16384]
    /// GYRO_UI_FS_SEL 0…8 → LSB/(°/s) (±4000 … ±15.625 °/s).
    static let gyroSensitivity: [Double] = [8.2, 16.4, 32.8, 65.5, 131, 262, 524.3, 1048.6, 2097.2]
    /// ACCEL_ODR / GYRO_ODR code → Hz (3 = 6.4 kHz … 15 = 1.5625 Hz, halving per code); codes
    /// 0–2 are reserved (treated as off here).
    static let rates: [UInt8: Double] = Dictionary(uniqueKeysWithValues: (3...15).map { (code: Int) -> (UInt8, Double) in
        (UInt8(code), 6400 / Double(1 << (code - 3)))
    })
    static let temperatureSensitivity = 128.0
    /// FIFO temperature, int8: 2 LSB/°C (the kernel scales it by 64 to TEMP_DATA's 128).
    static let fifoTemperatureSensitivity = 2.0
    /// 8 KiB at FIFO_DEPTH 0x1F.
    static let fifoCapacity = 8192
    /// The data registers of a sensor that is off (−32768).
    static let invalid = Int16.min

    var core: ChipCore
    var fifo: [UInt8] = []
    /// The indirect registers written (unwritten ones read 0) and the window's address.
    var indirect: [UInt16: UInt8] = [:]
    var indirectAddress: UInt16 = 0
    /// The ODR codes of the last packet written to the FIFO since power-on (header ODR flags).
    var lastPacketRates: (accel: UInt8, gyro: UInt8)?
    /// Simulation time of the reset: the timestamp counter starts there.
    var powerOnTime = 0.0

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: [Self.whoAmI: Self.identity, Self.int1Status0: 0x80])  // RESET_DONE
        store(Self.outputBlock(accel: SIMD3(repeating: Self.invalid), gyro: SIMD3(repeating: Self.invalid), temperature: Self.invalid),
              at: Self.accelDataX)
        fifo.removeAll()
        indirect.removeAll()
        indirectAddress = 0
        lastPacketRates = nil
    }

    var accelRateCode: UInt8 { reg(Self.accelConfig0) & 0x0F }
    var gyroRateCode: UInt8 { reg(Self.gyroConfig0) & 0x0F }
    var accelOn: Bool { reg(Self.pwrMgmt0) & 0b11 >= 0b10 && Self.rates[accelRateCode] != nil }
    var gyroOn: Bool { reg(Self.pwrMgmt0) >> 2 & 0b11 >= 0b10 && Self.rates[gyroRateCode] != nil }
    var fifoMode: UInt8 { reg(Self.fifoConfig0) >> 6 }
    /// The FIFO takes packets: not bypassed, writing on, a sensor in it.
    var fifoOn: Bool { fifoMode != 0 && reg(Self.fifoConfig3) & 0x01 != 0 && reg(Self.fifoConfig3) & 0b110 != 0 }

    /// Both sensors sample at the faster of their rates (one clock for both).
    var sampleRate: Double? {
        let accel = accelOn ? Self.rates[accelRateCode] : nil
        let gyro = gyroOn ? Self.rates[gyroRateCode] : nil
        switch (accel, gyro) {
        case let (accel?, gyro?): return max(accel, gyro)
        case let (accel, gyro): return accel ?? gyro
        }
    }

    static func outputBlock(accel: SIMD3<Int16>, gyro: SIMD3<Int16>, temperature: Int16) -> InlineBytes {
        Encoding.littleEndian(accel) + Encoding.littleEndian(gyro) + Encoding.littleEndian(temperature)
    }

    func accelCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        guard accelOn else { return SIMD3(repeating: Self.invalid) }
        let range = min(Int(reg(Self.accelConfig0) >> 4 & 0b111), Self.accelSensitivity.count - 1)
        return accelCounts(of: state, gPerLSB: 1 / Self.accelSensitivity[range])
    }

    func gyroCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        guard gyroOn else { return SIMD3(repeating: Self.invalid) }
        let range = min(Int(reg(Self.gyroConfig0) >> 4), Self.gyroSensitivity.count - 1)
        return gyroCounts(of: state, dpsPerLSB: 1 / Self.gyroSensitivity[range])
    }

    mutating func advance(to time: Double) {
        let (due, kept) = sampleClock(to: time, keepingLast: fifoOn ? Self.fifoCapacity / 16 + 1 : 0) { chip, tick in
            chip.appendPacket(chip.source.state(at: tick), at: tick)
        }
        if due > 0 { registers[Int(Self.int1Status0)] |= 0x04 }  // DRDY
        if due > kept, fifoOn { flagFull() }  // packets lost
        guard sampleRate != nil else { return }
        let state = source.state(at: time)
        let temperature = Encoding.int16((state.temperature - 25) * Self.temperatureSensitivity)
        store(Self.outputBlock(accel: accelCounts(state), gyro: gyroCounts(state), temperature: temperature), at: Self.accelDataX)
    }

    /// INT1_STATUS0 FIFO_FULL, where INT1_CONFIG0 FIFO_FULL_EN lets it be reported.
    private mutating func flagFull() {
        if reg(Self.int1Config0) & 0x01 != 0 { registers[Int(Self.int1Status0)] |= 0x01 }
    }

    /// The timestamp counter at `time`: µs or 16 µs of the chip's clock since the reset, 16 bit;
    /// nil while SMC_CONTROL_0 TMST_EN is clear.
    func timestamp(at time: Double) -> UInt16? {
        guard indirect[Self.smcControl0, default: 0] & 0x01 != 0 else { return nil }
        let lsb = reg(Self.tmstWomConfig) & 0x20 != 0 ? 16e-6 : 1e-6
        let ticks = ((time - powerOnTime) * (1 + options.clockDriftPPM * 1e-6) / lsb).rounded(.down)
        return UInt16(truncatingIfNeeded: Int64(max(0, min(ticks, 1e15))))
    }

    /// One FIFO packet: 16 bytes with both sensors, 8 with one.
    private mutating func appendPacket(_ state: PhysicalState, at time: Double) {
        guard fifoOn else { return }
        let enabled = reg(Self.fifoConfig3)
        let withAccel = enabled & 0x02 != 0, withGyro = enabled & 0x04 != 0
        var header: UInt8 = (withAccel ? 0x40 : 0) | (withGyro ? 0x20 : 0)
        if let last = lastPacketRates {
            if withAccel, last.accel != accelRateCode { header |= 0x02 }  // HEADER_ODR_ACCEL
            if withGyro, last.gyro != gyroRateCode { header |= 0x01 }     // HEADER_ODR_GYRO
        }
        lastPacketRates = (accelRateCode, gyroRateCode)
        let temperature = Int8(max(-128, min(127, ((state.temperature - 25) * Self.fifoTemperatureSensitivity).rounded())))
        var packet = InlineBytes()
        if withAccel && withGyro {
            let stamp = reg(Self.fifoConfig4) & 0x02 != 0 ? timestamp(at: time) : nil
            if stamp != nil { header |= 0x08 }  // HEADER_TMST_FSYNC = 10: the ODR timestamp
            packet.append(header)
            packet += Encoding.littleEndian(accelCounts(state)) + Encoding.littleEndian(gyroCounts(state))
            packet.append(UInt8(bitPattern: temperature))
            packet += Encoding.littleEndian(Int16(bitPattern: stamp ?? 0))
        } else {
            packet.append(header)
            packet += Encoding.littleEndian(withAccel ? accelCounts(state) : gyroCounts(state))
            packet.append(UInt8(bitPattern: temperature))
        }
        if fifo.count + packet.count > Self.fifoCapacity {
            flagFull()
            if fifoMode != 0b01 { return }  // stop on full: the new packet is dropped
            fifo.removeFirst(min(fifo.count, packet.count))  // stream: the oldest packet goes
        }
        fifo += packet
    }

    /// Packets in the FIFO: the 16-byte size when both sensors go in, 8 otherwise.
    var fifoPackets: Int { fifo.count / (reg(Self.fifoConfig3) & 0b110 == 0b110 ? 16 : 8) }

    func pointer(after register: UInt8) -> UInt8 {
        // FIFO_DATA and IREG_DATA return (take) successive bytes without moving the pointer.
        register == Self.fifoData || register == Self.iregData ? register : (register + 1) & 0x7F
    }

    func peek(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        switch address {
        case Self.fifoCount: return UInt8(fifoPackets & 0xFF)
        case Self.fifoCount + 1: return UInt8(fifoPackets >> 8 & 0xFF)
        case Self.fifoData: return fifo.first ?? 0xFF  // empty: 0xFF, whose header bit 7 ends a read
        case Self.iregData: return indirect[indirectAddress, default: 0]
        default: return registers[Int(address)]
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        let value = peek(address)
        switch address {
        case Self.int1Status0: registers[Int(address)] = 0  // cleared on read
        case Self.fifoData where !fifo.isEmpty: fifo.removeFirst()
        case Self.iregData: indirectAddress &+= 1
        default: break
        }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        switch address {
        case Self.whoAmI, Self.accelDataX...Self.tempData + 1, Self.fifoCount, Self.fifoCount + 1, Self.fifoData, Self.int1Status0:
            return  // read-only
        case Self.misc2 where value & 0x02 != 0:
            powerOnReset()  // SOFT_RST: every register to its reset value, RESET_DONE set
            powerOnTime = time
        case Self.fifoConfig2:
            if value & 0x80 != 0 { fifo.removeAll() }  // FIFO_FLUSH clears itself
            registers[Int(address)] = value & 0x7F
        case Self.iregAddress:
            indirectAddress = UInt16(value) << 8 | indirectAddress & 0xFF
        case Self.iregAddress + 1:
            indirectAddress = indirectAddress & 0xFF00 | UInt16(value)
        case Self.iregData:
            indirect[indirectAddress] = value
            indirectAddress &+= 1
        default:
            registers[Int(address)] = value
        }
        clock.set(rate: sampleRate, at: time)
    }
}

/// TDK InvenSense ICM-45686 emulator (WHO_AM_I 0x72 = 0xE9), at 0x68 (AP_AD0 low) or 0x69.
/// Sensors off at power-on (data registers −32768); with PWR_MGMT0's modes on, the output
/// registers (little-endian accelerometer, gyroscope, temperature) follow `source` at `now()` at
/// ACCEL_CONFIG0's / GYRO_CONFIG0's ranges; the FIFO with chip timestamps (``ICM45686Chip``);
/// REG_MISC2 SOFT_RST resets. Not emulated: self-test, the high-resolution and compressed FIFO
/// formats, the FIFO watermark (FIFO_THS), low-power averaging (low-power mode samples as
/// low-noise), different accelerometer and gyroscope rates (both sample at the faster one).
package final class ICM45686Emulator: ModelEmulator {
    let engine: EmulatorEngine<ICM45686Chip>
    init(engine: EmulatorEngine<ICM45686Chip>) { self.engine = engine }
}

extension ICM45686Emulator: SPIEmulator {
    /// DS-000577 "SPI interface": the first byte's MSB is the read bit, the 7-bit address below
    /// it, no dummy byte.
    package static var spiFraming: SPIFraming { SPIFraming(readBit: 0x80) }
}

extension SimulatedBoard.IMU {
    /// The TDK InvenSense ICM-45686.
    public static let icm45686 = Self("icm45686")
}
