import Foundation
import I2C

/// Register model of the Bosch BMI270 accelerometer and gyroscope, from its datasheet
/// BST-BMI270-DS000: register map ("Register description"), initialization sequence, FIFO,
/// feature pages and the step counter, sensitivities ("Specification"). Constants written here
/// from the datasheet, independently of the driver.
struct BMI270Chip: SingleModelChip, BoschChip {
    static let chipID: UInt8 = 0x00          // CHIP_ID, 0x24
    static let status: UInt8 = 0x03          // drdy_acc[7] drdy_gyr[6] drdy_aux[5] cmd_rdy[4] aux_man_op[2]
    static let dataAux: UInt8 = 0x04         // DATA_0 … DATA_7: the auxiliary sensor's bytes
    static let dataAccXL: UInt8 = 0x0C       // DATA_8 … DATA_13: accelerometer x, y, z little-endian
    static let dataGyrXL: UInt8 = 0x12       // DATA_14 … DATA_19: gyroscope x, y, z little-endian
    static let sensorTime0: UInt8 = 0x18     // SENSORTIME 0x18–0x1A, 24 bit, 39.0625 µs per LSB
    static let internalStatus: UInt8 = 0x21  // message[3:0]: 0x00 not_init, 0x01 init_ok, 0x02 init_err
    static let temperature0: UInt8 = 0x22    // TEMPERATURE 0x22–0x23: 0 = 23 °C, 1/512 K per LSB, 0x8000 invalid
    static let fifoLength0: UInt8 = 0x24     // fifo_byte_counter[13:0] over 0x24–0x25
    static let fifoLength1: UInt8 = 0x25
    static let fifoData: UInt8 = 0x26        // FIFO_DATA: burst reads stay here
    static let featPage: UInt8 = 0x2F        // FEAT_PAGE: page 0…7 shown at 0x30–0x3F
    static let features: UInt8 = 0x30        // FEATURES 0x30–0x3F
    static let accConf: UInt8 = 0x40         // acc_filter_perf[7] acc_bwp[6:4] acc_odr[3:0], reset 0xA8
    static let accRange: UInt8 = 0x41        // acc_range[1:0], reset 0x02
    static let gyrConf: UInt8 = 0x42         // gyr_filter_perf[7] gyr_noise_perf[6] gyr_bwp[5:4] gyr_odr[3:0], reset 0xA9
    static let gyrRange: UInt8 = 0x43        // gyr_range[2:0], reset 0x00
    static let auxDevID: UInt8 = 0x4B        // i2c_device_addr[7:1]: the auxiliary device's address, reset 0x20 (0x10)
    static let auxIfConf: UInt8 = 0x4C       // aux_manual_en[7] man_rd_burst[3:2] aux_rd_burst[1:0] (1, 2, 6, 8 bytes), reset 0x83
    static let auxRdAddr: UInt8 = 0x4D       // manual mode: writing it reads man_rd_burst bytes from there into DATA_0…; data mode: where reads start
    static let auxWrAddr: UInt8 = 0x4E       // manual mode: writing it writes AUX_WR_DATA to that register
    static let auxWrData: UInt8 = 0x4F
    static let ifConf: UInt8 = 0x6B          // aux_en[5]: the auxiliary interface on
    static let fifoConfig0: UInt8 = 0x48     // fifo_time_en[1] fifo_stop_on_full[0], reset 0x02
    static let fifoConfig1: UInt8 = 0x49     // gyr_en[7] acc_en[6] aux_en[5] header_en[4], reset 0x10
    static let initCtrl: UInt8 = 0x59        // INIT_CTRL: 0 while loading, 1 to start the engine
    static let initAddr0: UInt8 = 0x5B       // INIT_ADDR_0 [3:0], INIT_ADDR_1 [7:0]: word address of the next INIT_DATA byte
    static let initAddr1: UInt8 = 0x5C
    static let initData: UInt8 = 0x5E        // INIT_DATA: burst writes stay here
    static let accSelfTest: UInt8 = 0x6D     // acc_self_test_amp[3] acc_self_test_sign[2] acc_self_test_en[0]
    static let pwrConf: UInt8 = 0x7C         // fifo_self_wake_up[1] adv_power_save[0], reset 0x03
    static let pwrCtrl: UInt8 = 0x7D         // temp_en[3] acc_en[2] gyr_en[1] aux_en[0], reset 0x00
    static let cmd: UInt8 = 0x7E

