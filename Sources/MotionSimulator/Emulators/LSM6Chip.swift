/// A chip of the LSM6 family the emulator models, by the name it reports (``LSM6Emulator``).
package enum LSM6EmulatorModel: String, Sendable {
    case dsox = "LSM6DSOX", dso32 = "LSM6DSO32", dsl = "LSM6DSL", ds3 = "LSM6DS3"
    /// LSM6DSR (DS12412) and ISM330DHCX (DS13012): the LSM6DSOX's map with WHO_AM_I 0x6B and a
    /// ±4000 dps gyroscope range (CTRL2_G FS_4000, bit 0: 140 mdps/LSB).
    case dsr = "LSM6DSR"
    /// LSM6DSV16X (DS13510; the LSM6DSV answers the same WHO_AM_I 0x70): the tagged FIFO with a
    /// moved register map (``LSM6Chip/DSVMap``).
    case dsv16x = "LSM6DSV16X"
}

/// Register model of the ST LSM6 family: LSM6DSOX, LSM6DSO32 and LSM6DSR/ISM330DHCX (tagged FIFO), LSM6DSL and
/// LSM6DS3 (untagged FIFO). Register addresses and bits: LSM6DSOX datasheet DS12814 §8–9,
/// LSM6DSO32 DS13238 (same map, doubled accelerometer ranges), LSM6DSL DS11889 §8–9, LSM6DS3
/// DocID026899 §8–9 (register mapping and register description chapters).
struct LSM6Chip: SensingChip, MultiModelChip {
    typealias Model = LSM6EmulatorModel

    /// LSM6DSO-generation chips tag each FIFO word; the older ones store untagged 16-bit words.
    enum FIFOKind: Sendable {
        case tagged, untagged
    }

    // Registers common to the three chips (register mapping tables).
    static let whoAmI: UInt8 = 0x0F
    static let ctrl1XL: UInt8 = 0x10     // ODR_XL[7:4] FS_XL[3:2]
    static let ctrl2G: UInt8 = 0x11      // ODR_G[7:4] FS_G[3:2] FS_125[1]
    static let ctrl3C: UInt8 = 0x12      // BOOT[7] BDU[6] … IF_INC[2] SW_RESET[0]
    static let ctrl5C: UInt8 = 0x14      // ST_G[3:2] ST_XL[1:0]
    static let ctrl9XL: UInt8 = 0x18
    static let ctrl10C: UInt8 = 0x19
    static let statusReg: UInt8 = 0x1E   // TDA[2] GDA[1] XLDA[0]
    static let outTempL: UInt8 = 0x20
    static let outXLG: UInt8 = 0x22      // gyroscope X_L … Z_H: 0x22–0x27
    static let outXLA: UInt8 = 0x28      // accelerometer X_L … Z_H: 0x28–0x2D
    static let fifoStatus1: UInt8 = 0x3A
    static let fifoStatus2: UInt8 = 0x3B

    // LSM6DSO/DSOX embedded functions (DS12140 / DS12814 §9 FUNC_CFG_ACCESS, §11 embedded
    // functions registers): FUNC_CFG_ACCESS bit 7 swaps the user registers for the embedded
    // functions' page (FUNC_CFG_ACCESS itself stays at 01h in both).
    static let funcCfgAccess: UInt8 = 0x01
    static let embFuncEnA: UInt8 = 0x04     // PEDO_EN[3]
    static let stepCounterL: UInt8 = 0x62   // STEP_COUNTER_L, then _H at 0x63

    // LSM6DSOX FIFO (DS12814 §9.5–9.8, §9.42–9.43, §9.80–9.81).
    static let dsoxFIFOCtrl1: UInt8 = 0x07  // WTM[7:0]
    static let dsoxFIFOCtrl2: UInt8 = 0x08  // WTM[8] in bit 0
    static let dsoxFIFOCtrl3: UInt8 = 0x09  // BDR_GY[7:4] BDR_XL[3:0]
    static let dsoxFIFOCtrl4: UInt8 = 0x0A  // FIFO_MODE[2:0]
    static let dsoxFIFODataOutTag: UInt8 = 0x78 // then X_L … Z_H at 0x79–0x7E
    /// FIFO_DATA_OUT_TAG TAG_SENSOR codes (DS12814 Table "FIFO tag").
    static let tagGyroscope: UInt8 = 0x01
    static let tagAccelerometer: UInt8 = 0x02
    /// TAG_SENSOR 0x04: a timestamp word, TIMESTAMP[31:0] little-endian in its first 4 bytes,
    /// batched with FIFO_CTRL4 DEC_TS_BATCH (bits 7:6) = 01 at every batch time slot while
    /// CTRL10_C TIMESTAMP_EN (bit 5) is set; 25 µs per LSB of the chip's clock (DS12814 FIFO tag
    /// table, FIFO_CTRL4, CTRL10_C, TIMESTAMP0–3).
    static let tagTimestamp: UInt8 = 0x04
    static let timestampLSB = 25e-6

