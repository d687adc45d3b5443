import I2C

/// Driver for the Bosch BMI160 accelerometer + gyroscope (datasheet BST-BMI160-DS000), at 0x68
/// (SDO low) or 0x69 (SDO high), the addresses of the InvenSense MPU family:
/// ``ChipCatalog/identify(bus:address:lsm6dso32:)`` tells them apart by reading each one's own
/// identity register.
public final class BMI160IMU: CoreIMUDriver {
    /// The name in ``ChipInfo/name``.
    public static let chipName = BMI160Settings.name
    public let chip: ChipInfo
    /// 200 Hz, ±4 g, ±500 °/s.
    public let defaultConfiguration = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500)

    let core: DriverCore<BMI160Settings, IMUState<NoFIFOProgress>>
    /// FIFO_CONFIG_1 (0x47): 0x10 after a reset, what the driver wrote otherwise.
    static let configuredRegister = BMI160Register.fifoConfig1

    /// Bytes per headerless FIFO frame with gyroscope and accelerometer: gyroscope x, y, z then
    /// accelerometer x, y, z, 16 bit little-endian each (§2.5 FIFO, frame order mag, gyr, acc).
    static let fifoFrameSize = 12
    /// FIFO size in bytes (§2.5: 1024).
    static let fifoCapacity = 1024
    /// Most frames read from FIFO_DATA in one transaction.
    static let fifoChunkFrames = 16
    /// PMU_STATUS polls after the power-mode commands, 10 ms apart: the gyroscope needs up to 80 ms
    /// from suspend to normal (kernel BMI160_GYRO_PMU_MIN_USLEEP).
    static let powerUpPolls = 15

    public init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x68), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        core = DriverCore(bus: bus, address: address, settings: BMI160Settings(), pause: pause, resetCompletion: resetCompletion,
                          state: IMUState(configuration: defaultConfiguration, scale: IMUScale(accelerometerLSBPerG: 16384, gyroscopeLSBPerDPS: 16.4)))
        chip = ChipInfo(name: BMI160Settings.name, family: .bmi160, address: address, identity: [BMI160Settings.identity])
    }

    /// Identify; soft reset; accelerometer and gyroscope to normal mode and wait for PMU_STATUS
    /// to say so; rates, filters and ranges; FIFO off (FIFO_CONFIG_1 = 0, which also tells a
    /// later reset apart: its reset value is 0x10).
    func apply(_ configuration: IMUConfiguration, to state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        state = try program(configuration, BMI160Settings.tables.optionsWithChipFiltering(for: configuration, chip: chip.name),
                            map: BMI160Register.map, identity: BMI160Settings.identity, startUp: startSensors)
    }

    /// CMD soft reset (every register to its reset value, both sensors suspended), then the
    /// accelerometer and gyroscope normal-mode commands (§2.11 CMD), then PMU_STATUS polled until
    /// both report normal mode. The waits are the kernel's: 1 ms after the reset, 3.8 ms after
    /// the accelerometer command (bmi160_core.c BMI160_SOFTRESET_USLEEP, BMI160_ACCEL_PMU_MIN_USLEEP).
    private func startSensors() throws(SensorError) {
        try device.write(BMI160Register.command, BMI160Command.softReset)
        pause.wait(.milliseconds(1))
        try device.write(BMI160Register.command, BMI160Command.accelerometerNormal)
        pause.wait(.microseconds(3800))
        try device.write(BMI160Register.command, BMI160Command.gyroscopeNormal)
        try core.waitUntil(BMI160Register.powerModes, reads: BMI160Register.bothNormal,
                           polls: Self.powerUpPolls, interval: .milliseconds(10), chip: chip.name)
    }

    /// One 12-byte burst from DATA_8 (0x0C) to DATA_19 (0x17): gyroscope, then accelerometer.
    /// Under the driver's lock, so the counts are scaled by the ranges they were read at even
    /// while another thread reconfigures.
    public func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(BMI160Register.gyroscopeData, count: 12) { Self.decode($0, 0, scale: state.scale) }
        }
    }

    /// Gyroscope at `base`, accelerometer at `base + 6`: the data registers' order and the FIFO's.
    private static func decode(_ bytes: UnsafeRawBufferPointer, _ base: Int, scale: IMUScale) -> IMUSample {
        scale.sample(accelerometer: AxisLayout.littleEndian.counts(bytes, from: base + 6),
                     gyroscope: AxisLayout.littleEndian.counts(bytes, from: base))
    }

    // MARK: FIFO (§2.5)

    /// Headerless mode with gyroscope and accelerometer in every frame (FIFO_CONFIG_1 = 0xC0), then
    /// a FIFO flush so the first frame read is the first taken in this format.
    public func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in
            let value: UInt8 = 0xC0  // fifo_gyr_en, fifo_acc_en; fifo_header_en = 0
            try device.write(BMI160Register.fifoConfig1, value)
            state.shadow[BMI160Register.fifoConfig1] = value
            try device.write(BMI160Register.command, BMI160Command.fifoFlush)
            state.fifoSamples = 0
        }
    }

    /// Reads FIFO_LENGTH, then whole 12-byte frames from FIFO_DATA in chunks. The FIFO keeps the
    /// newest data when full and headerless frames carry no overflow mark, so a FIFO without room
    /// for one more frame is taken as overflowed: frames may have been lost, and it is flushed
    /// instead of read.
    public func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            let bytes = try device.burst(BMI160Register.fifoLength, count: 2) { length in Int(length[1] & 0x07) << 8 | Int(length[0]) }
            if bytes + Self.fifoFrameSize > Self.fifoCapacity {
                try device.write(BMI160Register.command, BMI160Command.fifoFlush)
                state.fifoSamples = 0
                read.overflowed = true
                return
            }
            let scale = state.scale
            try device.readFIFOFrames(
                bytes / Self.fifoFrameSize, from: BMI160Register.fifoData, frameSize: Self.fifoFrameSize,
                chunkFrames: Self.fifoChunkFrames, nextIndex: &state.fifoSamples, into: &read.frames
            ) { bytes, base in Self.decode(bytes, base, scale: scale) }
        }
    }

    // MARK: Self-test (§2.8)

    /// Accelerometer (§2.8.1): ±8 g at 1600 Hz (ACC_CONF 0x2C), positive then negative
    /// excitation with high amplitude (SELF_TEST 0x0D, 0x09), 50 ms each, 5 samples averaged;
    /// each axis's |positive − negative| must reach 2 g. Gyroscope (§2.8.2): gyr_self_test_enable
    /// (SELF_TEST 0x10), then after 50 ms STATUS gyr_self_test_ok must be set. Then resets and
    /// restores the configuration (the datasheet asks for a reset after the self-test).
    public func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { _ throws(SensorError) in
            let range = try BMI160Settings.tables.accelerometerRange(8, chip: chip.name)
            let rate = try BMI160Settings.tables.rate(1600, chip: chip.name)
            let config = BMI160Register.accelerometerBandwidth.setting(
                BMI160Settings.normalFilter, in: BMI160Register.map.accelerometerRate.setting(rate.code, in: 0))
            try device.write(BMI160Register.accelerometerConfig, config)
            try device.write(BMI160Register.accelerometerRange, BMI160Register.map.accelerometerRange.setting(range.code, in: 0))
            let positive = try excitedAverage(0x0D)  // amp high, sign positive, enable
            let negative = try excitedAverage(0x09)  // amp high, sign negative, enable
            try device.write(BMI160Register.selfTest, 0x10)  // gyr_self_test_enable
            pause.wait(.milliseconds(50))
            let gyroscopeOK = try device.read(BMI160Register.status) & 0x02 != 0
            try device.write(BMI160Register.selfTest, 0x00)
            let report = BMI160SelfTest.evaluate(
                chip: chip.name, accelerometerResponse: (positive - negative) / range.sensitivity * 1000,
                gyroscopeSelfTestOK: gyroscopeOK)
            return report
        }
    }

    /// Accelerometer counts averaged with SELF_TEST = `selfTest`, after the 50 ms it takes to settle.
    private func excitedAverage(_ selfTest: UInt8) throws(SensorError) -> SIMD3<Double> {
        try device.write(BMI160Register.selfTest, selfTest)
        pause.wait(.milliseconds(50))
        return try core.averageDiscardingFirst(count: 5, interval: .milliseconds(1)) { () throws(SensorError) in
            AxisLayout.littleEndian.counts(try device.read(BMI160Register.accelerometerData, count: 6))
        }
    }
}

/// Self-test decision for the BMI160 (pure: testable alone).
public enum BMI160SelfTest {
    /// - Parameters:
    ///   - accelerometerResponse: positive minus negative excitation per axis, mg.
    ///   - gyroscopeSelfTestOK: STATUS gyr_self_test_ok after the gyroscope's built-in test.
    public static func evaluate(chip: String, accelerometerResponse: SIMD3<Double>, gyroscopeSelfTestOK: Bool) -> SelfTestReport {
        let accelerometer = (0..<3).map {
            SelfTestReport.Axis(name: "accelerometer " + axisNames[$0], response: abs(accelerometerResponse[$0]),
                                limits: BMI160Settings.accelerometerSelfTestLimitMilliG, unit: "mg")
        }
        let gyroscope = SelfTestReport.Axis(
            name: "gyroscope (built-in test)", response: gyroscopeSelfTestOK ? 1 : 0, limits: 1...1, unit: "gyr_self_test_ok")
        return SelfTestReport(chip: chip, axes: accelerometer + [gyroscope])
    }
}