    /// The registers that are not 0 after power-on or a soft reset (register map, "reset value").
    static let resetValues: KeyValuePairs<UInt8, UInt8> = [
        chipID: 0x24, accConf: 0xA8, accRange: 0x02, gyrConf: 0xA9,
        fifoConfig0: 0x02, fifoConfig1: 0x10, pwrConf: 0x03, auxDevID: 0x20, auxIfConf: 0x83, auxRdAddr: 0x42, auxWrAddr: 0x4C,
    ]

    /// The configuration file Bosch publishes for the BMI270 (BMI270 SensorAPI, bmi270.c
    /// `bmi270_config_file`, v2.86.1): its length and its CRC-32 (IEEE 802.3, as zlib's crc32),
    /// computed from the published array. The emulated engine starts (init_ok) only on exactly
    /// these bytes, each written once, at the addresses INIT_ADDR gave; anything else is init_err.
    static let configFileLength = 8192
    static let configFileCRC32: UInt32 = 0x229A_1189

    /// ACC_RANGE code 0…3 → LSB/g: 16384 >> code (±2, 4, 8, 16 g).
    static func accelSensitivity(code: UInt8) -> Double { 16384 / Double(1 << Int(code & 0x03)) }
    /// GYR_RANGE code 0…4 → LSB/(°/s) for ±2000, 1000, 500, 250, 125 °/s.
    static let gyroSensitivity: [Double] = [16.4, 32.8, 65.6, 131.2, 262.4]
    /// acc_odr / gyr_odr code → Hz: 100 / 2^(8 − code); accelerometer codes 1…12, gyroscope 6…13.
    static func rate(code: UInt8) -> Double { 100 * pow(2, Double(Int(code) - 8)) }
    static let accelRateCodes: ClosedRange<UInt8> = 1...12
    static let gyroRateCodes: ClosedRange<UInt8> = 6...13
    /// FIFO size in bytes: 6 KB.
    static let fifoCapacity = 6144

    /// Feature pages: 8 pages of 16 bytes. Page 0 holds the outputs (step count bytes 0…3,
    /// 32-bit little-endian); page 6 byte 3 bit 4 is step_counter.enable.
    static let featurePageCount = 8, featurePageSize = 16
    static let stepCounterPage = 6, stepCounterEnableByte = 3, stepCounterEnableBit: UInt8 = 0x10
    /// This model's step detector (the datasheet describes the feature, not its algorithm): a
    /// step is a rise of the specific force's magnitude above 1.15 g at least 0.25 s after the
    /// last step, looked for at each accelerometer sample while step_counter.enable is set.
    static let stepThresholdG = 1.15, stepRefractory = 0.25

    var core: ChipCore
    /// The FIFO ("FIFO"): the BMI160's frames (``BoschFIFO``), 6 KB.
    var fifo = BoschFIFO(capacity: fifoCapacity)
    /// The configuration file as uploaded since INIT_CTRL = 0: its bytes, how many were written,
    /// and whether one went past the end or twice to one place.
    var upload = [UInt8](repeating: 0, count: configFileLength)
    var uploadWritten = [Bool](repeating: false, count: configFileLength)
    var uploadFaulty = false
    /// Where the next INIT_DATA byte goes, bytes.
    var uploadOffset = 0
    /// The feature engine's memory as FEAT_PAGE shows it, page after page.
    var featureMemory = [UInt8](repeating: 0, count: featurePageCount * featurePageSize)
    /// The step detector: above the threshold since the last sample, the last step's time.
    var stepAbove = false
    var lastStepTime = -Double.infinity
    /// The BMM150 on the auxiliary interface, at 0x10 of that bus, sensing what the BMI270 senses
    /// (its own power: a reset of the BMI270 leaves it as it was).
    var auxiliary: BMM150Chip
    static let auxiliaryAddress: UInt8 = 0x10