    // LSM6DSL / LSM6DS3 FIFO (DS11889 §9.6–9.10, §9.44–9.48).
    static let fifoCtrl1: UInt8 = 0x06      // FTH[7:0]
    static let fifoCtrl2: UInt8 = 0x07      // FTH[10:8] (DSL) / FTH[11:8] (DS3)
    static let fifoCtrl3: UInt8 = 0x08      // DEC_FIFO_GYRO[5:3] DEC_FIFO_XL[2:0]
    static let fifoCtrl5: UInt8 = 0x0A      // ODR_FIFO[6:3] FIFO_MODE[2:0]
    static let fifoStatus3: UInt8 = 0x3C    // FIFO_PATTERN[7:0]
    static let fifoStatus4: UInt8 = 0x3D    // FIFO_PATTERN[9:8]
    static let fifoDataOutL: UInt8 = 0x3E
    static let fifoDataOutH: UInt8 = 0x3F

    /// ODR_XL / ODR_G / BDR / ODR_FIFO codes 1…10 in Hz (CTRL1_XL and CTRL2_G tables).
    static let rates: [Double] = [12.5, 26, 52, 104, 208, 416, 833, 1666, 3332, 6664]
    /// FS_XL code → mg/LSB (datasheet Table 2 "Mechanical characteristics": ±2/±16/±4/±8 g).
    static let accelSensitivity: [Double] = [0.061, 0.488, 0.122, 0.244]
    /// LSM6DSO32 FS_XL code → mg/LSB (±4/±32/±8/±16 g).
    static let accelSensitivityDSO32: [Double] = [0.122, 0.976, 0.244, 0.488]
    /// FS_G code → mdps/LSB (±250/±500/±1000/±2000 dps); FS_125 gives 4.375.
    static let gyroSensitivity: [Double] = [8.75, 17.5, 35, 70]

    /// The LSM6DSV16X's register map where it differs from the LSM6DSOX's (DS13510, register
    /// mapping table and register description): CTRL1 (10h) ODR_XL[3:0], CTRL2 (11h) ODR_G[3:0]
    /// (OP_MODE[6:4] above them, not modelled: high performance); CTRL6 (15h) FS_G[3:0]; CTRL8
    /// (17h) FS_XL[1:0]; FIFO_STATUS1/2 at 1Bh/1Ch (DIFF_FIFO[8:0], FIFO_WTM_IA bit 7,
    /// FIFO_OVR_IA 6, FIFO_FULL_IA 5, FIFO_OVR_LATCHED 3); FUNCTIONS_ENABLE (50h) TIMESTAMP_EN
    /// bit 6. FIFO_CTRL1 (07h) holds the whole watermark WTM[7:0].
    enum DSVMap {
        static let ctrl6: UInt8 = 0x15
        static let ctrl8: UInt8 = 0x17
        /// CTRL10 (19h): ST_G[3:2], ST_XL[1:0] (ST's lsm6dsv16x_reg.h `lsm6dsv16x_ctrl10_t`; the
        /// deflections are the LSM6DSOX's, ``LSM6Chip/accelSelfTest``, inside the LSM6DSV16X's
        /// 50–1700 mg and 150–700 dps limits).
        static let ctrl10: UInt8 = 0x19
        static let fifoStatus1: UInt8 = 0x1B
        static let functionsEnable: UInt8 = 0x50
        /// TIMESTAMP0–3 count 21.75 µs (typical).
        static let timestampLSB = 21.75e-6
        /// ODR code 0001 = 1.875 Hz (low-power modes), 0010 = 7.5 Hz, doubling to 1100 = 7.68 kHz;
        /// the FIFO's BDR_XL / BDR_GY codes are the same (FIFO_CTRL3).
        static func rate(code: UInt8) -> Double? {
            switch code {
            case 1: 1.875
            case 2...12: 7.5 * Double(1 << Int(code - 2))
            default: nil
            }
        }
        /// FS_XL 00/01/10/11 = ±2/4/8/16 g (Table 2: mg/LSB).
        static let accelSensitivity: [Double] = [0.061, 0.122, 0.244, 0.488]
        /// FS_G 0000…0100 = ±125…2000 dps, 1100 = ±4000 dps (Table 2: mdps/LSB).
        static func gyroSensitivity(code: UInt8) -> Double {
            switch code {
            case 0...4: [4.375, 8.75, 17.5, 35, 70][Int(code)]
            case 0b1100: 140
            default: 4.375  // reserved codes: not to be used (DS13510); the default full scale
            }
        }
    }

