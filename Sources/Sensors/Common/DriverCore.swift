import I2C
import Locking

/// What a driver keeps under its lock: the configuration it last applied and the control
/// registers it wrote.
protocol DriverState: Sendable {
    associatedtype Configuration: Sendable
    var configuration: Configuration { get }
    var shadow: ShadowRegisters { get }
}

/// The plumbing every register driver shares: the device on the bus, the chip's settings table,
/// how it waits, how it learns that a reset finished, and its state behind one lock.
struct DriverCore<Settings: Sendable, State: DriverState>: Sendable {
    let device: RegisterDevice
    let settings: Settings
    let pause: Pause
    let resetCompletion: ResetCompletion
    private let state: Locked<State>

    init(bus: any I2CBus, address: I2CAddress, settings: Settings, pause: Pause, resetCompletion: ResetCompletion, state: State) {
        device = RegisterDevice(bus: bus, address: address)
        self.settings = settings
        self.pause = pause
        self.resetCompletion = resetCompletion
        self.state = Locked(state)
    }

    var configuration: State.Configuration { state.withLock { $0.configuration } }

    /// Runs `body` with the state locked: one bus sequence of this driver at a time.
    func locked<Result>(_ body: (inout State) throws(SensorError) -> Result) throws(SensorError) -> Result {
        try state.withLock(body)
    }

    /// A value read from the state, without bus traffic.
    func current<Value>(_ read: (State) -> Value) -> Value {
        state.withLock { read($0) }
    }

    /// Sets the software-reset bit(s) `field` (writing `value`, by default just the bit) and waits
    /// for the chip to clear them.
    func softReset(_ field: RegisterField, writing value: UInt8? = nil, polls: Int, interval: Duration, chip: String) throws(SensorError) {
        try device.write(field.address, value ?? field.mask)
        try waitForClear(device, register: field.address, mask: field.mask, polls: polls, interval: interval,
                         pause: pause, completion: resetCompletion, chip: chip)
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
