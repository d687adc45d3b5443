import I2C
import Locking

/// Driver for the Bosch BNO055 (datasheet BST-BNO055-DS000): accelerometer, gyroscope and
/// magnetometer with an on-chip fusion processor, at 0x28 (COM3 low) or 0x29 (COM3 high).
///
/// The driver runs the chip in NDOF (9-axis fusion) mode. The raw data registers stay valid in
/// fusion modes, so one 32-byte burst from ACC_DATA_X_LSB (0x08) to QUA_DATA_Z_MSB (0x27) gives
/// the accelerometer, magnetometer and gyroscope for this library's own fusion *and* the chip's
/// quaternion (``IMUSample/chipOrientation``), in one transaction. In NDOF the chip fixes its
/// sensors' settings: ±4 g, ±2000 °/s, 100 Hz, the magnetometer at 20 Hz.
///
/// The magnetometer shares the chip and its address. ``companionMagnetometer`` is its driver: it
/// hands on the field of the IMU's last burst (no bus access), and reads MAG_DATA itself only
/// when no burst came first. This keeps one transaction per sample for the whole chip while the
/// rest of the library sees the usual IMU + magnetometer pair (the ICM-20948's AK09916 is a
/// separate die at its own address, so there a separate driver on the bus is the natural model;
/// here it is not).
///
/// The chip has no FIFO (its descriptor has no ``ChipDescriptor/fifo``, so ``IMUDriver/hasFIFO``
/// is false): ``enableFIFO()`` and ``readFIFO(into:)`` throw ``SensorError/notSupported(chip:feature:)``.
///
/// On a Raspberry Pi the BNO055 stretches the I2C clock longer than the Pi's controller handles:
/// reads fail or return garbage now and then. `motionctl doctor` recognises this and names the fix.
package final class BNO055IMU: CoreIMUDriver {
    /// The name in ``ChipInfo/name``.
    package static let chipName = BNO055Settings.name
    /// 100 Hz, ±4 g, ±2000 °/s: the settings NDOF fixes.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 100, accelerometerRange: 4, gyroscopeRange: 2000)
    /// The magnetometer on the same chip.
    package let magnetometer: BNO055Magnetometer
    package var companionMagnetometer: (any MagnetometerDriver)? { magnetometer }
    package var providesChipOrientation: Bool { true }

    let core: DriverCore<BNO055Settings, IMUState<NoFIFOProgress>>
    /// OPR_MODE: NDOF while configured, CONFIG (0) after a reset.
    static let configuredRegister = BNO055Register.operationMode

    /// The chip needs about 650 ms to boot after RST_SYS (datasheet §1.2 "Power-on reset time";
    /// kernel bno055_system_reset sleeps 650–700 ms). The driver waits 600 ms, then polls CHIP_ID
    /// every 50 ms, at most 10 times: done between 650 ms and 1.1 s.
    static let resetSettle = Duration.milliseconds(600)
    static let resetPolls = 10
    /// Any mode → CONFIG takes up to 19 ms, CONFIG → any mode 7 ms (datasheet §3.3 Table 3-6;
    /// the kernel waits 20 ms either way).
    static let modeSwitch = Duration.milliseconds(20)
    /// The built-in self-test: SYS_STATUS polled every 100 ms, at most 20 times, until it is no
    /// longer "executing self-test".
    static let selfTestPolls = 20

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x28), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        let scale = IMUScale(accelerometerLSBPerG: BNO055Settings.accelerometerLSBPerG, gyroscopeLSBPerDPS: BNO055Settings.lsb.perDegreePerSecond)
        core = DriverCore(bus: bus, address: address, chip: Self.chipName, .bno055, identity: BNO055Settings.identity, settings: BNO055Settings(),
                          pause: pause, resetCompletion: resetCompletion, configuration: defaultConfiguration, scale: scale)
        magnetometer = BNO055Magnetometer(device: RegisterDevice(bus: bus, address: address))
    }

    /// Identify (CHIP_ID, a read); CONFIG mode; RST_SYS and wait until CHIP_ID reads again;
    /// page 0; normal power; UNIT_SEL = 0 (m/s², °/s, degrees, °C, Windows orientation); the
    /// internal oscillator; NDOF. AXIS_MAP_CONFIG/SIGN keep their reset values (chip axes as
    /// printed; the board's mount matrix maps them to the device).
    func apply(_ configuration: IMUConfiguration, to state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        let name = chip.name
        _ = try BNO055Settings.tables.optionsWithChipFiltering(for: configuration, chip: name)
        try device.checkIdentity(BNO055Register.chipID, expected: [BNO055Settings.identity], chip: name)
        try reset()
        var shadow = ShadowRegisters([:])
        try device.write(BNO055Register.pageID, 0)
        try device.write(BNO055Register.powerMode, 0)
        try device.write(BNO055Register.unitSelection, 0)
        try device.write(BNO055Register.systemTrigger, 0)
        shadow[BNO055Register.operationMode] = BNO055Mode.nineDegreesOfFreedom
        try core.write(shadow, [BNO055Register.operationMode])
        pause.wait(Self.modeSwitch)
        magnetometer.forget()
        state = IMUState(configuration: configuration, shadow: shadow, scale: state.scale)
    }

    /// CONFIG mode, then RST_SYS, then the bounded wait for CHIP_ID (the chip does not answer
    /// while it boots: such polls count as "not yet").
    private func reset() throws(SensorError) {
        try device.write(BNO055Register.operationMode, BNO055Mode.config)
        pause.wait(Self.modeSwitch)
        try device.write(BNO055Register.systemTrigger, BNO055Trigger.resetSystem)
        pause.wait(Self.resetSettle)
        // CHIP_ID read whole: the chip is back when it reads its identity again.
        try core.waitUntil(RegisterField(BNO055Register.chipID, mask: 0xFF), reads: BNO055Settings.identity,
                           polls: Self.resetPolls, interval: .milliseconds(50))
    }

    /// One 32-byte burst from ACC_DATA_X_LSB: accelerometer, magnetometer, gyroscope, Euler
    /// angles, quaternion. The magnetometer part is kept for ``magnetometer``.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(BNO055Register.accelerometerData, count: BNO055Register.dataBlockLength) { bytes in
                let accelerometer = AxisLayout.littleEndian.counts(bytes, from: 0)
                let gyroscope = AxisLayout.littleEndian.counts(bytes, from: BNO055Register.blockOffsets.gyroscope)
                var sample = state.scale.sample(accelerometer: accelerometer, gyroscope: gyroscope)
                sample.isSaturated = sample.isSaturated || Self.atFusionLimit(accelerometer, gyroscope)
                let q = BNO055Register.blockOffsets.quaternion
                let w = AxisLayout.littleEndian.counts(bytes, from: q), xyz = AxisLayout.littleEndian.counts(bytes, from: q + 2)
                sample.chipOrientation = ChipOrientation(
                    wxyz: SIMD4(Double(w.x), Double(xyz.x), Double(xyz.y), Double(xyz.z)) / BNO055Settings.lsb.perQuaternionUnit)
                magnetometer.keep(AxisLayout.littleEndian.counts(bytes, from: BNO055Register.blockOffsets.magnetometer))
                return sample
            }
        }
    }

    /// The outputs are in physical units, so a full scale is far from the 16-bit limit: ±4 g is
    /// ±3923 counts, ±2000 °/s ±32000.
    private static func atFusionLimit(_ accelerometer: SIMD3<Int16>, _ gyroscope: SIMD3<Int16>) -> Bool {
        let accelerometerLimit = 4 * BNO055Settings.accelerometerLSBPerG, gyroscopeLimit = 2000 * BNO055Settings.lsb.perDegreePerSecond
        for axis in 0..<3 {
            if abs(Double(accelerometer[axis])) >= accelerometerLimit.rounded(.down) || abs(Double(gyroscope[axis])) >= gyroscopeLimit {
                return true
            }
        }
        return false
    }

    package func enableFIFO() throws(SensorError) {
        throw .notSupported(chip: chip.name, feature: "FIFO")
    }

    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        throw .notSupported(chip: chip.name, feature: "FIFO")
    }

    // MARK: Self-test (datasheet §3.9.2 "Built-in self-test")

    /// CONFIG mode, SYS_TRIGGER Self_Test, wait while SYS_STATUS says "executing self-test",
    /// then ST_RESULT: one pass/fail line each for the accelerometer, magnetometer, gyroscope and
    /// microcontroller. Then resets and restores the configuration.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { _ throws(SensorError) in
            try device.write(BNO055Register.operationMode, BNO055Mode.config)
            pause.wait(Self.modeSwitch)
            try device.write(BNO055Register.systemTrigger, BNO055Trigger.selfTest)
            try waitForSelfTest()
            let result = try device.read(BNO055Register.selfTestResult)
            let report = BNO055SelfTest.evaluate(chip: chip.name, result: result)
            return report
        }
    }

    private func waitForSelfTest() throws(SensorError) {
        if core.resetCompletion == .fixedDelay {
            pause.wait(.milliseconds(100) * Self.selfTestPolls)
            return
        }
        for _ in 0..<Self.selfTestPolls {
            pause.wait(.milliseconds(100))
            if try device.read(BNO055Register.systemStatus) != BNO055Settings.executingSelfTest { return }
        }
        throw .dataTimeout(chip: chip.name, address: device.address, polls: Self.selfTestPolls)
    }
}

