import Locking
import I2C
import I2CMock
import Motion
import MotionSimulation
import MotionTools
import MotionSimulator
import Testing

/// A bus with devices at fixed addresses that records every transaction it was asked for.
final class ScanRecordingBus: I2CBus {
    let name = "scan-test"
    let present: Set<I2CAddress>
    let quickWriteSupported: Bool
    let log = Locked<[(I2CAddress, [I2COperation])]>([])

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
        let asked = Locked<[I2CAddress]>([])
        let results = probeBus(bus) { _, address in
            asked.withLock { $0.append(address) }
            return address == I2CAddress(0x68) ? "MPU-6050" : nil
        }
        #expect(results == [ProbeResult(address: I2CAddress(0x1E)), ProbeResult(address: I2CAddress(0x68), chipName: "MPU-6050")])
        #expect(asked.withLock { $0 } == [I2CAddress(0x1E), I2CAddress(0x68)])
    }
}

/// A plain register file with a chosen value in every register: a device this library does not know.
final class PlainRegisterDevice: SimulatedDevice {
    let chipName = "plain register file"
    private let registers: Locked<(pointer: UInt8, values: [UInt8])>
    init(filledWith value: UInt8) { registers = Locked((0, [UInt8](repeating: value, count: 256))) }
    func handleWrite(_ bytes: [UInt8]) {
        registers.withLock { state in
            guard let first = bytes.first else { return }
            state.pointer = first
            for value in bytes.dropFirst() {
                state.values[Int(state.pointer)] = value
                state.pointer &+= 1
            }
        }
    }
    func handleRead(count: Int) -> [UInt8] {
        registers.withLock { state in
            (0..<count).map { _ in
                defer { state.pointer &+= 1 }
                return state.values[Int(state.pointer)]
            }
        }
    }
    func peek(_ register: UInt8) -> UInt8 { registers.withLock { $0.values[Int(register)] } }
    func powerOnReset() {}
}

/// Probe on the simulated bus: several chips on one bus, unknown devices as unknown (every emulated
/// chip at each of its addresses: ``RegistryProbeTests``).
struct SimulatedProbeTests {
    static let source = ConstantSource(.flatAtRest())
    static let now: @Sendable () -> Double = { 0 }

    @Test func namesEachChipOnABusCarryingSeveral() {
        let bus = SimulatedBus(now: Self.now)
        bus.attach(MPU6050Emulator(source: Self.source, now: Self.now), at: I2CAddress(0x68))
        bus.attach(LSM6DSOXEmulator(source: Self.source, now: Self.now), at: I2CAddress(0x6B))
        bus.attach(QMC5883LEmulator(source: Self.source, now: Self.now), at: I2CAddress(0x0D))
        bus.attach(LIS3MDLEmulator(source: Self.source, now: Self.now), at: I2CAddress(0x1E))
        #expect(probeBus(bus) == [
            ProbeResult(address: I2CAddress(0x0D), chipName: "QMC5883L"),
            ProbeResult(address: I2CAddress(0x1E), chipName: "LIS3MDL"),
            ProbeResult(address: I2CAddress(0x68), chipName: "MPU-6050"),
            ProbeResult(address: I2CAddress(0x6B), chipName: "LSM6DSO/LSM6DSOX"),
        ])
    }

    @Test func reportsAnUnknownDeviceAsUnknown() {
        let bus = SimulatedBus(now: Self.now)
        // 0x12 in every register: WHO_AM_I 0x75 at 0x68 and 0x0F at 0x1C name no supported chip.
        bus.attach(PlainRegisterDevice(filledWith: 0x12), at: I2CAddress(0x68))
        bus.attach(PlainRegisterDevice(filledWith: 0x12), at: I2CAddress(0x1C))
        // An EEPROM-like device at an address no supported chip uses.
        bus.attach(PlainRegisterDevice(filledWith: 0x6C), at: I2CAddress(0x50))
        #expect(probeBus(bus) == [
            ProbeResult(address: I2CAddress(0x1C), chipName: nil),
            ProbeResult(address: I2CAddress(0x50), chipName: nil),
            ProbeResult(address: I2CAddress(0x68), chipName: nil),
        ])
    }

    @Test func theScanNeverSendsADataByteToAnUnknownAddress() {
        let bus = SimulatedBus(now: Self.now)
        bus.attach(PlainRegisterDevice(filledWith: 0x00), at: I2CAddress(0x40))
        _ = probeBus(bus)
        let toUnknown = bus.log.filter { $0.address == I2CAddress(0x40) }
        #expect(toUnknown.map(\.operations) == [[.write([])]], "\(toUnknown)")
    }

    @Test func theSimulatedBusAndTheExpectationBusAcknowledgeAQuickWrite() throws {
        let simulated = SimulatedBus(now: Self.now)
        simulated.attach(LSM6DSOXEmulator(source: Self.source, now: Self.now), at: I2CAddress(0x6A))
        #expect(try simulated.transaction(I2CAddress(0x6A), [.write([])]) == [])
        let expectations = ExpectationBus([.write(0x6A, [])])
        try expectations.write(I2CAddress(0x6A), [])
        #expect(expectations.problems == [])
    }
}
