import Dispatch
import IIO
import IIOFake
@testable import Motion
import MotionSimulation
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

    /// Sensor updates for `seconds` of virtual time.
    func sensorData(_ motion: MotionManager, for seconds: Double) -> (values: [SensorData], errors: [MotionError]) {
        let inbox = Inbox<SensorData>()
        motion.startSensorUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: seconds)
        inbox.drain()
        motion.stopSensorUpdates()
        return (inbox.values.withLock { $0 }, inbox.errors.withLock { $0 })
    }

    @Test func pollsMPU6050InCoreMotionUnitsAndSign() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 16384), gyro: (100, -200, 300)), as: "iio:device0")
        try tree.add(.ak8975(field: (100, -50, 200)), as: "iio:device1")
        let motion = try manager(tree)
        #expect(motion.isGyroAvailable && motion.isMagnetometerAvailable)
        let values = sensorData(motion, for: 0.1).values
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
        let sample = try #require(sensorData(try manager(tree), for: 0.02).values.first)
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

    /// A kernel value no motion sensor has stops the manager with the sysfs file named, instead
    /// of readings that are all zero or wrong (issue #27 item 10).
    @Test(arguments: [
        ("in_accel_scale", "1e308"), ("in_accel_offset", "1e308"), ("in_mount_matrix", "0, 0, 0; 0, 0, 0; 0, 0, 0"),
        ("in_mount_matrix", "1e300, 0, 0; 0, 1e300, 0; 0, 0, 1e300"), ("sampling_frequency", "1e308"),
    ])
    func anImplausibleKernelValueStopsTheManagerNamingTheFile(attribute: String, value: String) throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 16384), gyro: (0, 0, 0)), as: "iio:device0")
        try tree.set(attribute, of: "iio:device0", to: value)
        #expect {
            _ = try manager(tree)
        } throws: { error in
            "\(error)".contains("iio:device0/\(attribute)") && "\(error)".contains("bad value")
        }
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

extension IIOSourceTests {
    /// Unbinding the driver mid-stream: one typed error, every tick counted, then samples again
    /// from the device the kernel registered anew under another index.
    @Test func removedMidStreamThenBackUnderAnotherIndex() throws {
        let tree = try FakeIIOTree()
        try tree.add(.lsm6dsox(accel: (0, 0, 1000)), as: "iio:device0")
        try tree.add(.lsm6dsoxGyro((0, 0, 0)), as: "iio:device1")
        let motion = try manager(tree)
        motion.accelerometerUpdateInterval = 0.01
        let (values, errors) = try motion.accelerometerUpdates {
            clock.advance(by: 1)
            try tree.remove("iio:device0")
            try tree.remove("iio:device1")
            clock.advance(by: 2)
            try tree.restore("iio:device1", as: "iio:device3")
            try tree.restore("iio:device0", as: "iio:device2")
            try tree.set("in_accel_z_raw", of: "iio:device2", to: "-1000")
            clock.advance(by: 2)
        }
        #expect(errors.count == 1)
        guard case .iio(let cause) = errors.first else {
            Issue.record("expected MotionError.iio, got \(errors)")
            return
        }
        #expect(cause.kind == .deviceRemoved)
        #expect(cause.description.contains("resumes"))
        let counters = motion.counters
        #expect(counters.sampled + counters.totalDropped == 500, "\(counters)")
        #expect(counters.recovered == 1)
        #expect(values.count == counters.sampled)
        #expect(abs((values.first?.acceleration.z ?? 0) - (-1000 * 0.000598 / g)) < 1e-12)
        #expect(abs((values.last?.acceleration.z ?? 0) - (1000 * 0.000598 / g)) < 1e-12)
    }

    /// A scale written while running (someone changed the full scale) is picked up: the
    /// sampler's configuration check sees it and initializes again.
    @Test func aNewScaleIsReadAgain() throws {
        let tree = try FakeIIOTree()
        try tree.add(.hidAccel3D(accel: (0, 0, 100), scale: "0.1"), as: "iio:device0")
        let motion = try manager(tree)
        let (values, errors) = try motion.accelerometerUpdates {
            clock.advance(by: 0.5)
            try tree.set("in_accel_scale", of: "iio:device0", to: "0.2")
            clock.advance(by: 0.5)
        }
        #expect(abs((values.first?.acceleration.z ?? 0) - -10 / g) < 1e-12)
        #expect(abs((values.last?.acceleration.z ?? 0) - -20 / g) < 1e-12)
        #expect(errors.map(\.description).allSatisfy { $0.contains("device reset") })
    }
}

