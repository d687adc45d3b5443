import Locking
import Synchronization

/// A chip attached to a ``SimulatedBus``, driven one I2C step at a time.
///
/// Register-file chips follow the usual convention: the first byte of a write step sets the
/// register pointer, the following bytes are written from the pointer on, and a read step returns
/// bytes from the pointer on; how the pointer moves after each byte (auto-increment, wrap-around,
/// FIFO registers that do not advance) is the chip's own rule, taken from its datasheet.
package protocol SimulatedDevice: AnyObject, Sendable {
    /// The chip as its datasheet names it: `LSM6DSOX`, `MPU-6050`, …
    var chipName: String { get }
    /// One write step of a transaction addressed to this chip (may be empty: a probe's quick write).
    func handleWrite(_ bytes: [UInt8])
    /// One read step of a transaction addressed to this chip: `count` bytes.
    func handleRead(count: Int) -> [UInt8]
    /// A register read (write step `[register]`, then a read step of `buffer.count` bytes) into
    /// the caller's storage. The default runs ``handleWrite(_:)`` and ``handleRead(count:)``;
    /// the register-file emulators allocate nothing here. Returns how many bytes the chip sent
    /// (`buffer.count` unless the read step returned fewer or more; at most `buffer.count` are stored).
    func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// A register write (one write step `[register, value]`). The default runs
    /// ``handleWrite(_:)``; the register-file emulators allocate nothing here.
    func writeRegister(_ register: UInt8, _ value: UInt8)
    /// A one-byte write step (`[byte]`: a register pointer, or a command chip's command). The
    /// default runs ``handleWrite(_:)``; the engine-backed emulators allocate nothing here.
    func writeByte(_ byte: UInt8)
    /// A power cycle: every register back to its power-on value, FIFO empty, sensors off.
    func powerOnReset()
    /// The register as a bus read would return it now, without the read's side effects (no FIFO
    /// pop, no flag cleared, no pointer move); output registers as of the last bus access.
    func peek(_ register: UInt8) -> UInt8
}

extension SimulatedDevice {
    package func writeRegister(_ register: UInt8, _ value: UInt8) { handleWrite([register, value]) }
    package func writeByte(_ byte: UInt8) { handleWrite([byte]) }

    package func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        handleWrite([register])
        let reply = handleRead(count: buffer.count)
        buffer.copyBytes(from: reply.prefix(buffer.count))
        return reply.count
    }

    /// The registers in `range` as ``peek(_:)`` gives them: a register image, e.g. to preload
    /// the kernel's `i2c-stub` with a chip's power-on state.
    package func registerImage(_ range: ClosedRange<UInt8> = 0x00...0x7F) -> [UInt8] {
        range.map { peek($0) }
    }
}

/// A chip emulator: made from what the chip senses (in its own axes), the simulation time and how
/// the emulated part deviates from an ideal one. Every emulator of this module is one.
package protocol ChipEmulator: SimulatedDevice {
    init(source: any PhysicalSource, now: @escaping @Sendable () -> Double, options: EmulatorOptions)
}

extension ChipEmulator {
    /// An emulator of an ideal part (default ``EmulatorOptions``).
    package init(source: any PhysicalSource, now: @escaping @Sendable () -> Double) {
        self.init(source: source, now: now, options: .init())
    }
}

/// A caseless enum naming one chip of a family that one generic emulator serves: its `model` is
/// the family's chip model (`LSM6EmulatorModel.DSOX.model` is `.dsox`, and ``LSM6DSOXEmulator`` is
/// `LSM6Emulator<LSM6EmulatorModel.DSOX>`).
package protocol ChipModelTag: Sendable {
    associatedtype Model: Sendable
    static var model: Model { get }
}

/// One sensing axis of one sensor inside a chip, e.g. to declare it dead.
package enum SensorAxis: Hashable, Sendable {
    package enum Axis: Int, Hashable, Sendable, CaseIterable { case x = 0, y = 1, z = 2 }
    case accelerometer(Axis)
    case gyroscope(Axis)
    case magnetometer(Axis)
}

/// How an emulated chip deviates from an ideal one.
package struct EmulatorOptions: Sendable, Equatable {
    /// Error of the chip's own oscillator in parts per million; positive means the chip's output
    /// data rate runs fast (more FIFO frames per second of simulated time than nominal).
    package var clockDriftPPM: Double
    /// Axes whose sensing element is broken: they read 0 whatever the input, self-test included,
    /// so a self-test reports a failure on them.
    package var deadAxes: Set<SensorAxis>
    /// The outputs lag the motion by the delay the datasheet gives for the configured digital
    /// low-pass filter (the chips whose datasheets give one: the MPU-6050/6500/9250). Off: the
    /// outputs show the motion at the instant of the read, as every other emulated chip does.
    package var filterDelay: Bool
    /// Every N-th read transaction returns 0xFF bytes: what a bus controller that does not honour
    /// clock stretching (the Raspberry Pi's) reads from a chip that stretches (the BNO055). nil:
    /// never. Only the BNO055 emulator uses it.
    package var stretchedReadEvery: Int?

    package init(clockDriftPPM: Double = 0, deadAxes: Set<SensorAxis> = [], filterDelay: Bool = true, stretchedReadEvery: Int? = nil) {
        self.clockDriftPPM = clockDriftPPM
        self.deadAxes = deadAxes
        self.filterDelay = filterDelay
        self.stretchedReadEvery = stretchedReadEvery
    }
}

