import I2C

/// Each AKM chip is a family of its own: their WIA registers tell them apart (the AK8975's only
/// inside its MPU-9150).
extension ChipInfo.Family {
    package static let ak8963 = Self(rawValue: "AKM AK8963")
    package static let ak09916 = Self(rawValue: "AKM AK09916")
    package static let ak8975 = Self(rawValue: "AKM AK8975")
}

/// The AKM magnetometers this driver knows; the raw value is the chip's name.
package enum AKModel: String, Sendable, CaseIterable {
    /// Inside the MPU-9250 (0x0C behind its I2C bypass) or on its own.
    case ak8963 = "AK8963"
    /// Inside the ICM-20948.
    case ak09916 = "AK09916"
    /// Inside the MPU-9150; no continuous mode.
    case ak8975 = "AK8975"
}

/// One row of the AKM family table: what differs between the AK8963, AK09916 and AK8975. The
/// rest — ST1, little-endian HX…HZ, ST2 read to end a data read, HOFL overflow, a MODE field
/// written through power-down, a self-test mode — they share.
struct AKSettings: Sendable {
    /// Identity, rate and range tables, reset bit and the ST1 … ST2 burst.
    var common: MagnetometerSettings
    /// The MODE field of the control register (CNTL, CNTL1 or CNTL2).
    var mode: RegisterField
    /// Written with every mode besides MODE: the AK8963's BIT (1 = 16-bit output); 0 elsewhere.
    var modeExtraBits: UInt8 = 0
    /// MODE code of the self-test.
    var selfTestMode: UInt8
    /// ASTC, whose SELF bit (6) turns the internal field on for the self-test; nil on a chip
    /// without one.
    var selfTestControl: UInt8?
    /// ASAX (ASAY, ASAZ follow), read in fuse-ROM access mode (MODE 1111); nil on a chip without
    /// a fuse ROM (no sensitivity adjustment).
    var fuseROM: UInt8?
    /// Self-test judgment per axis, in counts (after the sensitivity adjustment where there is one).
    var selfTestLimits: [ClosedRange<Double>]
    /// True for a chip with continuous modes; false for the AK8975, which measures once per
    /// single-measurement command (see ``AKMagnetometer/readSample()``).
    var continuous: Bool = true
    /// ST2 offset in the burst; its DERR bit (AK8975) marks a read during a measurement.
    var dataErrorMask: UInt8 = 0

    var name: String { common.name }
}