    /// What sets one chip of the family apart, from its datasheet.
    struct Variant: Sendable {
        /// WHO_AM_I.
        var identity: UInt8
        var fifoKind: FIFOKind
        /// FS_XL code → mg/LSB.
        var accelSensitivity: [Double] = LSM6Chip.accelSensitivity
        /// ODR_XL 1011 = 1.6 Hz in low-power mode (CTRL1_XL table; not on the LSM6DS3).
        var hasLowPowerRate = true
        /// CTRL2_G FS_4000 (bit 0): ±4000 dps at 140 mdps/LSB.
        var hasFS4000 = false
        /// LSB per °C, 0 LSB at 25 °C (temperature sensor characteristics table).
        var temperatureLSBPerDegree = 256.0
        /// The threshold's high bits in FIFO_CTRL2 (WTM[8], FTH[10:8] or FTH[11:8]) and the
        /// level's in FIFO_STATUS2 (DIFF_FIFO).
        var thresholdHighMask: UInt8
        var levelHighMask: UInt8
        /// Power-on values besides WHO_AM_I and CTRL3_C.
        var powerOn: [(register: UInt8, value: UInt8)]
        /// The embedded functions' page with the pedometer (``LSM6Pedometer``).
        var hasPedometer = false
        /// The LSM6DSV16X's map (``DSVMap``) in place of the LSM6DSOX's.
        var dsvMap = false
    }

    /// LSM6DSOX (DS12814): tagged FIFO, WTM[8], DIFF_FIFO[9:8]; PIN_CTRL 0x3F and CTRL9_XL 0xE0
    /// at power-on.
    private static let dsox = Variant(
        identity: 0x6C, fifoKind: .tagged, thresholdHighMask: 0x01, levelHighMask: 0b11, powerOn: [(0x02, 0x3F), (ctrl9XL, 0xE0)],
        hasPedometer: true)

    static func variant(_ model: Model) -> Variant {
        switch model {
        case .dsox: return dsox
        case .dso32:
            // DS13238: the LSM6DSOX's map with the accelerometer ranges doubled.
            var variant = dsox
            variant.accelSensitivity = accelSensitivityDSO32
            return variant
        case .dsr:
            // DS12412 Table 2, DS13012 Table 3: WHO_AM_I 0x6B, FS_4000. Its embedded functions
            // are not modelled.
            var variant = dsox
            variant.identity = 0x6B
            variant.hasFS4000 = true
            variant.hasPedometer = false
            return variant
        case .dsv16x:
            // DS13510: WHO_AM_I 70h, WTM[7:0] alone, DIFF_FIFO[8:0]. Its embedded functions and
            // self-test are not modelled; CTRL5 (14h) has no ROUNDING field.
            var variant = dsox
            variant.identity = 0x70
            variant.thresholdHighMask = 0
            variant.levelHighMask = 0b1
            variant.powerOn = []
            variant.hasPedometer = false
            variant.dsvMap = true
            return variant
        case .dsl:
            // DS11889: untagged FIFO, FTH[10:8], CTRL9_XL 0xE0 at power-on.
            return Variant(identity: 0x6A, fifoKind: .untagged, thresholdHighMask: 0x07, levelHighMask: 0b111, powerOn: [(ctrl9XL, 0xE0)])
        case .ds3:
            // DocID026899: no 1.6 Hz, 16 LSB/°C, FTH[11:8], accelerometer and gyroscope X/Y/Z
            // enabled at power-on (CTRL9_XL, CTRL10_C = 0x38).
            return Variant(
                identity: 0x69, fifoKind: .untagged, hasLowPowerRate: false, temperatureLSBPerDegree: 16, thresholdHighMask: 0x0F,
                levelHighMask: 0b1111, powerOn: [(ctrl9XL, 0x38), (ctrl10C, 0x38)])
        }
    }

    /// Self-test deflection of the accelerometer, g: inside the datasheet limits (LSM6DSOX
    /// 50–1700 mg, LSM6DSL/LSM6DS3 90–1700 mg; full-scale independent).
    static let accelSelfTest = 0.45
    /// Self-test deflection of the gyroscope in LSB, the same at every full scale as the limits
    /// imply (20–80 dps at ±250 dps, 150–700 dps at ±2000 dps): 5700 LSB = 49.9 / 399 dps.
    static let gyroSelfTestLSB = 5700.0

