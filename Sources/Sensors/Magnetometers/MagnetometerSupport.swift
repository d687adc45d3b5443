import I2C

/// What differs between magnetometers that the shared code needs: identity, the rate and range
/// tables (range in µT → code, sensitivity in LSB/µT), the reset bit, and where the output sits.
struct MagnetometerSettings: Sendable {
    var name: String
    var family: ChipInfo.Family
    var identityRegister: UInt8
    var identity: [UInt8]
    var outputDataRates: [SettingOption]
    var ranges: [SettingOption]
    /// The software-reset bit, set and polled until the chip clears it; `nil` for a chip without one.
    var softReset: RegisterField?
    /// The control register ``MagnetometerCore/isStillConfigured()`` reads back.
    var configurationRegister: UInt8
    /// The burst read for one sample: first register (with any auto-increment flag), length, and
    /// where x, y, z sit in it.
    var outputRegister: UInt8
    var outputCount: Int
    var axes: AxisLayout = .littleEndian
    /// Whether a burst reports a magnetic overflow (status bits or marker values), beyond an axis
    /// at its 16-bit limit.
    var overflow: @Sendable (_ bytes: UnsafeRawBufferPointer, _ counts: SIMD3<Int16>) -> Bool = { _, _ in false }

    func chip(at address: I2CAddress) -> ChipInfo {
        ChipInfo(name: name, family: family, address: address, identity: identity)
    }

    func rate(_ configuration: MagnetometerConfiguration) throws(SensorError) -> SettingOption {
        try lookup(configuration.outputDataRate, in: outputDataRates, setting: "output data rate", unit: "Hz", chip: name)
    }

    func range(_ configuration: MagnetometerConfiguration) throws(SensorError) -> SettingOption {
        try lookup(configuration.range, in: ranges, setting: "range", unit: "µT", chip: name)
    }
}

/// State every magnetometer driver keeps under its lock.
struct MagnetometerState: DriverState {
    var configuration: MagnetometerConfiguration
    var shadow = ShadowRegisters([:])
    /// Counts per µT of the selected range.
    var lsbPerMicrotesla: Double = 1
    /// Factory sensitivity adjustment per axis (the AK8963's ASA); 1 on other chips.
    var adjustment = SIMD3<Double>(repeating: 1)
    /// The last finished measurement of a chip measuring on command (the AK8975), returned when
    /// a read finds none newer.
    var lastSample: MagneticSample?
}

typealias MagnetometerCore = DriverCore<MagnetometerSettings, MagnetometerState>

extension DriverCore where Settings == MagnetometerSettings, State == MagnetometerState {
    init(bus: any I2CBus, address: I2CAddress, settings: MagnetometerSettings, defaultConfiguration: MagnetometerConfiguration,
         pause: Pause, resetCompletion: ResetCompletion) {
        self.init(bus: bus, address: address, chip: settings.name, settings.family, identity: settings.identity, settings: settings,
                  pause: pause, resetCompletion: resetCompletion, state: MagnetometerState(configuration: defaultConfiguration))
    }

    /// The start of every configuration: look up rate and range (exact match), check the
    /// identity, then reset the chip where it has a reset bit (10 polls, 1 ms apart).
    func start(_ configuration: MagnetometerConfiguration) throws(SensorError) -> (rate: SettingOption, range: SettingOption) {
        let rate = try settings.rate(configuration)
        let range = try settings.range(configuration)
        try device.checkIdentity(settings.identityRegister, expected: settings.identity, chip: settings.name)
        if let field = settings.softReset {
            try softReset(field, polls: 10, interval: .milliseconds(1))
        }
        return (rate, range)
    }

    /// One burst read of the output registers: the counts in x, y, z order and the overflow flag.
    func readCounts() throws(SensorError) -> (counts: SIMD3<Int16>, overflow: Bool) {
        try device.burst(settings.outputRegister, count: settings.outputCount) { bytes in
            let counts = settings.axes.counts(bytes)
            return (counts, settings.overflow(bytes, counts))
        }
    }

    /// One sample in µT: counts × adjustment / (LSB per µT). Under the driver's lock, so the
    /// counts are scaled by the range they were read at even while another thread reconfigures.
    func readSample() throws(SensorError) -> MagneticSample {
        try locked { state throws(SensorError) -> MagneticSample in
            let (raw, overflow) = try readCounts()
            return MagneticSample(
                field: SIMD3(Double(raw.x), Double(raw.y), Double(raw.z)) * state.adjustment / state.lsbPerMicrotesla,
                isSaturated: overflow || isAtLimit(raw),
                raw: RawMagneticReading(counts: raw, lsbPerMicrotesla: SIMD3(repeating: state.lsbPerMicrotesla) / state.adjustment))
        }
    }

    func isStillConfigured() throws(SensorError) -> Bool {
        try readsBack(settings.configurationRegister)
    }

    /// Waits for `mask` in `register` (a data-ready bit): up to `polls` reads, `interval` apart.
    /// - Throws: ``SensorError/dataTimeout(chip:address:polls:)`` when it never comes.
    func waitForDataReady(_ register: UInt8, mask: UInt8, polls: Int, interval: Duration) throws(SensorError) {
        for _ in 0..<polls {
            pause.wait(interval)
            if try device.read(register) & mask != 0 { return }
        }
        throw .dataTimeout(chip: settings.name, address: device.address, polls: polls)
    }

    /// The average of `count` output samples after one discarded, `interval` apart.
    func averageDiscardingFirst(count: Int, interval: Duration) throws(SensorError) -> SIMD3<Double> {
        try averageDiscardingFirst(count: count, interval: interval) { () throws(SensorError) in try readCounts().counts }
    }

    /// The self-test response of `procedure`, per axis, in counts: `setUp` written in order,
    /// `settle`, the average of `count` samples `interval` apart after one discarded; with a
    /// toggle, `enable` written, 60 ms settling, the same average again, `disable` written, and
    /// the response |on − off|.
    func selfTestResponse(_ procedure: MagnetometerSelfTestProcedure) throws(SensorError) -> SIMD3<Double> {
        for (register, value) in procedure.setUp { try device.write(register, value) }
        if procedure.settle > .zero { pause.wait(procedure.settle) }
        let first = try averageDiscardingFirst(count: procedure.count, interval: procedure.interval)
        guard let toggle = procedure.toggle else { return first }
        try device.write(toggle.enable.register, toggle.enable.value)
        pause.wait(.milliseconds(60))
        let excited = try averageDiscardingFirst(count: procedure.count, interval: procedure.interval)
        try device.write(toggle.disable.register, toggle.disable.value)
        let counts = excited - first
        return SIMD3(abs(counts.x), abs(counts.y), abs(counts.z))
    }
}

/// One axis result per chip axis, each checked against its own limits.
func magneticSelfTestReport(
    chip: String, response: SIMD3<Double>, limits: [ClosedRange<Double>], unit: String
) -> SelfTestReport {
    SelfTestReport(chip: chip, axes: (0..<3).map {
        SelfTestReport.Axis(name: "magnetometer " + axisNames[$0], response: response[$0], limits: limits[$0], unit: unit)
    })
}
