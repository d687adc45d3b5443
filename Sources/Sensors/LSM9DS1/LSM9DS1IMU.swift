import I2C

/// Driver for the accelerometer and gyroscope of the ST LSM9DS1 (0x6A or 0x6B; the Raspberry Pi
/// Sense HAT has it at 0x6A). Its magnetometer is a separate I2C device at 0x1C/0x1E with the
/// LIS3MDL's register map and identity: ``LIS3MDLMagnetometer`` serves it.
///
/// The register map differs from the LSM6 family (3-bit ODR fields, control registers at
/// 0x10/0x20/0x22, gyroscope output before a gap of control registers, a 32-level FIFO read
/// through the output registers), so this is its own small driver on the shared
/// ``DriverCore``, ``IMUTables`` and ``IMUScale``.
public final class LSM9DS1IMU: CoreIMUDriver {
    public let chip: ChipInfo
    /// 119 Hz, ±4 g, ±500 °/s.
    public let defaultConfiguration = IMUConfiguration(outputDataRate: 119, accelerometerRange: 4, gyroscopeRange: 500)

    private typealias Register = LSM9DS1Register
    let core: DriverCore<LSM9DS1Settings, IMUState<NoFIFOProgress>>
    /// CTRL_REG1_G (0x10): 0x00 after a reset, the rate and range after ``configure(_:)``.
    static let configuredRegister = LSM9DS1Register.ctrlReg1G

    /// One sample is the burst OUT_TEMP_L (0x15) … OUT_Z_H_XL (0x2D): temperature at 0, STATUS_REG
    /// at 2, gyroscope at 3…8, the control registers 0x1E…0x27 (read, ignored), accelerometer at
    /// 19…24. Within the SMBus 32-byte block limit, so one transaction on every adapter.
    static let sampleLength = 25
    static let gyroscopeOffset = 3
    static let accelerometerOffset = 19