    struct TaggedWord: Sendable {
        var tag: UInt8
        var data: InlineBytes
    }

    let variant: Variant
    /// The core's clock is the accelerometer's output data rate clock.
    var core: ChipCore
    /// Scratch for ``fillWordFIFO(to:)``: the FIFO ticks due.
    private var fifoTickTimes: [Double] = []
    /// Scratch for ``fillTaggedFIFO(to:)``: the batch events due, in time order.
    private var batchEvents: [(time: Double, tag: UInt8)] = []
    var gyroClock: SampleTicker
    /// LSM6DSOX: batch-data-rate clocks of the accelerometer and gyroscope.
    var accelBatchClock: SampleTicker
    var gyroBatchClock: SampleTicker
    /// LSM6DSL/DS3: the FIFO's own output data rate, and its tick count for decimation.
    var fifoClock: SampleTicker
    var fifoTicks = 0

    var taggedFIFO: [TaggedWord] = []
    /// LSM6DSL/DS3: 16-bit words with their FIFO_PATTERN index.
    var wordFIFO: [(word: Int16, pattern: Int)] = []
    /// LSM6DSOX FIFO_OVR_LATCHED: the FIFO filled up or lost a sample since FIFO_STATUS2 was read.
    var fifoOverrunLatched = false
    /// FIFO mode (001) stops collecting for good once the FIFO is full, until bypass mode.
    var fifoStopped = false
    var tagCounter: UInt8 = 0
    var lastTagTime = -Double.infinity
    /// Simulation time at which the timestamp counter started (TIMESTAMP_EN set).
    var timestampOrigin = 0.0
    /// The embedded functions' page (read and written while FUNC_CFG_ACCESS bit 7 is set).
    var embeddedRegisters = [UInt8](repeating: 0, count: 128)
    var pedometer = LSM6Pedometer()

    init(model: Model, source: any PhysicalSource, options: EmulatorOptions) {
        variant = Self.variant(model)
        core = ChipCore(source: source, options: options)
        let ticker = core.clock
        gyroClock = ticker
        accelBatchClock = ticker
        gyroBatchClock = ticker
        fifoClock = ticker
        powerOnReset()
    }

    var fifoKind: FIFOKind { variant.fifoKind }

