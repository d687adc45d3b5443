import Foundation

/// Register model of the Bosch BMI160 accelerometer and gyroscope, from its datasheet
/// BST-BMI160-DS000: register map §2.11, FIFO §2.5, self-test §2.8, sensitivities §1 Tables 1–2.
/// Constants written here from the datasheet, independently of the driver.
struct BMI160Chip: SingleModelChip, BoschChip {
    static let chipID: UInt8 = 0x00          // CHIP_ID, 0xD1
    static let errReg: UInt8 = 0x02          // ERR_REG
    static let pmuStatus: UInt8 = 0x03       // acc_pmu_status[5:4] gyr_pmu_status[3:2] mag_pmu_status[1:0]
    static let dataGyrXL: UInt8 = 0x0C       // DATA_8 … DATA_13: gyroscope x, y, z little-endian
    static let dataAccXL: UInt8 = 0x12       // DATA_14 … DATA_19: accelerometer x, y, z little-endian
    static let sensorTime0: UInt8 = 0x18     // SENSORTIME 0x18–0x1A, 24 bit, 39.0625 µs per LSB
    static let status: UInt8 = 0x1B          // drdy_acc[7] drdy_gyr[6] gyr_self_test_ok[1]
    static let temperature0: UInt8 = 0x20    // TEMPERATURE 0x20–0x21: 0 = 23 °C, 1/512 K per LSB, 0x8000 invalid
    static let fifoLength0: UInt8 = 0x22     // fifo_byte_counter[10:0] over 0x22–0x23
    static let fifoLength1: UInt8 = 0x23
    static let fifoData: UInt8 = 0x24        // FIFO_DATA: burst reads stay here
    static let accConf: UInt8 = 0x40         // acc_us[7] acc_bwp[6:4] acc_odr[3:0], reset 0x28
    static let accRange: UInt8 = 0x41        // reset 0x03
    static let gyrConf: UInt8 = 0x42         // gyr_bwp[5:4] gyr_odr[3:0], reset 0x28
    static let gyrRange: UInt8 = 0x43        // reset 0x00
    static let fifoDowns: UInt8 = 0x45       // reset 0x88
    static let fifoConfig0: UInt8 = 0x46     // watermark, reset 0x80
    static let fifoConfig1: UInt8 = 0x47     // gyr_en[7] acc_en[6] mag_en[5] header_en[4] tag_int1[3] tag_int2[2] time_en[1], reset 0x10
    static let selfTest: UInt8 = 0x6D        // gyr_self_test_enable[4] acc_self_test_amp[3] sign[2] enable[1:0]
    static let cmd: UInt8 = 0x7E

    /// The registers that are not 0 after power-on or a soft reset (§2.11 register map, "reset value").
    static let resetValues: KeyValuePairs<UInt8, UInt8> = [
        chipID: 0xD1, accConf: 0x28, accRange: 0x03, gyrConf: 0x28,
        fifoDowns: 0x88, fifoConfig0: 0x80, fifoConfig1: 0x10,
    ]

    /// ACC_RANGE code → LSB/g (§1 Table 1); other codes are reserved.
    static let accelSensitivity: [UInt8: Double] = [0x03: 16384, 0x05: 8192, 0x08: 4096, 0x0C: 2048]
    /// GYR_RANGE code 0…4 → LSB/(°/s) for ±2000, 1000, 500, 250, 125 °/s (§1 Table 2).
    static let gyroSensitivity: [Double] = [16.4, 32.8, 65.6, 131.2, 262.4]
    /// acc_odr / gyr_odr code → Hz: 100 / 2^(8 − code); accelerometer codes 1…12, gyroscope 6…13.
    static func rate(code: UInt8) -> Double { 100 * pow(2, Double(Int(code) - 8)) }
    static let accelRateCodes: ClosedRange<UInt8> = 1...12
    static let gyroRateCodes: ClosedRange<UInt8> = 6...13
    /// FIFO size in bytes (§2.5).
    static let fifoCapacity = 1024
    /// FIFO_CONFIG_1 bits (§2.11 FIFO_CONFIG): gyr_en, acc_en, header_en, time_en.
    static let fifoGyrEn: UInt8 = 0x80, fifoAccEn: UInt8 = 0x40, fifoHeaderEn: UInt8 = 0x10, fifoTimeEn: UInt8 = 0x02

