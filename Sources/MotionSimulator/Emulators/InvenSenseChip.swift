import Foundation

/// An InvenSense chip the emulator models, by the name it reports (``MPU6x00Emulator``,
/// ``MPU9x50Emulator``).
package enum InvenSenseEmulatorModel: String, Sendable {
    case mpu6050 = "MPU-6050", mpu6500 = "MPU-6500", mpu9250 = "MPU-9250"
    /// The MPU-6050 die of an MPU-9150 (PS-MPU-9150A: the MPU-6050's accelerometer and
    /// gyroscope; WHO_AM_I 0x68).
    case mpu9150 = "MPU-9150"
}

/// Register model of the InvenSense MPU-6050, MPU-6500 and MPU-9250 (accelerometer and gyroscope
/// part). Registers and bits: MPU-6000/6050 Register Map RM-MPU-6000A rev 4.2, MPU-6500 Register
/// Map RM-MPU-6500A, MPU-9250 Register Map RM-MPU-9250A rev 1.6; sensitivities: product
/// specifications PS-MPU-6000A §6.1–6.2, PS-MPU-6500A, PS-MPU-9250A §3.1.
struct InvenSenseChip: InvenSenseFamilyChip, MultiModelChip {
    typealias Model = InvenSenseEmulatorModel

    static let selfTestX6050: UInt8 = 0x0D   // XA_TEST[4:2] in [7:5], XG_TEST in [4:0]; 0x0E Y, 0x0F Z
    static let selfTestA6050: UInt8 = 0x10   // XA_TEST[1:0] [5:4], YA [3:2], ZA [1:0]
    static let selfTestGyro6500: UInt8 = 0x00 // SELF_TEST_X/Y/Z_GYRO 0x00–0x02
    static let selfTestAccel6500: UInt8 = 0x0D // SELF_TEST_X/Y/Z_ACCEL 0x0D–0x0F
    static let smplrtDiv: UInt8 = 0x19
    static let config: UInt8 = 0x1A          // FIFO_MODE[6] (6500) EXT_SYNC_SET[5:3] DLPF_CFG[2:0]
    static let gyroConfig: UInt8 = 0x1B      // XG_ST[7] YG_ST[6] ZG_ST[5] FS_SEL[4:3] FCHOICE_B[1:0] (6500)
    static let accelConfig: UInt8 = 0x1C     // XA_ST[7] YA_ST[6] ZA_ST[5] AFS_SEL[4:3]
    static let fifoEnable: UInt8 = 0x23      // TEMP[7] XG[6] YG[5] ZG[4] ACCEL[3]
    static let intPinCfg: UInt8 = 0x37       // INT_ANYRD_2CLEAR[4] I2C_BYPASS_EN[1]
    static let intStatus: UInt8 = 0x3A       // FIFO_OFLOW_INT[4] DATA_RDY_INT[0]
    static let accelXoutH: UInt8 = 0x3B      // ACCEL 0x3B–0x40, TEMP 0x41–0x42, GYRO 0x43–0x48
    static let extSensDataLast: UInt8 = 0x60
    static let signalPathReset: UInt8 = 0x68
    static let userCtrl: UInt8 = 0x6A        // FIFO_EN[6] I2C_MST_EN[5] FIFO_RESET[2] I2C_MST_RESET[1] SIG_COND_RESET[0]
    static let pwrMgmt1: UInt8 = 0x6B        // DEVICE_RESET[7] SLEEP[6] CYCLE[5] TEMP_DIS[3] CLKSEL[2:0]
    static let pwrMgmt2: UInt8 = 0x6C        // standby XA[5] YA[4] ZA[3] XG[2] YG[1] ZG[0]
    static let fifoCountH: UInt8 = 0x72
    static let fifoCountL: UInt8 = 0x73
    static let fifoRW: UInt8 = 0x74
    static let whoAmI: UInt8 = 0x75

    /// FS_SEL → LSB/(°/s) for ±250/500/1000/2000 °/s.
    static let gyroSensitivity: [Double] = [131, 65.5, 32.8, 16.4]