    /// FIFO size in words: LSM6DSOX 512 tagged words; LSM6DSL/DS3 682 six-byte sets = 2046
    /// 16-bit words (as the Linux st_lsm6dsx driver sizes them).
    var fifoCapacity: Int { fifoKind == .tagged ? 512 : 2046 }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: [
            Self.whoAmI: variant.identity,
            Self.ctrl3C: 0x04,  // IF_INC set at power-on
        ])
        for (register, value) in variant.powerOn { registers[Int(register)] = value }
        for index in embeddedRegisters.indices { embeddedRegisters[index] = 0 }
        pedometer = LSM6Pedometer()
        clearFIFO()
        for clock in [\Self.gyroClock, \.accelBatchClock, \.gyroBatchClock, \.fifoClock] {
            self[keyPath: clock].set(rate: nil, at: 0)
        }
    }

    private mutating func clearFIFO() {
        taggedFIFO.removeAll()
        wordFIFO.removeAll()
        fifoOverrunLatched = false
        fifoStopped = false
        fifoTicks = 0
    }

    // MARK: Configuration decoded from the registers

    private func rate(code: UInt8) -> Double? {
        if variant.dsvMap { return DSVMap.rate(code: code) }
        return (1...10).contains(code) ? Self.rates[Int(code) - 1] : nil
    }

    var accelRate: Double? {
        if variant.dsvMap { return rate(code: reg(Self.ctrl1XL) & 0x0F) }
        let code = reg(Self.ctrl1XL) >> 4
        // 1011: 1.6 Hz, low-power mode only (LSM6DSOX/DSL CTRL1_XL table).
        if code == 0b1011, variant.hasLowPowerRate { return 1.6 }
        return rate(code: code)
    }

    var gyroRate: Double? { rate(code: variant.dsvMap ? reg(Self.ctrl2G) & 0x0F : reg(Self.ctrl2G) >> 4) }

    /// g per LSB at the selected full scale.
    var accelGPerLSB: Double {
        if variant.dsvMap { return DSVMap.accelSensitivity[Int(reg(DSVMap.ctrl8) & 0b11)] / 1000 }
        return variant.accelSensitivity[Int((reg(Self.ctrl1XL) >> 2) & 0b11)] / 1000
    }

    /// dps per LSB at the selected full scale.
    var gyroDPSPerLSB: Double {
        if variant.dsvMap { return DSVMap.gyroSensitivity(code: reg(DSVMap.ctrl6) & 0x0F) / 1000 }
        let ctrl2 = reg(Self.ctrl2G)
        if variant.hasFS4000, ctrl2 & 0b1 != 0 { return 140.0 / 1000 }   // FS_4000 (DS12412 Table 2)
        if ctrl2 & 0b10 != 0 { return 4.375 / 1000 }
        return Self.gyroSensitivity[Int((ctrl2 >> 2) & 0b11)] / 1000
    }

    var temperatureLSBPerDegree: Double { variant.temperatureLSBPerDegree }

    var autoIncrement: Bool { reg(Self.ctrl3C) & 0b100 != 0 }

    /// FUNC_CFG_ACCESS bit 7 on a chip with the embedded functions' page.
    var inEmbeddedPage: Bool { variant.hasPedometer && reg(Self.funcCfgAccess) & 0x80 != 0 }

    /// FIFO_MODE: 000 bypass, 001 FIFO (stop when full), others continuous (overwrite oldest).
    /// The triggered modes (continuous-to-FIFO, bypass-to-continuous) wait for an interrupt
    /// event that the emulator does not model: they behave as continuous.
    var fifoMode: UInt8 {
        reg(fifoKind == .tagged ? Self.dsoxFIFOCtrl4 : Self.fifoCtrl5) & 0b111
    }

    var fifoThreshold: Int {
        let (low, high) = fifoKind == .tagged ? (Self.dsoxFIFOCtrl1, Self.dsoxFIFOCtrl2) : (Self.fifoCtrl1, Self.fifoCtrl2)
        return Int(reg(low)) | Int(reg(high) & variant.thresholdHighMask) << 8
    }

    var fifoLevel: Int { fifoKind == .tagged ? taggedFIFO.count : wordFIFO.count }

    /// FIFO_STATUS1; FIFO_STATUS2 follows it.
    var fifoStatus1Address: UInt8 { variant.dsvMap ? DSVMap.fifoStatus1 : Self.fifoStatus1 }

    /// Seconds per TIMESTAMP count: 25 µs, 21.75 µs on the LSM6DSV16X (DS13510 TIMESTAMP0–3).
    var timestampLSB: Double { variant.dsvMap ? DSVMap.timestampLSB : Self.timestampLSB }

    /// TIMESTAMP_EN: CTRL10_C bit 5, or FUNCTIONS_ENABLE bit 6 on the LSM6DSV16X.
    var timestampEnable: (register: UInt8, bit: UInt8) { variant.dsvMap ? (DSVMap.functionsEnable, 0x40) : (Self.ctrl10C, 0x20) }

    private mutating func reconfigure(at time: Double) {
        clock.set(rate: accelRate, at: time)
        gyroClock.set(rate: gyroRate, at: time)
        let batching = fifoMode != 0
        switch fifoKind {
        case .tagged:
            let batch = reg(Self.dsoxFIFOCtrl3)
            let accelBatch = accelRate.flatMap { odr in rate(code: batch & 0x0F).map { min($0, odr) } }
            let gyroBatch = gyroRate.flatMap { odr in rate(code: batch >> 4).map { min($0, odr) } }
            accelBatchClock.set(rate: batching ? accelBatch : nil, at: time)
            gyroBatchClock.set(rate: batching ? gyroBatch : nil, at: time)
        case .untagged:
            fifoClock.set(rate: batching ? rate(code: (reg(Self.fifoCtrl5) >> 3) & 0x0F) : nil, at: time)
        }
    }

    // MARK: Samples

    /// ST_XL (bits 1:0 of CTRL5_C, of CTRL10 on the LSM6DSV16X): 01 positive, 10 negative.
    private var selfTestAccelSign: Double {
        switch reg(variant.dsvMap ? DSVMap.ctrl10 : Self.ctrl5C) & 0b11 {
        case 0b01: 1
        case 0b10: -1
        default: 0
        }
    }

    /// ST_G (bits 3:2): 01 positive; negative 11 in CTRL5_C, 10 in the LSM6DSV16X's CTRL10.
    private var selfTestGyroSign: Double {
        switch ((reg(variant.dsvMap ? DSVMap.ctrl10 : Self.ctrl5C) >> 2) & 0b11, variant.dsvMap) {
        case (0b01, _): 1
        case (0b11, false), (0b10, true): -1
        default: 0
        }
    }

    /// Accelerometer output in LSB for the physical state: specific force in g, plus the
    /// self-test deflection on every axis, dead axes zero, saturated at the int16 range.
    func accelCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        accelCounts(of: state, selfTest: SIMD3(repeating: selfTestAccelSign * Self.accelSelfTest), gPerLSB: accelGPerLSB)
    }

    func gyroCounts(_ state: PhysicalState) -> SIMD3<Int16> {
        gyroCounts(of: state, selfTest: SIMD3(repeating: selfTestGyroSign * Self.gyroSelfTestLSB * gyroDPSPerLSB), dpsPerLSB: gyroDPSPerLSB)
    }

    mutating func advance(to time: Double) {
        var status = reg(Self.statusReg)
        if clock.advance(to: time) > 0 { status |= 0b101 }  // XLDA, TDA
        if gyroClock.advance(to: time) > 0 { status |= 0b110 }   // GDA, TDA
        registers[Int(Self.statusReg)] = status
        fillFIFO(to: time)
        pedometer.advance(to: time, accelerometerRunning: (accelRate ?? 0) >= LSM6Pedometer.rate, source: source)

        // Output registers follow the input while the sensor runs; in power-down (ODR = 0)
        // they keep their last value.
        guard accelRate != nil || gyroRate != nil else { return }
        let state = source.state(at: time)
        let temperature = Encoding.int16((state.temperature - 25) * temperatureLSBPerDegree)
        store(Encoding.littleEndian(temperature), at: Self.outTempL)
        if gyroRate != nil { store(Encoding.littleEndian(gyroCounts(state)), at: Self.outXLG) }
        if accelRate != nil { store(Encoding.littleEndian(accelCounts(state)), at: Self.outXLA) }
    }

    // MARK: FIFO

    private mutating func fillFIFO(to time: Double) {
        switch fifoKind {
        case .tagged: fillTaggedFIFO(to: time)
        case .untagged: fillWordFIFO(to: time)
        }
    }

    private mutating func fillTaggedFIFO(to time: Double) {
        // The array of the previous call, its storage kept: no allocation per sample.
        var events: [(time: Double, tag: UInt8)] = []
        swap(&events, &batchEvents)
        defer { swap(&events, &batchEvents) }
        events.removeAll(keepingCapacity: true)
        let keep = fifoCapacity + 1
        accelBatchClock.advance(to: time, keepingLast: keep) { events.append(($0, Self.tagAccelerometer)) }
        gyroBatchClock.advance(to: time, keepingLast: keep) { events.append(($0, Self.tagGyroscope)) }
        // Time order; in a shared time slot the gyroscope word comes first.
        events.sort { $0.time != $1.time ? $0.time < $1.time : $0.tag < $1.tag }
        if events.count > keep {
            fifoOverrunLatched = true
            events.removeFirst(events.count - keep)
        }
        for event in events {
            // TAG_CNT: 2-bit counter of the batch time slot.
            if event.time > lastTagTime + 1e-12 {
                tagCounter = (tagCounter + 1) & 0b11
                lastTagTime = event.time
                if timestampsBatched {
                    // The slot's timestamp word comes first, by the chip's (drifting) clock.
                    let ticks = ((event.time - timestampOrigin) * (1 + options.clockDriftPPM * 1e-6) / timestampLSB).rounded(.down)
                    let counter = UInt32(truncatingIfNeeded: Int64(max(0, min(ticks, 1e15))))
                    var data = InlineBytes()
                    for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8(truncatingIfNeeded: counter >> shift)) }
                    data.append(0)
                    data.append(0)
                    push(TaggedWord(tag: Self.taggedByte(Self.tagTimestamp, tagCounter), data: data))
                }
            }
            let state = source.state(at: event.time)
            let counts = event.tag == Self.tagAccelerometer ? accelCounts(state) : gyroCounts(state)
            push(TaggedWord(tag: Self.taggedByte(event.tag, tagCounter), data: Encoding.littleEndian(counts)))
        }
    }

    /// TAG_SENSOR, TAG_CNT and TAG_PARITY (which makes the number of ones in the byte even).
    private static func taggedByte(_ sensor: UInt8, _ counter: UInt8) -> UInt8 {
        let tag = sensor << 3 | counter << 1
        return tag | UInt8(tag.nonzeroBitCount & 1)
    }

    /// Timestamps go into the tagged FIFO: TIMESTAMP_EN and DEC_TS_BATCH = 01 (every slot; the
    /// decimated settings 8 and 32 are not emulated).
    private var timestampsBatched: Bool {
        let enable = timestampEnable
        return reg(enable.register) & enable.bit != 0 && reg(Self.dsoxFIFOCtrl4) >> 6 == 0b01
    }

    private mutating func push(_ word: TaggedWord) {
        guard !fifoStopped else { return }
        if taggedFIFO.count >= fifoCapacity {
            // Continuous mode overwrites the oldest word.
            taggedFIFO.removeFirst()
        }
        taggedFIFO.append(word)
        if taggedFIFO.count >= fifoCapacity {
            fifoOverrunLatched = true
            fifoStopped = fifoMode == 0b001
        }
    }

    /// DEC_FIFO_* code → decimation factor (0: not in FIFO).
    private static let decimation = [0, 1, 2, 3, 4, 8, 16, 32]

    private mutating func fillWordFIFO(to time: Double) {
        let ctrl3 = reg(Self.fifoCtrl3)
        let gyroFactor = gyroRate == nil ? 0 : Self.decimation[Int((ctrl3 >> 3) & 0b111)]
        let accelFactor = accelRate == nil ? 0 : Self.decimation[Int(ctrl3 & 0b111)]
        // The array of the previous call, its storage kept: no allocation per sample.
        var ticks: [Double] = []
        swap(&ticks, &fifoTickTimes)
        defer { swap(&ticks, &fifoTickTimes) }
        ticks.removeAll(keepingCapacity: true)
        fifoTicks += fifoClock.advance(to: time, keepingLast: fifoCapacity + 1) { ticks.append($0) } - ticks.count

        for tick in ticks {
            fifoTicks += 1
            let state = source.state(at: tick)
            // Data sets in pattern order: gyroscope first, then accelerometer (DS11889 §8 FIFO).
            var pattern = 0
            if gyroFactor > 0, fifoTicks % gyroFactor == 0 { pushWords(gyroCounts(state), pattern: &pattern) }
            if accelFactor > 0, fifoTicks % accelFactor == 0 { pushWords(accelCounts(state), pattern: &pattern) }
        }
    }

    /// One data set's x, y, z words, numbered by their position in the pattern from `pattern` on.
    private mutating func pushWords(_ set: SIMD3<Int16>, pattern: inout Int) {
        for axis in 0..<3 {
            defer { pattern += 1 }
            guard !fifoStopped else { continue }
            if wordFIFO.count >= fifoCapacity { wordFIFO.removeFirst() }  // continuous: oldest out
            wordFIFO.append((set[axis], pattern))
            fifoStopped = fifoMode == 0b001 && wordFIFO.count >= fifoCapacity
        }
    }

    // MARK: Bus access

    func pointer(after register: UInt8) -> UInt8 {
        guard autoIncrement else { return register }
        if inEmbeddedPage { return (register + 1) & 0x7F }
        if fifoKind == .tagged, !variant.dsvMap {
            // CTRL5_C ROUNDING[6:5]: circular burst over the accelerometer (01), gyroscope (10)
            // or both (11) output registers.
            switch ((reg(Self.ctrl5C) >> 5) & 0b11, register) {
            case (0b01, Self.outXLA + 5): return Self.outXLA
            case (0b10, Self.outXLG + 5), (0b11, Self.outXLA + 5): return Self.outXLG
            default: break
            }
        }
        // Reads of the FIFO output roll back to its first register so that many words can be
        // read in one burst.
        if fifoKind == .tagged, register == Self.dsoxFIFODataOutTag + 6 { return Self.dsoxFIFODataOutTag }
        if fifoKind == .untagged, register == Self.fifoDataOutH { return Self.fifoDataOutL }
        return (register + 1) & 0x7F
    }

    func peek(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        if inEmbeddedPage, address != Self.funcCfgAccess {
            switch address {
            case Self.stepCounterL: return UInt8(pedometer.count & 0xFF)
            case Self.stepCounterL + 1: return UInt8(pedometer.count >> 8)
            default: return embeddedRegisters[Int(address)]
            }
        }
        let status1 = fifoStatus1Address
        switch (fifoKind, address) {
        case (_, status1):
            return UInt8(fifoLevel & 0xFF)
        case (.tagged, status1 + 1):
            let level = fifoLevel
            var value = UInt8((level >> 8) & Int(variant.levelHighMask))
            if fifoThreshold > 0, level >= fifoThreshold { value |= 0x80 }  // FIFO_WTM_IA
            if level >= fifoCapacity { value |= 0x40 }                         // FIFO_OVR_IA: completely filled
            if level >= fifoCapacity - 1 { value |= 0x20 }                     // FIFO_FULL_IA: full at the next word
            if fifoOverrunLatched { value |= 0x08 }                           // FIFO_OVR_LATCHED
            return value
        case (.untagged, status1 + 1):
            let level = fifoLevel
            var value = UInt8((level >> 8) & Int(variant.levelHighMask))
            if fifoThreshold > 0, level >= fifoThreshold { value |= 0x80 }  // WaterM / FTH
            if level >= fifoCapacity { value |= 0x40 }                         // OVER_RUN: completely filled
            if level + 6 > fifoCapacity { value |= 0x20 }                      // FIFO_FULL_SMART: full at the next set
            if level == 0 { value |= 0x10 }                                    // FIFO_EMPTY
            return value
        case (.untagged, Self.fifoStatus3):
            return UInt8((wordFIFO.first?.pattern ?? 0) & 0xFF)
        case (.untagged, Self.fifoStatus4):
            return UInt8(((wordFIFO.first?.pattern ?? 0) >> 8) & 0b11)
        case (.tagged, Self.dsoxFIFODataOutTag...(Self.dsoxFIFODataOutTag + 6)):
            guard let word = taggedFIFO.first else { return 0 }
            return address == Self.dsoxFIFODataOutTag ? word.tag : word.data[Int(address - Self.dsoxFIFODataOutTag) - 1]
        case (.untagged, Self.fifoDataOutL...Self.fifoDataOutH):
            guard let word = wordFIFO.first?.word else { return 0 }
            return Encoding.littleEndian(word)[Int(address - Self.fifoDataOutL)]
        default:
            return registers[Int(address)]
        }
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        let value = peek(address)
        if inEmbeddedPage { return value }
        switch (fifoKind, address) {
        case (_, Self.outTempL...(Self.outTempL + 1)):
            registers[Int(Self.statusReg)] &= ~0b100
        case (_, Self.outXLG...(Self.outXLG + 5)):
            registers[Int(Self.statusReg)] &= ~0b010
        case (_, Self.outXLA...(Self.outXLA + 5)):
            registers[Int(Self.statusReg)] &= ~0b001
        case (.tagged, fifoStatus1Address + 1):
            fifoOverrunLatched = false
        case (.tagged, Self.dsoxFIFODataOutTag + 6):
            // The word leaves the FIFO once its last byte has been read.
            if !taggedFIFO.isEmpty { taggedFIFO.removeFirst() }
        case (.untagged, Self.fifoDataOutH):
            if !wordFIFO.isEmpty { wordFIFO.removeFirst() }
        default:
            break
        }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        if inEmbeddedPage, address != Self.funcCfgAccess {
            guard address != Self.stepCounterL, address != Self.stepCounterL + 1 else { return }  // read-only
            embeddedRegisters[Int(address)] = value
            if address == Self.embFuncEnA { pedometer.setEnabled(value & 0x08 != 0, at: time, source: source) }
            return
        }
        let enable = timestampEnable
        switch address {
        case Self.whoAmI, Self.statusReg, fifoStatus1Address...(fifoStatus1Address + 1), Self.outTempL...(Self.outXLA + 5):
            return  // read-only
        case Self.ctrl3C where value & 0x01 != 0:
            // SW_RESET: every register back to its power-on value; the bit clears itself.
            powerOnReset()
            return
        case Self.ctrl3C:
            registers[Int(address)] = value & 0x7F  // BOOT clears itself when the reboot is done
        case enable.register where fifoKind == .tagged:
            if value & enable.bit != 0, reg(address) & enable.bit == 0 { timestampOrigin = time }  // TIMESTAMP_EN: the counter starts
            registers[Int(address)] = value
        default:
            registers[Int(address)] = value
        }
        if address == (fifoKind == .tagged ? Self.dsoxFIFOCtrl4 : Self.fifoCtrl5), value & 0b111 == 0 {
            clearFIFO()  // bypass mode empties the FIFO
        }
        reconfigure(at: time)
    }
}

extension SimulatedBoard.IMU {
    /// the ST LSM6DSOX.
    public static let lsm6dsox = Self("lsm6dsox")
    /// the ST LSM6DSO32 (±32 g).
    public static let lsm6dso32 = Self("lsm6dso32")
    /// the ST LSM6DSL.
    public static let lsm6dsl = Self("lsm6dsl")
    /// the ST LSM6DS3.
    public static let lsm6ds3 = Self("lsm6ds3")
    /// the ST LSM6DSR or the ISM330DHCX (one chip to this library: WHO_AM_I 0x6B, ±4000 dps).
    public static let lsm6dsr = Self("lsm6dsr")
    /// the ST LSM6DSV16X or the LSM6DSV (one chip to this library: WHO_AM_I 0x70).
    public static let lsm6dsv16x = Self("lsm6dsv16x")
}
