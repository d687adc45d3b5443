import Locking
import I2C
import MotionSimulator
import Testing
import Timing

@Suite struct SimulatedBusTests {
    let clock = VirtualClock(start: 100)

    func makeBus() -> SimulatedBus {
        busWith(LSM6DSOXEmulator.self, at: 0x6A, clock: clock)
    }

    @Test func absentAddressIsNotAcknowledged() {
        let bus = makeBus()
        #expect(throws: I2CError.self) { _ = try bus.readRegister(I2CAddress(0x68), 0x75) }
        do {
            _ = try bus.readRegister(I2CAddress(0x68), 0x75)
        } catch {
            #expect(error.kind == .noAcknowledge)
            #expect(error.address == I2CAddress(0x68))
            #expect(error.detail == "no device acknowledged at 0x68 on simulated")
            #expect(error.hint?.contains("0x6A") == true)
        }
    }

    @Test func routesByAddressAndLogsEachTransaction() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(I2CAddress(0x6A), 0x0F) == 0x6C)
        try bus.writeRegister(I2CAddress(0x6A), 0x10, 0x40)
        let log = bus.log
        #expect(log.count == 2)
        #expect(log[0].address == I2CAddress(0x6A))
        #expect(log[0].operations == [.write([0x0F]), .read(count: 1)])
        #expect(log[0].replies == [[0x6C]])
        #expect(log[0].time == 100)
        #expect(log[1].operations == [.write([0x10, 0x40])])
        #expect(log[1].number == 2)
        bus.clearLog()
        #expect(bus.log.isEmpty)
        #expect(bus.transactionCount == 2)
    }

    @Test func logIsBounded() throws {
        let bus = SimulatedBus(logCapacity: 3, now: { 0 })
        bus.attach(LSM6DSOXEmulator(source: testState(), now: { 0 }), at: I2CAddress(0x6A))
        for _ in 0..<5 { _ = try bus.readRegister(I2CAddress(0x6A), 0x0F) }
        #expect(bus.log.map(\.number) == [3, 4, 5])
    }

    @Test func injectedFailuresThenRecovery() throws {
        let bus = makeBus()
        let address = I2CAddress(0x6A)
        bus.failNext(2, transactionsTo: address, with: .busError)
        for _ in 0..<2 {
            #expect(throws: I2CError.self) { _ = try bus.readRegister(address, 0x0F) }
        }
        #expect(try bus.readRegister(address, 0x0F) == 0x6C)
        #expect(bus.log.map(\.failure) == [.busError, .busError, nil])

        bus.failNext(1, transactionsTo: address, with: .noAcknowledge)
        do {
            _ = try bus.readRegister(address, 0x0F)
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .noAcknowledge)
        }
        #expect(try bus.readRegister(address, 0x0F) == 0x6C)
    }

    @Test func vanishUntilTimeThenReturnPowerCycled() throws {
        let bus = makeBus()
        let address = I2CAddress(0x6A)
        try bus.writeRegister(address, 0x10, 0x40)
        bus.vanish(address, until: 101)
        #expect(bus.respondingAddresses.isEmpty)
        #expect(throws: I2CError.self) { _ = try bus.readRegister(address, 0x0F) }
        clock.advance(by: 0.5)
        #expect(throws: I2CError.self) { _ = try bus.readRegister(address, 0x0F) }
        clock.advance(by: 0.5)
        #expect(try bus.readRegister(address, 0x0F) == 0x6C)
        #expect(try bus.readRegister(address, 0x10) == 0x00)  // came back at power-on values
        #expect(bus.respondingAddresses == [address])
    }

    @Test func vanishUntilReappearOrReattach() throws {
        let bus = makeBus()
        let address = I2CAddress(0x6A)
        bus.vanish(address, powerCycled: false)
        clock.advance(by: 1000)
        #expect(throws: I2CError.self) { _ = try bus.readRegister(address, 0x0F) }
        bus.reappear(address)
        #expect(try bus.readRegister(address, 0x0F) == 0x6C)

        bus.vanish(address)
        let replacement = LSM6DSLEmulator(source: testState(), now: { 0 })
        bus.attach(replacement, at: address)
        #expect(try bus.readRegister(address, 0x0F) == 0x6A)
    }

    @Test func powerOnResetMidStream() throws {
        let bus = makeBus()
        let address = I2CAddress(0x6A)
        try bus.writeRegister(address, 0x10, 0x40)
        #expect(try bus.readRegister(address, 0x10) == 0x40)
        bus.triggerPowerOnReset(address)
        #expect(try bus.readRegister(address, 0x10) == 0x00)
    }

    @Test func reachabilityGate() throws {
        let bus = SimulatedBus(now: { 0 })
        let gate = GateFlag()
        bus.attach(LSM6DSOXEmulator(source: testState(), now: { 0 }), at: I2CAddress(0x6A), reachableWhen: { gate.isOpen })
        #expect(throws: I2CError.self) { _ = try bus.readRegister(I2CAddress(0x6A), 0x0F) }
        gate.isOpen = true
        #expect(try bus.readRegister(I2CAddress(0x6A), 0x0F) == 0x6C)
    }
}

import Synchronization

final class GateFlag: Sendable {
    private let flag = Locked(false)
    var isOpen: Bool {
        get { flag.withLock { $0 } }
        set { flag.withLock { $0 = newValue } }
    }
}
