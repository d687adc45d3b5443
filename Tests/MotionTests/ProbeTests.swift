import I2C
import Motion
import Synchronization
import Testing

/// A bus with devices at fixed addresses that records every transaction it was asked for.
final class ScanRecordingBus: I2CBus {
    let name = "scan-test"
    let present: Set<I2CAddress>
    let quickWriteSupported: Bool
    let log = Mutex<[(I2CAddress, [I2COperation])]>([])

    init(present: [UInt8], quickWriteSupported: Bool = true) {
        self.present = Set(present.map { I2CAddress($0) })
        self.quickWriteSupported = quickWriteSupported
    }

    func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
        log.withLock { $0.append((address, operations)) }
        if operations == [.write([])] && !quickWriteSupported {
            throw I2CError(.notSupported, bus: name, address: address, detail: "no quick write")
        }
        guard present.contains(address) else {
            throw I2CError(.noAcknowledge, bus: name, address: address, detail: "nothing there")
        }
        return operations.compactMap { if case .read(let count) = $0 { [UInt8](repeating: 0, count: count) } else { nil } }
    }

    func operations(at address: UInt8) -> [[I2COperation]] {
        log.withLock { $0.filter { $0.0 == I2CAddress(address) }.map(\.1) }
    }
}

struct ProbeTests {
    @Test func findsTheAddressesThatAnswerInOrder() {
        let bus = ScanRecordingBus(present: [0x6A, 0x1E, 0x68, 0x50, 0x03, 0x78])
        #expect(scanBus(bus) == [0x1E, 0x50, 0x68, 0x6A].map { I2CAddress($0) })
    }

    @Test func asksEachAddressFrom0x08To0x77Once() {
        let bus = ScanRecordingBus(present: [])
        #expect(scanBus(bus).isEmpty)
        let addresses = bus.log.withLock { $0.map(\.0.rawValue) }
        #expect(addresses == Array(0x08...0x77))
    }

    @Test func neverSendsADataByte() {
        let bus = ScanRecordingBus(present: [0x68, 0x50])
        _ = scanBus(bus)
        let writes = bus.log.withLock { $0.flatMap(\.1) }.filter { if case .write(let bytes) = $0 { !bytes.isEmpty } else { false } }
        #expect(writes.isEmpty)
    }

    @Test func readsAByteInTheEEPROMRangesAndQuickWritesElsewhere() {
        let bus = ScanRecordingBus(present: [])
        _ = scanBus(bus)
        for address: UInt8 in [0x30, 0x37, 0x50, 0x5F] {
            #expect(bus.operations(at: address) == [[.read(count: 1)]], "at \(I2CAddress(address))")
        }
        for address: UInt8 in [0x08, 0x2F, 0x38, 0x4F, 0x60, 0x68, 0x77] {
            #expect(bus.operations(at: address) == [[.write([])]], "at \(I2CAddress(address))")
        }
    }

    @Test func fallsBackToReadingWhenQuickWriteIsNotSupported() {
        let bus = ScanRecordingBus(present: [0x68], quickWriteSupported: false)
        #expect(scanBus(bus) == [I2CAddress(0x68)])
        #expect(bus.operations(at: 0x68) == [[.write([])], [.read(count: 1)]])
    }

    @Test func probeAsksIdentifyOnlyForAddressesThatAnswered() {
        let bus = ScanRecordingBus(present: [0x1E, 0x68])
        let asked = Mutex<[I2CAddress]>([])
        let results = probeBus(bus) { _, address in
            asked.withLock { $0.append(address) }
            return address == I2CAddress(0x68) ? "MPU-6050" : nil
        }
        #expect(results == [ProbeResult(address: I2CAddress(0x1E)), ProbeResult(address: I2CAddress(0x68), chipName: "MPU-6050")])
        #expect(asked.withLock { $0 } == [I2CAddress(0x1E), I2CAddress(0x68)])
    }
}