/// Self-test decision for the BNO055 (pure: testable alone).
package enum BNO055SelfTest {
    /// - Parameter result: ST_RESULT: bit set = that part passed its built-in test.
    package static func evaluate(chip: String, result: UInt8) -> SelfTestReport {
        SelfTestReport(chip: chip, axes: BNO055Settings.selfTestBits.map { part in
            SelfTestReport.Axis(name: part.name + " (built-in test)", response: result & part.bit != 0 ? 1 : 0,
                                limits: 1...1, unit: "ST_RESULT bit")
        })
    }
}

/// The BNO055's magnetometer: the same chip and address as ``BNO055IMU``, which configures it
/// (NDOF runs it at 20 Hz). ``readSample()`` returns the field of the IMU's last burst once,
/// without a bus access; with none waiting it reads MAG_DATA (0x0E–0x13) in one transaction.
package final class BNO055Magnetometer: MagnetometerDriver {
    package let chip: ChipInfo
    /// 20 Hz, ±1300 µT: what NDOF runs the magnetometer at.
    package let defaultConfiguration = MagnetometerConfiguration(outputDataRate: 20, range: 1300)
    private let device: RegisterDevice
    private let state = Locked<(configuration: MagnetometerConfiguration, waiting: SIMD3<Int16>?)>(
        (MagnetometerConfiguration(outputDataRate: 20, range: 1300), nil))

    init(device: RegisterDevice) {
        self.device = device
        chip = ChipInfo(name: BNO055Settings.magnetometerName, family: .bno055, address: device.address,
                        identity: [BNO055Settings.magnetometerIdentity])
    }

    package var configuration: MagnetometerConfiguration { state.withLock { $0.configuration } }

    /// Checks the request against what NDOF runs and that the chip answers (CHIP_ID); the IMU's
    /// ``BNO055IMU/configure(_:)`` does the chip's setup.
    package func configure(_ configuration: MagnetometerConfiguration) throws(SensorError) {
        let name = chip.name
        _ = try lookup(configuration.outputDataRate, in: BNO055Settings.magnetometerRates, setting: "output data rate", unit: "Hz", chip: name)
        _ = try lookup(configuration.range, in: BNO055Settings.magnetometerRanges, setting: "range", unit: "µT", chip: name)
        try device.checkIdentity(BNO055Register.chipID, expected: [BNO055Settings.identity], chip: name)
        state.withLock { $0 = (configuration, nil) }
    }

    package func readSample() throws(SensorError) -> MagneticSample {
        let counts: SIMD3<Int16>
        if let waiting = state.withLock({ state -> SIMD3<Int16>? in defer { state.waiting = nil }; return state.waiting }) {
            counts = waiting
        } else {
            counts = try device.burst(BNO055Register.magnetometerData, count: 6) { AxisLayout.littleEndian.counts($0) }
        }
        let perMicrotesla = BNO055Settings.lsb.perMicrotesla
        let field = SIMD3<Double>(Double(counts.x), Double(counts.y), Double(counts.z)) / perMicrotesla
        return MagneticSample(field: field, isSaturated: isAtLimit(counts),
                              raw: RawMagneticReading(counts: counts, lsbPerMicrotesla: SIMD3(repeating: perMicrotesla)))
    }

    /// Reads OPR_MODE: the chip is configured while it runs NDOF.
    package func isStillConfigured() throws(SensorError) -> Bool {
        try device.read(BNO055Register.operationMode) == BNO055Mode.nineDegreesOfFreedom
    }

    /// The chip's built-in test covers the magnetometer: run ``BNO055IMU/selfTest()``.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "separate self-test (the BNO055 IMU self-test covers the magnetometer)")
    }

    /// The field counts of the IMU's burst, handed on by the next ``readSample()``.
    func keep(_ counts: SIMD3<Int16>) { state.withLock { $0.waiting = counts } }
    /// Drops a field read before a reset.
    func forget() { state.withLock { $0.waiting = nil } }
}
