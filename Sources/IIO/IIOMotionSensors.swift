/// The IIO devices one motion source reads: an accelerometer, and a gyroscope and a
/// magnetometer when there are any, chosen among everything under a sysfs root.
public struct IIOMotionSensors: Sendable, Equatable {
    public var accelerometer: IIODevice
    public var gyroscope: IIODevice?
    public var magnetometer: IIODevice?

    /// The devices behind the three sensors, each once.
    public var devices: [IIODevice] {
        var seen: [IIODevice] = []
        for device in [accelerometer, gyroscope, magnetometer].compactMap({ $0 }) where !seen.contains(where: { $0.id == device.id }) {
            seen.append(device)
        }
        return seen
    }

    /// "mpu6050 (iio:device0): accelerometer, gyroscope + ak8975 (iio:device1): magnetometer".
    public var summary: String {
        devices.map(\.summary).joined(separator: " + ")
    }

    /// Chooses among `devices`: the accelerometer (only devices named `name`, or whose name
    /// starts with it, when given) — preferring one with a gyroscope beside it, then the one
    /// labelled `accel-display` (2-in-1s, sysfs-bus-iio `label`), then the lowest index; the
    /// gyroscope and magnetometer from the same device, else from a sibling with the same name
    /// stem (st_lsm6dsx registers `lsm6dsox_accel`, `lsm6dsox_gyro`), else from any device.
    public static func choose(from devices: [IIODevice], name: String? = nil) -> IIOMotionSensors? {
        let candidates = devices.filter { device in
            device.group(.accelerometer) != nil && (name.map { device.name == $0 || device.name.hasPrefix($0 + "_") } ?? true)
        }
        guard let accelerometer = candidates.first(where: { $0.group(.gyroscope) != nil })
            ?? candidates.first(where: { $0.label == "accel-display" }) ?? candidates.first
        else { return nil }
        let stem = accelerometer.name.split(separator: "_").first.map(String.init) ?? accelerometer.name
        func partner(_ kind: IIOSensorKind) -> IIODevice? {
            if accelerometer.group(kind) != nil { return accelerometer }
            let others = devices.filter { $0.group(kind) != nil }
            return others.first { $0.name.hasPrefix(stem + "_") } ?? others.first
        }
        return IIOMotionSensors(accelerometer: accelerometer, gyroscope: partner(.gyroscope), magnetometer: partner(.magnetometer))
    }
}