    init(core: ChipCore) {
        self.core = core
        auxiliary = BMM150Chip(source: core.source, options: core.options)
    }

    /// Burst lengths of aux_rd_burst and man_rd_burst codes 0…3.
    static let auxiliaryBurst = [1, 2, 6, 8]

    /// Whether the auxiliary interface reaches its device: IF_CONF aux_en, PWR_CTRL aux_en, and
    /// the BMM150's address in AUX_DEV_ID.
    var auxiliaryReachable: Bool {
        reg(Self.ifConf) & 0x20 != 0 && reg(Self.pwrCtrl) & 0x01 != 0 && reg(Self.auxDevID) >> 1 == Self.auxiliaryAddress
    }

    /// `count` bytes of the auxiliary device from `register` on into DATA_0…, as of `time`.
    private mutating func readAuxiliary(from register: UInt8, count: Int, at time: Double) {
        guard auxiliaryReachable else { return }
        auxiliary.advance(to: time)
        auxiliary.setPointer(fromSubAddress: register)
        for index in 0..<count {
            let pointer = auxiliary.pointer
            registers[Int(Self.dataAux) + index] = auxiliary.read(pointer)
            auxiliary.pointer = auxiliary.pointer(after: pointer)
        }
    }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: Self.resetValues)
        fifo.reset()
        startUpload()
        featureMemory = [UInt8](repeating: 0, count: Self.featurePageCount * Self.featurePageSize)
        stepAbove = false
        lastStepTime = -.infinity
    }

    private mutating func startUpload() {
        for index in upload.indices {
            upload[index] = 0
            uploadWritten[index] = false
        }
        uploadFaulty = false
        uploadOffset = 0
    }

    var engineRunning: Bool { reg(Self.internalStatus) & 0x0F == 0x01 }
    var accelOn: Bool { engineRunning && reg(Self.pwrCtrl) & 0x04 != 0 }
    var gyroOn: Bool { engineRunning && reg(Self.pwrCtrl) & 0x02 != 0 }
    var headerMode: Bool { reg(Self.fifoConfig1) & 0x10 != 0 }

    var accelRate: Double? {
        let code = reg(Self.accConf) & 0x0F
        return accelOn && Self.accelRateCodes.contains(code) ? Self.rate(code: code) : nil
    }

    var gyroRate: Double? {
        let code = reg(Self.gyrConf) & 0x0F
        return gyroOn && Self.gyroRateCodes.contains(code) ? Self.rate(code: code) : nil
    }

    var accelLSBPerG: Double { Self.accelSensitivity(code: reg(Self.accRange)) }
    var gyroLSBPerDPS: Double { Self.gyroSensitivity[min(Int(reg(Self.gyrRange) & 0x07), 4)] }

    /// This emulated part's self-test deflection with high amplitude and positive sign, g: the
    /// positive/negative difference is twice it, above the minimum differences of the datasheet's
    /// accelerometer self-test (16 g on x, −15 g on y, 10 g on z); low amplitude gives a third.
    static let accelSelfTestHigh = SIMD3<Double>(9, -8.5, 6)

    /// The accelerometer's self-test deflection in g, from ACC_SELF_TEST.
    var accelSelfTestDeflection: SIMD3<Double> {
        let bits = reg(Self.accSelfTest)
        guard bits & 0x01 != 0 else { return .zero }
        let amplitude = bits & 0x08 != 0 ? Self.accelSelfTestHigh : Self.accelSelfTestHigh / 3
        return bits & 0x04 != 0 ? amplitude : -amplitude
    }

    func accelCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        accelCounts(of: state, selfTest: accelSelfTestDeflection, gPerLSB: 1 / accelLSBPerG)
    }
    func gyroCounts(_ state: PhysicalState) -> SIMD3<Int16> { gyroCounts(of: state, dpsPerLSB: 1 / gyroLSBPerDPS) }

    var stepCounterEnabled: Bool {
        featureMemory[Self.stepCounterPage * Self.featurePageSize + Self.stepCounterEnableByte] & Self.stepCounterEnableBit != 0
    }

    /// Page 0 bytes 0…3: the step count, 32-bit little-endian.
    private mutating func countStep() {
        var count = UInt32(featureMemory[0]) | UInt32(featureMemory[1]) << 8 | UInt32(featureMemory[2]) << 16 | UInt32(featureMemory[3]) << 24
        count &+= 1
        for index in 0..<4 { featureMemory[index] = UInt8((count >> (8 * UInt32(index))) & 0xFF) }
    }

    private mutating func detectStep(_ state: PhysicalState, at time: Double) {
        guard stepCounterEnabled, accelOn else { return }
        let g = state.specificForce / Encoding.gravity
        let above = (g * g).sum().squareRoot() > Self.stepThresholdG
        if above, !stepAbove, time - lastStepTime >= Self.stepRefractory {
            countStep()
            lastStepTime = time
        }
        stepAbove = above
    }

    mutating func advance(to time: Double) {
        // Data mode (aux_manual_en 0): the chip reads the auxiliary device on its own; here at each
        // bus access rather than at AUX_CONF's rate, so DATA_0… always hold its latest output.
        if reg(Self.auxIfConf) & 0x80 == 0, auxiliaryReachable, engineRunning {
            readAuxiliary(from: reg(Self.auxRdAddr), count: Self.auxiliaryBurst[Int(reg(Self.auxIfConf) & 0x03)], at: time)
            registers[Int(Self.status)] |= 0x20
        }
        let sensorTime = self.sensorTime(at: time)
        store24(Int(sensorTime), at: Self.sensorTime0, leastFirst: true)
        guard sampleRate != nil else {
            store([0x00, 0x80], at: Self.temperature0)
            return
        }
        let frameSize = fifoFrameSize
        // Every sample is looked at while the step counter runs (up to 100 000 between two bus
        // accesses: over 8 minutes at 200 Hz); otherwise those the FIFO can still hold.
        let fifoKeep = frameSize > 0 ? Self.fifoCapacity / frameSize + 1 : 1
        let (due, kept) = sampleClock(to: time, keepingLast: stepCounterEnabled ? max(fifoKeep, 100_000) : fifoKeep) { chip, tick in
            let state = chip.source.state(at: tick)
            chip.detectStep(state, at: tick)
            chip.appendFrame(state, at: tick)
        }
        if frameSize > 0, due > kept, headerMode { fifo.countSkipped(due - kept) }
        if due > 0 {
            if accelOn { registers[Int(Self.status)] |= 0x80 }
            if gyroOn { registers[Int(Self.status)] |= 0x40 }
        }
        let state = source.state(at: time)
        if accelOn { store(Encoding.littleEndian(accelCounts(state)), at: Self.dataAccXL) }
        if gyroOn { store(Encoding.littleEndian(gyroCounts(state)), at: Self.dataGyrXL) }
        store(Encoding.littleEndian(Encoding.int16((state.temperature - 23) * 512)), at: Self.temperature0)
    }

    /// Bytes of one FIFO frame: a header byte in header mode, then gyroscope, accelerometer.
    var fifoFrameSize: Int {
        let config = reg(Self.fifoConfig1)
        let data = (config & 0x80 != 0 && gyroOn ? 6 : 0) + (config & 0x40 != 0 && accelOn ? 6 : 0)
        return data == 0 ? 0 : data + (headerMode ? 1 : 0)
    }

    private mutating func appendFrame(_ state: PhysicalState, at time: Double) {
        let frameSize = fifoFrameSize
        guard frameSize > 0 else { return }
        let config = reg(Self.fifoConfig1)
        let frame = BoschFIFO.frame(gyro: config & 0x80 != 0 && gyroOn ? gyroCounts(state) : nil,
                                    accel: config & 0x40 != 0 && accelOn ? accelCounts(state) : nil, headerMode: headerMode)
        fifo.append(frame, sensorTime: sensorTime(at: time), headerMode: headerMode, frameSize: frameSize)
    }

    mutating func setPointer(fromSubAddress byte: UInt8) {
        pointer = byte
        fifo.startBurst()
    }

    /// FIFO_DATA and INIT_DATA keep the address; every other register advances it.
    func pointer(after register: UInt8) -> UInt8 {
        register == Self.fifoData || register == Self.initData ? register : (register + 1) & 0x7F
    }

    private var featureIndex: Int { Int(reg(Self.featPage) & 0x07) * Self.featurePageSize }

    func peek(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        switch address {
        case Self.fifoLength0: return UInt8(fifo.bytes.count & 0xFF)
        case Self.fifoLength1: return UInt8((fifo.bytes.count >> 8) & 0x3F)
        case Self.fifoData: return fifo.first
        case Self.features..<(Self.features + 16): return featureMemory[featureIndex + Int(address - Self.features)]
        default: return registers[Int(address)]
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        if address == Self.fifoData {
            // fifo_time_en is FIFO_CONFIG_0 bit 1 here.
            return fifo.readByte(headerMode: headerMode, timeEnabled: reg(Self.fifoConfig0) & 0x02 != 0, frameSize: fifoFrameSize)
        }
        let value = peek(address)
        switch address {
        case Self.dataAux..<Self.dataAccXL: registers[Int(Self.status)] &= ~0x20
        case Self.dataAccXL..<Self.dataGyrXL: registers[Int(Self.status)] &= ~0x80
        case Self.dataGyrXL..<Self.sensorTime0: registers[Int(Self.status)] &= ~0x40
        default: break
        }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        switch address {
        case Self.chipID..<Self.featPage:
            return  // read-only
        case Self.features..<(Self.features + 16):
            featureMemory[featureIndex + Int(address - Self.features)] = value
        case Self.cmd:
            command(value)
        case Self.initCtrl:
            registers[Int(address)] = value & 0x01
            if value & 0x01 == 0 { startUpload() } else { finishUpload() }
        case Self.initAddr0, Self.initAddr1:
            registers[Int(address)] = address == Self.initAddr0 ? value & 0x0F : value
            uploadOffset = 2 * (Int(reg(Self.initAddr1)) << 4 | Int(reg(Self.initAddr0)))
        case Self.initData:
            receiveConfigurationByte(value)
        case Self.auxRdAddr:
            registers[Int(address)] = value
            // Manual mode: the read happens now (aux_man_op never shows busy here).
            if reg(Self.auxIfConf) & 0x80 != 0 { readAuxiliary(from: value, count: Self.auxiliaryBurst[Int((reg(Self.auxIfConf) >> 2) & 0x03)], at: time) }
        case Self.auxWrAddr:
            registers[Int(address)] = value
            if reg(Self.auxIfConf) & 0x80 != 0, auxiliaryReachable {
                auxiliary.advance(to: time)
                auxiliary.setPointer(fromSubAddress: value)
                auxiliary.write(reg(Self.auxWrData), to: value, at: time)
            }
        default:
            registers[Int(address)] = value
        }
        clock.set(rate: sampleRate, at: time)
    }

    /// A byte of the configuration file: taken only while loading (INIT_CTRL = 0) with advanced
    /// power save off; past the file's end, or a second time to one place, it spoils the upload.
    private mutating func receiveConfigurationByte(_ value: UInt8) {
        guard reg(Self.initCtrl) == 0, reg(Self.pwrConf) & 0x01 == 0 else { return }
        guard uploadOffset < Self.configFileLength, !uploadWritten[uploadOffset] else {
            uploadFaulty = true
            return
        }
        upload[uploadOffset] = value
        uploadWritten[uploadOffset] = true
        uploadOffset += 1
    }

    /// INIT_CTRL = 1: init_ok when every byte of the file arrived once and they are Bosch's
    /// (length and CRC-32), init_err otherwise.
    private mutating func finishUpload() {
        let complete = !uploadFaulty && uploadWritten.allSatisfy { $0 } && Self.crc32(upload) == Self.configFileCRC32
        registers[Int(Self.internalStatus)] = complete ? 0x01 : 0x02
    }

    /// CRC-32 (IEEE 802.3: polynomial 0xEDB88320 reflected, initial and final 0xFFFFFFFF).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// CMD: FIFO flush, soft reset; anything else is ignored.
    private mutating func command(_ value: UInt8) {
        switch value {
        case 0xB0: fifo.flush()
        case 0xB6: powerOnReset()
        default: break
        }
    }
}