    /// The digital low-pass filter's delay (s) for DLPF_CFG 0…7: the MPU-6050's accelerometer
    /// and gyroscope (RM-MPU-6000A §4.3; code 7 is reserved), the MPU-6500/9250's gyroscope with
    /// FCHOICE_B = 0 (RM-MPU-6500A / RM-MPU-9250A §4.6, CONFIG) and accelerometer with
    /// ACCEL_FCHOICE_B = 0 (§4.8, ACCEL_CONFIG2 A_DLPF_CFG). The outputs show the motion this long ago.
    static let accelDelay6050 = [0, 2.0, 3.0, 4.9, 8.5, 13.8, 19.0, 0].map { $0 / 1000 }
    static let gyroDelay6050 = [0.98, 1.9, 2.8, 4.8, 8.3, 13.4, 18.6, 0].map { $0 / 1000 }
    static let gyroDelay6500 = [0.97, 2.9, 3.9, 5.9, 9.9, 17.85, 33.48, 0.17].map { $0 / 1000 }
    static let accelDelay6500 = [1.88, 1.88, 2.88, 4.88, 8.87, 16.83, 32.48, 1.38].map { $0 / 1000 }
    /// With the filters bypassed (MPU-6500/9250: FCHOICE_B = x1 / 10, ACCEL_FCHOICE_B = 1): §4.6, §4.8.
    static let gyroBypassDelay = [0, 0.064, 0.11, 0.064].map { $0 / 1000 }
    static let accelBypassDelay = 0.75 / 1000
    static let accelConfig2: UInt8 = 0x1D    // ACCEL_FCHOICE_B[3] A_DLPF_CFG[2:0] (6500/9250)

    let model: Model
    var core: ChipCore
    var fifo: [UInt8] = []
    var lastFIFOByte: UInt8 = 0
    /// Self-test deflection of each axis with its XA_ST… bit set: accelerometer in g,
    /// gyroscope in °/s, derived from the factory self-test codes below.
    let accelSelfTest: SIMD3<Double>
    let gyroSelfTest: SIMD3<Double>

    /// The factory self-test codes this emulated part carries.
    static let factoryGyroCode6050 = 13, factoryAccelCode6050 = 16
    static let factoryCode6500: UInt8 = 100
    /// The emulated part's self-test response relative to its factory trim: inside the
    /// ±14 % (MPU-6050) and 0.5–1.5 (MPU-6500/9250) pass windows.
    static let selfTestResponseRatio = 1.03

    init(model: Model, source: any PhysicalSource, options: EmulatorOptions) {
        self.model = model
        core = ChipCore(source: source, options: options)
        switch model {
        case .mpu6050, .mpu9150:
            // Factory trim (RM-MPU-6000A §4.1): gyro FT = ±25·131·1.046^(code−1) LSB at ±250 °/s,
            // negative for Y; accelerometer FT = 4096·0.34·(0.92/0.34)^((code−1)/30) LSB at ±8 g.
            let gyro = 25 * 131 * pow(1.046, Double(Self.factoryGyroCode6050 - 1)) / 131
            let accel = 4096 * 0.34 * pow(0.92 / 0.34, Double(Self.factoryAccelCode6050 - 1) / 30) / 4096
            gyroSelfTest = SIMD3(gyro, -gyro, gyro) * Self.selfTestResponseRatio
            accelSelfTest = SIMD3(repeating: accel * Self.selfTestResponseRatio)
        case .mpu6500, .mpu9250:
            // ST_OTP = 2620·1.01^(code−1) LSB at ±250 °/s and ±2 g (MPU-6500 self-test application note).
            let otp = 2620 * pow(1.01, Double(Self.factoryCode6500) - 1)
            gyroSelfTest = SIMD3(repeating: otp / 131 * Self.selfTestResponseRatio)
            accelSelfTest = SIMD3(repeating: otp / 16384 * Self.selfTestResponseRatio)
        }
        powerOnReset()
    }

    var identity: UInt8 {
        switch model {
        case .mpu6050, .mpu9150: 0x68
        case .mpu6500: 0x70
        case .mpu9250: 0x71
        }
    }

    /// The MPU-6050 and the MPU-9150 share the MPU-6050 register map and behaviour.
    var hasMPU6050Die: Bool { model == .mpu6050 || model == .mpu9150 }

