/// The IIO devices one motion source reads: an accelerometer, and a gyroscope and a
/// magnetometer when there are any, chosen among everything under a sysfs root.
package struct IIOMotionSensors: Sendable, Equatable {
    package var accelerometer: IIODevice
    package var gyroscope: IIODevice?
    package var magnetometer: IIODevice?

    /// The devices behind the three sensors, each once.
    package var devices: [IIODevice] {
        var seen: [IIODevice] = []
        for device in [accelerometer, gyroscope, magnetometer].compactMap({ $0 }) where !seen.contains(where: { $0.id == device.id }) {
            seen.append(device)
        }
        return seen
    }

    /// "mpu6050 (iio:device0): accelerometer, gyroscope + ak8975 (iio:device1): magnetometer".
    package var summary: String {
        devices.map(\.summary).joined(separator: " + ")
    }

    /// Chooses among `devices`: the accelerometer (only devices named `name`, or whose name
    /// starts with it and `_`, when given) — preferring one with a gyroscope in the same chip,
    /// then the one labelled `accel-display` (2-in-1s, sysfs-bus-iio `label`), then the lowest
    /// index. Its gyroscope: from the same device, else a sibling of the same chip (st_lsm6dsx
    /// registers `lsm6dsox_accel` and `lsm6dsox_gyro`), else of the same HID sensor hub
    /// (`accel_3d`, `gyro_3d`); never another chip's, whose axes and clock differ. Its
    /// magnetometer: the same way, else any (magnetometers are separate chips).
    package static func choose(from devices: [IIODevice], name: String? = nil) -> IIOMotionSensors? {
        let candidates = devices.filter { device in
            device.group(.accelerometer) != nil && (name.map { device.name == $0 || device.name.hasPrefix($0 + "_") } ?? true)
        }
        func partner(of accelerometer: IIODevice, _ kind: IIOSensorKind) -> IIODevice? {
            if accelerometer.group(kind) != nil { return accelerometer }
            let others = devices.filter { $0.group(kind) != nil }
            return others.first { sameChip($0, accelerometer) } ?? (kind == .magnetometer ? others.first : nil)
        }
        guard let accelerometer = candidates.first(where: { partner(of: $0, .gyroscope) != nil })
            ?? candidates.first(where: { $0.label == "accel-display" }) ?? candidates.first
        else { return nil }
        return IIOMotionSensors(
            accelerometer: accelerometer, gyroscope: partner(of: accelerometer, .gyroscope),
            magnetometer: partner(of: accelerometer, .magnetometer))
    }

    /// Two IIO devices of one chip or hub: st_lsm6dsx's `<part>_accel`/`<part>_gyro`/`<part>_magn`
    /// (drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c), hid-sensor-hub's `accel_3d`/`gyro_3d`/`magn_3d`.
    static func sameChip(_ a: IIODevice, _ b: IIODevice) -> Bool {
        func stem(_ name: String) -> Substring? {
            guard let underscore = name.lastIndex(of: "_") else { return nil }
            return name[..<underscore]
        }
        if a.name.hasSuffix("_3d"), b.name.hasSuffix("_3d") { return true }
        guard let stemA = stem(a.name), let stemB = stem(b.name) else { return false }
        return stemA == stemB
    }
}
