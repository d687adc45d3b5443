import I2C
import Testing

/// One SPI transfer a test expects: the bytes on MOSI, and the bytes the chip puts on MISO (or
/// the error the transfer throws). Reads like the datasheet's SPI diagrams:
/// `.transfer([0x8F, 0x00], reply: [0x00, 0x6C])` is a WHO_AM_I read (R/W bit set, one data byte).
package struct SPIExpectation: Sendable, Equatable, CustomStringConvertible {
    package var sent: [UInt8]
    package var reply: [UInt8]
    /// When set, the transfer throws an error of this kind instead of replying.
    package var failure: I2CError.Kind?

    package static func transfer(_ sent: [UInt8], reply: [UInt8]) -> Self {
        Self(sent: sent, reply: reply, failure: nil)
    }

    /// A transfer whose MISO bytes the test does not care about (a register write): zeros.
    package static func transfer(_ sent: [UInt8]) -> Self {
        Self(sent: sent, reply: Array(repeating: 0, count: sent.count), failure: nil)
    }

    /// The same transfer, answered by an error of `kind`.
    package func failing(_ kind: I2CError.Kind) -> Self {
        var copy = self
        copy.failure = kind
        return copy
    }

    package var description: String {
        var text = "transfer [\(sent.hexList)]"
        if let failure { text += " failing with \(failure.rawValue)" } else { text += " → [\(reply.hexList)]" }
        return text
    }
}

/// An SPI device that checks each transfer against a list of expectations, in order, as
/// ``ExpectationBus`` does transactions (the same checks, the same issue when left unchecked).
package final class SPIExpectationBus: SPIBus {
    package let name: String
    private let queue: ExpectationQueue<SPIExpectation>

    package init(_ expectations: [SPIExpectation], name: String = "spi-expectation-bus", sourceLocation: SourceLocation = #_sourceLocation) {
        self.name = name
        queue = ExpectationQueue(expectations, name: name, madeAt: sourceLocation)
    }

    /// Appends more expected transfers.
    package func expect(_ more: [SPIExpectation]) { queue.expect(more) }

    package func transfer(_ bytes: [UInt8]) throws(I2CError) -> [UInt8] {
        let expected = try queue.next("transfer [\(bytes.hexList)]") { $0.sent == bytes }
            .mapError { I2CError(.other, bus: name, detail: $0.problem) }.get()
        if let kind = expected.failure {
            throw I2CError(kind, bus: name, detail: "injected by the test")
        }
        guard expected.reply.count == bytes.count else {
            throw I2CError(
                .invalidArgument, bus: name,
                detail: "the expectation's reply has \(expected.reply.count) bytes for a transfer of \(bytes.count): fix the test")
        }
        return expected.reply
    }

    /// Everything that went wrong so far, plus every expectation not used yet.
    package var problems: [String] { queue.problems }

    /// Throws when ``problems`` is not empty; the bus is then checked.
    package func verify() throws(ExpectationFailure) { try queue.verify() }

    /// Says the test has looked at ``problems``: the bus records no issue when it goes away.
    package func done() { queue.done() }
}
