import I2C
import Locking

/// Driver for the Bosch BMI270 accelerometer + gyroscope (datasheet BST-BMI270-DS000), at 0x68
/// (SDO low) or 0x69 (SDO high), the addresses of the InvenSense MPU family and the BMI160:
/// ``ChipCatalog`` tells them apart by each one's own identity register.
///
/// Unlike its predecessors the BMI270 does nothing useful until its feature engine runs, and the
/// engine runs only from a configuration file the host loads at every start-up (Bosch's, carried
/// in ``BMI270ConfigFile``): ``configure(_:)`` loads it and checks that the chip accepted it,
/// loading it once more before it gives up with ``SensorError/configurationFileRejected(chip:address:status:attempts:)``.
package final class BMI270IMU: CoreIMUDriver, StepCountingDriver {
    /// The name in ``ChipInfo/name``.
    package static let chipName = BMI270Settings.name
    /// 200 Hz, ±4 g, ±500 °/s.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500)

    let core: DriverCore<BMI270Settings, IMUState<NoFIFOProgress>>
    /// PWR_CTRL (0x7D): 0x00 after a reset (every sensor off), 0x0E as the driver leaves it (0x0F
    /// with a BMM150 on the auxiliary interface).
    static let configuredRegister = BMI270Register.powerControl

    /// Bytes per header-mode FIFO frame with gyroscope and accelerometer (``BMI160FIFO/frameSize``).
    static let fifoFrameSize = BMI160FIFO.frameSize
    /// Bytes of the configuration file per INIT_DATA write: 32, what an SMBus-only adapter's
    /// I2C block write carries; each write behind its own INIT_ADDR, so any even size works.
    static let uploadChunk = 32
    /// Uploads of the configuration file before the driver gives up.
    static let uploadAttempts = 2
    /// INTERNAL_STATUS polls after INIT_CTRL = 1, 10 ms apart, up to 200 ms: the kernel's
    /// bmi270_core.c waits 140 ms ("table C of the datasheet") before its one read.
    static let initializationPolls = 20

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x68), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        core = DriverCore(bus: bus, address: address, chip: Self.chipName, .bmi270, identity: BMI270Settings.identity, settings: BMI270Settings(),
                          pause: pause, resetCompletion: resetCompletion, configuration: defaultConfiguration,
                          scale: IMUScale(accelerometerLSBPerG: 8192, gyroscopeLSBPerDPS: 65.6))
    }

    /// Identify; soft reset and load the configuration file; rates, filters and ranges; FIFO
    /// off; accelerometer, gyroscope and temperature sensor on (PWR_CTRL last).
    func apply(_ configuration: IMUConfiguration, to state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        state = try program(configuration, BMI270Settings.tables.optionsWithChipFiltering(for: configuration, chip: chip.name),
                            map: BMI270Register.map, identity: BMI270Settings.identity, startUp: startFeatureEngine)
        try findAuxiliaryMagnetometer(&state)
    }

    /// The BMM150 on the auxiliary interface, once ``configure(_:)`` found one; nil otherwise.
    private let auxiliaryMagnetometer = Locked<BMI270AuxiliaryBMM150?>(nil)
    package var companionMagnetometer: (any MagnetometerDriver)? { auxiliaryMagnetometer.withLock { $0 } }

    /// Turns the auxiliary interface on (IF_CONF aux_en, PWR_CTRL aux_en, AUX_DEV_ID 0x10, manual
    /// mode) and asks for a BMM150 there; none: the interface off again (PWR_CTRL back to 0x0E).
    private func findAuxiliaryMagnetometer(_ state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        let powered = BMI270Register.sensorsOn | BMI270AuxiliaryRegister.powerOn
        try device.write(BMI270AuxiliaryRegister.interface, BMI270AuxiliaryRegister.interfaceOn)
        try device.write(BMI270Register.powerControl, powered)
        try device.write(BMI270AuxiliaryRegister.deviceID, BMI270AuxiliaryRegister.bmm150Address << 1)
        try device.write(BMI270AuxiliaryRegister.interfaceConfiguration, BMI270AuxiliaryRegister.manualEightBytes)
        let auxiliary = BMI270AuxiliaryBus(device: device, pause: pause)
        // An interface that stays busy (nothing on the auxiliary pins, no pull-ups) has no BMM150.
        var found = false
        do {
            found = try BMI270AuxiliaryBMM150.answers(auxiliary)
        } catch {
            guard case .dataTimeout = error else { throw error }
        }
        if found {
            state.shadow[BMI270Register.powerControl] = powered
            let existing = auxiliaryMagnetometer.withLock { $0 }
            if existing == nil { auxiliaryMagnetometer.withLock { $0 = BMI270AuxiliaryBMM150(device: device, pause: pause) } }
        } else {
            try device.write(BMI270AuxiliaryRegister.interface, 0)
            try device.write(BMI270Register.powerControl, BMI270Register.sensorsOn)
            auxiliaryMagnetometer.withLock { $0 = nil }
        }
    }

    /// The datasheet's initialization sequence, up to ``uploadAttempts`` times: CMD soft reset
    /// (2 ms), PWR_CONF = 0 (advanced power save off, 450 µs), INIT_CTRL = 0, the configuration
    /// file into INIT_DATA, INIT_CTRL = 1, then INTERNAL_STATUS polled until its message is
    /// init_ok. An upload that ends in init_err (or never leaves not_init), or that a bus error
    /// interrupts, is done again from the reset; after the last attempt the status (or the bus
    /// error) is thrown: the chip never runs without its configuration.
    private func startFeatureEngine() throws(SensorError) {
        var status: UInt8 = 0
        for attempt in 1...Self.uploadAttempts {
            do {
                status = try loadConfigurationFile()
                if BMI270Register.initMessage.code(in: status) == BMI270Register.initOK { return }
            } catch {
                guard case .bus = error, attempt < Self.uploadAttempts else { throw error }
            }
        }
        throw .configurationFileRejected(chip: chip.name, address: device.address, status: status, attempts: Self.uploadAttempts)
    }

    /// One reset and upload; returns INTERNAL_STATUS as it last read (the message no longer
    /// not_init, or still so after the polls). With ``ResetCompletion/fixedDelay`` (a plain
    /// register file) it waits the polls' time and reads the status once.
    private func loadConfigurationFile() throws(SensorError) -> UInt8 {
        try device.write(BMI270Register.command, BMI270Command.softReset)
        pause.wait(.milliseconds(2))
        try device.write(BMI270Register.powerConfig, 0x00)
        pause.wait(.microseconds(450))
        try device.write(BMI270Register.initControl, 0x00)
        let file = BMI270ConfigFile.bytes
        for start in stride(from: 0, to: file.count, by: Self.uploadChunk) {
            let word = start / 2
            try writeBurst(BMI270Register.initAddress0, [UInt8(word & 0x0F), UInt8(word >> 4)])
            try writeBurst(BMI270Register.initData, Array(file[start..<min(start + Self.uploadChunk, file.count)]))
        }
        try device.write(BMI270Register.initControl, 0x01)
        if core.resetCompletion == .fixedDelay {
            pause.wait(.milliseconds(10) * Self.initializationPolls)
            return try device.read(BMI270Register.internalStatus)
        }
        var status: UInt8 = 0
        for _ in 0..<Self.initializationPolls {
            pause.wait(.milliseconds(10))
            status = try device.read(BMI270Register.internalStatus)
            if BMI270Register.initMessage.code(in: status) != 0 { break }
        }
        return status
    }

    /// `values` written from `register` on in one write step.
    private func writeBurst(_ register: UInt8, _ values: [UInt8]) throws(SensorError) {
        do { try device.bus.writeRegisters(device.address, register, values) } catch { throw .bus(error) }
    }

    /// One 12-byte burst from DATA_8 (0x0C) to DATA_19 (0x17): accelerometer, then gyroscope.
    /// Under the driver's lock, so the counts are scaled by the ranges they were read at even
    /// while another thread reconfigures.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(BMI270Register.accelerometerData, count: 12) { bytes in
                state.scale.sample(accelerometer: AxisLayout.littleEndian.counts(bytes, from: 0),
                                   gyroscope: AxisLayout.littleEndian.counts(bytes, from: 6))
            }
        }
    }

    /// The accelerometer's self-test (datasheet "Accelerometer self-test"): ±16 g at 1600 Hz in
    /// performance mode (ACC_RANGE 0x03, ACC_CONF 0xAC), then ACC_SELF_TEST (0x6D) positive and
    /// negative excitation with high amplitude (0x0D, 0x09), 50 ms each, 5 samples averaged; the
    /// difference must reach 16 g on x, −15 g on y (that axis answers the other way) and 10 g on z
    /// (Bosch's BMI270 SensorAPI, BMI2_ST_ACC_X/Y/Z_SIG_MIN_DIFF 16000, −15000, 10000 mg). Then
    /// resets and restores the configuration. The gyroscope's self-test is the feature engine's
    /// (the g_trigger command): not run by this driver, so the report holds the accelerometer's axes.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { _ throws(SensorError) in
            try device.write(BMI270Register.accelerometerRange, 0x03)
            try device.write(BMI270Register.accelerometerConfig, 0xAC)
            pause.wait(.milliseconds(2))
            let positive = try excitedAverage(0x0D)
            let negative = try excitedAverage(0x09)
            try device.write(Self.selfTestRegister, 0x00)
            return BMI270SelfTest.evaluate(chip: chip.name, accelerometerResponse: (positive - negative) / 2048 * 1000)
        }
    }

    /// ACC_SELF_TEST: acc_self_test_amp bit 3, acc_self_test_sign bit 2, acc_self_test_en bit 0.
    static let selfTestRegister: UInt8 = 0x6D

    /// Accelerometer counts averaged with ACC_SELF_TEST = `selfTest`, after the 50 ms it takes to settle.
    private func excitedAverage(_ selfTest: UInt8) throws(SensorError) -> SIMD3<Double> {
        try device.write(Self.selfTestRegister, selfTest)
        pause.wait(.milliseconds(50))
        return try core.averageDiscardingFirst(count: 5, interval: .milliseconds(1)) { () throws(SensorError) in
            AxisLayout.littleEndian.counts(try device.read(BMI270Register.accelerometerData, count: 6))
        }
    }

    // MARK: FIFO

    /// FIFO_CONFIG_1 (0x49): fifo_gyr_en, fifo_acc_en and fifo_header_en.
    static let fifoConfiguration: UInt8 = BMI160FIFO.gyroscopeEnable | BMI160FIFO.accelerometerEnable | BMI160FIFO.headerEnable
    /// FIFO_CONFIG_0 (0x48): fifo_time_en, the sensortime frame after the last frame of a read past the fill level.
    static let fifoTimeEnable: UInt8 = 0x02

    /// Header mode with gyroscope and accelerometer in every frame and the sensortime frame, then
    /// a FIFO flush so the first frame read is the first taken in this format.
    package func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in
            try device.write(BMI270Register.fifoConfig0, Self.fifoTimeEnable)
            try device.write(BMI270Register.fifoConfig1, Self.fifoConfiguration)
            state.shadow[BMI270Register.fifoConfig0] = Self.fifoTimeEnable
            state.shadow[BMI270Register.fifoConfig1] = Self.fifoConfiguration
            try flushFIFO(&state)
        }
    }

    /// CMD fifo_flush: the FIFO empties (its configuration stays).
    private func flushFIFO(_ state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        try device.write(BMI270Register.command, BMI270Command.fifoFlush)
        state.fifoSamples = 0
    }

    /// Reads FIFO_LENGTH (14 bits), then the frames below the fill level and 4 bytes more, in
    /// chunks of whole frames, the last chunk carrying the 4 bytes past the fill level, where
    /// the chip sends the sensortime frame: the chip's time of the last frame; the frames before
    /// it are one output data period apart on the same clock, so each frame's
    /// ``FIFOFrame/chipTime`` is that time less its distance to the last frame in periods. The
    /// frames are the BMI160's (``BMI160FIFOStream``); skip frames, a configuration change and a
    /// header that cannot be followed are handled as ``BMI160IMU/readFIFO(into:)`` handles them.
    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            let filled = try device.burst(BMI270Register.fifoLength, count: 2) { length in Int(length[1] & 0x3F) << 8 | Int(length[0]) }
            guard filled > 0 else { return }
            try device.readBoschFIFO(filled: filled, dataRegister: BMI270Register.fifoData, into: &read, state: &state) { state throws(SensorError) in
                try flushFIFO(&state)
            }
        }
    }

    // MARK: Step counter

    /// The step counter's enable: feature page 6, byte 3 (0x33) bit 4 (datasheet "Feature
    /// configuration", step_counter.enable; SensorAPI BMI270_STEP_CNT_4_STRT_ADDR 0x02 + 1,
    /// BMI2_STEP_COUNT_FEAT_EN_MASK 0x10).
    static let stepCounterPage: UInt8 = 6
    static let stepCounterEnableByte = 3
    static let stepCounterEnableBit: UInt8 = 0x10
    /// The step count: feature page 0, bytes 0…3 (0x30–0x33), 32-bit little-endian (datasheet
    /// "Feature output"; SensorAPI BMI270_STEP_CNT_OUT_STRT_ADDR 0x00).
    static let stepCountPage: UInt8 = 0
    /// The counter as the pedometer reads it (``StepCountingDriver``): 32 bits. The datasheet's
    /// feature description gives neither a debounce nor a slowest rate for it (none found here):
    /// no held-back steps are assumed, and the 50 Hz is the rate Bosch's SensorAPI examples run
    /// the features at, not a datasheet limit.
    static let stepCounterFeature = StepCounterFeature(
        wrap: 1 << 32, minimumRate: 50, debounceSteps: 0,
        source: "BST-BMI270-DS000 feature output (step count, 32 bits, page 0 bytes 0–3); debounce and minimum rate not stated there")

    /// Sets step_counter.enable in feature page 6: the page read whole and written back with the
    /// bit set (the rest of the page holds the configuration file's parameters, which only the
    /// chip knows).
    package func enableStepCounter() throws(SensorError) {
        try core.locked { _ throws(SensorError) in
            try device.write(BMI270Register.featurePage, Self.stepCounterPage)
            var page = try device.read(BMI270Register.features, count: 16)
            page[Self.stepCounterEnableByte] |= Self.stepCounterEnableBit
            try writeBurst(BMI270Register.features, page)
        }
    }

    /// The step count, 32 bits (``BMI270Descriptor``'s ``StepCounterFeature/wrap``).
    package func readStepCounter() throws(SensorError) -> Int {
        try core.locked { _ throws(SensorError) -> Int in
            try device.write(BMI270Register.featurePage, Self.stepCountPage)
            return try device.burst(BMI270Register.features, count: 4) { bytes in
                Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
            }
        }
    }
}

