import I2C
import Locking

/// What a driver keeps under its lock: the configuration it last applied and the control
/// registers it wrote.
protocol DriverState: Sendable {
    associatedtype Configuration: Sendable
    var configuration: Configuration { get }
    var shadow: ShadowRegisters { get }
}

/// The plumbing every register driver shares: the device on the bus, the chip it drives, the
/// chip's settings table, how it waits, how it learns that a reset finished, and its state behind
/// one lock.
struct DriverCore<Settings: Sendable, State: DriverState>: Sendable {
    let device: RegisterDevice
    /// The chip as its driver reports it (``ChipDriver/chip``): `name` of `family` answering
    /// `identity`, at the device's address.
    let chip: ChipInfo
    let settings: Settings
    let pause: Pause
    let resetCompletion: ResetCompletion
    private let state: Locked<State>

    init(
        bus: any I2CBus, address: I2CAddress, chip name: String, _ family: ChipInfo.Family, identity: [UInt8], settings: Settings,
        pause: Pause, resetCompletion: ResetCompletion, state: State
    ) {
        device = RegisterDevice(bus: bus, address: address)
        chip = ChipInfo(name: name, family: family, address: address, identity: identity)
        self.settings = settings
        self.pause = pause
        self.resetCompletion = resetCompletion
        self.state = Locked(state)
    }

    var configuration: State.Configuration { state.withLock { $0.configuration } }

    /// The control register `address` as the driver last wrote it.
    func shadow(_ address: UInt8) -> UInt8 { state.withLock { $0.shadow[address] } }

    /// Runs `body` with the state locked: one bus sequence of this driver at a time.
    func locked<Result>(_ body: (inout State) throws(SensorError) -> Result) throws(SensorError) -> Result {
        try state.withLock(body)
    }

    /// Sets the software-reset bit(s) `field` (writing `value`, by default just those bits), then
    /// waits for the chip to clear them: reads the register up to `polls` times, pausing `interval`
    /// before each read. A chip busy resetting may not acknowledge its address: such a poll counts
    /// as "not yet"; any other bus error is thrown. With ``ResetCompletion/fixedDelay`` it pauses
    /// `polls × interval` once and does not read.
    func softReset(_ field: RegisterField, writing value: UInt8? = nil, polls: Int, interval: Duration) throws(SensorError) {
        try device.write(field.address, value ?? field.mask)
        try waitUntil(field, reads: 0, polls: polls, interval: interval)
    }

    /// Waits for the chip to show `code` in `field` after a reset or a power-mode change: reads
    /// the register up to `polls` times, pausing `interval` before each read; a poll the chip does
    /// not acknowledge counts as "not yet", any other bus error is thrown. With
    /// ``ResetCompletion/fixedDelay`` it pauses `polls × interval` once and does not read.
    /// - Throws: ``SensorError/resetTimeout(chip:address:polls:)`` when the code never shows.
    func waitUntil(_ field: RegisterField, reads code: UInt8, polls: Int, interval: Duration) throws(SensorError) {
        if resetCompletion == .fixedDelay {
            pause.wait(interval * polls)
            return
        }
        for _ in 0..<polls {
            pause.wait(interval)
            do {
                if field.code(in: try device.read(field.address)) == code { return }
            } catch {
                guard case .bus(let cause) = error, cause.kind == .noAcknowledge else { throw error }
            }
        }
        throw .resetTimeout(chip: chip.name, address: device.address, polls: polls)
    }

    /// Reads `count + 1` samples through `read`, pausing `interval` before each, and averages all
    /// but the first (self-test procedures discard the first sample after a change).
    func averageDiscardingFirst(
        count: Int, interval: Duration, _ read: () throws(SensorError) -> SIMD3<Int16>
    ) throws(SensorError) -> SIMD3<Double> {
        var samples: [SIMD3<Int16>] = []
        for index in 0...count {
            pause.wait(interval)
            let sample = try read()
            if index > 0 { samples.append(sample) }
        }
        return mean(samples)
    }

    /// The ST self-test step (LSM6 and LSM9DS1 datasheet procedures): writes `value` to
    /// `control` (rate and range for the test), waits `settle`, averages 5 samples after one
    /// discarded (`interval` apart) read by `read`; sets `selfTest` in `selfTestRegister` and does
    /// the same; then powers the sensor down (`control` = 0) and clears `selfTestRegister`.
    /// Returns the excited average minus the normal one, in counts.
    func selfTestResponse(
        control: UInt8, value: UInt8, selfTestRegister: UInt8, selfTest: UInt8, settle: Duration, interval: Duration,
        read: () throws(SensorError) -> SIMD3<Int16>
    ) throws(SensorError) -> SIMD3<Double> {
        try device.write(control, value)
        pause.wait(settle)
        let normal = try averageDiscardingFirst(count: 5, interval: interval, read)
        try device.write(selfTestRegister, selfTest)
        pause.wait(settle)
        let excited = try averageDiscardingFirst(count: 5, interval: interval, read)
        try device.write(control, 0)
        try device.write(selfTestRegister, 0)
        return excited - normal
    }

    /// Writes the shadow value of each of `registers`, in order.
    func write(_ shadow: ShadowRegisters, _ registers: [UInt8]) throws(SensorError) {
        for register in registers { try device.write(register, shadow[register]) }
    }

    /// True when `register` still reads what the driver last wrote there (false after a reset).
    func readsBack(_ register: UInt8) throws(SensorError) -> Bool {
        let expected = state.withLock { $0.shadow[register] }
        return try device.read(register) == expected
    }
}