/// Behaviour shared by the register-level chip models. Each model is a value type kept behind the
/// emulator's mutex; `time` is the simulation time (seconds) of the bus step being served.
protocol RegisterChip: Sendable {
    /// The register file, indexed by address.
    var registers: [UInt8] { get set }
    /// The register address the next byte is read from or written to.
    var pointer: UInt8 { get set }
    /// Brings sampling up to `time`: produces due FIFO frames, sets data-ready flags, refreshes
    /// the output registers. Called before every bus step.
    mutating func advance(to time: Double)
    /// Interprets the first byte of a write step (usually: the register address).
    mutating func setPointer(fromSubAddress byte: UInt8)
    /// A bus write of one byte to `register`.
    mutating func write(_ value: UInt8, to register: UInt8, at time: Double)
    /// A bus read of one byte from `register` (may have side effects: FIFO pop, flag clear).
    mutating func read(_ register: UInt8) -> UInt8
    /// Where the pointer goes after a byte at `register` was transferred.
    func pointer(after register: UInt8) -> UInt8
    /// The register as held, without side effects.
    func peek(_ register: UInt8) -> UInt8
    mutating func powerOnReset()
}

extension RegisterChip {
    mutating func setPointer(fromSubAddress byte: UInt8) { pointer = byte }

    /// The register as held.
    func reg(_ address: UInt8) -> UInt8 { registers[Int(address)] }

    /// Writes the low 24 bits of `count` to three consecutive registers from `address` on, least
    /// significant byte first (`leastFirst`) or most significant first; allocates nothing (the
    /// per-reading path of the barometers' emulators).
    mutating func store24(_ count: Int, at address: UInt8, leastFirst: Bool) {
        let bytes = (UInt8(truncatingIfNeeded: count), UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count >> 16))
        let index = Int(address)
        registers[index] = leastFirst ? bytes.0 : bytes.2
        registers[index + 1] = bytes.1
        registers[index + 2] = leastFirst ? bytes.2 : bytes.0
    }

    /// Writes `bytes` to consecutive registers from `address` on (e.g. an output block).
    mutating func store<Bytes: Sequence<UInt8>>(_ bytes: Bytes, at address: UInt8) {
        var index = Int(address)
        for byte in bytes {
            registers[index] = byte
            index += 1
        }
    }

    /// A new sample is in the output registers: sets the `ready` bits of `status`, and its
    /// `overrun` bits too when data ready was still set (the previous sample was never read).
    mutating func flagNewData(in status: UInt8, ready: UInt8, overrun: UInt8) {
        if reg(status) & ready != 0 { registers[Int(status)] |= overrun }
        registers[Int(status)] |= ready
    }

    /// A two-byte write step, `[register, value]`, without a collection (whose generic iteration
    /// allocates where it is not specialised).
    mutating func handleRegisterWrite(_ register: UInt8, _ value: UInt8, at time: Double) {
        advance(to: time)
        setPointer(fromSubAddress: register)
        let target = pointer
        write(value, to: target, at: time)
        pointer = pointer(after: target)
    }

    /// A one-byte write step, `[byte]`, without a collection: it only sets the pointer (a
    /// command chip's ``setPointer(fromSubAddress:)`` acts on the command), as in ``handleWrite(_:at:)``.
    mutating func handleByteWrite(_ byte: UInt8) {
        setPointer(fromSubAddress: byte)
    }

    mutating func handleWrite<Bytes: Collection<UInt8>>(_ bytes: Bytes, at time: Double) {
        guard let subAddress = bytes.first else { return }
        // A write that only sets the pointer changes nothing time-dependent: the read that follows
        // brings sampling up to date (half the source evaluations of a register read).
        if bytes.count > 1 { advance(to: time) }
        setPointer(fromSubAddress: subAddress)
        for value in bytes.dropFirst() {
            let register = pointer
            write(value, to: register, at: time)
            pointer = pointer(after: register)
        }
    }

    mutating func handleRead(count: Int, at time: Double) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: max(0, count)) { buffer, initialized in
            handleRead(into: UnsafeMutableRawBufferPointer(buffer), at: time)
            initialized = buffer.count
        }
    }

    /// A read step of `buffer.count` bytes into `buffer`.
    mutating func handleRead(into buffer: UnsafeMutableRawBufferPointer, at time: Double) {
        advance(to: time)
        for index in buffer.indices {
            let register = pointer
            buffer[index] = read(register)
            pointer = pointer(after: register)
        }
    }
}

