import I2C

/// Driver for the AKM AK8963 magnetometer (0x0C; inside the MPU-9250 once its I2C bypass is on).
///
/// Samples are in the AK8963's own axes. Inside an MPU-9250 these differ from the accelerometer
/// and gyroscope axes (PS-MPU-9250A §9.1, orientation figure): magnetometer x = IMU y,
/// magnetometer y = IMU x, magnetometer z = −IMU z. The board's mount matrix must say so.
public final class AK8963Magnetometer: MagnetometerDriver {
    public let chip: ChipInfo
    /// Continuous mode 2 (100 Hz), 16-bit output (±4912 µT).
    public let defaultConfiguration = MagnetometerConfiguration(outputDataRate: 100, range: 4912)

    /// AK8963 datasheet §8.1 register map.
    enum Register {
        static let wia: UInt8 = 0x00  // 0x48
        static let st1: UInt8 = 0x02  // DRDY 0, DOR 1; ST1, HXL…HZH, ST2 are 0x02…0x09
        static let cntl1: UInt8 = 0x0A  // BIT 4 (1 = 16-bit), MODE 3:0
        static let cntl2: UInt8 = 0x0B  // SRST 0
        static let astc: UInt8 = 0x0C  // SELF 6
        static let asax: UInt8 = 0x10  // ASAX, ASAY, ASAZ (fuse ROM)
        static let mode = RegisterField(cntl1, mask: 0b0000_1111)
        static let output = RegisterField(cntl1, mask: 0b0001_0000)
    }

    /// §6.4.3 modes: continuous 1 = 8 Hz (0010), continuous 2 = 100 Hz (0110). §6.3 range ±4912 µT,
    /// 16-bit output 0.15 µT/LSB, spanning ±32760. ST1 … ST2 (0x02…0x09) in one read; reading ST2
    /// releases the next measurement (§6.4.3.2); HOFL (ST2 bit 3) marks magnetic overflow.
    static let settings = MagnetometerSettings(
        name: "AK8963", family: .ak8963, identityRegister: Register.wia, identity: [0x48],
        outputDataRates: [SettingOption(value: 8, code: 0b0010), SettingOption(value: 100, code: 0b0110)],
        ranges: [SettingOption(value: 4912, code: 1, sensitivity: 1 / 0.15)],
        softReset: RegisterField(Register.cntl2, mask: 0x01), configurationRegister: Register.cntl1,
        outputRegister: Register.st1, outputCount: 8, axes: AxisLayout(offsets: [1, 3, 5], bigEndian: false),
        overflow: { bytes, counts in bytes[7] & 0x08 != 0 || (0..<3).contains { abs(Int(counts[$0])) >= 32760 } })
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

    /// Identify; SRST and wait for it to clear; read the fuse ROM (mode 1111); power down; start
    /// continuous mode with 16-bit output. Mode changes go through power-down (§6.4.1).
    private func apply(_ configuration: MagnetometerConfiguration, _ state: inout MagnetometerState) throws(SensorError) {
        let (rate, range) = try core.start(configuration)
        let device = core.device
        try device.write(Register.cntl1, 0x0F)  // fuse ROM access
        let asa = try device.read(Register.asax, count: 3)
        try device.write(Register.cntl1, 0x00)  // power-down
        core.pause.wait(.microseconds(100))
        var shadow = ShadowRegisters([:])
        _ = shadow.set(Register.output, range.code)
        try device.write(Register.cntl1, shadow.set(Register.mode, rate.code))
        // Sensitivity adjustment per axis from ASAX/Y/Z (§8.3.11): (ASA − 128) / 256 + 1.
        state = MagnetometerState(configuration: configuration, shadow: shadow, lsbPerMicrotesla: range.sensitivity,
                                  adjustment: SIMD3(asa.map { (Double($0) - 128) / 256 + 1 }))
    }

    /// ST1 … ST2 in one read, scaled by the factory adjustment; HOFL or a ±32760 count saturates.
    public func readSample() throws(SensorError) -> MagneticSample { try core.readSample() }

    /// Reads CNTL1 (0x0A): 0x00 after a reset, BIT | MODE after ``configure(_:)``.
    public func isStillConfigured() throws(SensorError) -> Bool { try core.isStillConfigured() }

    /// §6.4.5: power-down, ASTC SELF = 1, self-test mode (1000) with 16-bit output, wait for DRDY
    /// (bounded polls), read, ASTC = 0, power-down; then reset and restore the configuration.
    public func selfTest() throws(SensorError) -> SelfTestReport {
        try core.locked { state throws(SensorError) -> SelfTestReport in
            let saved = state.configuration
            let device = core.device
            try device.write(Register.cntl1, 0x00)
            core.pause.wait(.microseconds(100))
            try device.write(Register.astc, 0x40)
            try device.write(Register.cntl1, 0x18)
            try core.waitForDataReady(Register.st1, mask: 0x01, polls: Self.selfTestPolls, interval: .milliseconds(2))
            let raw = try core.readCounts().counts
            try device.write(Register.astc, 0x00)
            try device.write(Register.cntl1, 0x00)
            let adjusted = SIMD3(Double(raw.x), Double(raw.y), Double(raw.z)) * state.adjustment
            try apply(saved, &state)
            return Self.evaluateSelfTest(adjustedCounts16Bit: adjusted)
        }
    }

    /// §6.4.5 self-test judgment (16-bit): HX −200…200, HY −200…200, HZ −3200…−800
    /// (counts after sensitivity adjustment).
    public static func evaluateSelfTest(adjustedCounts16Bit: SIMD3<Double>) -> SelfTestReport {
        magneticSelfTestReport(chip: "AK8963", response: adjustedCounts16Bit,
                               limits: [-200...200, -200...200, -3200 ... -800], unit: "LSB")
    }
}
