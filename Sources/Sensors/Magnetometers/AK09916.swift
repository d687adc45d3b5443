import I2C

/// Driver for the AKM AK09916 magnetometer (0x0C; inside the ICM-20948 once its I2C bypass is on).
///
/// The AK8963's shape (ST1, little-endian HX…HZ, ST2 read to end a measurement, HOFL overflow,
/// 0.15 µT/LSB over ±4912 µT) at other addresses, with two identity bytes, continuous modes of
/// 10/20/50/100 Hz, 16-bit output only and no fuse ROM (no sensitivity adjustment).
///
/// Samples are in the AK09916's own axes. Inside an ICM-20948 (DS-000189 §11.1, orientation of
/// axes) the magnetometer's y and z point opposite to the accelerometer's and gyroscope's; the
/// board's mount matrix must say so.
public final class AK09916Magnetometer: MagnetometerDriver {
    public let chip: ChipInfo
    /// Continuous mode 4 (100 Hz), ±4912 µT.
    public let defaultConfiguration = MagnetometerConfiguration(outputDataRate: 100, range: 4912)

    /// AK09916 datasheet §9.1 register map.
    enum Register {
        static let wia1: UInt8 = 0x00  // company ID 0x48; WIA2 (0x01) device ID 0x09
        static let st1: UInt8 = 0x10  // DRDY 0, DOR 1; ST1, HXL…HZH, TMPS, ST2 are 0x10…0x18
        static let cntl2: UInt8 = 0x31  // MODE 4:0
        static let cntl3: UInt8 = 0x32  // SRST 0
        static let mode = RegisterField(cntl2, mask: 0b0001_1111)
    }

    /// §9.3 modes: continuous 1…4 = 10/20/50/100 Hz (00010, 00100, 00110, 01000). §8.1 range
    /// ±4912 µT, 0.15 µT/LSB, spanning ±32752. ST1 … ST2 (0x10…0x18) in one read; reading ST2
    /// releases the next measurement (§9.4.3.2); HOFL (ST2 bit 3) marks magnetic overflow.
    static let settings = MagnetometerSettings(
        name: "AK09916", family: .ak09916, identityRegister: Register.wia1, identity: [0x48, 0x09],
        outputDataRates: [10, 20, 50, 100].enumerated().map { SettingOption(value: $1, code: UInt8($0 + 1) << 1) },
        ranges: [SettingOption(value: 4912, code: 0, sensitivity: 1 / 0.15)],
        softReset: RegisterField(Register.cntl3, mask: 0x01), configurationRegister: Register.cntl2,
        outputRegister: Register.st1, outputCount: 9, axes: AxisLayout(offsets: [1, 3, 5], bigEndian: false),
        overflow: { bytes, counts in bytes[8] & 0x08 != 0 || (0..<3).contains { abs(Int(counts[$0])) >= 32752 } })
    /// Polls of ST1 DRDY during the self-test.
    static let selfTestPolls = 10

    private let core: MagnetometerCore

    public init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x0C), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        core = MagnetometerCore(bus: bus, address: address, settings: Self.settings, defaultConfiguration: defaultConfiguration,
                                pause: pause, resetCompletion: resetCompletion)
        chip = Self.settings.chip(at: address)
    }

    public var configuration: MagnetometerConfiguration { core.configuration }

    public func configure(_ configuration: MagnetometerConfiguration) throws(SensorError) {
        try core.locked { state throws(SensorError) in try apply(configuration, &state) }
    }

    /// Identify; SRST and wait for it to clear; power down; start continuous mode. Mode changes
    /// go through power-down (§9.3).
    private func apply(_ configuration: MagnetometerConfiguration, _ state: inout MagnetometerState) throws(SensorError) {
        let (rate, range) = try core.start(configuration)
        try core.device.write(Register.cntl2, 0x00)  // power-down
        core.pause.wait(.microseconds(100))
        var shadow = ShadowRegisters([:])
        try core.device.write(Register.cntl2, shadow.set(Register.mode, rate.code))
        state = MagnetometerState(configuration: configuration, shadow: shadow, lsbPerMicrotesla: range.sensitivity)
    }

    /// ST1 … ST2 in one read; HOFL or a ±32752 count saturates.
    public func readSample() throws(SensorError) -> MagneticSample { try core.readSample() }

    /// Reads CNTL2 (0x31): 0x00 after a reset, the continuous mode after ``configure(_:)``.
    public func isStillConfigured() throws(SensorError) -> Bool { try core.isStillConfigured() }

    /// §9.4.4: power-down, self-test mode (10000), wait for DRDY (bounded polls), read; the chip
    /// returns to power-down by itself; then reset and restore the configuration.
    public func selfTest() throws(SensorError) -> SelfTestReport {
        try core.locked { state throws(SensorError) -> SelfTestReport in
            let saved = state.configuration
            let device = core.device
            try device.write(Register.cntl2, 0x00)
            core.pause.wait(.microseconds(100))
            try device.write(Register.cntl2, 0x10)
            try core.waitForDataReady(Register.st1, mask: 0x01, polls: Self.selfTestPolls, interval: .milliseconds(2))
            let raw = try core.readCounts().counts
            try apply(saved, &state)
            return Self.evaluateSelfTest(counts: SIMD3(Double(raw.x), Double(raw.y), Double(raw.z)))
        }
    }

    /// §9.4.4.2 self-test judgment: HX −200…200, HY −200…200, HZ −1000…−200 (counts).
    public static func evaluateSelfTest(counts: SIMD3<Double>) -> SelfTestReport {
        magneticSelfTestReport(chip: "AK09916", response: counts, limits: [-200...200, -200...200, -1000 ... -200], unit: "LSB")
    }
}
