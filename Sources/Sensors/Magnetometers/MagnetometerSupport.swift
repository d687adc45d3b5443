import I2C

/// What differs between magnetometers that a generic lookup needs: the name, identity and the
/// rate and range tables (range in µT → code, sensitivity in LSB/µT).
struct MagnetometerSettings: Sendable {
    var name: String
    var identityRegister: UInt8
    var identity: [UInt8]
    var outputDataRates: [SettingOption]
    var ranges: [SettingOption]

    func rate(_ configuration: MagnetometerConfiguration) throws(SensorError) -> SettingOption {
        try lookup(configuration.outputDataRate, in: outputDataRates, setting: "output data rate", unit: "Hz", chip: name)
    }

    func range(_ configuration: MagnetometerConfiguration) throws(SensorError) -> SettingOption {
        try lookup(configuration.range, in: ranges, setting: "range", unit: "µT", chip: name)
    }

    /// Reads the identity register(s) and throws when they differ.
    func checkIdentity(_ device: RegisterDevice) throws(SensorError) {
        let found = try device.read(identityRegister, count: identity.count)
        guard found == identity else {
            throw .unexpectedIdentity(chip: name, address: device.address, register: identityRegister,
                                      expected: identity, found: found)
        }
    }
}

/// State every magnetometer driver keeps under its lock.
struct MagnetometerState: Sendable {
    var configuration: MagnetometerConfiguration
    var shadow = ShadowRegisters([:])
    /// Counts per µT of the selected range.
    var lsbPerMicrotesla: Double = 1
}

/// Reads `count + 1` samples through `read`, pausing `interval` before each, and averages all but
/// the first (the ST self-test procedures discard the first sample after a change).
func averageDiscardingFirst(
    count: Int, interval: Duration, pause: Pause, _ read: () throws(SensorError) -> SIMD3<Int16>
) throws(SensorError) -> SIMD3<Double> {
    var samples: [SIMD3<Int16>] = []
    for index in 0...count {
        pause.wait(interval)
        let sample = try read()
        if index > 0 { samples.append(sample) }
    }
    return mean(samples)
}

/// One axis result per chip axis, each checked against its own limits.
func magneticSelfTestReport(
    chip: String, response: SIMD3<Double>, limits: [ClosedRange<Double>], unit: String
) -> SelfTestReport {
    SelfTestReport(chip: chip, axes: (0..<3).map {
        SelfTestReport.Axis(name: "magnetometer " + axisNames[$0], response: response[$0], limits: limits[$0], unit: unit)
    })
}

func magneticSample(_ raw: SIMD3<Int16>, lsbPerMicrotesla: Double, saturated: Bool) -> MagneticSample {
    MagneticSample(
        field: SIMD3(Double(raw.x), Double(raw.y), Double(raw.z)) / lsbPerMicrotesla,
        isSaturated: saturated || isAtLimit(raw),
        raw: RawMagneticReading(counts: raw, lsbPerMicrotesla: SIMD3(repeating: lsbPerMicrotesla)))
}
