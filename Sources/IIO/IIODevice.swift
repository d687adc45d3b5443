/// The three kinds of IIO channels a motion source reads, with the sysfs spelling of their type
/// and the unit of `(raw + offset) × scale` (Documentation/ABI/testing/sysfs-bus-iio:
/// `in_accel_x_raw` m/s², `in_anglvel_x_raw` rad/s, `in_magn_x_raw` gauss).
package enum IIOSensorKind: String, Sendable, Equatable, CaseIterable {
    case accelerometer = "accel"
    case gyroscope = "anglvel"
    case magnetometer = "magn"

    /// The unit the kernel reports in after scale and offset.
    package var unit: String {
        switch self {
        case .accelerometer: "m/s²"
        case .gyroscope: "rad/s"
        case .magnetometer: "gauss"
        }
    }

    package var displayName: String {
        switch self {
        case .accelerometer: "accelerometer"
        case .gyroscope: "gyroscope"
        case .magnetometer: "magnetometer"
        }
    }
}

/// One sensor's x, y, z channels in one IIO device, with what turns their raw counts into
/// kernel units in the mounting hardware's axes.
package struct IIOChannelGroup: Sendable, Equatable {
    package var kind: IIOSensorKind
    /// The `iio:deviceN` directory holding the channels.
    package var directory: String
    /// `in_accel_x_raw` … (or `…_input` when the driver reports processed values).
    package var valuePaths: [String]
    /// True for `_input` attributes: already in kernel units, no scale or offset.
    package var processed: Bool
    /// Per axis: `in_accel_x_scale`, else `in_accel_scale`, else 1 (the ABI's default).
    package var scale: SIMD3<Double>
    /// Per axis: `in_accel_x_offset`, else `in_accel_offset`, else 0; added before the scale.
    package var offset: SIMD3<Double>
    /// `in_accel_mount_matrix`, else `in_mount_matrix`, else `mount_matrix`, else identity.
    package var mount: MountMatrix
    /// Where the sampling frequency is read: `in_accel_sampling_frequency`, else `sampling_frequency`.
    package var samplingFrequencyPath: String?

    static let axes = ["x", "y", "z"]

    /// Converts raw counts to kernel units in the mounting hardware's axes.
    package func value(raw: SIMD3<Double>) -> SIMD3<Double> {
        mount.apply(processed ? raw : (raw + offset) * scale)
    }

    /// Reads the three channels through sysfs (direct mode) and converts them.
    package func read() throws(IIOError) -> SIMD3<Double> {
        var raw = SIMD3<Double>.zero
        for axis in 0..<3 {
            let path = valuePaths[axis]
            let text = try SysfsFiles.read(path)
            // Range-checked: sysfs text is input. Integers up to 2^53 are exact in a Double.
            guard let value = Double(text), value.isFinite, abs(value) < 9.007_199_254_740_992e15 else {
                throw IIOError(.badValue, path: path, detail: "\"\(text.prefix(40))\" is not a reading")
            }
            raw[axis] = value
        }
        return value(raw: raw)
    }

    /// The current sampling frequency in Hz, nil when the driver has none (or reports 0). A
    /// negative one or one above ``IIOPlausibility/maximumSamplingFrequency`` is `badValue`.
    package func samplingFrequency() throws(IIOError) -> Double? {
        guard let samplingFrequencyPath else { return nil }
        let value = try SysfsFiles.number(samplingFrequencyPath)
        try IIOPlausibility.checkSamplingFrequency(value, path: samplingFrequencyPath)
        return value > 0 ? value : nil
    }

    /// The scan element names of the three axes in the buffer (`in_accel_x` …).
    package var scanElementNames: [String] { Self.axes.map { "in_\(kind.rawValue)_\($0)" } }

    /// Reads the group from `directory`; nil when the device has no such channels.
    static func read(kind: IIOSensorKind, directory: String) throws(IIOError) -> IIOChannelGroup? {
        let type = "\(directory)/in_\(kind.rawValue)"
        var processed = false
        var valuePaths = axes.map { "\(type)_\($0)_raw" }
        if !valuePaths.allSatisfy(SysfsFiles.exists) {
            valuePaths = axes.map { "\(type)_\($0)_input" }
            guard valuePaths.allSatisfy(SysfsFiles.exists) else { return nil }
            processed = true
        }
        var scale = SIMD3<Double>(1, 1, 1)
        var offset = SIMD3<Double>.zero
        for (index, axis) in axes.enumerated() {
            // Checked only where applied: `_input` channels are already in kernel units.
            if let (path, value) = try optionalNumber(["\(type)_\(axis)_scale", "\(type)_scale"]) {
                if !processed { try IIOPlausibility.checkScale(value, kind: kind, path: path) }
                scale[index] = value
            }
            if let (path, value) = try optionalNumber(["\(type)_\(axis)_offset", "\(type)_offset"]) {
                if !processed { try IIOPlausibility.checkOffset(value, scale: scale[index], kind: kind, path: path) }
                offset[index] = value
            }
        }
        var mount = MountMatrix.identity
        if let path = ["\(type)_mount_matrix", "\(directory)/in_mount_matrix", "\(directory)/mount_matrix"].first(where: SysfsFiles.exists) {
            mount = try MountMatrix(parsing: try SysfsFiles.read(path), path: path)
            try IIOPlausibility.checkMount(mount, path: path)
        }
        let frequency = ["\(type)_sampling_frequency", "\(directory)/sampling_frequency"].first(where: SysfsFiles.exists)
        return IIOChannelGroup(
            kind: kind, directory: directory, valuePaths: valuePaths, processed: processed, scale: scale, offset: offset,
            mount: mount, samplingFrequencyPath: frequency)
    }

    private static func optionalNumber(_ candidates: [String]) throws(IIOError) -> (path: String, value: Double)? {
        guard let path = candidates.first(where: SysfsFiles.exists) else { return nil }
        return (path, try SysfsFiles.number(path))
    }
}

