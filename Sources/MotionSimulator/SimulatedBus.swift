import Locking
import I2C
import Synchronization
import Timing

/// An I2C bus in memory: routes each transaction by address to an attached ``SimulatedDevice``,
/// answers an absent address with `.noAcknowledge` the way a real bus does, keeps a log of
/// transactions, and injects faults on request (error bursts, a device that vanishes, a power-on
/// reset in the middle of a stream). Runs one transaction at a time; safe to call from any thread.
package final class SimulatedBus: I2CBus {
    package let name: String
    private let now: @Sendable () -> Double

    /// One transaction as the bus saw it.
    package struct LoggedTransaction: Sendable, Equatable, CustomStringConvertible {
        /// 1 for the first transaction on this bus, counting those dropped from the log.
        package var number: Int
        /// Simulation time (seconds) when it ran.
        package var time: Double
        package var address: I2CAddress
        package var operations: [I2COperation]
        /// The bytes of each read step (empty when it failed).
        package var replies: [[UInt8]]
        /// The kind of error the transaction ended with, nil when it succeeded.
        package var failure: I2CError.Kind?

        package var description: String {
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
        /// Read transactions still to come back as 0xFF bytes, per address (``stretchNext(_:readsFrom:)``).
        var stretchedReads: [I2CAddress: Int] = [:]
        var log: TransactionLog
        var transactionCount = 0
    }

    /// The log in three flat arrays (transactions, their steps, the bytes written and read), not
    /// an array per transaction: once the arrays have grown to hold twice the capacity, logging a
    /// transaction allocates nothing. ``SimulatedBus/log`` builds the ``LoggedTransaction``s.
    private struct TransactionLog {
        struct Entry {
            var number: Int
            var time: Double
            var address: I2CAddress
            var failure: I2CError.Kind?
            var firstStep: Int
            var stepCount: Int
            var firstByte: Int
        }
        /// A write with its bytes, or a read with its count and (when the transaction succeeded) its reply.
        struct Step {
            var isRead: Bool
            var count: Int
            var firstByte: Int
            var byteCount: Int
        }
        let capacity: Int
        var entries: [Entry] = []
        var steps: [Step] = []
        var bytes: [UInt8] = []

        init(capacity: Int) { self.capacity = capacity }

        /// Starts an entry; its steps follow through ``append(isRead:count:bytes:)``.
        mutating func begin(number: Int, time: Double, address: I2CAddress, failure: I2CError.Kind?) {
            // Trimmed in batches (up to twice the capacity is held; ``SimulatedBus/log`` shows the
            // last `capacity`), so a full log costs O(1) per transaction, not O(capacity).
            // Also when an array is full but holds more than the capacity: the arrays then stop
            // growing once they hold the last `capacity` transactions.
            if entries.count >= 2 * capacity || (entries.count == entries.capacity && entries.count >= capacity) {
                trim(keeping: capacity - 1)
            }
            entries.append(Entry(
                number: number, time: time, address: address, failure: failure,
                firstStep: steps.count, stepCount: 0, firstByte: bytes.count))
        }

        mutating func append(isRead: Bool, count: Int, bytes stored: UnsafeRawBufferPointer) {
            if entries.count > capacity,
               steps.count == steps.capacity || bytes.count + stored.count > bytes.capacity {
                trim(keeping: capacity)  // the entry being logged is the last, and stays
            }
            steps.append(Step(isRead: isRead, count: count, firstByte: bytes.count, byteCount: stored.count))
            bytes.append(contentsOf: stored)
            entries[entries.count - 1].stepCount += 1
        }

        private mutating func trim(keeping count: Int) {
            let drop = entries.count - max(0, count)
            guard drop > 0 else { return }
            let (stepShift, byteShift) = drop < entries.count
                ? (entries[drop].firstStep, entries[drop].firstByte) : (steps.count, bytes.count)
            entries.removeFirst(drop)
            steps.removeFirst(stepShift)
            bytes.removeFirst(byteShift)
            for index in entries.indices {
                entries[index].firstStep -= stepShift
                entries[index].firstByte -= byteShift
            }
            for index in steps.indices { steps[index].firstByte -= byteShift }
        }

        mutating func removeAll() {
            entries.removeAll(keepingCapacity: true)
            steps.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
        }

        /// The last `capacity` transactions, oldest first.
        var transactions: [LoggedTransaction] {
            entries.suffix(capacity).map { entry in
                var operations: [I2COperation] = []
                var replies: [[UInt8]] = []
                for step in steps[entry.firstStep..<entry.firstStep + entry.stepCount] {
                    let stored = Array(bytes[step.firstByte..<step.firstByte + step.byteCount])
                    if step.isRead {
                        operations.append(.read(count: step.count))
                        if entry.failure == nil { replies.append(stored) }
                    } else {
                        operations.append(.write(stored))
                    }
                }
                return LoggedTransaction(
                    number: entry.number, time: entry.time, address: entry.address,
                    operations: operations, replies: replies, failure: entry.failure)
            }
        }
    }
    private let state: Locked<State>

    /// - Parameters:
    ///   - name: how errors name the bus (a real bus says `/dev/i2c-1`).
    ///   - logCapacity: the log keeps the most recent transactions up to this many.
    ///   - now: simulation time in seconds (a `VirtualClock`'s `now` in tests); used for the log
    ///     and for devices that vanish until a time.
    package init(
        name: String = "simulated", logCapacity: Int = 10_000,
        now: @escaping @Sendable () -> Double = { SystemClock.monotonicSeconds() }
    ) {
        self.name = name
        self.now = now
        self.state = Locked(State(log: TransactionLog(capacity: max(0, logCapacity))))
    }

    // MARK: Devices

    /// Attaches `device` at `address`, replacing whatever was there and ending an absence.
    /// With `isReachable`, the device acknowledges only while it returns true (e.g. the MPU-9250's
    /// AK8963, reachable only with the I2C bypass enabled).
    package func attach(
        _ device: any SimulatedDevice, at address: I2CAddress, reachableWhen isReachable: (@Sendable () -> Bool)? = nil
    ) {
        state.withLock { state in
            state.devices[address] = Attachment(device: device, isReachable: isReachable)
            state.absences[address] = nil
        }
    }

    /// Removes the device at `address`; it no longer acknowledges.
    package func detach(_ address: I2CAddress) {
        _ = state.withLock { $0.devices.removeValue(forKey: address) }
    }

    /// The device attached at `address`, whether it currently answers or not.
    package func device(at address: I2CAddress) -> (any SimulatedDevice)? {
        state.withLock { $0.devices[address]?.device }
    }

    /// The addresses that acknowledge right now, in ascending order.
    package var respondingAddresses: [I2CAddress] {
        let time = now()
        return state.withLock { state in
            state.devices.keys.sorted().filter { Self.isPresent($0, in: &state, at: time) }
        }
    }

    // MARK: Fault injection

    /// The next `count` transactions to `address` fail with an error of `kind` (no-acknowledge
    /// burst, bus error, timeout, …) without reaching the device; later ones succeed again.
    package func failNext(_ count: Int, transactionsTo address: I2CAddress, with kind: I2CError.Kind) {
        state.withLock { state in
            state.failures[address] = count > 0 ? InjectedFailure(remaining: count, kind: kind) : nil
        }
    }

    /// The next `count` transactions to `address` that read reach the device (it sends, and what
    /// it sent is gone from it) but every byte read is 0xFF: what a controller that does not wait
    /// while a chip stretches the clock (the Raspberry Pi's) reads from it.
    package func stretchNext(_ count: Int, readsFrom address: I2CAddress) {
        state.withLock { $0.stretchedReads[address] = count > 0 ? count : nil }
    }

    /// The device at `address` stops acknowledging, as if unplugged, until simulation time
    /// `time` (nil: until ``reappear(_:)`` or ``attach(_:at:reachableWhen:)``). When
    /// `powerCycled` it comes back with its registers at power-on values.
    package func vanish(_ address: I2CAddress, until time: Double? = nil, powerCycled: Bool = true) {
        state.withLock { $0.absences[address] = Absence(until: time, powerCycled: powerCycled) }
    }

    /// Ends an absence started by ``vanish(_:until:powerCycled:)`` now.
    package func reappear(_ address: I2CAddress) {
        state.withLock { state in
            if let absence = state.absences.removeValue(forKey: address), absence.powerCycled {
                state.devices[address]?.device.powerOnReset()
            }
        }
    }

    /// The device at `address` goes through a power-on reset now (a brown-out in mid-stream):
    /// registers back to power-on values, FIFO emptied, sensors off.
    package func triggerPowerOnReset(_ address: I2CAddress) {
        state.withLock { $0.devices[address]?.device.powerOnReset() }
    }

    /// Follows `plan` from simulation time `start` on: each fault happens at its time, checked at
    /// every transaction (so in step with the sampler, in virtual or real time).
    package func follow(_ plan: FaultPlan, imu: I2CAddress, magnetometer: I2CAddress?, start: Double) {
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
            case .stretchedReads(let count):
                state.stretchedReads[planned.address] = count
            }
            state.planned[index].due = planned.fault.every.map { planned.due + $0 } ?? .infinity
        }
        state.planned.removeAll { $0.due == .infinity }
    }

    // MARK: Log

    /// The most recent transactions, oldest first (at most `logCapacity`).
    package var log: [LoggedTransaction] { state.withLock { $0.log.transactions } }

    /// Transactions run since the bus was made, failed ones included.
    package var transactionCount: Int { state.withLock { $0.transactionCount } }

    /// Empties the log (the transaction count keeps counting).
    package func clearLog() {
        state.withLock { $0.log.removeAll() }
    }

    // MARK: I2CBus

    package func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
        let time = now()
        let result: Result<[[UInt8]], I2CError> = state.withLock { state in
            state.transactionCount += 1
            Self.applyDueFaults(in: &state, at: time)
            let outcome = Self.run(address, operations, in: &state, at: time, bus: name)
            if state.log.capacity > 0 {
                let (replies, failure): ([[UInt8]], I2CError.Kind?) = switch outcome {
                case .success(let replies): (replies, nil)
                case .failure(let error): ([], error.kind)
                }
                state.log.begin(number: state.transactionCount, time: time, address: address, failure: failure)
                var reads = replies.makeIterator()
                for operation in operations {
                    switch operation {
                    case .write(let bytes):
                        bytes.withUnsafeBytes { state.log.append(isRead: false, count: bytes.count, bytes: $0) }
                    case .read(let count):
                        let reply = reads.next() ?? []
                        reply.withUnsafeBytes { state.log.append(isRead: true, count: count, bytes: $0) }
                    }
                }
            }
            return outcome
        }
        return try result.get()
    }

    /// The register read into `buffer` with the same faults, presence rules and log entry as the
    /// transaction `[.write([register]), .read(count: buffer.count)]`, allocating nothing once
    /// the log has reached its size.
    package func readRegisters(_ address: I2CAddress, _ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        let received = try registerTransaction(address, reading: buffer) { device in
            device.readRegisters(register, into: buffer)
        } log: { log, received in
            withUnsafeBytes(of: register) { log.append(isRead: false, count: 1, bytes: $0) }
            let stored = min(received ?? 0, buffer.count)
            log.append(isRead: true, count: buffer.count, bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<stored]))
        }
        guard received == buffer.count else { throw shortRead(address, asked: buffer.count, got: received) }
    }

    /// ``write(_:_:)`` of `[register, value]` as one transaction, faults and log included,
    /// without an array.
    package func writeRegister(_ address: I2CAddress, _ register: UInt8, _ value: UInt8) throws(I2CError) {
        try registerTransaction(address) { device in
            device.writeRegister(register, value)
        } log: { log, _ in
            withUnsafeBytes(of: (register, value)) { log.append(isRead: false, count: 2, bytes: $0) }
        }
    }

    /// ``write(_:_:)`` of `[byte]` as one transaction, faults and log included, without an array.
    package func writeByte(_ address: I2CAddress, _ byte: UInt8) throws(I2CError) {
        try registerTransaction(address) { device in
            device.writeByte(byte)
        } log: { log, _ in
            withUnsafeBytes(of: byte) { log.append(isRead: false, count: 1, bytes: $0) }
        }
    }

    /// One register transaction to `address` under the lock, as ``transaction(_:_:)`` runs one:
    /// counted, the faults due applied, the device admitted (or the failure), `body` run on it,
    /// and the log entry, whose steps `log` appends (given `body`'s result, nil on a failure).
    /// `reading`: the buffer a read step filled, set to 0xFF bytes when a stretched read is due.
    private func registerTransaction<Value>(
        _ address: I2CAddress, reading: UnsafeMutableRawBufferPointer? = nil, _ body: (any SimulatedDevice) -> Value,
        log: (inout TransactionLog, Value?) -> Void
    ) throws(I2CError) -> Value {
        let time = now()
        let outcome: Result<Value, I2CError> = state.withLock { state in
            state.transactionCount += 1
            Self.applyDueFaults(in: &state, at: time)
            let outcome = Self.admit(address, in: &state, at: time, bus: name).map(body)
            if let reading, case .success = outcome, Self.takeStretchedRead(address, in: &state) {
                for index in reading.indices { reading[index] = 0xFF }
            }
            if state.log.capacity > 0 {
                let (value, failure): (Value?, I2CError.Kind?) = switch outcome {
                case .success(let value): (value, nil)
                case .failure(let error): (nil, error.kind)
                }
                state.log.begin(number: state.transactionCount, time: time, address: address, failure: failure)
                log(&state.log, value)
            }
            return outcome
        }
        return try outcome.get()
    }

    private static func run(
        _ address: I2CAddress, _ operations: [I2COperation], in state: inout State, at time: Double, bus: String
    ) -> Result<[[UInt8]], I2CError> {
        for case .read(let count) in operations where count < 0 {
            return .failure(I2CError(
                .invalidArgument, bus: bus, address: address, detail: "read of \(count) bytes",
                hint: "ask for zero or more bytes"))
        }
        let device: any SimulatedDevice
        switch admit(address, in: &state, at: time, bus: bus) {
        case .success(let admitted): device = admitted
        case .failure(let error): return .failure(error)
        }
        var replies: [[UInt8]] = []
        for operation in operations {
            switch operation {
            case .write(let bytes): device.handleWrite(bytes)
            case .read(let count): replies.append(device.handleRead(count: count))
            }
        }
        if !replies.isEmpty, takeStretchedRead(address, in: &state) {
            for index in replies.indices { replies[index] = [UInt8](repeating: 0xFF, count: replies[index].count) }
        }
        return .success(replies)
    }

    /// Whether this read transaction to `address` comes back as 0xFF bytes (one of those counted down).
    private static func takeStretchedRead(_ address: I2CAddress, in state: inout State) -> Bool {
        guard let remaining = state.stretchedReads[address] else { return false }
        state.stretchedReads[address] = remaining > 1 ? remaining - 1 : nil
        return true
    }

    /// The device that answers `address` now, or the error the transaction ends with: an injected
    /// failure (counted down) or no acknowledgement.
    private static func admit(
        _ address: I2CAddress, in state: inout State, at time: Double, bus: String
    ) -> Result<any SimulatedDevice, I2CError> {
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
        return .success(device)
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