    public init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x6A), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        let settings = LSM9DS1Settings()
        core = DriverCore(bus: bus, address: address, settings: settings, pause: pause, resetCompletion: resetCompletion,
                          state: IMUState(configuration: defaultConfiguration, scale: IMUScale(accelerometerLSBPerG: 1, gyroscopeLSBPerDPS: 1)))
        chip = ChipInfo(name: Self.name, family: .lsm9ds1, address: address, identity: [settings.identity])
    }

    public static let name = "LSM9DS1"

    /// Identify; SW_RESET and wait for it to clear (CTRL_REG8); BDU + IF_ADD_INC; ranges; the
    /// rate last (CTRL_REG1_G starts both sensors). ODR_XL gets the same code: it only matters
    /// with the gyroscope off.
    func apply(_ configuration: IMUConfiguration, to state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        state = try program(configuration, settings.tables.optionsWithChipFiltering(for: configuration, chip: chip.name, checkingTablesFirst: true),
                            map: Register.map, identity: settings.identity)
    }

    /// One 25-byte burst from OUT_TEMP_L (0x15) to OUT_Z_H_XL (0x2D), scaled under the lock.
    public func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(Register.outTempL, count: Self.sampleLength) { bytes in
                state.scale.sample(
                    accelerometer: AxisLayout.littleEndian.counts(bytes, from: Self.accelerometerOffset),
                    gyroscope: AxisLayout.littleEndian.counts(bytes, from: Self.gyroscopeOffset),
                    temperature: Double(int16LE(bytes, 0)) / settings.temperatureLSBPerDegree + 25)
            }
        }
    }

    // MARK: FIFO

    /// Continuous mode (§3.5.3): bypass first (empties the FIFO), FIFO_EN in CTRL_REG9, then
    /// FMODE = 110. Each level holds a gyroscope and an accelerometer set taken at the same ODR tick.
    public func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in try startFIFO(&state) }
    }

    private func startFIFO(_ state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        try device.write(Register.fifoCtrl, Register.fifoBypass)
        try device.write(Register.ctrlReg9, Register.fifoEnable)
        try device.write(Register.fifoCtrl, Register.fifoContinuous)
        state.restartFIFO()
    }

    /// FIFO_SRC (0x2F): OVRN (bit 6) means the oldest level was overwritten, so the frame count
    /// no longer matches the chip's clock: the FIFO is restarted and the read reports the overflow
    /// (as the LSM6 driver does). Otherwise FSS (5:0) levels are read, oldest first. With the
    /// FIFO on, the output registers show the oldest level (§3.5): each level is read as the
    /// gyroscope set (OUT_X_L_G 0x18, 6 bytes) then the accelerometer set (OUT_X_L_XL 0x28,
    /// 6 bytes), and the FIFO moves on to the next level after the accelerometer set. Two plain
    /// reads per level do not depend on how the address pointer wraps in FIFO mode.
    public func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            let source = try device.read(Register.fifoSrc)
            if source & Register.fifoOverrun != 0 {
                try startFIFO(&state)
                read.overflowed = true
                return
            }
            let unread = min(Int(source & Register.fifoUnreadMask), settings.fifoDepth)
            for _ in 0..<unread {
                let gyroscope = try device.burst(Register.outXLG, count: 6) { AxisLayout.littleEndian.counts($0) }
                let accelerometer = try device.burst(Register.outXLXL, count: 6) { AxisLayout.littleEndian.counts($0) }
                read.frames.append(FIFOFrame(
                    sampleIndex: state.fifoSamples, sample: state.scale.sample(accelerometer: accelerometer, gyroscope: gyroscope)))
                state.fifoSamples += 1
            }
        }
    }

    // MARK: Self-test

    /// ST's procedure for this chip (lsm9ds1_self_test.c in STMems_Standard_C_drivers; ST_XL
    /// and ST_G in CTRL_REG10): accelerometer alone at 50 Hz ±2 g, gyroscope at 238 Hz
    /// ±2000 °/s; for each, after settling (200 ms / 800 ms) one sample discarded and 5 averaged
    /// without and with self-test; |difference| within the limits. Then resets and restores the
    /// configuration.
    public func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { _ throws(SensorError) in
            let name = chip.name
            let accelerometerRange = try settings.tables.accelerometerRange(2, chip: name)
            let gyroscopeRange = try settings.tables.gyroscopeRange(2000, chip: name)
            let rate50 = try lookup(50, in: settings.accelerometerOnlyRates, setting: "accelerometer rate", unit: "Hz", chip: name)
            let rate238 = try settings.tables.rate(238, chip: name)

            try device.write(Register.ctrlReg8, Register.blockDataUpdate | Register.autoIncrement)
            try device.write(Register.ctrlReg1G, 0)
            try device.write(Register.ctrlReg10, 0)
            let accelerometerResponse = try selfTestResponse(
                Register.ctrlReg6XL,
                Register.map.accelerometerRange.setting(accelerometerRange.code, in: Register.map.accelerometerRate.setting(rate50.code, in: 0)),
                selfTest: Register.accelerometerSelfTest, settle: .milliseconds(200), interval: .milliseconds(20),
                offset: Self.accelerometerOffset)
            let gyroscopeResponse = try selfTestResponse(
                Register.ctrlReg1G,
                Register.map.gyroscopeRange.setting(gyroscopeRange.code, in: Register.map.gyroscopeRate.setting(rate238.code, in: 0)),
                selfTest: Register.gyroscopeSelfTest, settle: .milliseconds(800), interval: .milliseconds(5),
                offset: Self.gyroscopeOffset)

            let report = LSM6SelfTest.evaluate(
                chip: name,
                accelerometerResponse: accelerometerResponse / accelerometerRange.sensitivity * 1000,
                gyroscopeResponse: gyroscopeResponse / gyroscopeRange.sensitivity,
                accelerometerLimits: settings.accelerometerSelfTestLimits, gyroscopeLimits: settings.gyroscopeSelfTestLimits)
            return report
        }
    }

    /// One sensor's self-test response in counts (CTRL_REG10 holds ST_XL/ST_G).
    private func selfTestResponse(
        _ control: UInt8, _ value: UInt8, selfTest: UInt8, settle: Duration, interval: Duration, offset: Int
    ) throws(SensorError) -> SIMD3<Double> {
        try core.selfTestResponse(
            control: control, value: value, selfTestRegister: Register.ctrlReg10, selfTest: selfTest, settle: settle, interval: interval
        ) { () throws(SensorError) in
            AxisLayout.littleEndian.counts(try device.read(Register.outTempL, count: Self.sampleLength), from: offset)
        }
    }
}
