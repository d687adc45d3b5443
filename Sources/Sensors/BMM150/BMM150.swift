import I2C
import Locking

extension ChipInfo.Family {
    package static let bmm150 = Self(rawValue: "Bosch BMM150")
}

/// Registers of the Bosch BMM150 (datasheet BST-BMM150-DS001 §5 "Register description"; the same
/// addresses in the kernel's drivers/iio/magnetometer/bmc150_magn.c, BMC150_MAGN_REG_*).
enum BMM150Register {
    /// Chip ID, 0x32; reads 0x00 while the chip is suspended (power control bit 0).
    static let chipID: UInt8 = 0x40
    /// DATA_X_LSB … RHALL_MSB 0x42–0x49: x and y as 13-bit values in bits 15:3 of their words,
    /// z as 15 bits in bits 15:1, RHALL as 14 bits in bits 15:2 (bit 0: data ready).
    static let data: UInt8 = 0x42
    static let dataLength = 8
    /// Power control: bit 0 power control (0 suspend), bits 7 and 1 soft reset (kernel
    /// BMC150_MAGN_REG_POWER, BMC150_MAGN_MASK_POWER_CTL BIT(0)).
    static let power: UInt8 = 0x4B
    /// Operation mode: data rate bits 5:3, opmode bits 2:1 (00 normal, 01 forced, 11 sleep)
    /// (kernel BMC150_MAGN_REG_OPMODE_ODR, BMC150_MAGN_MASK_ODR GENMASK(5, 3), MASK_OPMODE GENMASK(2, 1)).
    static let operation: UInt8 = 0x4C
    /// Repetitions: REPXY = (nXY − 1)/2, REPZ = nZ − 1 (kernel BMC150_MAGN_REG_REP_XY 0x51, REP_Z 0x52).
    static let repetitionsXY: UInt8 = 0x51
    static let repetitionsZ: UInt8 = 0x52

    static let powerOn: UInt8 = 0x01
    /// Soft reset with the power bit kept: bits 7, 1 and 0.
    static let softReset: UInt8 = 0x83
    /// Bosch's regular preset, nXY = 9 and nZ = 15 (kernel bmc150_magn_presets_table
    /// REGULAR_PRESET {9, 15, 10}): the fastest rate it allows is 1 / (145 µs·nXY + 500 µs·nZ +
    /// 980 µs) ≈ 102 Hz (kernel bmc150_magn_set_max_odr, "from datasheet"), above every rate here.
    static let regularXY: UInt8 = 4
    static let regularZ: UInt8 = 14
}

/// What the BMM150's driver looks up: identity, rates and range. The range is the datasheet's
/// ±1300 µT (x, y; z ±2500 µT); its compensated output is 1/16 µT per count.
enum BMM150Settings {
    static let identity: UInt8 = 0x32
    /// Wake-up from suspend: the power bit, then 3 ms (kernel BMC150_MAGN_START_UP_TIME_MS).
    static let wakeUp = IdentityPreamble(writes: [RegisterWrite(register: BMM150Register.power, value: BMM150Register.powerOn)], settle: .milliseconds(3))

    /// Normal-mode data rates, Hz → data rate code (kernel bmc150_magn_samp_freq_table).
    static let table = MagnetometerSettings(
        name: "BMM150", family: .bmm150, identityRegister: BMM150Register.chipID, identity: [identity],
        outputDataRates: [(2.0, 0x01), (6, 0x02), (8, 0x03), (10, 0x00), (15, 0x04), (20, 0x05), (25, 0x06), (30, 0x07)]
            .map { SettingOption(value: $0.0, code: UInt8($0.1)) },
        ranges: [SettingOption(value: 1300, code: 0, sensitivity: BMM150Compensation.countsPerMicrotesla)],
        softReset: nil, configurationRegister: BMM150Register.repetitionsZ,
        outputRegister: BMM150Register.data, outputCount: BMM150Register.dataLength)
}

extension BMM150Magnetometer: BusPlacedDriver {}

extension ChipDescriptor {
    /// CHIP_ID 0x32 at 0x40 once woken (``IdentityPreamble``), at 0x10–0x13 (SDO and CSB2 pick
    /// the two low address bits, datasheet §5.2 "I2C address selection").
    package static let bmm150 = ChipDescriptor(
        magnetometer: BMM150Settings.table, cliNames: ["bmm150"], addresses: (0x10...0x13).map { I2CAddress($0) },
        preamble: BMM150Settings.wakeUp,
        wiring: "the BMM150 powers up suspended: its CHIP_ID (0x40) reads 0 until the power bit (0x4B bit 0) is set, "
            + "which swift-motion's identification and driver do (other tools that read it first see no chip: `i2cget -y 1 0x10 0x40` "
            + "gives 0x00 until `i2cset -y 1 0x10 0x4b 0x01`). SDO and CSB2 pick its address: 0x10 with both low, up to 0x13 with both high.",
        make: factory(BMM150Magnetometer.self))
}

