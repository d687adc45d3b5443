import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A calibration file could not be read or written. Names the file and what to do.
package struct CalibrationStoreError: Error, Sendable, CustomStringConvertible {
    package var path: String
    package var detail: String
    package var fix: String
    package var description: String { "\(path): \(detail). \(fix)" }
}

/// Calibration files, one per sensor, under the user's configuration directory:
/// `$XDG_CONFIG_HOME/swift-motion/calibration/` (default `~/.config/swift-motion/calibration/`;
/// a relative `XDG_CONFIG_HOME` is ignored, as the XDG Base Directory specification asks).
///
/// Writes are atomic: the record goes to a temporary file in the same directory, is flushed to
/// the disk (`fsync`), then renamed over the old one, so a crash or a kill at any moment leaves
/// either the old file or the new one, never a mix.
public struct CalibrationStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The store in the user's configuration directory (see the type's documentation).
    public static func userDefault(environment: [String: String] = ProcessInfo.processInfo.environment) -> CalibrationStore {
        let base: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
            base = URL(fileURLWithPath: home).appendingPathComponent(".config")
        }
        return CalibrationStore(directory: base.appendingPathComponent("swift-motion/calibration"))
    }

    package func url(for sensor: SensorIdentity) -> URL {
        directory.appendingPathComponent(sensor.fileName)
    }

    /// The stored record, or nil when there is none. A damaged file is an error naming it.
    package func load(_ sensor: SensorIdentity) throws(CalibrationStoreError) -> CalibrationRecord? {
        let path = url(for: sensor).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Self.read(path: path)
    }

    /// Every record in the store, sorted by file name; empty when the directory does not exist
    /// yet. A directory that cannot be listed is an error naming it.
    package func all() throws(CalibrationStoreError) -> [(path: String, record: CalibrationRecord)] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw CalibrationStoreError(
                path: directory.path, detail: "cannot be listed (\(error.localizedDescription))",
                fix: "Check that it is a directory you can read, or set XDG_CONFIG_HOME")
        }
        var result: [(String, CalibrationRecord)] = []
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = directory.appendingPathComponent(name).path
            result.append((path, try Self.read(path: path)))
        }
        return result
    }

    static func read(path: String) throws(CalibrationStoreError) -> CalibrationRecord {
        let fix = "Run `motionctl calibration clear` and calibrate again, or fix the file by hand"
        let data: Data
        do throws(FileContents.Failure) {
            data = try FileContents.read(path, what: "a calibration file")
        } catch {
            throw CalibrationStoreError(path: path, detail: error.problem, fix: error.fix.prefix(1).uppercased() + error.fix.dropFirst())
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let record: CalibrationRecord
        do {
            record = try decoder.decode(CalibrationRecord.self, from: data)
        } catch {
            throw CalibrationStoreError(path: path, detail: "is not a valid calibration file (\(error))", fix: fix)
        }
        guard record.version == 1 else {
            throw CalibrationStoreError(path: path, detail: "has format version \(record.version); this swift-motion reads version 1", fix: "Update swift-motion")
        }
        if let problem = record.validate() {
            throw CalibrationStoreError(path: path, detail: problem, fix: fix)
        }
        return record
    }

    /// Writes `record` atomically (temporary file, fsync, rename, fsync of the directory).
    /// Returns the path written.
    @discardableResult
    package func save(_ record: CalibrationRecord) throws(CalibrationStoreError) -> String {
        let target = url(for: record.sensor).path
        if let problem = record.validate() {
            throw CalibrationStoreError(path: target, detail: problem, fix: "This is a bug in the caller: the record was not saved")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            data = try encoder.encode(record)
        } catch {
            throw CalibrationStoreError(path: target, detail: "could not be encoded (\(error))", fix: "This is a bug: please report it")
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CalibrationStoreError(path: directory.path, detail: "cannot be created (\(error.localizedDescription))", fix: "Check the permissions of its parent, or set XDG_CONFIG_HOME")
        }
        // Unique per save, not just per process: two threads saving the same sensor must not
        // write into one temporary file.
        let temporary = directory.appendingPathComponent(".\(record.sensor.fileName).\(getpid()).\(UUID().uuidString).tmp").path
        try Self.writeDurably(data, to: temporary)
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw CalibrationStoreError(path: target, detail: "cannot be replaced (\(String(cString: strerror(code))))", fix: "Check the permissions of \(directory.path)")
        }
        let directoryDescriptor = open(directory.path, O_RDONLY | O_DIRECTORY)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
        return target
    }

    /// Runs `body` holding an exclusive advisory lock on `sensor`'s record: `flock` on a hidden
    /// lock file beside it (the record itself is replaced by rename, so it cannot carry the lock).
    func withRecordLocked<T>(_ sensor: SensorIdentity, _ body: () throws(CalibrationStoreError) -> T) throws(CalibrationStoreError) -> T {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CalibrationStoreError(path: directory.path, detail: "cannot be created (\(error.localizedDescription))", fix: "Check the permissions of its parent, or set XDG_CONFIG_HOME")
        }
        let lockPath = directory.appendingPathComponent(".\(sensor.fileName).lock").path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CalibrationStoreError(path: lockPath, detail: "cannot be opened (\(String(cString: strerror(errno))))", fix: "Check the permissions of \(directory.path)")
        }
        defer { close(descriptor) }   // closing releases the lock
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw CalibrationStoreError(path: lockPath, detail: "cannot be locked (\(String(cString: strerror(errno))))", fix: "Check that \(directory.path) is on a local file system")
            }
        }
        return try body()
    }

    /// Removes temporary files of `sensor`'s record whose writer (the pid in their name) is gone.
    func removeStaleTemporaries(of sensor: SensorIdentity) {
        let prefix = ".\(sensor.fileName)."
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            return   // best effort: the load or save that follows reports an unreadable directory
        }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            // .<file>.<pid>.<uuid>.tmp
            let fields = name.dropFirst(prefix.count).split(separator: ".")
            guard let pid = fields.first.flatMap({ Int32($0) }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH {
                unlink(directory.appendingPathComponent(name).path)
            }
        }
    }

    /// Removes the record of `sensor`; returns whether there was one.
    @discardableResult
    package func clear(_ sensor: SensorIdentity) throws(CalibrationStoreError) -> Bool {
        let path = url(for: sensor).path
        guard FileManager.default.fileExists(atPath: path) else { return false }
        guard unlink(path) == 0 else {
            throw CalibrationStoreError(path: path, detail: "cannot be removed (\(String(cString: strerror(errno))))", fix: "Check the permissions of \(directory.path)")
        }
        return true
    }

    private static func writeDurably(_ data: Data, to path: String) throws(CalibrationStoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CalibrationStoreError(path: path, detail: "cannot be created (\(String(cString: strerror(errno))))", fix: "Check the permissions of its directory")
        }
        defer { close(descriptor) }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        if failure != 0 {
            unlink(path)
            throw CalibrationStoreError(path: path, detail: "could not be written (\(String(cString: strerror(failure))))", fix: "Check free disk space")
        }
    }
}