    /// Self-test deflection of this emulated part per excitation sign, in g: with high amplitude
    /// the positive/negative difference is 2 × this, above the 2 g the datasheet procedure
    /// expects; low amplitude gives a third of it.
    static let accelSelfTestHigh = 1.6

    var core: ChipCore
    /// The FIFO (§2.5): frames, skip frame, sensortime frame as ``BoschFIFO`` models them.
    var fifo = BoschFIFO(capacity: fifoCapacity)

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: Self.resetValues)
        fifo.reset()
    }

    var headerMode: Bool { reg(Self.fifoConfig1) & Self.fifoHeaderEn != 0 }

    var accelNormal: Bool { (reg(Self.pmuStatus) >> 4) & 0b11 == 0b01 }
    var gyroNormal: Bool { (reg(Self.pmuStatus) >> 2) & 0b11 == 0b01 }

    var accelRate: Double? {
        let code = reg(Self.accConf) & 0x0F
        return accelNormal && Self.accelRateCodes.contains(code) ? Self.rate(code: code) : nil
    }

    var gyroRate: Double? {
        let code = reg(Self.gyrConf) & 0x0F
        return gyroNormal && Self.gyroRateCodes.contains(code) ? Self.rate(code: code) : nil
    }

    var accelLSBPerG: Double { Self.accelSensitivity[reg(Self.accRange) & 0x0F] ?? 16384 }
    var gyroLSBPerDPS: Double { Self.gyroSensitivity[min(Int(reg(Self.gyrRange) & 0x07), 4)] }

    /// The accelerometer self-test deflection in g, per axis, from SELF_TEST.
    var accelSelfTestDeflection: Double {
        let bits = reg(Self.selfTest)
        guard bits & 0b11 == 0b01 else { return 0 }
        let amplitude = bits & 0x08 != 0 ? Self.accelSelfTestHigh : Self.accelSelfTestHigh / 3
        return bits & 0x04 != 0 ? amplitude : -amplitude
    }

    func accelCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        accelCounts(of: state, selfTest: SIMD3(repeating: accelSelfTestDeflection), gPerLSB: 1 / accelLSBPerG)
    }

    func gyroCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        gyroCounts(of: state, dpsPerLSB: 1 / gyroLSBPerDPS)
    }

    mutating func advance(to time: Double) {
        let sensorTime = self.sensorTime(at: time)
        var sensorTimeBytes = InlineBytes(UInt8(sensorTime & 0xFF), UInt8((sensorTime >> 8) & 0xFF))
        sensorTimeBytes.append(UInt8(sensorTime >> 16))
        store(sensorTimeBytes, at: Self.sensorTime0)
        guard sampleRate != nil else {
            store([0x00, 0x80], at: Self.temperature0)  // 0x8000: no valid temperature while every sensor is suspended
            return
        }
        let frameSize = fifoFrameSize
        let (due, kept) = sampleClock(to: time, keepingLast: frameSize > 0 ? Self.fifoCapacity / frameSize + 1 : 0) { chip, tick in
            chip.appendFrame(chip.source.state(at: tick), at: tick)
        }
        // Samples due that a full FIFO could never have held: dropped before the ones kept.
        if frameSize > 0, due > kept, headerMode { fifo.countSkipped(due - kept) }
        if due > 0 {
            if accelNormal { registers[Int(Self.status)] |= 0x80 }
            if gyroNormal { registers[Int(Self.status)] |= 0x40 }
        }
        // Output registers follow the input while a sensor runs; a suspended sensor keeps its last value.
        let state = source.state(at: time)
        if gyroNormal { store(Encoding.littleEndian(gyroCounts(state)), at: Self.dataGyrXL) }
        if accelNormal { store(Encoding.littleEndian(accelCounts(state)), at: Self.dataAccXL) }
        store(Encoding.littleEndian(Encoding.int16((state.temperature - 23) * 512)), at: Self.temperature0)
    }

    /// Bytes of one FIFO frame: a header byte in header mode, then gyroscope, accelerometer (§2.5).
    var fifoFrameSize: Int {
        let config = reg(Self.fifoConfig1)
        let data = (config & 0x80 != 0 ? 6 : 0) + (config & 0x40 != 0 ? 6 : 0)
        return data == 0 ? 0 : data + (config & 0x10 != 0 ? 1 : 0)
    }

    /// Appends one frame taken at `time` (§2.5: the FIFO keeps the newest data, §2.5.1.4 skip frame).
    private mutating func appendFrame(_ state: PhysicalState, at time: Double) {
        let config = reg(Self.fifoConfig1)
        let frameSize = fifoFrameSize
        guard frameSize > 0 else { return }
        let frame = BoschFIFO.frame(gyro: config & Self.fifoGyrEn != 0 ? gyroCounts(state) : nil,
                                    accel: config & Self.fifoAccEn != 0 ? accelCounts(state) : nil, headerMode: headerMode)
        fifo.append(frame, sensorTime: sensorTime(at: time), headerMode: headerMode, frameSize: frameSize)
    }

    /// Each burst starts with the register address: a new over-read.
    mutating func setPointer(fromSubAddress byte: UInt8) {
        pointer = byte
        fifo.startBurst()
    }

    func pointer(after register: UInt8) -> UInt8 {
        register == Self.fifoData ? register : (register + 1) & 0x7F
    }

    func peek(_ register: UInt8) -> UInt8 {
        switch register & 0x7F {
        case Self.fifoLength0: UInt8(fifo.bytes.count & 0xFF)
        case Self.fifoLength1: UInt8((fifo.bytes.count >> 8) & 0x07)
        case Self.fifoData: fifo.first
        default: registers[Int(register & 0x7F)]
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        if address == Self.fifoData {
            // Past the content: the sensortime frame with fifo_time_en in header mode, then 0x80 (§2.5.1.4).
            return fifo.readByte(headerMode: headerMode, timeEnabled: reg(Self.fifoConfig1) & Self.fifoTimeEn != 0, frameSize: fifoFrameSize)
        }
        let value = peek(address)
        switch address {
        case Self.dataGyrXL..<Self.dataAccXL: registers[Int(Self.status)] &= ~0x40  // drdy_gyr cleared by a data read
        case Self.dataAccXL..<Self.sensorTime0: registers[Int(Self.status)] &= ~0x80
        default: break
        }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        switch address {
        case Self.chipID...Self.fifoData:
            return  // read-only
        case Self.cmd:
            command(value)
        case Self.selfTest:
            registers[Int(address)] = value & 0x0F
            if value & 0x10 != 0 { runGyroSelfTest() }
        default:
            registers[Int(address)] = value
        }
        clock.set(rate: sampleRate, at: time)
    }

    /// CMD (§2.11): power modes, FIFO flush, soft reset; anything else is ignored.
    private mutating func command(_ value: UInt8) {
        var pmu = reg(Self.pmuStatus)
        switch value {
        case 0x10, 0x11, 0x12: pmu = (pmu & ~0x30) | (value & 0x03) << 4          // acc suspend/normal/low power
        case 0x14, 0x15, 0x17: pmu = (pmu & ~0x0C) | (value & 0x03) << 2          // gyr suspend/normal/fast start-up
        case 0xB0: fifo.flush()
        case 0xB6: powerOnReset(); return
        default: return
        }
        registers[Int(Self.pmuStatus)] = pmu
    }

    /// The gyroscope's built-in test (§2.8.2): gyr_self_test_ok set when the gyroscope runs in
    /// normal mode and every axis responds (none declared dead); the enable bit clears itself.
    private mutating func runGyroSelfTest() {
        let healthy = gyroNormal && SensorAxis.Axis.allCases.allSatisfy { !options.deadAxes.contains(.gyroscope($0)) }
        if healthy { registers[Int(Self.status)] |= 0x02 } else { registers[Int(Self.status)] &= ~0x02 }
    }
}

extension SimulatedBoard.IMU {
    /// the Bosch BMI160.
    public static let bmi160 = Self("bmi160")
}
