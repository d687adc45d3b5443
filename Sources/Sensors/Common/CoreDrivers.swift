import I2C

/// An IMU driver built on ``DriverCore``: the configuration last applied, ``configure(_:)`` under
/// the lock and the read-back check come from here, so a chip's file holds its tables, its
/// ``apply(_:to:)`` and its quirks.
///
/// (An internal protocol: its extension's members are the drivers' public API through
/// ``IMUDriver``, which they witness.)
protocol CoreIMUDriver: IMUDriver {
    associatedtype Settings: Sendable
    associatedtype State: IMUDriverState
    var core: DriverCore<Settings, State> { get }
    /// The control register ``isStillConfigured()`` reads back: its reset value differs from
    /// what ``configure(_:)`` writes there.
    static var configuredRegister: UInt8 { get }
    /// Identifies, resets and programs the chip for `configuration`, with the lock held.
    func apply(_ configuration: IMUConfiguration, to state: inout State) throws(SensorError)
}

extension CoreIMUDriver {
    var settings: Settings { core.settings }
    var device: RegisterDevice { core.device }
    var pause: Pause { core.pause }

    package var chip: ChipInfo { core.chip }
    package var configuration: IMUConfiguration { core.configuration }

    package func configure(_ configuration: IMUConfiguration) throws(SensorError) {
        try core.locked { state throws(SensorError) in try apply(configuration, to: &state) }
    }

    package func isStillConfigured() throws(SensorError) -> Bool {
        try core.readsBack(Self.configuredRegister)
    }

    /// The frame of every IMU self-test: runs `procedure` under the lock (with the state as it
    /// was), then resets the chip and applies again the configuration it had, and returns the
    /// procedure's report.
    func runSelfTest(_ procedure: (State) throws(SensorError) -> SelfTestReport) throws(SensorError) -> SelfTestReport {
        try core.locked { state throws(SensorError) -> SelfTestReport in
            let report = try procedure(state)
            try apply(state.configuration, to: &state)
            return report
        }
    }
}

/// What an IMU's FIFO read carries over from one read to the next besides the frame count
/// (a pending half frame, the last timestamp); it starts empty when the FIFO (re)starts.
protocol FIFOProgress: Sendable {
    init()
}

/// A FIFO whose reads carry nothing over but the frame count.
struct NoFIFOProgress: FIFOProgress {}

extension DriverCore {
    /// An IMU driver's core before its first ``CoreIMUDriver/configure(_:)``: the state holds
    /// `configuration` (nothing written to the chip yet) and scales samples by `scale`.
    init<Progress>(
        bus: any I2CBus, address: I2CAddress, chip name: String, _ family: ChipInfo.Family, identity: UInt8, settings: Settings,
        pause: Pause, resetCompletion: ResetCompletion, configuration: IMUConfiguration, scale: IMUScale
    ) where State == IMUState<Progress> {
        self.init(bus: bus, address: address, chip: name, family, identity: [identity], settings: settings,
                  pause: pause, resetCompletion: resetCompletion, state: IMUState(configuration: configuration, scale: scale))
    }
}

/// The state of an IMU driver, as the shared code sees it: what ``DriverState`` holds, the
/// sensitivities samples are scaled with, and a fresh state for a configuration just applied.
protocol IMUDriverState: DriverState where Configuration == IMUConfiguration {
    var scale: IMUScale { get }
    /// The state after `configuration` was applied with `shadow` written (FIFO stopped).
    static func configured(_ configuration: IMUConfiguration, shadow: ShadowRegisters, scale: IMUScale) -> Self
}

/// What an IMU driver keeps under its lock: the configuration and control registers it applied,
/// the sensitivities its samples are scaled with, the FIFO frames counted since the FIFO
/// (re)started, and what else the chip's FIFO read carries over.
struct IMUState<Progress: FIFOProgress>: IMUDriverState {
    var configuration: IMUConfiguration
    var shadow = ShadowRegisters([:])
    var scale: IMUScale
    var fifoSamples = 0
    var fifo = Progress()

    static func configured(_ configuration: IMUConfiguration, shadow: ShadowRegisters, scale: IMUScale) -> Self {
        Self(configuration: configuration, shadow: shadow, scale: scale)
    }

    /// Forgets the frames counted and what the last read carried over: the FIFO starts again.
    mutating func restartFIFO() {
        fifoSamples = 0
        fifo = Progress()
    }
}