extension AKModel {
    // Register addresses and bits: AK8963 datasheet §8.1 register map, AK09916 datasheet §9.1,
    // AK8975 datasheet register map; cross-checked with drivers/iio/magnetometer/ak8975.c
    // (AK8975_REG_WIA 0x00 = AK8975_DEVICE_ID 0x48, ST1 0x02, HXL 0x03, ST2 0x09 DERR bit 2 and
    // HOFL bit 3, CNTL 0x0A, ASTC 0x0C, ASAX 0x10) and drivers/iio/imu/inv_mpu6050/inv_mpu_magn.c
    // ("MPU9150 is AK8975, MPU9250 is AK8963", both at 0x0C).
    var settings: AKSettings {
        switch self {
        case .ak8963:
            // §6.4.3 modes: continuous 1 = 8 Hz (0010), continuous 2 = 100 Hz (0110). §6.3 range
            // ±4912 µT, 16-bit output 0.15 µT/LSB, spanning ±32760. CNTL1 0x0A BIT 4, MODE 3:0;
            // CNTL2 0x0B SRST 0. §6.4.5 self-test (16-bit): HX, HY −200…200, HZ −3200…−800
            // after sensitivity adjustment.
            return AKSettings(
                common: MagnetometerSettings(
                    name: rawValue, family: .ak8963, identityRegister: 0x00, identity: [0x48],
                    outputDataRates: [SettingOption(value: 8, code: 0b0010), SettingOption(value: 100, code: 0b0110)],
                    ranges: [SettingOption(value: 4912, code: 1, sensitivity: 1 / 0.15)],
                    softReset: RegisterField(0x0B, mask: 0x01), configurationRegister: 0x0A,
                    outputRegister: 0x02, outputCount: 8, axes: AxisLayout(offsets: [1, 3, 5], bigEndian: false),
                    overflow: Self.overflow(st2: 7, limit: 32760)),
                mode: RegisterField(0x0A, mask: 0b0000_1111), modeExtraBits: 0x10, selfTestMode: 0b1000,
                selfTestControl: 0x0C, fuseROM: 0x10, selfTestLimits: [-200...200, -200...200, -3200 ... -800])
        case .ak09916:
            // §9.3 modes: continuous 1…4 = 10/20/50/100 Hz (00010, 00100, 00110, 01000). §8.1
            // range ±4912 µT, 0.15 µT/LSB, spanning ±32752. ST1 0x10 … ST2 0x18 (TMPS between),
            // CNTL2 0x31 MODE 4:0, CNTL3 0x32 SRST 0. §9.4.4.2 self-test: HX, HY −200…200,
            // HZ −1000…−200; no fuse ROM, no ASTC (self-test mode 10000).
            return AKSettings(
                common: MagnetometerSettings(
                    name: rawValue, family: .ak09916, identityRegister: 0x00, identity: [0x48, 0x09],
                    outputDataRates: [10, 20, 50, 100].enumerated().map { SettingOption(value: $1, code: UInt8($0 + 1) << 1) },
                    ranges: [SettingOption(value: 4912, code: 0, sensitivity: 1 / 0.15)],
                    softReset: RegisterField(0x32, mask: 0x01), configurationRegister: 0x31,
                    outputRegister: 0x10, outputCount: 9, axes: AxisLayout(offsets: [1, 3, 5], bigEndian: false),
                    overflow: Self.overflow(st2: 8, limit: 32752)),
                mode: RegisterField(0x31, mask: 0b0001_1111), selfTestMode: 0b1_0000,
                selfTestControl: nil, fuseROM: nil, selfTestLimits: [-200...200, -200...200, -1000 ... -200])
        case .ak8975:
            // AK8975 datasheet (characteristics, modes) and ak8975.c: 13-bit output −4096…4095 at 0.3 µT/LSB (±1229 µT),
            // CNTL 0x0A MODE 3:0 (0000 power-down, 0001 single measurement, 1000 self-test, 1111
            // fuse ROM), no continuous mode and no soft reset; a single measurement takes at
            // most 9 ms (datasheet t_SM), so it supports reads up to about 110 Hz: the rate here is
            // the rate the sampler reads at, each read triggering the next measurement. The
            // self-test judgment: HX, HY −100…100, HZ −1000…−300 after sensitivity adjustment
            // (the same limits stand in AKM's factory-shipment-test table for the AK8975,
            // TestLimit.h of its akmd Android daemon: SLF_REVSHX/Y −100…100, SLF_REVSHZ −1000…−300).
            return AKSettings(
                common: MagnetometerSettings(
                    name: rawValue, family: .ak8975, identityRegister: 0x00, identity: [0x48],
                    outputDataRates: [SettingOption(value: 100, code: 0b0001)],
                    ranges: [SettingOption(value: 1229, code: 0, sensitivity: 1 / 0.3)],
                    softReset: nil, configurationRegister: 0x0A,
                    outputRegister: 0x02, outputCount: 8, axes: AxisLayout(offsets: [1, 3, 5], bigEndian: false),
                    overflow: Self.overflow(st2: 7, limit: 4095)),
                mode: RegisterField(0x0A, mask: 0b0000_1111), selfTestMode: 0b1000,
                selfTestControl: 0x0C, fuseROM: 0x10, selfTestLimits: [-100...100, -100...100, -1000 ... -300],
                continuous: false, dataErrorMask: 0x04)
        }
    }

    /// HOFL (ST2 bit 3, `st2` the offset of ST2 in the burst) or a count at the output limit.
    private static func overflow(st2: Int, limit: Int) -> @Sendable (UnsafeRawBufferPointer, SIMD3<Int16>) -> Bool {
        { bytes, counts in bytes[st2] & 0x08 != 0 || (0..<3).contains { abs(Int(counts[$0])) >= limit } }
    }
}

