import Foundation

/// A fake `/sys/bus/iio/devices` and `/dev` in a temporary directory (the umockdev idea): tests
/// and `motionctl probe --iio-root` read it exactly as they would read the kernel's. The buffer
/// device is a regular file the test appends scan records to.
package final class FakeIIOTree: @unchecked Sendable {
    /// The temporary directory holding everything (removed on deinit).
    package let base: URL
    /// Stands for `/sys/bus/iio/devices`.
    package var sysfs: String { base.appendingPathComponent("sys/bus/iio/devices").path }
    /// Stands for `/dev`.
    package var dev: String { base.appendingPathComponent("dev").path }

    package init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("fake-iio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: base.appendingPathComponent("sys/bus/iio/devices").path, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base.appendingPathComponent("dev").path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    /// Writes `device` as `iio:deviceN` (attributes are paths relative to it) and, for a
    /// buffered one, an empty `/dev/iio:deviceN`. Returns the directory.
    @discardableResult
    package func add(_ device: FakeIIODevice, as id: String) throws -> String {
        let directory = "\(sysfs)/\(id)"
        for (path, value) in device.attributes {
            try write(value, to: "\(directory)/\(path)")
        }
        try write(device.name, to: "\(directory)/name")
        if device.attributes.keys.contains(where: { $0.hasPrefix("scan_elements/") }) {
            try write("", to: "\(dev)/\(id)")
        }
        return directory
    }

    /// Sets one attribute of a device (`"in_accel_x_raw"`, `"scan_elements/in_accel_x_en"`).
    package func set(_ attribute: String, of id: String, to value: String) throws {
        try write(value, to: "\(sysfs)/\(id)/\(attribute)")
    }

    /// Reads one attribute back (what our code wrote: `buffer/enable`, `current_trigger`).
    package func value(_ attribute: String, of id: String) throws -> String {
        try String(contentsOfFile: "\(sysfs)/\(id)/\(attribute)", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The device disappears (driver unbound): its directory moves out of the tree.
    package func remove(_ id: String) throws {
        try FileManager.default.moveItem(atPath: "\(sysfs)/\(id)", toPath: base.appendingPathComponent("removed-\(id)").path)
    }

    /// A removed device comes back, possibly under another index (as the kernel numbers it).
    package func restore(_ id: String, as newID: String? = nil) throws {
        try FileManager.default.moveItem(atPath: base.appendingPathComponent("removed-\(id)").path, toPath: "\(sysfs)/\(newID ?? id)")
    }

    /// Appends scan records to `/dev/<id>`.
    package func append(_ bytes: [UInt8], toBufferOf id: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(dev)/\(id)"))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    private func write(_ value: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data((value.isEmpty ? "" : value + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }
}

/// One fake IIO device: its `name` and attribute files.
package struct FakeIIODevice: Sendable {
    package var name: String
    /// Path relative to the device directory → content (a newline is added).
    package var attributes: [String: String]

    package init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// x, y, z `_raw` attributes of a channel type (`accel`, `anglvel`, `magn`).
    package static func raw(_ type: String, _ values: (Int, Int, Int)) -> [String: String] {
        ["in_\(type)_x_raw": "\(values.0)", "in_\(type)_y_raw": "\(values.1)", "in_\(type)_z_raw": "\(values.2)"]
    }

    /// Scan elements of x, y, z of a channel type at `firstIndex`…, all disabled, of `type`.
    package static func scan(_ channel: String, firstIndex: Int, type: String) -> [String: String] {
        var attributes: [String: String] = [:]
        for (offset, axis) in ["x", "y", "z"].enumerated() {
            attributes["scan_elements/in_\(channel)_\(axis)_en"] = "0"
            attributes["scan_elements/in_\(channel)_\(axis)_index"] = "\(firstIndex + offset)"
            attributes["scan_elements/in_\(channel)_\(axis)_type"] = type
        }
        return attributes
    }

    /// The kernel timestamp scan element (`le:s64/64>>0`) and the buffer attributes.
    package static func bufferAttributes(timestampIndex: Int) -> [String: String] {
        [
            "scan_elements/in_timestamp_en": "0", "scan_elements/in_timestamp_index": "\(timestampIndex)",
            "scan_elements/in_timestamp_type": "le:s64/64>>0", "buffer/enable": "0", "buffer/length": "0",
            "current_timestamp_clock": "realtime",
        ]
    }

    /// inv_mpu6050 as Linux 6.1 registers an MPU-6050 (drivers/iio/imu/inv_mpu6050/inv_mpu_core.c):
    /// one device "mpu6050", accel and anglvel with shared scales, `in_mount_matrix`
    /// (IIO_SHARED_BY_DIR), `sampling_frequency`; buffer indices accel 0–2, temp 3, gyro 4–6,
    /// timestamp 7, big-endian s16; its own trigger "mpu6050-dev0" chosen through `trigger/`.
    package static func mpu6050(accel: (Int, Int, Int), gyro: (Int, Int, Int), mount: String = "1, 0, 0; 0, 1, 0; 0, 0, 1") -> FakeIIODevice {
        var attributes = raw("accel", accel).merging(raw("anglvel", gyro)) { $1 }
        attributes["in_accel_scale"] = "0.000598"
        attributes["in_anglvel_scale"] = "0.001064724"
        attributes["in_temp_raw"] = "0"
        attributes["in_mount_matrix"] = mount
        attributes["sampling_frequency"] = "50"
        attributes["sampling_frequency_available"] = "10 20 50 100 200 500"
        attributes["trigger/current_trigger"] = ""
        attributes.merge(scan("accel", firstIndex: 0, type: "be:s16/16>>0")) { $1 }
        attributes.merge(scan("anglvel", firstIndex: 4, type: "be:s16/16>>0")) { $1 }
        attributes["scan_elements/in_temp_en"] = "0"
        attributes["scan_elements/in_temp_index"] = "3"
        attributes["scan_elements/in_temp_type"] = "be:s16/16>>0"
        attributes.merge(bufferAttributes(timestampIndex: 7)) { $1 }
        return FakeIIODevice(name: "mpu6050", attributes: attributes)
    }

    /// st_lsm6dsx (drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c): one device per sensor,
    /// "lsm6dsox_accel" and "lsm6dsox_gyro", each with `<type>_scale`, `mount_matrix`
    /// (IIO_SHARED_BY_ALL), `sampling_frequency` and its `_available` list.
    package static func lsm6dsox(accel: (Int, Int, Int), mount: String = "1, 0, 0; 0, 1, 0; 0, 0, 1") -> FakeIIODevice {
        var attributes = raw("accel", accel)
        attributes["in_accel_scale"] = "0.000598"
        attributes["in_accel_scale_available"] = "0.000598 0.001196 0.002392 0.004785"
        attributes["mount_matrix"] = mount
        attributes["sampling_frequency"] = "104.000"
        attributes["sampling_frequency_available"] = "12.500 26.000 52.000 104.000 208.000 416.000 833.000"
        return FakeIIODevice(name: "lsm6dsox_accel", attributes: attributes)
    }

    package static func lsm6dsoxGyro(_ gyro: (Int, Int, Int), mount: String = "1, 0, 0; 0, 1, 0; 0, 0, 1") -> FakeIIODevice {
        var attributes = raw("anglvel", gyro)
        attributes["in_anglvel_scale"] = "0.000153"
        attributes["mount_matrix"] = mount
        attributes["sampling_frequency"] = "104.000"
        return FakeIIODevice(name: "lsm6dsox_gyro", attributes: attributes)
    }

    /// bmi160 (drivers/iio/imu/bmi160/bmi160_core.c): one device "bmi160", per-type
    /// `in_accel_sampling_frequency`, `in_mount_matrix`; buffer indices gyro 4–6 before accel
    /// 7–9 (enum bmi160_scan_axis), timestamp 10, little-endian s16.
    package static func bmi160(accel: (Int, Int, Int), gyro: (Int, Int, Int)) -> FakeIIODevice {
        var attributes = raw("accel", accel).merging(raw("anglvel", gyro)) { $1 }
        attributes["in_accel_scale"] = "0.000598"
        attributes["in_anglvel_scale"] = "0.001065"
        attributes["in_accel_sampling_frequency"] = "100.000000"
        attributes["in_anglvel_sampling_frequency"] = "100.000000"
        attributes["in_mount_matrix"] = "1, 0, 0; 0, 1, 0; 0, 0, 1"
        attributes["trigger/current_trigger"] = "bmi160-dev0"
        attributes.merge(scan("anglvel", firstIndex: 4, type: "le:s16/16>>0")) { $1 }
        attributes.merge(scan("accel", firstIndex: 7, type: "le:s16/16>>0")) { $1 }
        attributes.merge(bufferAttributes(timestampIndex: 10)) { $1 }
        return FakeIIODevice(name: "bmi160", attributes: attributes)
    }

    /// hid-sensor-accel-3d (drivers/iio/accel/hid-sensor-accel-3d.c): "accel_3d", shared
    /// `in_accel_scale` and `in_accel_offset` (from the HID unit exponent), `in_accel_hysteresis`,
    /// `in_accel_sampling_frequency`; no gyroscope.
    package static func hidAccel3D(accel: (Int, Int, Int), scale: String = "0.009806650", offset: String = "0") -> FakeIIODevice {
        var attributes = raw("accel", accel)
        attributes["in_accel_scale"] = scale
        attributes["in_accel_offset"] = offset
        attributes["in_accel_hysteresis"] = "0"
        attributes["in_accel_sampling_frequency"] = "10.000000"
        return FakeIIODevice(name: "accel_3d", attributes: attributes)
    }

    /// A magnetometer (ak8975 style: "ak8975", per-axis `in_magn_x_scale` in gauss).
    package static func ak8975(field: (Int, Int, Int), scale: String = "0.003000") -> FakeIIODevice {
        var attributes = raw("magn", field)
        for axis in ["x", "y", "z"] { attributes["in_magn_\(axis)_scale"] = scale }
        attributes["in_mount_matrix"] = "1, 0, 0; 0, 1, 0; 0, 0, 1"
        return FakeIIODevice(name: "ak8975", attributes: attributes)
    }
}

/// Scan-record bytes for tests.
package enum FakeScanRecord {
    package static func bigEndian16(_ values: [Int]) -> [UInt8] {
        values.flatMap { value -> [UInt8] in
            let word = UInt16(bitPattern: Int16(truncatingIfNeeded: value))
            return [UInt8(word >> 8), UInt8(word & 0xFF)]
        }
    }

    package static func littleEndian16(_ values: [Int]) -> [UInt8] {
        values.flatMap { value -> [UInt8] in
            let word = UInt16(bitPattern: Int16(truncatingIfNeeded: value))
            return [UInt8(word & 0xFF), UInt8(word >> 8)]
        }
    }

    package static func littleEndian64(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (8 * UInt64($0))) }
    }
}
