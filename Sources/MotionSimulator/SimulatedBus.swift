import Locking
import I2C
import Synchronization
import Timing

/// An I2C bus in memory: routes each transaction by address to an attached ``SimulatedDevice``,
/// answers an absent address with `.noAcknowledge` the way a real bus does, keeps a log of
/// transactions, and injects faults on request (error bursts, a device that vanishes, a power-on
/// reset in the middle of a stream). Runs one transaction at a time; safe to call from any thread.
public final class SimulatedBus: I2CBus {
    public let name: String
    private let now: @Sendable () -> Double

    /// One transaction as the bus saw it.
    public struct LoggedTransaction: Sendable, Equatable, CustomStringConvertible {
        /// 1 for the first transaction on this bus, counting those dropped from the log.
        public var number: Int
        /// Simulation time (seconds) when it ran.
        public var time: Double
        public var address: I2CAddress
        public var operations: [I2COperation]
        /// The bytes of each read step (empty when it failed).
        public var replies: [[UInt8]]
        /// The kind of error the transaction ended with, nil when it succeeded.
        public var failure: I2CError.Kind?

        public var description: String {
            var text = "#\(number) \(address): " + operations.map(\.description).joined(separator: ", ")
            if let failure { text += " failed: \(failure.rawValue)" }
            else if !replies.isEmpty { text += " → " + replies.map { "[\($0.hexList)]" }.joined(separator: " ") }
            return text
        }
    }

    private struct Attachment {
        var device: any SimulatedDevice
        /// When set, the device answers only while this returns true (a chip behind a bypass switch).
        var isReachable: (@Sendable () -> Bool)?
    }

    private struct Absence {
        /// The device answers again from this time on; nil: until re-attached or ``SimulatedBus/reappear(_:)``.
        var until: Double?
        /// Whether it comes back power-cycled (registers at power-on values).
        var powerCycled: Bool
    }

    private struct InjectedFailure {
        var remaining: Int
        var kind: I2CError.Kind
    }

    /// A fault of a plan waiting for its time, at a chip's address.
    private struct PlannedFault {
        var fault: FaultPlan.Fault
        var address: I2CAddress
        /// Simulation time it happens next.
        var due: Double
    }

    private struct State {
        var planned: [PlannedFault] = []
        var devices: [I2CAddress: Attachment] = [:]
        var absences: [I2CAddress: Absence] = [:]
        var failures: [I2CAddress: InjectedFailure] = [:]
        var log: [LoggedTransaction] = []
        var logCapacity: Int
        var transactionCount = 0
    }
    private let state: Locked<State>

    /// - Parameters:
    ///   - name: how errors name the bus (a real bus says `/dev/i2c-1`).
    ///   - logCapacity: the log keeps the most recent transactions up to this many.
    ///   - now: simulation time in seconds (a `VirtualClock`'s `now` in tests); used for the log
    ///     and for devices that vanish until a time.
    public init(
        name: String = "simulated", logCapacity: Int = 10_000,
        now: @escaping @Sendable () -> Double = { SystemClock.monotonicSeconds() }
    ) {
        self.name = name
        self.now = now
        self.state = Locked(State(logCapacity: max(0, logCapacity)))
    }

    // MARK: Devices

    /// Attaches `device` at `address`, replacing whatever was there and ending an absence.
    /// With `isReachable`, the device acknowledges only while it returns true (e.g. the MPU-9250's
    /// AK8963, reachable only with the I2C bypass enabled).
    public func attach(
        _ device: any SimulatedDevice, at address: I2CAddress, reachableWhen isReachable: (@Sendable () -> Bool)? = nil
    ) {
        state.withLock { state in
            state.devices[address] = Attachment(device: device, isReachable: isReachable)
            state.absences[address] = nil
        }
    }

    /// Removes the device at `address`; it no longer acknowledges.
    public func detach(_ address: I2CAddress) {
        _ = state.withLock { $0.devices.removeValue(forKey: address) }
    }

    /// The device attached at `address`, whether it currently answers or not.
    public func device(at address: I2CAddress) -> (any SimulatedDevice)? {
        state.withLock { $0.devices[address]?.device }
    }

    /// The addresses that acknowledge right now, in ascending order.
    public var respondingAddresses: [I2CAddress] {
        let time = now()
        return state.withLock { state in
            state.devices.keys.sorted().filter { Self.isPresent($0, in: &state, at: time) }
        }
    }

    // MARK: Fault injection

    /// The next `count` transactions to `address` fail with an error of `kind` (no-acknowledge
    /// burst, bus error, timeout, …) without reaching the device; later ones succeed again.
    public func failNext(_ count: Int, transactionsTo address: I2CAddress, with kind: I2CError.Kind) {
        state.withLock { state in
            state.failures[address] = count > 0 ? InjectedFailure(remaining: count, kind: kind) : nil
        }
    }

    /// The device at `address` stops acknowledging, as if unplugged, until simulation time
    /// `time` (nil: until ``reappear(_:)`` or ``attach(_:at:reachableWhen:)``). When
    /// `powerCycled` it comes back with its registers at power-on values.
    public func vanish(_ address: I2CAddress, until time: Double? = nil, powerCycled: Bool = true) {
        state.withLock { $0.absences[address] = Absence(until: time, powerCycled: powerCycled) }
    }