extension IIOSourceTests {
    /// inv_mpu6050's record with accel and gyro enabled (temperature not): six be:s16 (12
    /// bytes), padded to 16 for the le:s64 timestamp, 24 bytes in all.
    func mpu6050Record(accel: [Int], gyro: [Int], nanoseconds: Int64) -> [UInt8] {
        FakeScanRecord.bigEndian16(accel + gyro) + [0, 0, 0, 0] + FakeScanRecord.littleEndian64(nanoseconds)
    }

    @Test func buffersMPU6050WithKernelTimestamps() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 0), gyro: (0, 0, 0)), as: "iio:device0")
        try tree.add(FakeIIODevice(name: "mpu6050-dev0", attributes: [:]), as: "trigger0")
        let motion = try manager(tree)
        motion.usesChipFIFO = true
        let inbox = Inbox<SensorData>()
        motion.startSensorUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: 0.05)   // the first read (every 1.618 periods) starts the buffer
        #expect(try tree.value("buffer/enable", of: "iio:device0") == "1")
        #expect(try tree.value("trigger/current_trigger", of: "iio:device0") == "mpu6050-dev0")
        #expect(try tree.value("current_timestamp_clock", of: "iio:device0") == "monotonic")
        #expect(try tree.value("scan_elements/in_anglvel_z_en", of: "iio:device0") == "1")
        #expect(try tree.value("scan_elements/in_temp_en", of: "iio:device0") == "0")
        #expect(try tree.value("scan_elements/in_timestamp_en", of: "iio:device0") == "1")
        // 50 Hz: 20 ms apart; the fourth and fifth samples are missing (the kernel's kfifo was full).
        let times: [Int64] = [0, 1, 2, 5, 6].map { 1_000_000_000 + $0 * 20_000_000 }
        for (number, time) in times.enumerated() {
            try tree.append(mpu6050Record(accel: [number, -number, 16384], gyro: [100, 0, -100], nanoseconds: time), toBufferOf: "iio:device0")
        }
        clock.advance(by: 0.1)
        inbox.drain()
        motion.stopSensorUpdates()
        let values = inbox.values.withLock { $0 }
        #expect(values.map(\.timestamp) == times.map { Double($0) * 1e-9 })
        #expect(values.map { $0.acceleration.x } == (0..<5).map { -Double($0) * 0.000598 / g })
        #expect(values.allSatisfy { abs($0.acceleration.z - -16384 * 0.000598 / g) < 1e-12 })
        #expect(values.allSatisfy { $0.rotationRate == SIMD3(100, 0, -100) * 0.001064724 })
        // Nothing lost silently: the two missing periods are counted.
        #expect(motion.counters.sampled == 5)
        #expect(motion.counters.dropped[.fifoOverflow] == 2)
        // The last consumer gone, the kernel's buffer is disabled again.
        motion.hub.flush()
        #expect(try tree.value("buffer/enable", of: "iio:device0") == "0")
    }

    @Test func buffersBMI160GyroscopeBeforeAccelerometer() throws {
        let tree = try FakeIIOTree()
        try tree.add(.bmi160(accel: (0, 0, 0), gyro: (0, 0, 0)), as: "iio:device0")
        let motion = try manager(tree)
        motion.usesChipFIFO = true
        let inbox = Inbox<SensorData>()
        motion.startSensorUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: 0.03)
        // The trigger a person set is kept.
        #expect(try tree.value("trigger/current_trigger", of: "iio:device0") == "bmi160-dev0")
        // Indices: gyro 4–6, accel 7–9, timestamp 10: six le:s16, pad to 16, then the timestamp.
        let record = FakeScanRecord.littleEndian16([1, 2, 3, 16384, 0, -16384]) + [0, 0, 0, 0] + FakeScanRecord.littleEndian64(5_000_000_000)
        try tree.append(record, toBufferOf: "iio:device0")
        clock.advance(by: 0.05)
        inbox.drain()
        motion.stopSensorUpdates()
        let sample = try #require(inbox.values.withLock { $0.first })
        #expect(sample.timestamp == 5)
        #expect(sample.rotationRate == SIMD3(1, 2, 3) * 0.001065)
        #expect(sample.acceleration == SIMD3(-16384, 0, 16384) * 0.000598 / g)
    }

    @Test func aBufferNeedingATriggerThatIsNotThereSaysHowToSetOne() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 0), gyro: (0, 0, 0)), as: "iio:device0")   // no trigger0: no interrupt wired
        let motion = try manager(tree)
        motion.usesChipFIFO = true
        let errors = motion.accelerometerUpdates { clock.advance(by: 0.2) }.errors
        #expect(errors.count == 1)
        #expect(errors.first?.description.contains("needs a trigger") == true)
        #expect(errors.first?.description.contains("current_trigger") == true)
    }
}