/// Bosch BMI270 emulator (CHIP_ID 0x00 = 0x24), at 0x68 or 0x69.
///
/// Nothing samples until the configuration file is loaded: INIT_CTRL = 0, the file's bytes into
/// INIT_DATA at the word address INIT_ADDR_0/1 give (advanced power save off), INIT_CTRL = 1;
/// INTERNAL_STATUS then reads 0x01 (init_ok) when the bytes are exactly Bosch's published file
/// (its length and CRC-32), 0x02 (init_err) otherwise, and the sensors stay off. Then PWR_CTRL
/// starts the accelerometer and gyroscope; their data registers (accelerometer 0x0C–0x11,
/// gyroscope 0x12–0x17, little-endian) follow `source` at the output data rate of the chip's
/// clock, with STATUS drdy_*, the 6 KB FIFO (header or headerless, the sensortime frame after a
/// read past the fill level, skip frames when full, CMD 0xB0 flush) and SENSORTIME at
/// 39.0625 µs. The step counter (feature page 6 enable, page 0 count) counts with a detector of
/// this model's own (``BMI270Chip/stepThresholdG``): the datasheet describes the feature, not its algorithm.
/// ACC_SELF_TEST deflects the accelerometer (a dead axis does not move); the gyroscope's self-test
/// (the feature engine's g_trigger) is not modelled.
/// A BMM150 sits on its auxiliary interface at 0x10 (AUX_DEV_ID 0x20): with IF_CONF aux_en and
/// PWR_CTRL aux_en, manual mode (AUX_IF_CONF bit 7) writes AUX_WR_DATA to the register written to
/// AUX_WR_ADDR and reads man_rd_burst bytes from the register written to AUX_RD_ADDR into DATA_0…
/// (0x04); data mode keeps DATA_0… at the BMM150's bytes from AUX_RD_ADDR on (refreshed at every
/// bus access, not at AUX_CONF's rate).
package final class BMI270Emulator: ModelEmulator {
    package static let chipName = "BMI270"
    let engine: EmulatorEngine<BMI270Chip>
    init(engine: EmulatorEngine<BMI270Chip>) { self.engine = engine }
}

extension SimulatedBoard.IMU {
    /// the Bosch BMI270.
    public static let bmi270 = Self("bmi270")
}

extension BMI270Emulator: SPIEmulator {
    /// BST-BMI270-DS000 "SPI interface": the first byte's bit 7 is RW (1 = read), the 7-bit address
    /// below it, and a read returns one dummy byte before the register's data.
    package static var spiFraming: SPIFraming { SPIFraming(readBit: 0x80, readDummyBytes: 1) }
}