/// Driver for the AKM magnetometers (0x0C): the AK8963 (inside the MPU-9250), the AK09916
/// (inside the ICM-20948) and the AK8975 (inside the MPU-9150), each reached once its IMU's I2C
/// bypass is on, or on its own.
///
/// Samples are in the magnetometer's own axes. Inside an MPU-9150 or MPU-9250 these differ from
/// the accelerometer and gyroscope axes (PS-MPU-9250A §9.1 and the PS-MPU-9150A, orientation
/// figures): magnetometer x = IMU y, y = IMU x, z = −IMU z; inside an ICM-20948 (DS-000189 §11.1)
/// the magnetometer's y and z point opposite to the IMU's. The board's mount matrix must say so.
///
/// How a sample is taken:
/// - AK8963, AK09916: continuous mode; one read of ST1 … ST2 per sample (reading ST2 releases
///   the next measurement).
/// - AK8975: no continuous mode. ``configure(_:)`` takes a first measurement and triggers the
///   next; each ``readSample()`` then reads the finished measurement (ST1 … ST2, one read) and
///   triggers the next one (CNTL = single, one write): two transactions, no waiting. The sample
///   returned was measured right after the previous read (≤ 9 ms conversion), so it is one read
///   period old: 10 ms at the 100 Hz sampler. A read that finds no finished measurement (DRDY 0,
///   or DERR: read during the conversion) returns the previous sample and triggers nothing.
package final class AKMagnetometer: CoreMagnetometerDriver {
    package let model: AKModel
    package let defaultConfiguration: MagnetometerConfiguration
    /// Polls of ST1 DRDY while waiting for a self-test or first single measurement (2 ms apart).
    static let dataReadyPolls = 10

    private let settings: AKSettings
    let core: MagnetometerCore

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x0C), model: AKModel, pause: Pause = .system,
                resetCompletion: ResetCompletion = .pollResetBit) {
        settings = model.settings
        self.model = model
        // The fastest rate up to 100 Hz, the one range.
        defaultConfiguration = MagnetometerConfiguration(
            outputDataRate: settings.common.outputDataRates.map(\.value).filter { $0 <= 100 }.max() ?? 100,
            range: settings.common.ranges[0].value)
        core = MagnetometerCore(bus: bus, address: address, settings: settings.common, defaultConfiguration: defaultConfiguration,
                                pause: pause, resetCompletion: resetCompletion)
    }

    /// Writes MODE = `code` (with the chip's extra bits) to the control register.
    private func setMode(_ code: UInt8) throws(SensorError) {
        try device.write(settings.mode.address, settings.modeExtraBits | code)
    }

    /// Power-down, then a pause (mode changes go through power-down: AK8963 §6.4.1, AK09916 §9.3,
    /// AK8975 operating modes: at least 100 µs).
    private func powerDown() throws(SensorError) {
        try device.write(settings.mode.address, 0x00)
        core.pause.wait(.microseconds(100))
    }

    /// Identify; SRST where there is one; read the fuse ROM where there is one; power down; start
    /// the continuous mode, or (AK8975) take a first measurement and trigger the next.
    func apply(_ configuration: MagnetometerConfiguration, _ state: inout MagnetometerState) throws(SensorError) {
        let (rate, range) = try core.start(configuration)
        var adjustment = SIMD3<Double>(repeating: 1)
        if let asax = settings.fuseROM {
            try device.write(settings.mode.address, 0x0F)  // fuse ROM access
            let asa = try device.read(asax, count: 3)
            // H_adj = H · ((ASA − 128) · 0.5 / 128 + 1) (AK8963 §8.3.11, the AK8975 datasheet's ASA registers; ak8975.c).
            adjustment = SIMD3(asa.map { (Double($0) - 128) * 0.5 / 128 + 1 })
        }
        try powerDown()
        var shadow = ShadowRegisters([:])
        var last: MagneticSample?
        if settings.continuous {
            _ = shadow.set(settings.mode, rate.code)
            shadow[settings.mode.address] |= settings.modeExtraBits
            try device.write(settings.mode.address, shadow[settings.mode.address])
        } else {
            try setMode(rate.code)
            try core.waitForDataReady(settings.common.outputRegister, mask: 0x01, polls: Self.dataReadyPolls, interval: .milliseconds(2))
            last = try measurement(adjustment: adjustment, lsbPerMicrotesla: range.sensitivity).sample
            try setMode(rate.code)
        }
        state = MagnetometerState(configuration: configuration, shadow: shadow, lsbPerMicrotesla: range.sensitivity,
                                  adjustment: adjustment, lastSample: last)
    }

    /// One ST1 … ST2 read, scaled; `ready` is false when it held no finished measurement.
    private func measurement(adjustment: SIMD3<Double>, lsbPerMicrotesla: Double) throws(SensorError) -> (sample: MagneticSample, ready: Bool) {
        try device.burst(settings.common.outputRegister, count: settings.common.outputCount) { bytes in
            let raw = settings.common.axes.counts(bytes)
            let ready = bytes[0] & 0x01 != 0 && bytes[bytes.count - 1] & settings.dataErrorMask == 0
            let sample = MagneticSample(
                field: SIMD3(Double(raw.x), Double(raw.y), Double(raw.z)) * adjustment / lsbPerMicrotesla,
                isSaturated: settings.common.overflow(bytes, raw) || isAtLimit(raw),
                raw: RawMagneticReading(counts: raw, lsbPerMicrotesla: SIMD3(repeating: lsbPerMicrotesla) / adjustment))
            return (sample, ready)
        }
    }

    /// ST1 … ST2 in one read, scaled by the factory adjustment; HOFL or a count at the output
    /// limit saturates. On the AK8975 also the trigger of the next measurement (see the type's
    /// notes).
    package func readSample() throws(SensorError) -> MagneticSample {
        guard !settings.continuous else { return try core.readSample() }
        return try core.locked { state throws(SensorError) -> MagneticSample in
            let (sample, ready) = try measurement(adjustment: state.adjustment, lsbPerMicrotesla: state.lsbPerMicrotesla)
            guard ready else { return state.lastSample ?? sample }
            try setMode(settings.common.outputDataRates[0].code)
            state.lastSample = sample
            return sample
        }
    }

    /// AK8963, AK09916: reads the control register back (0x00 after a reset, the continuous mode
    /// after ``configure(_:)``). AK8975: the control register returns to power-down after each
    /// measurement, so the chip is still configured while a measurement runs (MODE = single) or
    /// waits to be read (ST1 DRDY); both clear after a reset.
    package func isStillConfigured() throws(SensorError) -> Bool {
        guard !settings.continuous else { return try core.isStillConfigured() }
        let single = settings.common.outputDataRates[0].code
        if try device.read(settings.mode.address) & settings.mode.mask == single { return true }
        return try device.read(settings.common.outputRegister) & 0x01 != 0
    }

    /// Power-down, ASTC SELF = 1 where there is one, self-test mode, wait for DRDY (bounded
    /// polls), read, ASTC = 0; the chip returns to power-down by itself (AK8963 §6.4.5, AK09916
    /// §9.4.4, the AK8975 datasheet's self-test mode); then reset and restore the configuration.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { state throws(SensorError) in
            try powerDown()
            if let astc = settings.selfTestControl { try device.write(astc, 0x40) }
            try setMode(settings.selfTestMode)
            try core.waitForDataReady(settings.common.outputRegister, mask: 0x01, polls: Self.dataReadyPolls, interval: .milliseconds(2))
            let raw = try core.readCounts().counts
            if let astc = settings.selfTestControl {
                try device.write(astc, 0x00)
                try device.write(settings.mode.address, 0x00)
            }
            return Self.evaluateSelfTest(model: model, counts: SIMD3(Double(raw.x), Double(raw.y), Double(raw.z)) * state.adjustment)
        }
    }

    /// The datasheet self-test judgment of `model` on `counts` (after the sensitivity
    /// adjustment where the chip has one): see ``AKSettings/selfTestLimits``.
    package static func evaluateSelfTest(model: AKModel, counts: SIMD3<Double>) -> SelfTestReport {
        magneticSelfTestReport(chip: model.rawValue, response: counts, limits: model.settings.selfTestLimits, unit: "LSB")
    }
}
