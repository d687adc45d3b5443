import I2C
import I2CMock
import Testing

@Suite struct ExpectationBusTests {
    @Test func replaysExpectedTransactionsInOrder() throws {
        let bus = ExpectationBus([
            .writeRead(0x6A, [0x0F], reply: [0x6C]),
            .write(0x6A, [0x10, 0x40]),
        ])
        #expect(try bus.readRegister(I2CAddress(0x6A), 0x0F) == 0x6C)
        try bus.writeRegister(I2CAddress(0x6A), 0x10, 0x40)
        #expect(bus.problems == [])
        try bus.verify()
    }

    @Test func mismatchNamesTheTransactionAndTheExpectation() {
        let bus = ExpectationBus([.writeRead(0x6A, [0x0F], reply: [0x6C])])
        #expect(throws: I2CError.self) { try bus.readRegister(I2CAddress(0x6B), 0x0F) }
        #expect(bus.problems == [
            "transaction #1 was 0x6B: write [0x0F], read 1, expected 0x6A: write [0x0F], read 1 → [0x6C]"
        ])
        bus.done()
    }

    @Test func unusedExpectationsAreReported() {
        let bus = ExpectationBus([.write(0x1E, [0x20, 0x70])])
        #expect(bus.problems == ["expected transaction not performed: 0x1E: write [0x20, 0x70]"])
        #expect(throws: ExpectationFailure.self) { try bus.verify() }
    }

    @Test func unexpectedExtraTransactionIsReported() throws {
        let bus = ExpectationBus([.write(0x1E, [0x20, 0x70])])
        try bus.write(I2CAddress(0x1E), [0x20, 0x70])
        #expect(throws: I2CError.self) { try bus.write(I2CAddress(0x1E), [0x21, 0x00]) }
        #expect(bus.problems == ["transaction #2 0x1E: write [0x21, 0x00] was not expected (all expectations used)"])
        bus.done()
    }

    /// A bus that goes away with an expectation unused, unchecked, fails the test; once the test
    /// has called done() (or verify()) it does not.
    @Test func aBusDroppedUncheckedFailsTheTest() {
        withKnownIssue("the unused expectation, recorded as the bus goes away") {
            _ = ExpectationBus([.write(0x1E, [0x20, 0x70])])
        }
        ExpectationBus([.write(0x1E, [0x20, 0x70])]).done()
        // Every expectation used: nothing to report, checked or not.
        let used = ExpectationBus([.write(0x1E, [0x20, 0x70])])
        #expect(throws: Never.self) { try used.write(I2CAddress(0x1E), [0x20, 0x70]) }
    }

    @Test func injectedFailureKeepsItsKind() {
        let bus = ExpectationBus([.read(0x0C, reply: [0x48]).failing(.noAcknowledge)])
        do {
            _ = try bus.read(I2CAddress(0x0C), count: 1)
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .noAcknowledge)
            #expect(error.address == I2CAddress(0x0C))
        }
        #expect(bus.problems == [])
    }

    @Test func addressFormatting() {
        #expect(I2CAddress(0x0C).description == "0x0C")
        #expect(I2CAddress(rawValue: 0x80) == nil)
        #expect(I2CAddress.scanRange.first == I2CAddress(0x08))
        #expect(I2CAddress.scanRange.count == 0x70)
    }
}