    /// Ends an absence started by ``vanish(_:until:powerCycled:)`` now.
    public func reappear(_ address: I2CAddress) {
        state.withLock { state in
            if let absence = state.absences.removeValue(forKey: address), absence.powerCycled {
                state.devices[address]?.device.powerOnReset()
            }
        }
    }

    /// The device at `address` goes through a power-on reset now (a brown-out in mid-stream):
    /// registers back to power-on values, FIFO emptied, sensors off.
    public func triggerPowerOnReset(_ address: I2CAddress) {
        state.withLock { $0.devices[address]?.device.powerOnReset() }
    }

    /// Follows `plan` from simulation time `start` on: each fault happens at its time, checked at
    /// every transaction (so in step with the sampler, in virtual or real time).
    public func follow(_ plan: FaultPlan, imu: I2CAddress, magnetometer: I2CAddress?, start: Double) {
        let planned = plan.faults.compactMap { fault -> PlannedFault? in
            guard let address = fault.sensor == .imu ? imu : magnetometer else { return nil }
            return PlannedFault(fault: fault, address: address, due: start + fault.at)
        }
        state.withLock { $0.planned += planned }
    }

    private static func applyDueFaults(in state: inout State, at time: Double) {
        guard state.planned.contains(where: { $0.due <= time }) else { return }
        for index in state.planned.indices where state.planned[index].due <= time {
            let planned = state.planned[index]
            switch planned.fault.kind {
            case .failures(let kind, let count):
                state.failures[planned.address] = InjectedFailure(remaining: count, kind: kind)
            case .reset:
                state.devices[planned.address]?.device.powerOnReset()
            case .vanish(let seconds):
                state.absences[planned.address] = Absence(until: planned.due + seconds, powerCycled: true)
            }
            state.planned[index].due = planned.fault.every.map { planned.due + $0 } ?? .infinity
        }
        state.planned.removeAll { $0.due == .infinity }
    }

    // MARK: Log

    /// The most recent transactions, oldest first (at most `logCapacity`).
    public var log: [LoggedTransaction] { state.withLock { Array($0.log.suffix($0.logCapacity)) } }

    /// Transactions run since the bus was made, failed ones included.
    public var transactionCount: Int { state.withLock { $0.transactionCount } }

    /// Empties the log (the transaction count keeps counting).
    public func clearLog() {
        state.withLock { $0.log.removeAll() }
    }

    // MARK: I2CBus

    public func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
        let time = now()
        let result: Result<[[UInt8]], I2CError> = state.withLock { state in
            state.transactionCount += 1
            Self.applyDueFaults(in: &state, at: time)
            let outcome = Self.run(address, operations, in: &state, at: time, bus: name)
            if state.logCapacity > 0 {
                // Trimmed in batches (up to twice the capacity is held; ``log`` shows the last
                // `logCapacity`), so a full log costs O(1) per transaction, not O(capacity).
                if state.log.count >= 2 * state.logCapacity { state.log.removeFirst(state.log.count - state.logCapacity + 1) }
                let (replies, failure): ([[UInt8]], I2CError.Kind?) = switch outcome {
                case .success(let replies): (replies, nil)
                case .failure(let error): ([], error.kind)
                }
                state.log.append(LoggedTransaction(
                    number: state.transactionCount, time: time, address: address,
                    operations: operations, replies: replies, failure: failure))
            }
            return outcome
        }
        return try result.get()
    }

    private static func run(
        _ address: I2CAddress, _ operations: [I2COperation], in state: inout State, at time: Double, bus: String
    ) -> Result<[[UInt8]], I2CError> {
        for case .read(let count) in operations where count < 0 {
            return .failure(I2CError(
                .invalidArgument, bus: bus, address: address, detail: "read of \(count) bytes",
                hint: "ask for zero or more bytes"))
        }
        if var failure = state.failures[address] {
            failure.remaining -= 1
            state.failures[address] = failure.remaining > 0 ? failure : nil
            return .failure(I2CError(
                failure.kind, bus: bus, address: address,
                detail: "fault injected by the simulator (\(failure.remaining) more to come)",
                hint: "the simulated bus was told to fail this transaction"))
        }
        guard isPresent(address, in: &state, at: time), let device = state.devices[address]?.device else {
            let present = state.devices.keys.sorted().filter { isPresent($0, in: &state, at: time) }
            return .failure(I2CError(
                .noAcknowledge, bus: bus, address: address,
                detail: "no device acknowledged at \(address) on \(bus)",
                hint: present.isEmpty
                    ? "nothing is attached to the simulated bus"
                    : "devices answer at " + present.map(\.description).joined(separator: ", ")))
        }
        var replies: [[UInt8]] = []
        for operation in operations {
            switch operation {
            case .write(let bytes): device.handleWrite(bytes)
            case .read(let count): replies.append(device.handleRead(count: count))
            }
        }
        return .success(replies)
    }

    private static func isPresent(_ address: I2CAddress, in state: inout State, at time: Double) -> Bool {
        guard let attachment = state.devices[address] else { return false }
        if let absence = state.absences[address] {
            guard let until = absence.until, time >= until else { return false }
            state.absences[address] = nil
            if absence.powerCycled { attachment.device.powerOnReset() }
        }
        return attachment.isReachable?() ?? true
    }
}