/// The mutex and clock every emulator class wraps around its chip model.
final class EmulatorEngine<Chip: RegisterChip>: Sendable {
    let chip: Locked<Chip>
    let now: @Sendable () -> Double

    init(_ chip: Chip, now: @escaping @Sendable () -> Double) {
        self.chip = Locked(chip)
        self.now = now
    }

    func handleWrite(_ bytes: [UInt8]) {
        let time = now()
        chip.withLock { $0.handleWrite(bytes, at: time) }
    }

    func handleRead(count: Int) -> [UInt8] {
        let time = now()
        return chip.withLock { $0.handleRead(count: count, at: time) }
    }

    /// A two-byte write step without an array.
    func writeRegister(_ register: UInt8, _ value: UInt8) {
        let time = now()
        chip.withLock { $0.handleRegisterWrite(register, value, at: time) }
    }

    /// A one-byte write step without an array.
    func writeByte(_ byte: UInt8) {
        chip.withLock { $0.handleByteWrite(byte) }
    }

    /// The register read of ``SimulatedDevice/readRegisters(_:into:)``: the pointer set as a
    /// one-byte write step sets it, then the read step, under one lock.
    func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let time = now()
        chip.withLock { chip in
            chip.setPointer(fromSubAddress: register)
            chip.handleRead(into: buffer, at: time)
        }
        return buffer.count
    }

    func powerOnReset() {
        chip.withLock { $0.powerOnReset() }
    }

    func peek(_ register: UInt8) -> UInt8 {
        chip.withLock { $0.peek(register) }
    }

    func withChip<T>(_ body: (inout Chip) -> T) -> T {
        chip.withLock { body(&$0) }
    }
}

/// An emulator class serving the bus through its ``EmulatorEngine``: the ``SimulatedDevice``
/// calls go to the engine's chip model.
protocol EngineBackedDevice: SimulatedDevice {
    associatedtype Chip: RegisterChip
    var engine: EmulatorEngine<Chip> { get }
}

extension EngineBackedDevice {
    package func handleWrite(_ bytes: [UInt8]) { engine.handleWrite(bytes) }
    package func handleRead(count: Int) -> [UInt8] { engine.handleRead(count: count) }
    package func writeRegister(_ register: UInt8, _ value: UInt8) { engine.writeRegister(register, value) }
    package func writeByte(_ byte: UInt8) { engine.writeByte(byte) }
    package func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        engine.readRegisters(register, into: buffer)
    }
    package func powerOnReset() { engine.powerOnReset() }
    /// The register as a bus read would return it, without its side effects.
    package func peek(_ register: UInt8) -> UInt8 { engine.peek(register) }
}

/// An engine-backed emulator made the one way every chip emulator is made: the chip model
/// (``makeChip(source:options:)``) behind a new engine. A conforming class only stores the engine.
protocol ModelEmulator: EngineBackedDevice, ChipEmulator {
    init(engine: EmulatorEngine<Chip>)
    /// The register model in its power-on state.
    static func makeChip(source: any PhysicalSource, options: EmulatorOptions) -> Chip
    /// The chip as its datasheet names it.
    static var chipName: String { get }
}

extension ModelEmulator {
    /// - Parameters:
    ///   - source: what the chip experiences, in the chip's axes.
    ///   - now: simulation time in seconds (a `VirtualClock`'s `now` in tests).
    ///   - options: how the emulated part deviates from an ideal one.
    package init(source: any PhysicalSource, now: @escaping @Sendable () -> Double, options: EmulatorOptions) {
        self.init(engine: EmulatorEngine(Self.makeChip(source: source, options: options), now: now))
    }

    package var chipName: String { Self.chipName }
}

/// A register model that knows the name of the chip it models.
protocol NamedChip {
    static var chipName: String { get }
}

extension ModelEmulator where Chip: SingleModelChip {
    static func makeChip(source: any PhysicalSource, options: EmulatorOptions) -> Chip { Chip(source: source, options: options) }
}

extension ModelEmulator where Chip: NamedChip {
    static var chipName: String { Chip.chipName }
}

/// A register model of several chips, one of them chosen by a `Model` value named after it.
protocol MultiModelChip: RegisterChip {
    associatedtype Model: RawRepresentable<String>, Sendable
    init(model: Model, source: any PhysicalSource, options: EmulatorOptions)
}

/// A family's generic emulator, whose `Tag` names the chip it plays.
protocol TaggedEmulator: ModelEmulator where Chip: MultiModelChip {
    associatedtype Tag: ChipModelTag where Tag.Model == Chip.Model
}

extension TaggedEmulator {
    static func makeChip(source: any PhysicalSource, options: EmulatorOptions) -> Chip {
        Chip(model: Tag.model, source: source, options: options)
    }

    static var chipName: String { Tag.model.rawValue }
}
