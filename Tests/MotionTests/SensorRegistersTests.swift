import Dispatch
import Motion
import MotionSimulation
import MotionSimulator
import Testing
import Timing

/// `SensorData` carries the chips' output registers behind each sample, timer and FIFO path.
@Suite struct SensorRegistersTests {
    let clock = VirtualClock()

    func collect(interval: Double, seconds: Double) throws -> (MotionManager, [SensorData]) {
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "rest")), clock: clock, calibrationStore: nil)
        let inbox = Inbox<SensorData>()
        manager.sensorUpdateInterval = interval
        manager.startSensorUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: seconds)
        inbox.drain()
        manager.stopSensorUpdates()
        return (manager, inbox.values.withLock { $0 })
    }

    @Test(arguments: [0.01, 1 / 208.0])
    func countsScaleToTheReadingsInChipAxes(interval: Double) throws {
        let (manager, samples) = try collect(interval: interval, seconds: 0.5)
        let target = try #require(manager.calibrationTarget)
        let settings = try #require(manager.chipSettings)
        #expect(settings.magnetometer != nil)
        #expect(samples.count > 40)
        for data in samples {
            let imu = try #require(data.imuRegisters)
            let field = try #require(data.magnetometerRegisters)
            let acceleration = target.imuChipAxes(data.acceleration)
            let magnetic = target.magnetometerChipAxes(try #require(data.magneticField))
            for axis in 0..<3 {
                // acceleration (g, Core Motion sign) = −counts / LSB per g.
                #expect(abs(acceleration[axis] + Double(imu.accelerometer[axis]) / imu.accelerometerLSBPerG) < 1e-12)
                #expect(abs(magnetic[axis] - Double(field.counts[axis]) / field.lsbPerMicrotesla[axis]) < 1e-9)
            }
        }
    }
}