    /// FIFO size in bytes (PS-MPU-6000A: 1024; MPU-6500/9250: 512).
    var fifoCapacity: Int { hasMPU6050Die ? 1024 : 512 }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: [Self.whoAmI: identity])
        switch model {
        case .mpu6050, .mpu9150:
            registers[Int(Self.pwrMgmt1)] = 0x40  // asleep at power-on
            let accelHigh = UInt8(Self.factoryAccelCode6050 >> 2) << 5, accelLow = UInt8(Self.factoryAccelCode6050 & 0b11)
            for axis in 0..<3 { registers[Int(Self.selfTestX6050) + axis] = accelHigh | UInt8(Self.factoryGyroCode6050) }
            registers[Int(Self.selfTestA6050)] = accelLow << 4 | accelLow << 2 | accelLow
        case .mpu6500, .mpu9250:
            registers[Int(Self.pwrMgmt1)] = 0x01  // awake, auto clock
            for axis in 0..<3 {
                registers[Int(Self.selfTestGyro6500) + axis] = Self.factoryCode6500
                registers[Int(Self.selfTestAccel6500) + axis] = Self.factoryCode6500
            }
        }
        fifo.removeAll()
        lastFIFOByte = 0
    }

    /// Sensors sample while the chip is awake and not cycling.
    var isRunning: Bool { reg(Self.pwrMgmt1) & 0x60 == 0 }

    /// Sample rate = gyroscope output rate / (1 + SMPLRT_DIV); the gyroscope output rate is
    /// 8 kHz with DLPF_CFG 0 or 7, else 1 kHz; 32 kHz with FCHOICE_B ≠ 0 (6500/9250, no divider).
    var sampleRate: Double {
        if !hasMPU6050Die, reg(Self.gyroConfig) & 0b11 != 0 { return 32_000 }
        let dlpf = reg(Self.config) & 0b111
        let gyroOutputRate: Double = dlpf == 0 || dlpf == 7 ? 8_000 : 1_000
        return gyroOutputRate / (1 + Double(reg(Self.smplrtDiv)))
    }

    /// g per LSB: 16384 LSB/g at ±2 g, halving per AFS_SEL step.
    var accelGPerLSB: Double { Double(1 << ((reg(Self.accelConfig) >> 3) & 0b11)) / 16384 }
    var gyroDPSPerLSB: Double { 1 / Self.gyroSensitivity[Int((reg(Self.gyroConfig) >> 3) & 0b11)] }

    var bypassEnabled: Bool { reg(Self.intPinCfg) & 0b10 != 0 && reg(Self.userCtrl) & 0x20 == 0 }

    private func selfTestMask(_ configRegister: UInt8) -> SIMD3<Double> {
        let bits = reg(configRegister)
        return SIMD3(bits & 0x80 != 0 ? 1 : 0, bits & 0x40 != 0 ? 1 : 0, bits & 0x20 != 0 ? 1 : 0)
    }

    func accelCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        accelCounts(of: state, selfTest: selfTestMask(Self.accelConfig) * accelSelfTest, gPerLSB: accelGPerLSB)
    }

    func gyroCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        gyroCounts(of: state, selfTest: selfTestMask(Self.gyroConfig) * gyroSelfTest, dpsPerLSB: gyroDPSPerLSB)
    }

    /// Temperature in LSB: MPU-6050 °C = LSB/340 + 36.53; MPU-6500/9250 °C = LSB/333.87 + 21.
    func temperatureCounts(_ state: PhysicalState) -> Int16 {
        hasMPU6050Die
            ? Encoding.int16((state.temperature - 36.53) * 340)
            : Encoding.int16((state.temperature - 21) * 333.87)
    }

    /// FIFO_EN's XG, YG, ZG_FIFO_EN bits and where each axis sits in ``sensorBlock(at:)``.
    static let gyroscopeFIFOBits: [(bit: UInt8, offset: Int)] = [(0x40, 8), (0x20, 10), (0x10, 12)]

    /// How long the accelerometer's and the gyroscope's outputs lag the motion with the filter
    /// configuration in the registers, s.
    var filterDelays: (accelerometer: Double, gyroscope: Double) {
        guard options.filterDelay else { return (0, 0) }
        let dlpf = Int(reg(Self.config) & 0b111)
        if hasMPU6050Die { return (Self.accelDelay6050[dlpf], Self.gyroDelay6050[dlpf]) }
        let fchoiceB = Int(reg(Self.gyroConfig) & 0b11)
        let gyroscope = fchoiceB == 0 ? Self.gyroDelay6500[dlpf] : Self.gyroBypassDelay[fchoiceB]
        let accelConfig2 = reg(Self.accelConfig2)
        let accelerometer = accelConfig2 & 0x08 != 0 ? Self.accelBypassDelay : Self.accelDelay6500[Int(accelConfig2 & 0b111)]
        return (accelerometer, gyroscope)
    }

    /// ACCEL_XOUT_H … GYRO_ZOUT_L (big-endian), as the registers hold them at `time`: each sensor
    /// shows the motion its filter's delay ago.
    func sensorBlock(at time: Double) -> InlineBytes {
        let delays = filterDelays
        let accelState = source.state(at: max(0, time - delays.accelerometer))
        let gyroState = source.state(at: max(0, time - delays.gyroscope))
        return Encoding.bigEndian(accelCounts(accelState)) + Encoding.bigEndian(temperatureCounts(accelState))
            + Encoding.bigEndian(gyroCounts(gyroState))
    }

    static let dataReadyFlag: (register: UInt8, bit: UInt8) = (intStatus, 0x01)     // DATA_RDY_INT
    static let fifoOverflowFlag: (register: UInt8, bit: UInt8) = (intStatus, 0x10)  // FIFO_OFLOW_INT
    var fifoSelection: UInt8 { reg(Self.fifoEnable) }
    var fifoCollects: Bool { reg(Self.userCtrl) & 0x40 != 0 }

    /// Accelerometer (6 bytes), temperature and gyroscope X, Y, Z (2 bytes each).
    static func frameSize(_ selection: UInt8) -> Int {
        (selection & 0x08 != 0 ? 6 : 0) + (selection & 0x80 != 0 ? 2 : 0) + (selection & 0x70).nonzeroBitCount * 2
    }

    /// PWR_MGMT_2 puts accelerometer and gyroscope axes in standby; PWR_MGMT_1 TEMP_DIS the
    /// temperature sensor.
    func isFrozen(word index: Int) -> Bool {
        let standby = reg(Self.pwrMgmt2)
        return switch index {
        case 0...2: standby & (0x20 >> index) != 0
        case 3: reg(Self.pwrMgmt1) & 0x08 != 0
        default: standby & (0x04 >> (index - 4)) != 0
        }
    }

    /// One FIFO frame: the enabled sensor registers in register order (accelerometer,
    /// temperature, gyroscope X, Y, Z).
    mutating func appendFrame(_ block: InlineBytes, selection: UInt8) {
        guard reg(Self.userCtrl) & 0x40 != 0 else { return }
        var frame = InlineBytes()
        if selection & 0x08 != 0 { frame.append(contentsOf: block[0..<6]) }
        if selection & 0x80 != 0 { frame.append(contentsOf: block[6..<8]) }
        Self.appendWords(of: block, Self.gyroscopeFIFOBits, selection: selection, to: &frame)
        pushFIFOFrame(frame)
    }

    /// CONFIG FIFO_MODE (6500/9250): 1 keeps the FIFO as it is; 0 replaces the oldest data.
    var fifoKeepsOldDataOnOverflow: Bool { !hasMPU6050Die && reg(Self.config) & 0x40 != 0 }

    func pointer(after register: UInt8) -> UInt8 {
        // Reads of FIFO_R_W return successive FIFO bytes without moving the pointer.
        register == Self.fifoRW ? register : (register + 1) & 0x7F
    }

    func peek(_ register: UInt8) -> UInt8 {
        switch register & 0x7F {
        case Self.fifoCountH: UInt8((fifo.count >> 8) & (hasMPU6050Die ? 0xFF : 0x1F))
        case Self.fifoCountL: UInt8(fifo.count & 0xFF)
        case Self.fifoRW: fifo.first ?? lastFIFOByte
        default: registers[Int(register & 0x7F)]
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        let value = peek(address)
        if address == Self.fifoRW, !fifo.isEmpty {
            // An empty FIFO repeats the last byte read.
            lastFIFOByte = fifo.removeFirst()
        }
        if address == Self.intStatus || reg(Self.intPinCfg) & 0x10 != 0 {
            registers[Int(Self.intStatus)] = 0
        }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        switch address {
        case Self.whoAmI, Self.intStatus, Self.accelXoutH...Self.extSensDataLast, Self.fifoCountH, Self.fifoCountL:
            return  // read-only
        case Self.pwrMgmt1 where value & 0x80 != 0:
            powerOnReset()  // DEVICE_RESET: all registers to their defaults; the bit clears itself
            return
        case Self.fifoRW:
            if fifo.count < fifoCapacity { fifo.append(value) }
            return
        case Self.signalPathReset:
            return  // the reset bits clear themselves; the emulated signal paths hold no state
        case Self.userCtrl:
            if value & 0x04 != 0 { fifo.removeAll() }  // FIFO_RESET
            if value & 0x01 != 0 {                      // SIG_COND_RESET: clears the sensor registers
                for index in Self.accelXoutH...(Self.accelXoutH + 13) { registers[Int(index)] = 0 }
            }
            registers[Int(address)] = value & ~0x07    // the reset bits clear themselves
        default:
            registers[Int(address)] = value
        }
        clock.set(rate: isRunning ? sampleRate : nil, at: time)
    }
}

extension SimulatedBoard.IMU {
    /// the InvenSense MPU-6050.
    public static let mpu6050 = Self("mpu6050")
    /// the InvenSense MPU-6500.
    public static let mpu6500 = Self("mpu6500")
    /// the InvenSense MPU-9150 (an MPU-6050 with an AK8975 inside).
    public static let mpu9150 = Self("mpu9150")
    /// the InvenSense MPU-9250 (an MPU-6500 with an AK8963 inside).
    public static let mpu9250 = Self("mpu9250")
}
