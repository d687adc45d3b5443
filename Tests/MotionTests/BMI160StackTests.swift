import Dispatch
import Foundation
@testable import Motion
import MotionSimulator
import Sensors
import Testing
import Timing

/// The BMI160 through the whole stack on the simulated board: found at 0x68 by its CHIP_ID,
/// configured at its defaults, read through its FIFO above the timer rate.
@Suite struct BMI160StackTests {
    let clock = VirtualClock()

    @Test func theManagerFindsTheBMI160AndServesItsFIFO() throws {
        let manager = try MotionManager(
            source: .simulated(Simulation(scenario: "rest", imu: .bmi160, sensorErrors: false)), clock: clock, calibrationStore: nil)
        let chips = try #require(manager.chipSettings)
        #expect(chips.imu.name == "BMI160" && chips.imu.address.rawValue == 0x68)
        #expect(chips.imuConfiguration == IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500))
        #expect(chips.magnetometer?.name == "QMC5883L")
        #expect(abs(manager.shortestUpdateInterval - 1.0 / 200) < 1e-12)
        manager.gyroUpdateInterval = 1.0 / 200
        let inbox = Inbox<GyroData>()
        manager.startGyroUpdates(to: inbox.queue, withHandler: inbox.handler)
        #expect(manager.hub.mode == .fifo(rate: 200))
        clock.advance(by: 10)
        inbox.drain()
        manager.stopGyroUpdates()
        let values = inbox.values.withLock { $0 }
        // 10 s at 200 Hz, less the frames taken before the first read started the FIFO and those
        // still in it at the end (one read interval, 3.6 periods, each).
        #expect(values.count >= 2000 - 10 && values.count <= 2000, "\(values.count)")
        #expect(zip(values, values.dropFirst()).allSatisfy { $1.timestamp > $0.timestamp })
        #expect(values.allSatisfy { abs($0.rotationRate.x) + abs($0.rotationRate.y) + abs($0.rotationRate.z) < 1e-9 })
        #expect(manager.counters.totalDropped == 0)
    }
}