/// Driver for the Bosch BMM150 magnetometer (datasheet BST-BMM150-DS001), at 0x10–0x13.
///
/// It powers up suspended, its registers reading 0: ``configure(_:)`` sets the power bit and
/// waits before it reads the chip ID, soft-resets, reads the factory trim once, sets Bosch's
/// regular repetitions and starts normal mode at the rate asked. A sample is one burst of the
/// data registers, x, y and z compensated with RHALL and the trim (``BMM150Compensation``).
package final class BMM150Magnetometer: CoreMagnetometerDriver {
    /// 30 Hz, ±1300 µT.
    package let defaultConfiguration = MagnetometerConfiguration(outputDataRate: 30, range: 1300)
    let core: MagnetometerCore
    /// The factory trim, read at configure.
    private let trim = Locked<BMM150Trim?>(nil)

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x10), pause: Pause = .system,
                 resetCompletion: ResetCompletion = .pollResetBit) {
        core = MagnetometerCore(bus: bus, address: address, settings: BMM150Settings.table, defaultConfiguration: defaultConfiguration,
                                pause: pause, resetCompletion: resetCompletion)
    }

    func apply(_ configuration: MagnetometerConfiguration, _ state: inout MagnetometerState) throws(SensorError) {
        let rate = try BMM150Settings.table.rate(configuration)
        let range = try BMM150Settings.table.range(configuration)
        try device.write(BMM150Register.power, BMM150Register.powerOn)
        core.pause.wait(BMM150Settings.wakeUp.settle)
        try device.checkIdentity(BMM150Register.chipID, expected: [BMM150Settings.identity], chip: chip.name)
        try device.write(BMM150Register.power, BMM150Register.softReset)
        core.pause.wait(BMM150Settings.wakeUp.settle)
        let trim = try device.burst(BMM150Trim.firstRegister, count: BMM150Trim.burstLength) { BMM150Trim(registers: Array($0)) }
        self.trim.withLock { $0 = trim }
        var shadow = ShadowRegisters([:])
        shadow[BMM150Register.repetitionsXY] = BMM150Register.regularXY
        shadow[BMM150Register.repetitionsZ] = BMM150Register.regularZ
        shadow[BMM150Register.operation] = rate.code << 3  // opmode 00: normal
        try core.write(shadow, [BMM150Register.repetitionsXY, BMM150Register.repetitionsZ, BMM150Register.operation])
        state = MagnetometerState(configuration: configuration, shadow: shadow, lsbPerMicrotesla: range.sensitivity)
    }

    /// One burst of 0x42–0x49, compensated. An overflowed axis reads 0 and marks the sample
    /// saturated. Before ``configure(_:)`` (no trim read) it throws
    /// ``SensorError/notSupported(chip:feature:)``.
    package func readSample() throws(SensorError) -> MagneticSample {
        guard let trim = trim.withLock({ $0 }) else {
            throw .notSupported(chip: chip.name, feature: "sample before configure (its trim is read there)")
        }
        let (x, y, z, rhall) = try device.burst(BMM150Register.data, count: BMM150Register.dataLength) { bytes in
            (int16LE(bytes, 0) >> 3, int16LE(bytes, 2) >> 3, int16LE(bytes, 4) >> 1, UInt16(bytes[6]) >> 2 | UInt16(bytes[7]) << 6)
        }
        return Self.sample(raw: SIMD3(x, y, z), rhall: rhall, trim: trim)
    }

    /// The sample of raw counts and RHALL: compensated, in µT; the compensated counts (1/16 µT,
    /// clamped to 16 bits) as its raw reading. Allocates nothing.
    static func sample(raw: SIMD3<Int16>, rhall: UInt16, trim: BMM150Trim) -> MagneticSample {
        let x = BMM150Compensation.xy(raw.x, rhall: rhall, trim: trim, axis1: trim.x1, axis2: trim.x2)
        let y = BMM150Compensation.xy(raw.y, rhall: rhall, trim: trim, axis1: trim.y1, axis2: trim.y2)
        let z = BMM150Compensation.z(raw.z, rhall: rhall, trim: trim)
        let counts = SIMD3<Int32>(x ?? 0, y ?? 0, z ?? 0)
        let perMicrotesla = BMM150Compensation.countsPerMicrotesla
        return MagneticSample(
            field: SIMD3(Double(counts.x), Double(counts.y), Double(counts.z)) / perMicrotesla,
            isSaturated: x == nil || y == nil || z == nil,
            raw: RawMagneticReading(counts: SIMD3(Int16(clamping: counts.x), Int16(clamping: counts.y), Int16(clamping: counts.z)),
                                    lsbPerMicrotesla: SIMD3(repeating: perMicrotesla)))
    }

    /// The BMM150 has a self-test (0x4C bit 0, and the advanced one) that this driver does not run.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test in this driver")
    }
}
