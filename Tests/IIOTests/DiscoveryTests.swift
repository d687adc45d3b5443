import IIO
import IIOFake
import Testing

/// Discovery and sysfs reads against fake trees in each driver's naming style.
@Suite struct DiscoveryTests {
    @Test func findsInvMPU6050() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (100, -200, 16384), gyro: (1, 2, 3)), as: "iio:device0")
        let (devices, problems) = IIODiscovery.devices(root: tree.sysfs)
        #expect(problems.isEmpty)
        let device = try #require(devices.first)
        #expect(device.name == "mpu6050")
        #expect(device.groups.map(\.kind) == [.accelerometer, .gyroscope])
        #expect(device.hasBuffer)
        let accel = try #require(device.group(.accelerometer))
        #expect(accel.scale == SIMD3(repeating: 0.000598))
        #expect(accel.samplingFrequencyPath == "\(tree.sysfs)/iio:device0/sampling_frequency")
        #expect(try accel.read() == SIMD3(100, -200, 16384) * 0.000598)
        #expect(try device.group(.gyroscope)?.read() == SIMD3(1, 2, 3) * 0.001064724)
    }

    @Test func pairsStLSM6DSXAccelerometerAndGyroscopeDevices() throws {
        let tree = try FakeIIOTree()
        try tree.add(.lsm6dsoxGyro((10, 20, 30)), as: "iio:device0")
        try tree.add(.lsm6dsox(accel: (1, 2, 3)), as: "iio:device1")
        let sensors = try #require(IIOMotionSensors.choose(from: IIODiscovery.devices(root: tree.sysfs).devices))
        #expect(sensors.accelerometer.name == "lsm6dsox_accel")
        #expect(sensors.gyroscope?.name == "lsm6dsox_gyro")
        #expect(sensors.magnetometer == nil)
        #expect(sensors.accelerometer.hasBuffer == false)
        #expect(sensors.summary == "lsm6dsox_accel (iio:device1): accelerometer + lsm6dsox_gyro (iio:device0): gyroscope")
        // By name: the stem picks both.
        #expect(IIOMotionSensors.choose(from: IIODiscovery.devices(root: tree.sysfs).devices, name: "lsm6dsox")?.gyroscope?.id == "iio:device0")
        #expect(IIOMotionSensors.choose(from: IIODiscovery.devices(root: tree.sysfs).devices, name: "bmi160") == nil)
    }

    @Test func readsBMI160PerTypeSamplingFrequency() throws {
        let tree = try FakeIIOTree()
        try tree.add(.bmi160(accel: (0, 0, 16384), gyro: (0, 0, 0)), as: "iio:device3")
        let device = try #require(IIODiscovery.devices(root: tree.sysfs).devices.first)
        #expect(device.id == "iio:device3")
        #expect(try device.group(.accelerometer)?.samplingFrequency() == 100)
        #expect(device.group(.accelerometer)?.samplingFrequencyPath?.hasSuffix("in_accel_sampling_frequency") == true)
    }

    @Test func hidSensorAccelerometerAppliesOffsetBeforeScale() throws {
        let tree = try FakeIIOTree()
        try tree.add(.hidAccel3D(accel: (10, -20, -1000), scale: "0.01", offset: "5"), as: "iio:device0")
        let sensors = try #require(IIOMotionSensors.choose(from: IIODiscovery.devices(root: tree.sysfs).devices))
        #expect(sensors.accelerometer.name == "accel_3d")
        #expect(sensors.gyroscope == nil)
        // (raw + offset) × scale, the ABI's order.
        #expect(try sensors.accelerometer.group(.accelerometer)?.read() == SIMD3(15, -15, -995) * 0.01)
    }

    @Test func perAxisScaleAndMountMatrix() throws {
        let tree = try FakeIIOTree()
        var device = FakeIIODevice.ak8975(field: (100, 200, 300))
        device.attributes["in_magn_y_scale"] = "0.006"
        device.attributes["in_mount_matrix"] = "0, 1, 0; 1, 0, 0; 0, 0, -1"
        try tree.add(device, as: "iio:device2")
        let group = try #require(IIODiscovery.devices(root: tree.sysfs).devices.first?.group(.magnetometer))
        #expect(group.scale == SIMD3(0.003, 0.006, 0.003))
        #expect(try group.read() == SIMD3(200 * 0.006, 100 * 0.003, -300 * 0.003))
    }

    @Test func badAttributeTextIsATypedErrorNamingTheFile() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 0), gyro: (0, 0, 0)), as: "iio:device0")
        try tree.add(.hidAccel3D(accel: (0, 0, 0)), as: "iio:device1")
        try tree.set("in_accel_scale", of: "iio:device0", to: "lots")
        let (devices, problems) = IIODiscovery.devices(root: tree.sysfs)
        #expect(devices.map(\.name) == ["accel_3d"])
        #expect(problems.map(\.kind) == [.badValue])
        #expect(problems.first?.path.hasSuffix("iio:device0/in_accel_scale") == true)
        // A reading far outside any integer range is refused, not trapped on.
        try tree.set("in_accel_x_raw", of: "iio:device1", to: "99999999999999999999999")
        let group = try #require(IIODiscovery.devices(root: tree.sysfs).devices.first?.group(.accelerometer))
        #expect(throws: IIOError.self) { try group.read() }
    }

    @Test func removedDeviceIsDeviceRemoved() throws {
        let tree = try FakeIIOTree()
        try tree.add(.hidAccel3D(accel: (0, 0, 0)), as: "iio:device0")
        let group = try #require(IIODiscovery.devices(root: tree.sysfs).devices.first?.group(.accelerometer))
        try tree.remove("iio:device0")
        do {
            _ = try group.read()
            Issue.record("read a removed device")
        } catch {
            #expect(error.kind == .deviceRemoved)
            #expect(error.errno == 2)   // ENOENT
        }
    }

    @Test func sortsDeviceIndicesNumerically() throws {
        let tree = try FakeIIOTree()
        for index in [10, 2, 1] { try tree.add(.hidAccel3D(accel: (index, 0, 0)), as: "iio:device\(index)") }
        #expect(IIODiscovery.devices(root: tree.sysfs).devices.map(\.id) == ["iio:device1", "iio:device2", "iio:device10"])
    }
}
