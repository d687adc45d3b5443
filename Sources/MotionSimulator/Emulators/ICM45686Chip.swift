import I2C

/// Register model of the TDK InvenSense ICM-45686 (accelerometer, gyroscope, temperature), from
/// its datasheet DS-000577: the register map (user bank 0 direct registers), the full scales
/// (sensitivities as InvenSense tabulates 32768 / full scale; DS-000577's own table was not
/// reachable when this was written) (accelerometer 1024…16384 LSB/g for ±32…±2 g; gyroscope 8.2…2097.2 LSB/(°/s)
/// for ±4000…±15.625 °/s), TEMP_DATA (°C = TEMP_DATA / 128 + 25).
struct ICM45686Chip: SingleModelChip, NamedChip {
    static let chipName = "ICM-45686"
    static let accelDataX: UInt8 = 0x00   // ACCEL_DATA_X1_UI … GYRO_DATA_Z0_UI 0x00–0x0B, little-endian
    static let tempData: UInt8 = 0x0C     // TEMP_DATA1_UI, TEMP_DATA0_UI 0x0C–0x0D
    static let pwrMgmt0: UInt8 = 0x10     // GYRO_MODE[3:2] ACCEL_MODE[1:0]: 00 off, 01 off, 10 low power, 11 low noise
    static let int1Status0: UInt8 = 0x19  // RESET_DONE[7] … DRDY[2] (cleared on read)
    static let accelConfig0: UInt8 = 0x1B // ACCEL_UI_FS_SEL[6:4] ACCEL_ODR[3:0]
    static let gyroConfig0: UInt8 = 0x1C  // GYRO_UI_FS_SEL[7:4] GYRO_ODR[3:0]
    static let whoAmI: UInt8 = 0x72       // 0xE9
    static let misc2: UInt8 = 0x7F        // SOFT_RST[1]: all registers to their reset values; clears itself

    static let identity: UInt8 = 0xE9
    /// ACCEL_UI_FS_SEL 0…4 → LSB/g (±32, 16, 8, 4, 2 g).
    static let accelSensitivity: [Double] = [1024, 2048, 4096, 8192, 16384]
    /// GYRO_UI_FS_SEL 0…8 → LSB/(°/s) (±4000 … ±15.625 °/s).
    static let gyroSensitivity: [Double] = [8.2, 16.4, 32.8, 65.5, 131, 262, 524.3, 1048.6, 2097.2]
    /// ACCEL_ODR / GYRO_ODR code → Hz (3 = 6.4 kHz … 15 = 1.5625 Hz, halving per code); codes
    /// 0–2 are reserved (treated as off here).
    static let rates: [UInt8: Double] = Dictionary(uniqueKeysWithValues: (3...15).map { (UInt8($0), 6400 / Double(1 << ($0 - 3))) })
    static let temperatureSensitivity = 128.0
    /// The data registers of a sensor that is off (−32768).
    static let invalid = Int16.min

    var core: ChipCore

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: [Self.whoAmI: Self.identity, Self.int1Status0: 0x80])  // RESET_DONE
        store(Self.outputBlock(accel: SIMD3(repeating: Self.invalid), gyro: SIMD3(repeating: Self.invalid), temperature: Self.invalid),
              at: Self.accelDataX)
    }

    var accelOn: Bool { reg(Self.pwrMgmt0) & 0b11 >= 0b10 && Self.rates[reg(Self.accelConfig0) & 0x0F] != nil }
    var gyroOn: Bool { reg(Self.pwrMgmt0) >> 2 & 0b11 >= 0b10 && Self.rates[reg(Self.gyroConfig0) & 0x0F] != nil }

    /// Both sensors sample at the faster of their rates (one clock for both).
    var sampleRate: Double? {
        let accel = accelOn ? Self.rates[reg(Self.accelConfig0) & 0x0F] : nil
        let gyro = gyroOn ? Self.rates[reg(Self.gyroConfig0) & 0x0F] : nil
        switch (accel, gyro) {
        case let (accel?, gyro?): return max(accel, gyro)
        case let (accel, gyro): return accel ?? gyro
        }
    }

    static func outputBlock(accel: SIMD3<Int16>, gyro: SIMD3<Int16>, temperature: Int16) -> InlineBytes {
        Encoding.littleEndian(accel) + Encoding.littleEndian(gyro) + Encoding.littleEndian(temperature)
    }

    mutating func advance(to time: Double) {
        let (due, _) = sampleClock(to: time, keepingLast: 0) { _, _ in }
        if due > 0 { registers[Int(Self.int1Status0)] |= 0x04 }  // DRDY
        guard sampleRate != nil else { return }
        let state = source.state(at: time)
        let accelRange = min(Int(reg(Self.accelConfig0) >> 4 & 0b111), Self.accelSensitivity.count - 1)
        let gyroRange = min(Int(reg(Self.gyroConfig0) >> 4), Self.gyroSensitivity.count - 1)
        let accel = accelOn ? accelCounts(of: state, gPerLSB: 1 / Self.accelSensitivity[accelRange]) : SIMD3(repeating: Self.invalid)
        let gyro = gyroOn ? gyroCounts(of: state, dpsPerLSB: 1 / Self.gyroSensitivity[gyroRange]) : SIMD3(repeating: Self.invalid)
        let temperature = Encoding.int16((state.temperature - 25) * Self.temperatureSensitivity)
        store(Self.outputBlock(accel: accel, gyro: gyro, temperature: temperature), at: Self.accelDataX)
    }

    func pointer(after register: UInt8) -> UInt8 { (register + 1) & 0x7F }

    func peek(_ register: UInt8) -> UInt8 { registers[Int(register & 0x7F)] }

    mutating func read(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        let value = peek(address)
        if address == Self.int1Status0 { registers[Int(address)] = 0 }  // cleared on read
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        switch address {
        case Self.whoAmI, Self.accelDataX...Self.tempData + 1, Self.int1Status0:
            return  // read-only
        case Self.misc2 where value & 0x02 != 0:
            powerOnReset()  // SOFT_RST: every register to its reset value, RESET_DONE set
        default:
            registers[Int(address)] = value
        }
        clock.set(rate: sampleRate, at: time)
    }
}

/// TDK InvenSense ICM-45686 emulator (WHO_AM_I 0x72 = 0xE9), at 0x68 (AP_AD0 low) or 0x69.
/// Sensors off at power-on (data registers −32768); with PWR_MGMT0's modes on, the output
/// registers (little-endian accelerometer, gyroscope, temperature) follow `source` at `now()` at
/// ACCEL_CONFIG0's / GYRO_CONFIG0's ranges; REG_MISC2 SOFT_RST resets. Not emulated: the FIFO,
/// the indirect (IREG) registers, self-test, low-power averaging (low-power mode samples as
/// low-noise), different accelerometer and gyroscope rates (DRDY comes at the faster one).
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