/// One `iio:deviceN` directory that has accelerometer, gyroscope or magnetometer channels.
package struct IIODevice: Sendable, Equatable {
    /// The directory, e.g. `/sys/bus/iio/devices/iio:device0`.
    package var directory: String
    /// `iio:device0`: also the name of its buffer's character device in `/dev`.
    package var id: String
    /// The driver's `name` (a part number: `mpu6050`, `lsm6dsox_accel`, `accel_3d`, `bmi160`).
    package var name: String
    /// The optional `label` (`accel-display`, `accel-base` on 2-in-1s).
    package var label: String?
    package var groups: [IIOChannelGroup]
    /// Whether it has a buffer: `scan_elements/` and `buffer/enable`.
    package var hasBuffer: Bool

    package func group(_ kind: IIOSensorKind) -> IIOChannelGroup? {
        groups.first { $0.kind == kind }
    }

    /// "mpu6050 (iio:device0): accelerometer, gyroscope".
    package var summary: String {
        "\(name) (\(id)\(label.map { ", \($0)" } ?? "")): " + groups.map(\.kind.displayName).joined(separator: ", ")
            + (hasBuffer ? "; buffered" : "")
    }

    /// Reads `directory`; nil when it has no motion channels (a light sensor, an ADC, a trigger).
    package static func read(directory: String) throws(IIOError) -> IIODevice? {
        var groups: [IIOChannelGroup] = []
        for kind in IIOSensorKind.allCases {
            if let group = try IIOChannelGroup.read(kind: kind, directory: directory) { groups.append(group) }
        }
        guard !groups.isEmpty else { return nil }
        let name = try SysfsFiles.read("\(directory)/name")
        let label: String? = SysfsFiles.exists("\(directory)/label") ? try SysfsFiles.read("\(directory)/label") : nil
        let id = String(directory.split(separator: "/").last ?? Substring(directory))
        let hasBuffer = SysfsFiles.exists("\(directory)/scan_elements") && SysfsFiles.exists("\(directory)/buffer/enable")
        return IIODevice(directory: directory, id: id, name: name, label: label, groups: groups, hasBuffer: hasBuffer)
    }
}

/// Finds motion sensors among the IIO devices under a sysfs root.
package enum IIODiscovery {
    /// Where the kernel lists IIO devices (Documentation/ABI/testing/sysfs-bus-iio).
    package static let defaultRoot = "/sys/bus/iio/devices"
    /// Where their buffers' character devices appear (`/dev/iio:deviceN`).
    package static let defaultDeviceDirectory = "/dev"

    /// Every `iio:deviceN` under `root` with motion channels, in index order; a device whose
    /// attributes cannot be read is left out and its error returned in `problems`.
    package static func devices(root: String = defaultRoot) -> (devices: [IIODevice], problems: [IIOError]) {
        var devices: [IIODevice] = []
        var problems: [IIOError] = []
        for entry in SysfsFiles.entries(root) where entry.hasPrefix("iio:device") {
            do throws(IIOError) {
                if let device = try IIODevice.read(directory: "\(root)/\(entry)") { devices.append(device) }
            } catch {
                problems.append(error)
            }
        }
        return (devices, problems)
    }
}