/// Self-test decision for the BMI270 (pure: testable alone).
package enum BMI270SelfTest {
    /// Smallest positive-minus-negative difference per axis, mg, as a magnitude: x and z must
    /// reach it positive, y negative (SensorAPI BMI2_ST_ACC_X/Y/Z_SIG_MIN_DIFF).
    static let minimumDifferenceMilliG = SIMD3<Double>(16000, 15000, 10000)
    /// The sign each axis's difference has on a healthy part.
    static let sign = SIMD3<Double>(1, -1, 1)

    /// - Parameter accelerometerResponse: positive minus negative excitation per axis, mg.
    package static func evaluate(chip: String, accelerometerResponse: SIMD3<Double>) -> SelfTestReport {
        SelfTestReport(chip: chip, axes: (0..<3).map {
            SelfTestReport.Axis(
                name: "accelerometer " + axisNames[$0] + ($0 == 1 ? " (negative)" : ""), response: accelerometerResponse[$0] * sign[$0],
                limits: minimumDifferenceMilliG[$0]...Double.greatestFiniteMagnitude, unit: "mg")
        })
    }
}

/// Bosch's configuration file for the BMI270 (``bytes``, in `BMI270ConfigFile.swift` with
/// Bosch's licence notice).
enum BMI270ConfigFile {}
