import I2C

/// What a magnetometer's configuration writes: its rate field, its range field (none on a chip
/// with one range), fields set to fixed codes (modes, filters; a whole register is a field with
/// mask 0xFF; set first), and the order the registers are written in.
struct MagnetometerRegisterMap: Sendable {
    var rate: RegisterField
    var range: RegisterField?
    var fixed: [(field: RegisterField, code: UInt8)]
    var writeOrder: [UInt8]
}

/// A magnetometer's datasheet self-test: the procedure, what its counts are divided by to give
/// the unit of the limits, and the limits per axis.
struct MagnetometerSelfTest: Sendable {
    var procedure: MagnetometerSelfTestProcedure
    /// Counts per unit of ``limits``: 1 where the limits are in counts.
    var countsPerUnit: Double = 1
    var limits: [ClosedRange<Double>]
    var unit: String
}

/// How a magnetometer measures its self-test response (``MagnetometerCore/selfTestResponse(_:)``).
struct MagnetometerSelfTestProcedure: Sendable {
    typealias Write = (register: UInt8, value: UInt8)
    /// Written in order first: the test's rate and range, and the excitation where it stays on.
    var setUp: [Write]
    var settle: Duration = .zero
    /// Samples averaged (after one discarded), `interval` apart.
    var count: Int
    var interval: Duration
    /// The writes that switch the excitation on and off around a second average (the ST chips,
    /// AN4602): the response is then |on − off|. Nil where `setUp` switches it on (the HMC5883L's
    /// bias): the response is the average itself.
    var toggle: (enable: Write, disable: Write)?
}

/// One table-driven magnetometer, everything its driver needs: the settings table, the registers
/// its configuration writes, its default configuration and address, and its self-test (nil for a
/// chip without one). One chip is one entry; ``TableMagnetometer`` drives any of them.
package struct MagnetometerTableEntry: Sendable {
    let settings: MagnetometerSettings
    let registers: MagnetometerRegisterMap
    /// The fastest continuous rate up to 100 Hz and a range covering the Earth's field.
    let defaultConfiguration: MagnetometerConfiguration
    /// Where the chip usually answers (its address pin low): its driver's default address.
    package let address: I2CAddress
    let selfTest: MagnetometerSelfTest?
}

/// A magnetometer chip with an entry in the table: the type parameter of ``TableMagnetometer``,
/// which gives each chip's driver a type of its own (``LIS3MDLMagnetometer``, …).
package protocol TableMagnetometerChip: Sendable {
    static var entry: MagnetometerTableEntry { get }
}

/// The driver of a magnetometer whose configuration is its register table: rate and range looked
/// up, identity checked, reset, then the registers of its entry written; samples are one burst
/// read of the output registers. (The AKM chips, which read a fuse ROM or measure on command, have
/// a driver of their own, ``AKMagnetometer``.)
package final class TableMagnetometer<Chip: TableMagnetometerChip>: CoreMagnetometerDriver, BusPlacedDriver {
    package let defaultConfiguration: MagnetometerConfiguration
    let core: MagnetometerCore

    /// The chip's settings table (identity, rates, ranges, reset bit, output burst).
    static var settings: MagnetometerSettings { Chip.entry.settings }

    /// - Parameter resetCompletion: `.fixedDelay` only on a plain register file (`i2c-stub`); it
    ///   changes nothing on a chip without a reset bit.
    package init(bus: any I2CBus, address: I2CAddress = Chip.entry.address, pause: Pause = .system,
                resetCompletion: ResetCompletion = .pollResetBit) {
        let entry = Chip.entry
        defaultConfiguration = entry.defaultConfiguration
        core = MagnetometerCore(bus: bus, address: address, settings: entry.settings, defaultConfiguration: entry.defaultConfiguration,
                                pause: pause, resetCompletion: resetCompletion)
    }

    func apply(_ configuration: MagnetometerConfiguration, _ state: inout MagnetometerState) throws(SensorError) {
        let (rate, range) = try core.start(configuration)
        let map = Chip.entry.registers
        var shadow = ShadowRegisters([:])
        for (field, code) in map.fixed { _ = shadow.set(field, code) }
        _ = shadow.set(map.rate, rate.code)
        if let field = map.range { _ = shadow.set(field, range.code) }
        try core.write(shadow, map.writeOrder)
        state = MagnetometerState(configuration: configuration, shadow: shadow, lsbPerMicrotesla: range.sensitivity)
    }

    /// The entry's datasheet self-test, then a reset and the configuration restored. Throws
    /// ``SensorError/notSupported(chip:feature:)`` on a chip without one.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        guard let test = Chip.entry.selfTest else { throw .notSupported(chip: chip.name, feature: "self-test") }
        return try runSelfTest { _ throws(SensorError) in
            Self.evaluate(response: try core.selfTestResponse(test.procedure) / test.countsPerUnit, test)
        }
    }

    /// Pass/fail on a self-test response per axis, in the unit of `test`'s limits.
    static func evaluate(response: SIMD3<Double>, _ test: MagnetometerSelfTest) -> SelfTestReport {
        magneticSelfTestReport(chip: settings.name, response: response, limits: test.limits, unit: test.unit)
    }
}
