import Locking
import I2C
import Synchronization

/// Driver for the Honeywell HMC5883L magnetometer (0x1E). It has no software reset.
public final class HMC5883LMagnetometer: MagnetometerDriver {
    public let chip: ChipInfo
    /// 75 Hz, ±1.3 gauss (130 µT), the power-on gain.
    public let defaultConfiguration = MagnetometerConfiguration(outputDataRate: 75, range: 130)

    /// HMC5883L datasheet Table 2 register list.
    enum Register {
        static let configA: UInt8 = 0x00  // MA 6:5, DO 4:2, MS 1:0
        static let configB: UInt8 = 0x01  // GN 7:5
        static let mode: UInt8 = 0x02  // MD 1:0 (00 continuous)
        static let dataXMSB: UInt8 = 0x03  // X MSB, X LSB, Z MSB, Z LSB, Y MSB, Y LSB
        static let identificationA: UInt8 = 0x0A  // 'H', '4', '3'
        static let rate = RegisterField(configA, mask: 0b0001_1100)
        static let averaging = RegisterField(configA, mask: 0b0110_0000)
        static let gain = RegisterField(configB, mask: 0b1110_0000)
    }

    /// Table 5 (DO: 0.75…75 Hz) and Table 9 (GN: ±0.88…8.1 gauss, 1370…230 LSB/gauss).
    static let settings = MagnetometerSettings(
        name: "HMC5883L", identityRegister: Register.identificationA, identity: [0x48, 0x34, 0x33],
        outputDataRates: [0.75, 1.5, 3, 7.5, 15, 30, 75].enumerated().map { SettingOption(value: $1, code: UInt8($0)) },
        ranges: zip([88.0, 130, 190, 250, 400, 470, 560, 810], [1370.0, 1090, 820, 660, 440, 390, 330, 230])
            .enumerated().map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1 / 100) })

    /// Table 3: an axis that overflowed (or whose ADC saturated) reads −4096.
    static let overflowValue: Int16 = -4096

    private let device: RegisterDevice
    private let pause: Pause
    private let state: Locked<MagnetometerState>

    public init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x1E), pause: Pause = .system) {
        device = RegisterDevice(bus: bus, address: address)
        self.pause = pause
        chip = ChipInfo(name: "HMC5883L", family: .hmc5883l, address: address, identity: [0x48, 0x34, 0x33])
        state = Locked(MagnetometerState(configuration: defaultConfiguration))
    }

    public var configuration: MagnetometerConfiguration { state.withLock { $0.configuration } }

    public func configure(_ configuration: MagnetometerConfiguration) throws(SensorError) {
        try state.withLock { (state: inout MagnetometerState) throws(SensorError) in try apply(configuration, &state) }
    }

    /// Identify; 8-sample averaging, rate, normal measurement; gain; continuous mode.
    private func apply(_ configuration: MagnetometerConfiguration, _ state: inout MagnetometerState) throws(SensorError) {
        let rate = try Self.settings.rate(configuration)
        let range = try Self.settings.range(configuration)
        try Self.settings.checkIdentity(device)
        var shadow = ShadowRegisters([:])
        _ = shadow.set(Register.averaging, 0b11)
        _ = shadow.set(Register.rate, rate.code)
        _ = shadow.set(Register.gain, range.code)
        shadow[Register.mode] = 0x00
        for register in [Register.configA, Register.configB, Register.mode] {
            try device.write(register, shadow[register])
        }
        state = MagnetometerState(configuration: configuration, shadow: shadow, lsbPerMicrotesla: range.sensitivity)
    }

    /// Data output X, Z, Y (big-endian, 0x03…0x08) in one read, returned in x, y, z order.
    public func readSample() throws(SensorError) -> MagneticSample {
        let sensitivity = state.withLock { $0.lsbPerMicrotesla }
        let raw = try readRaw()
        // Table 3: valid output is −2048…2047; −4096 marks an overflow.
        let overflow = (0..<3).contains { raw[$0] == Self.overflowValue || raw[$0] < -2048 || raw[$0] > 2047 }
        return magneticSample(raw, lsbPerMicrotesla: sensitivity, saturated: overflow)
    }

    private func readRaw() throws(SensorError) -> SIMD3<Int16> {
        let bytes = try device.read(Register.dataXMSB, count: 6)
        return SIMD3(int16BE(bytes, 0), int16BE(bytes, 4), int16BE(bytes, 2))
    }

    /// Reads configuration register A (0x00): 0x10 at power-on, 0x70 | DO after ``configure(_:)``.
    public func isStillConfigured() throws(SensorError) -> Bool {
        let expected = state.withLock { $0.shadow[Register.configA] }
        return try device.read(Register.configA) == expected
    }

    /// Datasheet "Self Test Operation": CRA 0x71 (8 samples, 15 Hz, positive bias), CRB 0xA0
    /// (gain 5, 390 LSB/gauss), continuous mode; the first sample is discarded; each axis of the
    /// next (averaged over 5) must read 243…575 counts. Then restores the configuration.
    public func selfTest() throws(SensorError) -> SelfTestReport {
        try state.withLock { (state: inout MagnetometerState) throws(SensorError) -> SelfTestReport in
            let saved = state.configuration
            try device.write(Register.configA, 0x71)
            try device.write(Register.configB, 0xA0)
            try device.write(Register.mode, 0x00)
            let response = try averageDiscardingFirst(count: 5, interval: .milliseconds(67), pause: pause, readRaw)
            try apply(saved, &state)
            return Self.evaluateSelfTest(counts: response)
        }
    }

    /// Positive-bias counts at gain 5: each axis within 243…575.
    public static func evaluateSelfTest(counts: SIMD3<Double>) -> SelfTestReport {
        magneticSelfTestReport(chip: "HMC5883L", response: counts, limits: Array(repeating: 243...575, count: 3), unit: "LSB")
    }
}
