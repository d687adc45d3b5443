import I2C

/// Driver for the Bosch BMI160 accelerometer + gyroscope (datasheet BST-BMI160-DS000), at 0x68
/// (SDO low) or 0x69 (SDO high), the addresses of the InvenSense MPU family:
/// ``ChipCatalog/identify(bus:address:lsm6dso32:)`` tells them apart by reading each one's own
/// identity register.
package final class BMI160IMU: CoreIMUDriver {
    /// The name in ``ChipInfo/name``.
    package static let chipName = BMI160Settings.name
    /// 200 Hz, ±4 g, ±500 °/s.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500)

    let core: DriverCore<BMI160Settings, IMUState<NoFIFOProgress>>
    /// FIFO_CONFIG_1 (0x47): 0x10 after a reset, what the driver wrote otherwise.
    static let configuredRegister = BMI160Register.fifoConfig1

    /// Bytes per header-mode FIFO frame with gyroscope and accelerometer (``BMI160FIFO/frameSize``).
    static let fifoFrameSize = BMI160FIFO.frameSize
    /// PMU_STATUS polls after the power-mode commands, 10 ms apart: the gyroscope needs up to 80 ms
    /// from suspend to normal (kernel BMI160_GYRO_PMU_MIN_USLEEP).
    static let powerUpPolls = 15

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x68), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        core = DriverCore(bus: bus, address: address, chip: Self.chipName, .bmi160, identity: BMI160Settings.identity, settings: BMI160Settings(),
                          pause: pause, resetCompletion: resetCompletion, configuration: defaultConfiguration,
                          scale: IMUScale(accelerometerLSBPerG: 16384, gyroscopeLSBPerDPS: 16.4))
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
                           polls: Self.powerUpPolls, interval: .milliseconds(10))
    }

    /// One 12-byte burst from DATA_8 (0x0C) to DATA_19 (0x17): gyroscope, then accelerometer.
    /// Under the driver's lock, so the counts are scaled by the ranges they were read at even
    /// while another thread reconfigures.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(BMI160Register.gyroscopeData, count: 12) { Self.decode($0, 0, scale: state.scale) }
        }
    }

    /// Gyroscope at `base`, accelerometer at `base + 6`: the data registers' order.
    private static func decode(_ bytes: UnsafeRawBufferPointer, _ base: Int, scale: IMUScale) -> IMUSample {
        scale.sample(accelerometer: AxisLayout.littleEndian.counts(bytes, from: base + 6),
                     gyroscope: AxisLayout.littleEndian.counts(bytes, from: base))
    }

    // MARK: FIFO (§2.5)

    /// Header mode with gyroscope and accelerometer in every frame and the sensortime frame
    /// (FIFO_CONFIG_1 = 0xD2), then a FIFO flush so the first frame read is the first taken in
    /// this format.
    package func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in
            try device.write(BMI160Register.fifoConfig1, BMI160FIFO.configuration)
            state.shadow[BMI160Register.fifoConfig1] = BMI160FIFO.configuration
            try flushFIFO(&state)
        }
    }

    /// CMD fifo_flush: the FIFO empties (its configuration stays) and the indices start again.
    private func flushFIFO(_ state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        try device.write(BMI160Register.command, BMI160Command.fifoFlush)
        state.fifoSamples = 0
    }

    /// Reads FIFO_LENGTH, then the frames below the fill level and 4 bytes more, in chunks of
    /// whole 13-byte frames, the last chunk carrying the 4 bytes past the fill level: read past
    /// its content, the chip sends the sensortime frame (§2.5.1.4), the chip's time of the last
    /// frame. The frames before it are one output data period apart on the same clock (the ODR
    /// is divided from the oscillator that counts sensortime: §2.3.1 Table 11), so each frame's
    /// ``FIFOFrame/chipTime`` is that time less its distance to the last frame in periods. A read
    /// without the sensortime frame leaves every frame untimed.
    ///
    /// A skip frame (the FIFO was full and the chip dropped the oldest frames) leads the frames
    /// the chip kept: the read is reported as overflowed with the chip's count in
    /// ``FIFORead/skippedFrames``, the kept frames are delivered, numbered past the gap (as
    /// Bosch's SensorAPI reads on after `unpack_skipped_frame`). A count of 255, the most the
    /// skip frame's byte holds, may stand for more: then, like a FIFO input config frame after
    /// the first frame (someone changed the configuration under the driver) or a header the
    /// driver cannot follow, the FIFO is flushed and the read reported as overflowed without
    /// frames.
    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            let filled = try device.burst(BMI160Register.fifoLength, count: 2) { length in Int(length[1] & 0x07) << 8 | Int(length[0]) }
            guard filled > 0 else { return }
            try device.readBoschFIFO(filled: filled, dataRegister: BMI160Register.fifoData, into: &read, state: &state) { state throws(SensorError) in
                try flushFIFO(&state)
            }
        }
    }

    // MARK: Self-test (§2.8)

    /// Accelerometer (§2.8.1): ±8 g at 1600 Hz (ACC_CONF 0x2C), positive then negative
    /// excitation with high amplitude (SELF_TEST 0x0D, 0x09), 50 ms each, 5 samples averaged;
    /// each axis's |positive − negative| must reach 2 g. Gyroscope (§2.8.2): gyr_self_test_enable
    /// (SELF_TEST 0x10), then after 50 ms STATUS gyr_self_test_ok must be set. Then resets and
    /// restores the configuration (the datasheet asks for a reset after the self-test).
    package func selfTest() throws(SensorError) -> SelfTestReport {
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
package enum BMI160SelfTest {
    /// - Parameters:
    ///   - accelerometerResponse: positive minus negative excitation per axis, mg.
    ///   - gyroscopeSelfTestOK: STATUS gyr_self_test_ok after the gyroscope's built-in test.
    package static func evaluate(chip: String, accelerometerResponse: SIMD3<Double>, gyroscopeSelfTestOK: Bool) -> SelfTestReport {
        let accelerometer = (0..<3).map {
            SelfTestReport.Axis(name: "accelerometer " + axisNames[$0], response: abs(accelerometerResponse[$0]),
                                limits: BMI160Settings.accelerometerSelfTestLimitMilliG, unit: "mg")
        }
        let gyroscope = SelfTestReport.Axis(
            name: "gyroscope (built-in test)", response: gyroscopeSelfTestOK ? 1 : 0, limits: 1...1, unit: "gyr_self_test_ok")
        return SelfTestReport(chip: chip, axes: accelerometer + [gyroscope])
    }
}
