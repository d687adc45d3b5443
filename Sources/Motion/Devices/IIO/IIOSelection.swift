import IIO

/// Which Linux IIO devices a manager reads (``MotionSource/iio(_:)``): the kernel's own drivers
/// for chips it owns (a Raspberry Pi `dtoverlay=mpu6050`, the Sense HAT's LSM9DS1) and the
/// accelerometers and gyroscopes of laptops, tablets and phones (hid-sensor-accel-3d, bmi160,
/// st_lsm6dsx, inv_mpu6050).
public struct IIOSelection: Sendable, Equatable, CustomStringConvertible {
    /// How samples are taken.
    public enum Reading: String, Sendable, Equatable, CaseIterable {
        /// Sysfs on the sampler's timer up to 100 Hz; the buffer (with kernel timestamps) for
        /// shorter intervals or `usesChipFIFO`, where the device has one.
        case automatic
        /// Only sysfs (`in_accel_x_raw` …) on the sampler's timer.
        case polling
    }

    /// Where IIO devices are listed (`/sys/bus/iio/devices`; a fake tree in tests).
    package var root: String
    /// Where their buffers' character devices are (`/dev`, holding `iio:deviceN`).
    package var deviceDirectory: String
    /// Only the device whose `name` is this (or starts with it and `_`: `lsm6dsox` picks
    /// `lsm6dsox_accel` and `lsm6dsox_gyro`); nil: the best accelerometer found.
    public var name: String?
    public var reading: Reading

    public init(name: String? = nil, reading: Reading = .automatic) {
        self.init(root: IIODiscovery.defaultRoot, name: name, reading: reading)
    }

    /// The same in another tree (a fake one in tests).
    package init(
        root: String, deviceDirectory: String = IIODiscovery.defaultDeviceDirectory,
        name: String? = nil, reading: Reading = .automatic
    ) {
        self.root = root
        self.deviceDirectory = deviceDirectory
        self.name = name
        self.reading = reading
    }

    /// The sensors this selection finds now; nil when there is no accelerometer.
    package func sensors() -> IIOMotionSensors? {
        IIOMotionSensors.choose(from: IIODiscovery.devices(root: root).devices, name: name)
    }

    public var description: String {
        "IIO at \(root)" + (name.map { " (name \($0))" } ?? "")
    }
}
