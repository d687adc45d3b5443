import Glibc

/// A `/dev/i2c-N` device node and the adapter behind it.
package struct LinuxI2CBusInfo: Sendable, Equatable, CustomStringConvertible {
    /// The device node, e.g. `/dev/i2c-1`.
    package var path: String
    /// N in `/dev/i2c-N`.
    package var number: Int
    /// The adapter's name from sysfs, e.g. `bcm2835 (i2c@7e804000)`; nil when sysfs does not say.
    package var adapterName: String?

    package init(path: String, number: Int, adapterName: String?) {
        self.path = path
        self.number = number
        self.adapterName = adapterName
    }

    package var description: String {
        adapterName.map { "\(path) (\($0))" } ?? path
    }
}

extension LinuxI2CBus {
    /// The `i2c-N` nodes in `deviceDirectory`, by number, with adapter names from
    /// `<sysfs>/class/i2c-dev/i2c-N/name` or `<sysfs>/bus/i2c/devices/i2c-N/name`.
    ///
    /// Empty when the directory has none (I2C not enabled, or `i2c-dev` not loaded).
    package static func availableBuses(deviceDirectory: String = "/dev", sysfs: String = "/sys") -> [LinuxI2CBusInfo] {
        guard let directory = opendir(deviceDirectory) else { return [] }
        defer { closedir(directory) }
        var buses: [LinuxI2CBusInfo] = []
        while let entry = readdir(directory) {
            let fileName = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard fileName.hasPrefix("i2c-"), let number = Int(fileName.dropFirst(4)), number >= 0 else { continue }
            let adapterName = [
                "\(sysfs)/class/i2c-dev/\(fileName)/name", "\(sysfs)/bus/i2c/devices/\(fileName)/name",
            ].lazy.compactMap(readLine(of:)).first
            buses.append(LinuxI2CBusInfo(path: "\(deviceDirectory)/\(fileName)", number: number, adapterName: adapterName))
        }
        return buses.sorted { $0.number < $1.number }
    }

    /// The first line of a small text file (a sysfs attribute), nil if it cannot be read or is empty.
    private static func readLine(of path: String) -> String? {
        let descriptor = retryingInterrupted { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { bytes in
            retryingInterrupted { Int32(Glibc.read(descriptor, bytes.baseAddress, bytes.count)) }
        }
        guard count > 0 else { return nil }
        let line = String(decoding: buffer.prefix(Int(count)).prefix { $0 != 0x0A }, as: UTF8.self)
        return line.isEmpty ? nil : line
    }
}
