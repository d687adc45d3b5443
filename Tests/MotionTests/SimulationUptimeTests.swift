import Motion
import MotionSimulation
import MotionSimulator
import Testing
import Timing

/// The simulated board does not depend on how long the machine has been up: its chips' noise and
/// bias walks count from their own power-on, not from the clock's zero (the system clock's zero is
/// the machine's boot). Counting from boot made the first sample cost a step of bias walk per
/// 10 ms of uptime: seconds after a few hours, minutes after a month.
@Suite struct SimulationUptimeTests {
    static func registers(uptime: Double) throws -> [SIMD3<Int16>] {
        let clock = VirtualClock(start: uptime)
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "tumble", seed: 7)), clock: clock, calibrationStore: nil)
        let inbox = Inbox<SensorData>()
        manager.sensorUpdateInterval = 0.01
        manager.startSensorUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: 1)
        inbox.drain()
        manager.stopSensorUpdates()
        return try inbox.values.withLock { $0 }.map { try #require($0.imuRegisters).gyroscope }
    }

    @Test("a machine up for 30 days reads the same gyroscope registers as one up for 1000 s")
    func uptimeDoesNotMatter() throws {
        let usual = try Self.registers(uptime: 1000)
        #expect(usual.count == 100)
        #expect(try Self.registers(uptime: 1000 + 30 * 86_400) == usual)
    }
}
