#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One record read from an IIO buffer: the enabled channels' values in `ScanLayout` order and
/// the kernel's timestamp.
package struct IIORecord: Sendable, Equatable {
    /// Decoded values, one per layout element (repeats beyond the first are not decoded).
    package var values: [Int64]
    /// Nanoseconds on the device's `current_timestamp_clock`; nil when `in_timestamp` is not enabled.
    package var timestamp: Int64?
}

/// A running IIO buffer: the scan elements enabled, the buffer enabled, its character device
/// (`/dev/iio:deviceN`) open for non-blocking reads. The setup is the one
/// Documentation/driver-api/iio/buffers.rst and tools/iio/iio_generic_buffer.c describe:
/// `scan_elements/*_en`, then `buffer/length`, then `buffer/enable`, then read the device node.
package struct IIOBuffer: Sendable {
    package let layout: ScanLayout
    /// The device node read.
    package let node: String
    /// The sysfs directory of the device.
    package let directory: String
    /// The clock named by `current_timestamp_clock` while the buffer runs ("monotonic" when the
    /// driver let us choose it; "realtime" is the kernel's default).
    package let timestampClock: String
    private var descriptor: Int32
    private var pending: [UInt8] = []

    /// Scan elements to enable: `channels` (e.g. `in_accel_x`) and `in_timestamp` when present.
    /// - Parameters:
    ///   - device: the IIO device (with `hasBuffer`).
    ///   - deviceDirectory: where its node lives (`/dev`; a test's temporary directory).
    ///   - length: the buffer's capacity in records (`buffer/length`).
    package static func start(
        device: IIODevice, channels: [String], deviceDirectory: String = IIODiscovery.defaultDeviceDirectory, length: Int
    ) throws(IIOError) -> IIOBuffer {
        let directory = device.directory
        let scan = "\(directory)/scan_elements"
        try SysfsFiles.write("0", to: "\(directory)/buffer/enable")
        var enabled: [(name: String, index: Int, type: ScanType)] = []
        let available = Set(SysfsFiles.entries(scan).compactMap { $0.hasSuffix("_en") ? String($0.dropLast(3)) : nil })
        for name in available.sorted() {
            let wanted = channels.contains(name) || name == "in_timestamp"
            try SysfsFiles.write(wanted ? "1" : "0", to: "\(scan)/\(name)_en")
            guard wanted else { continue }
            let indexPath = "\(scan)/\(name)_index"
            let indexText = try SysfsFiles.read(indexPath)
            guard let index = Int(indexText), (0...4096).contains(index) else {
                throw IIOError(.badValue, path: indexPath, detail: "\"\(indexText.prefix(40))\" is not a scan index")
            }
            let typePath = "\(scan)/\(name)_type"
            enabled.append((name, index, try ScanType(parsing: try SysfsFiles.read(typePath), path: typePath)))
        }
        let missing = channels.filter { !available.contains($0) }
        guard missing.isEmpty else {
            throw IIOError(.noDevice, path: scan, detail: "no scan element \(missing.joined(separator: ", ")) in the buffer",
                           hint: "read this device by polling (sysfs) instead")
        }
        try selectTrigger(device)
        var clock = "realtime"
        let clockPath = "\(directory)/current_timestamp_clock"
        if SysfsFiles.exists(clockPath) {
            // The default is CLOCK_REALTIME (Documentation/ABI/testing/sysfs-bus-iio:
            // current_timestamp_clock); ask for CLOCK_MONOTONIC, our clock, and use what it says.
            do throws(IIOError) { try SysfsFiles.write("monotonic", to: clockPath) } catch {}
            clock = try SysfsFiles.read(clockPath)
        }
        try SysfsFiles.write(String(max(2, length)), to: "\(directory)/buffer/length")
        try SysfsFiles.write("1", to: "\(directory)/buffer/enable")
        let node = "\(deviceDirectory)/\(device.id)"
        let descriptor = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = IIOError.from(errno: errno, path: node, attempted: "open")
            do throws(IIOError) { try SysfsFiles.write("0", to: "\(directory)/buffer/enable") } catch {}
            throw error
        }
        return IIOBuffer(layout: ScanLayout(enabled), node: node, directory: directory, timestampClock: clock, descriptor: descriptor)
    }

    /// A device with a trigger directory reads nothing until a trigger is chosen: keep the one
    /// set (by a person or the driver), else choose the driver's own (`<name>-dev<N>`, the
    /// naming of inv_mpu6050 and bmi160). Devices without `trigger/` (st_lsm6dsx's hardware
    /// FIFO) need none.
    private static func selectTrigger(_ device: IIODevice) throws(IIOError) {
        let current = "\(device.directory)/trigger/current_trigger"
        guard SysfsFiles.exists(current), try SysfsFiles.read(current).isEmpty else { return }
        let root = String(device.directory.dropLast(device.id.count + 1))
        let number = device.id.dropFirst("iio:device".count)
        let own = "\(device.name)-dev\(number)"
        let triggers = SysfsFiles.entries(root).filter { $0.hasPrefix("trigger") }
        for trigger in triggers {
            let name: String
            do throws(IIOError) { name = try SysfsFiles.read("\(root)/\(trigger)/name") } catch { continue }
            if name == own {
                try SysfsFiles.write(name, to: current)
                return
            }
        }
        throw IIOError(
            .noDevice, path: current, detail: "the buffer needs a trigger and none is set (no \(own) trigger: the chip's interrupt is not wired)",
            hint: "set one (e.g. an hrtimer trigger: mkdir /sys/kernel/config/iio/triggers/hrtimer/t0, then echo t0 > \(current)), or read by polling")
    }

    /// Every whole record available now, oldest first; none when the buffer is empty.
    package mutating func read() throws(IIOError) -> [IIORecord] {
        var chunk = [UInt8](repeating: 0, count: max(layout.recordSize, 1) * 64)
        while true {
            let got = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                throw .from(errno: errno, path: node, attempted: "read")
            }
            if got == 0 { break }
            pending += chunk[..<got]
            if got < chunk.count { break }
        }
        guard layout.recordSize > 0, pending.count >= layout.recordSize else { return [] }
        let count = pending.count / layout.recordSize
        let timestampElement = layout.element("in_timestamp")
        var records: [IIORecord] = []
        records.reserveCapacity(count)
        pending.withUnsafeBytes { bytes in
            for record in 0..<count {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[(record * layout.recordSize)..<((record + 1) * layout.recordSize)])
                let values = layout.elements.map { $0.type.decode(slice, at: $0.offset) }
                records.append(IIORecord(values: values, timestamp: timestampElement.map { $0.type.decode(slice, at: $0.offset) }))
            }
        }
        pending.removeFirst(count * layout.recordSize)
        return records
    }

    /// Closes the node and disables the buffer (best effort: the device may be gone).
    package mutating func stop() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        pending = []
        do throws(IIOError) { try SysfsFiles.write("0", to: "\(directory)/buffer/enable") } catch {}
    }

    /// Seconds to add to a timestamp of `clock` (a `current_timestamp_clock` name) to get
    /// CLOCK_MONOTONIC seconds. Names from drivers/iio/industrialio-core.c (`clock_names`).
    package static func monotonicOffset(clock: String) -> Double {
        let id: clockid_t
        switch clock {
        case "monotonic": return 0
        case "realtime": id = CLOCK_REALTIME
        case "monotonic_raw": id = CLOCK_MONOTONIC_RAW
        case "realtime_coarse": id = CLOCK_REALTIME_COARSE
        case "monotonic_coarse": id = CLOCK_MONOTONIC_COARSE
        case "boottime": id = CLOCK_BOOTTIME
        case "tai": id = CLOCK_TAI
        default: return 0
        }
        var other = timespec(), monotonic = timespec()
        clock_gettime(id, &other)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return (Double(monotonic.tv_sec) - Double(other.tv_sec)) + (Double(monotonic.tv_nsec) - Double(other.tv_nsec)) * 1e-9
    }
}
