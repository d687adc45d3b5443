import Locking
import I2C
import Testing

/// One transaction a test expects, with the reply the bus gives (or the error it throws).
///
/// Reads like the datasheet: `.writeRead(0x6A, [0x0F], reply: [0x6C])`, `.write(0x6A, [0x10, 0x40])`,
/// `.read(0x1E, reply: [0x48]).failing(.noAcknowledge)`.
package struct I2CExpectation: Sendable, Equatable, CustomStringConvertible {
    package var address: I2CAddress
    package var operations: [I2COperation]
    /// One array per `.read` step.
    package var replies: [[UInt8]]
    /// When set, the transaction throws an error of this kind instead of replying.
    package var failure: I2CError.Kind?

    package init(address: I2CAddress, operations: [I2COperation], replies: [[UInt8]] = [], failure: I2CError.Kind? = nil) {
        self.address = address
        self.operations = operations
        self.replies = replies
        self.failure = failure
    }

    package static func write(_ address: UInt8, _ bytes: [UInt8]) -> Self {
        Self(address: I2CAddress(address), operations: [.write(bytes)])
    }

    package static func read(_ address: UInt8, reply: [UInt8]) -> Self {
        Self(address: I2CAddress(address), operations: [.read(count: reply.count)], replies: [reply])
    }

    package static func writeRead(_ address: UInt8, _ bytes: [UInt8], reply: [UInt8]) -> Self {
        Self(address: I2CAddress(address), operations: [.write(bytes), .read(count: reply.count)], replies: [reply])
    }

    /// The same transaction, answered by an error of `kind`.
    package func failing(_ kind: I2CError.Kind) -> Self {
        var copy = self
        copy.failure = kind
        return copy
    }

    package var description: String {
        var text = "\(address): " + operations.map(\.description).joined(separator: ", ")
        if let failure { text += " failing with \(failure.rawValue)" }
        else if !replies.isEmpty { text += " → " + replies.map { "[\($0.hexList)]" }.joined(separator: " ") }
        return text
    }
}

/// A bus that checks each transaction against a list of expectations, in order.
///
/// The test keeps its reference after handing the bus to a driver, then calls ``verify()`` (or
/// reads ``problems`` and calls ``done()``): a mismatch names the transaction and the expectation
/// it was compared with, and expectations left unused are a failure too. A bus that goes away
/// with expectations unused or mismatches unreported, and neither ``verify()`` nor ``done()``
/// called, records a test issue (as embedded-hal-mock's `done()`): a test cannot forget to check.
package final class ExpectationBus: I2CBus {
    package let name: String
    private let queue: ExpectationQueue<I2CExpectation>

    package let maximumReadLength: Int?

    /// - Parameter maximumReadLength: what the bus says one read can carry (32 plays an
    ///   SMBus-only adapter); nil for no limit.
    package init(
        _ expectations: [I2CExpectation], name: String = "expectation-bus", maximumReadLength: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.name = name
        self.maximumReadLength = maximumReadLength
        queue = ExpectationQueue(expectations, name: name, madeAt: sourceLocation)
    }

    /// Appends more expected transactions.
    package func expect(_ more: [I2CExpectation]) { queue.expect(more) }

    package func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
        let actual = I2CExpectation(address: address, operations: operations)
        let expected = try queue.next(actual) { $0.address == address && $0.operations == operations }
            .mapError { I2CError(.other, bus: name, address: address, detail: $0.problem) }.get()
        if let kind = expected.failure {
            throw I2CError(kind, bus: name, address: address, detail: "injected by the test")
        }
        return expected.replies
    }

    /// Everything that went wrong so far, plus every expectation not used yet; empty when the
    /// driver did exactly what the list says.
    package var problems: [String] { queue.problems }

    /// Throws when ``problems`` is not empty; the bus is then checked (see ``done()``).
    package func verify() throws(ExpectationFailure) { try queue.verify() }

    /// Says the test has looked at ``problems`` (or means to leave expectations unused): the bus
    /// records no issue when it goes away.
    package func done() { queue.done() }
}

/// The checked list behind both expectation buses (``ExpectationBus``, ``SPIExpectationBus``):
/// expectations taken in order, mismatches kept, and a test issue recorded when it goes away
/// unchecked.
final class ExpectationQueue<Expected: Sendable & CustomStringConvertible>: Sendable {
    /// A mismatch or an unexpected step, as the bus reports it.
    struct Mismatch: Error { var problem: String }

    private let name: String
    /// Where the bus was made, for the issue a bus left unchecked records.
    private let madeAt: SourceLocation
    private struct State {
        var pending: [Expected]
        var used = 0
        var problems: [String] = []
        /// ``verify()`` or ``done()`` was called: the test looked at the outcome.
        var checked = false
    }
    private let state: Locked<State>

    init(_ expectations: [Expected], name: String, madeAt: SourceLocation) {
        self.name = name
        self.madeAt = madeAt
        state = Locked(State(pending: expectations))
    }

    func expect(_ more: [Expected]) {
        state.withLock { $0.pending += more }
    }

    /// The next expectation when `matches` accepts it; otherwise the problem, recorded.
    func next(_ actual: some CustomStringConvertible, matches: (Expected) -> Bool) -> Result<Expected, Mismatch> {
        state.withLock { state in
            let number = state.used + 1
            guard !state.pending.isEmpty else {
                let problem = "transaction #\(number) \(actual) was not expected (all expectations used)"
                state.problems.append(problem)
                return .failure(Mismatch(problem: problem))
            }
            let expected = state.pending.removeFirst()
            state.used = number
            guard matches(expected) else {
                let problem = "transaction #\(number) was \(actual), expected \(expected)"
                state.problems.append(problem)
                return .failure(Mismatch(problem: problem))
            }
            return .success(expected)
        }
    }

    var problems: [String] {
        state.withLock { state in
            state.problems + state.pending.map { "expected transaction not performed: \($0)" }
        }
    }

    func verify() throws(ExpectationFailure) {
        done()
        let problems = self.problems
        if !problems.isEmpty { throw ExpectationFailure(problems: problems) }
    }

    func done() {
        state.withLock { $0.checked = true }
    }

    deinit {
        let problems = state.withLock { $0.checked ? [] : $0.problems + $0.pending.map { "expected transaction not performed: \($0)" } }
        guard !problems.isEmpty else { return }
        Issue.record(
            "\(name) went away unchecked (call verify() or done()): \(problems.joined(separator: "; "))", sourceLocation: madeAt)
    }
}

/// What ``ExpectationBus/verify()`` throws: one line per mismatch or unused expectation.
package struct ExpectationFailure: Error, CustomStringConvertible {
    package var problems: [String]
    package var description: String { problems.joined(separator: "\n") }
}
