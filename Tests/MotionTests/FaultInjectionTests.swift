import Dispatch
import I2C
import Motion
import MotionSimulator
import Testing
import Timing

/// Faults injected on the simulated bus, under the real drivers: each incident reaches the
/// handler once, updates resume by themselves, and every tick is delivered or counted.
@Suite struct FaultInjectionTests {
    let clock = VirtualClock()
    let imu = I2CAddress(0x6A)

    func start() throws -> (MotionManager, SimulatedBus, Inbox<AccelerometerData>) {
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "rest")), clock: clock, calibrationStore: nil)
        let bus = try #require(manager.simulatedHardware).board.bus
        let inbox = Inbox<AccelerometerData>()
        manager.startAccelerometerUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: 1)
        return (manager, bus, inbox)
    }

    func finish(_ manager: MotionManager, _ inbox: Inbox<AccelerometerData>, ticks: Int) -> [MotionError] {
        inbox.drain()
        manager.stopAccelerometerUpdates()
        let counters = manager.counters
        #expect(counters.sampled + counters.totalDropped == ticks, "\(counters)")
        #expect(inbox.values.withLock { $0.count } == counters.sampled)
        return inbox.errors.withLock { $0 }
    }

    /// `failures` failed transactions of `kind` in a row, 4 s of sampling: one error, which
    /// `reported` accepts, and one recovery; every one of the 500 ticks accounted for.
    func expectBurstReportedOnce(
        _ failures: Int, _ kind: I2CError.Kind, sourceLocation: SourceLocation = #_sourceLocation,
        reported: (MotionError) -> Bool
    ) throws {
        let (manager, bus, inbox) = try start()
        bus.failNext(failures, transactionsTo: imu, with: kind)
        clock.advance(by: 4)
        let errors = finish(manager, inbox, ticks: 500)
        #expect(errors.count == 1, sourceLocation: sourceLocation)
        #expect(errors.first.map(reported) == true, sourceLocation: sourceLocation)
        #expect(manager.counters.recovered == 1, sourceLocation: sourceLocation)
    }

    @Test func noAcknowledgeBurst() throws {
        try expectBurstReportedOnce(12, .noAcknowledge) { if case .deviceUnavailable(let e) = $0 { e.kind == .noAcknowledge } else { false } }
    }

    @Test func ioErrors() throws {
        try expectBurstReportedOnce(8, .busError) { if case .bus(let e) = $0 { e.kind == .busError } else { false } }
    }

    @Test func aSingleFailureIsRetriedWithinThePeriod() throws {
        let (manager, bus, inbox) = try start()
        bus.failNext(1, transactionsTo: imu, with: .busError)
        clock.advance(by: 1)
        let errors = finish(manager, inbox, ticks: 200)
        #expect(errors == [])
        #expect(manager.counters.retried == 1)
        #expect(manager.counters.totalDropped == 0)
    }

    @Test func chipResetMidStream() throws {
        let (manager, bus, inbox) = try start()
        bus.triggerPowerOnReset(imu)
        clock.advance(by: 2)
        let errors = finish(manager, inbox, ticks: 300)
        #expect(errors.count == 1)
        #expect(errors.first.map { if case .deviceReset = $0 { true } else { false } } == true)
        #expect(manager.counters.dropped[.deviceReset] == 1)
        // Configured again: the last reading is gravity again, not a powered-down chip's stale zeros.
        let last = try #require(inbox.values.withLock { $0.last })
        #expect(abs(last.acceleration.z + 1) < 0.05)
    }

    @Test func deviceVanishesForTwoSeconds() throws {
        let (manager, bus, inbox) = try start()
        bus.vanish(imu, until: clock.now + 2)
        clock.advance(by: 5)
        let errors = finish(manager, inbox, ticks: 600)
        #expect(errors.count == 1)
        #expect(manager.counters.recovered == 1)
        let values = inbox.values.withLock { $0 }
        // Updates resumed: the last second is complete.
        #expect(values.filter { $0.timestamp > clock.now - 1 }.count == 100)
    }
}
