import Dispatch
import IIO
import IIOFake
import Motion
import Testing
import Timing

/// The IIO source under the real sampler, against fake sysfs trees: units and signs, the mount
/// matrix, removal and return, and the buffer with kernel timestamps.
@Suite struct IIOSourceTests {
    let clock = VirtualClock()
    let g = 9.80665

    func manager(_ tree: FakeIIOTree, name: String? = nil, reading: IIOSelection.Reading = .automatic) throws -> MotionManager {
        try MotionManager(
            source: .iio(IIOSelection(root: tree.sysfs, deviceDirectory: tree.dev, name: name, reading: reading)),
            clock: clock, calibrationStore: nil)
    }

    @Test func pollsMPU6050InCoreMotionUnitsAndSign() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 16384), gyro: (100, -200, 300)), as: "iio:device0")
        try tree.add(.ak8975(field: (100, -50, 200)), as: "iio:device1")
        let motion = try manager(tree)
        #expect(motion.isGyroAvailable && motion.isMagnetometerAvailable)
        let inbox = Inbox<SensorData>()
        motion.startSensorUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: 0.1)
        inbox.drain()
        motion.stopSensorUpdates()
        let values = inbox.values.withLock { $0 }
        // The driver samples at 50 Hz (its sampling_frequency): the sampler polls no faster.
        #expect(values.count == 5)
        let sample = try #require(values.last)
        // Face up: the kernel's +16384 × 0.000598 m/s² (specific force) is −0.99908 g here.
        #expect(abs(sample.acceleration.z - (-16384 * 0.000598 / g)) < 1e-12)
        #expect(sample.acceleration.x == 0 && sample.acceleration.y == 0)
        #expect(sample.rotationRate == SIMD3(100, -200, 300) * 0.001064724)
        // Gauss × 100 = µT.
        let field = try #require(sample.magneticField)
        #expect(abs(field.x - 100 * 0.003 * 100) < 1e-12 && abs(field.y - -50 * 0.003 * 100) < 1e-12 && abs(field.z - 200 * 0.003 * 100) < 1e-12)
        #expect(motion.counters.sampled == 5 && motion.counters.totalDropped == 0)
    }

    @Test func appliesTheMountMatrix() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (1000, 2000, 16384), gyro: (10, 20, 30), mount: "0, 1, 0; 1, 0, 0; 0, 0, -1"), as: "iio:device0")
        let motion = try manager(tree)
        let inbox = Inbox<SensorData>()
        motion.startSensorUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: 0.02)
        inbox.drain()
        motion.stopSensorUpdates()
        let sample = try #require(inbox.values.withLock { $0.first })
        // Device axes: x' = chip y, y' = chip x, z' = −chip z; then Core Motion's sign.
        let s = 0.000598 / g
        #expect(abs(sample.acceleration.x - -2000 * s) < 1e-12)
        #expect(abs(sample.acceleration.y - -1000 * s) < 1e-12)
        #expect(abs(sample.acceleration.z - 16384 * s) < 1e-12)
        #expect(sample.rotationRate == SIMD3(20, 10, -30) * 0.001064724)
    }

    @Test func hidAccelerometerAloneHasNoGyroscope() throws {
        let tree = try FakeIIOTree()
        try tree.add(.hidAccel3D(accel: (0, -1000, 0), scale: "0.00980665"), as: "iio:device0")
        let motion = try manager(tree)
        #expect(!motion.isGyroAvailable && !motion.isMagnetometerAvailable)
        let accelerometer = Inbox<AccelerometerData>()
        let gyro = Inbox<GyroData>()
        motion.startAccelerometerUpdates(to: accelerometer.queue, withHandler: accelerometer.handler)
        motion.startGyroUpdates(to: gyro.queue, withHandler: gyro.handler)
        clock.advance(by: 0.05)
        accelerometer.drain()
        gyro.drain()
        motion.stopAccelerometerUpdates()
        motion.stopGyroUpdates()
        // Specific force −1 g on y (the top edge points down, upside-down portrait) is +1 g in
        // Core Motion's sign, which reads (0, −1, 0) standing upright.
        let values = accelerometer.values.withLock { $0 }
        #expect(values.count == 5)
        #expect(values.allSatisfy { abs($0.acceleration.y - 1) < 1e-12 })
        #expect(gyro.values.withLock { $0.isEmpty })
    }

    @Test func noAccelerometerIsDeviceNotFoundNamingTheRoot() throws {
        let tree = try FakeIIOTree()
        try tree.add(.ak8975(field: (1, 2, 3)), as: "iio:device0")
        #expect {
            _ = try manager(tree)
        } throws: { error in
            guard case .deviceNotFound(let detail) = error as? MotionError else { return false }
            return detail.contains(tree.sysfs) && detail.contains("ak8975 (iio:device0): magnetometer")
        }
    }
}