/// The register side of an IMU's settings table: where the identity, rate and range fields sit,
/// which other fields a configuration sets, and the order the registers are written in. The
/// shared sequence (``CoreIMUDriver/program(_:_:map:identity:startUp:)``) writes it; a chip's file
/// only lists it.
struct IMURegisterMap: Sendable {
    var identityRegister: UInt8
    /// The software reset, done after the identity check; `nil` where the chip's driver starts
    /// it its own way (``CoreIMUDriver/program(_:_:map:identity:startUp:)``'s `startUp`).
    var reset: SoftResetStep?
    var accelerometerRate: RegisterField
    var accelerometerRange: RegisterField
    var gyroscopeRate: RegisterField
    var gyroscopeRange: RegisterField
    /// Fields set to a fixed code by every configuration (interface, power mode, filter); a whole
    /// register is a field with mask 0xFF. Set before the rate and range fields.
    var fixed: [(field: RegisterField, code: UInt8)] = []
    /// The registers written, in this order, each with the value its fields give it.
    var writeOrder: [UInt8]
    /// How long the sensors need after the writes before their data are valid; zero: no wait.
    var startupTime: Duration = .zero

    /// The control registers for the rate and range codes: the fixed fields, then rate and ranges.
    func shadow(rate: UInt8, accelerometer: UInt8, gyroscope: UInt8) -> ShadowRegisters {
        var shadow = ShadowRegisters([:])
        for (field, code) in fixed { _ = shadow.set(field, code) }
        _ = shadow.set(accelerometerRate, rate)
        _ = shadow.set(accelerometerRange, accelerometer)
        _ = shadow.set(gyroscopeRate, rate)
        _ = shadow.set(gyroscopeRange, gyroscope)
        return shadow
    }
}

extension CoreIMUDriver {
    /// The configuration sequence the table-driven IMUs share: checks the identity in `map`;
    /// does `map`'s software reset, then `startUp` (a chip's own reset or power-up procedure);
    /// writes the registers of `map` with the rate and range codes of `options` in `map`'s
    /// order; waits `map`'s start-up time; and returns the state that goes with them (FIFO
    /// stopped: the reset stops it).
    func program(
        _ configuration: IMUConfiguration, _ options: (rate: SettingOption, accelerometer: SettingOption, gyroscope: SettingOption),
        map: IMURegisterMap, identity: UInt8, startUp: () throws(SensorError) -> Void = {}
    ) throws(SensorError) -> State {
        try device.checkIdentity(map.identityRegister, expected: [identity], chip: chip.name)
        if let reset = map.reset {
            try core.softReset(reset.field, writing: reset.value, polls: reset.polls, interval: reset.interval)
        }
        try startUp()
        let shadow = map.shadow(rate: options.rate.code, accelerometer: options.accelerometer.code, gyroscope: options.gyroscope.code)
        try core.write(shadow, map.writeOrder)
        if map.startupTime > .zero { pause.wait(map.startupTime) }
        return State.configured(configuration, shadow: shadow, scale: IMUScale(options.accelerometer, options.gyroscope))
    }
}

/// A software reset: set `field` (writing `value`, by default just its bits), then poll until the
/// chip clears it (``DriverCore/softReset(_:writing:polls:interval:)``).
struct SoftResetStep: Sendable {
    var field: RegisterField
    var value: UInt8? = nil
    var polls: Int
    var interval: Duration
}

extension IMUScale {
    /// The sensitivities of the selected accelerometer and gyroscope full scales.
    init(_ accelerometer: SettingOption, _ gyroscope: SettingOption) {
        self.init(accelerometerLSBPerG: accelerometer.sensitivity, gyroscopeLSBPerDPS: gyroscope.sensitivity)
    }
}

/// A magnetometer driver built on ``MagnetometerCore``: the configuration last applied,
/// ``configure(_:)`` under the lock, the sample read and the read-back check come from here, so a
/// driver holds its ``apply(_:_:)`` and its self-test (``TableMagnetometer`` reads both from a
/// chip's table entry).
protocol CoreMagnetometerDriver: MagnetometerDriver {
    var core: MagnetometerCore { get }
    /// Identifies, resets and programs the chip for `configuration`, with the lock held.
    func apply(_ configuration: MagnetometerConfiguration, _ state: inout MagnetometerState) throws(SensorError)
}

extension CoreMagnetometerDriver {
    var device: RegisterDevice { core.device }

    package var chip: ChipInfo { core.chip }
    package var configuration: MagnetometerConfiguration { core.configuration }

    package func configure(_ configuration: MagnetometerConfiguration) throws(SensorError) {
        try core.locked { state throws(SensorError) in try apply(configuration, &state) }
    }

    package func readSample() throws(SensorError) -> MagneticSample { try core.readSample() }

    package func isStillConfigured() throws(SensorError) -> Bool { try core.isStillConfigured() }

    /// The frame of every magnetometer self-test: runs `procedure` under the lock, then resets
    /// the chip and applies again the configuration it had, and returns the procedure's report.
    func runSelfTest(_ procedure: (MagnetometerState) throws(SensorError) -> SelfTestReport) throws(SensorError) -> SelfTestReport {
        try core.locked { state throws(SensorError) -> SelfTestReport in
            let report = try procedure(state)
            try apply(state.configuration, &state)
            return report
        }
    }
}
