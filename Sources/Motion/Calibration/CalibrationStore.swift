import FileAccess
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
        let record = try Self.read(path: path)
        if let problem = record.identityProblem(expected: sensor) {
            throw CalibrationStoreError(path: path, detail: problem, fix: Self.damagedFix)
        }
        return record
    }

    static let damagedFix = "Run `motionctl calibration clear` and calibrate again, or fix the file by hand"

    /// Every record in the store, sorted by file name; empty when the directory does not exist
    /// yet. A directory that cannot be listed is an error naming it.
    package func all() throws(CalibrationStoreError) -> [(path: String, record: CalibrationRecord)] {
        guard try directoryExists() else { return [] }
        let names = try entries()
        var result: [(String, CalibrationRecord)] = []
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = directory.appendingPathComponent(name).path
            let record = try Self.read(path: path)
            // The file's name is its sensor's: a record under another sensor's name is damaged.
            if record.sensor.fileName != name {
                throw CalibrationStoreError(
                    path: path, detail: "names \(record.sensor), whose file would be \(record.sensor.fileName): "
                        + "sensor.chip, sensor.address, sensor.bus or sensor.board does not match the file's name", fix: Self.damagedFix)
            }
            result.append((path, record))
        }
        return result
    }

    static func read(path: String) throws(CalibrationStoreError) -> CalibrationRecord {
        let fix = damagedFix
        let data: Data
        do throws(FileContents.Failure) {
            data = try FileContents.read(path, what: "a calibration file", limit: FileContents.Limit.calibrationRecord)
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
        if let key = JSONDuplicateKeys.first(in: data) {
            throw CalibrationStoreError(path: path, detail: "holds the key \"\(key.prefix(60))\" twice in one object (another reader would take the other)", fix: fix)
        }
        guard record.version == 1 else {
            throw CalibrationStoreError(path: path, detail: "has format version \(record.version); this swift-motion reads version 1", fix: "Update swift-motion")
        }
        if let problem = record.validate() {
            throw CalibrationStoreError(path: path, detail: problem, fix: fix)
        }
        return record
    }

    /// Writes `record` atomically (temporary file, fsync, rename, fsync of the directory), holding
    /// the record's lock (``withRecordLocked(_:_:)``). Returns the path written.
    @discardableResult
    package func save(_ record: CalibrationRecord) throws(CalibrationStoreError) -> String {
        try withRecordLocked(record.sensor) { () throws(CalibrationStoreError) -> String in
            removeStaleTemporaries(of: record.sensor)
            return try saveLocked(record)
        }
    }

    /// ``save(_:)`` for a caller that holds the record's lock.
    func saveLocked(_ record: CalibrationRecord) throws(CalibrationStoreError) -> String {
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
        try createDirectoryIfNeeded()
        // Unique per save, not just per process: two threads saving the same sensor must not
        // write into one temporary file.
        let temporary = directory.appendingPathComponent(".\(record.sensor.fileName).\(getpid()).\(UUID().uuidString).tmp").path
        try Self.writeDurably(data, to: temporary)
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            if code == ENOENT {
                // Our temporary file went away between its fsync and the rename: someone removed it.
                throw CalibrationStoreError(
                    path: target, detail: "was not saved: its temporary file \(temporary) was removed while it was written (by another program, or by hand)",
                    fix: "Save again; `motionctl calibration clear` waits for saves in progress, a plain rm does not")
            }
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
        try withRecordLocked(fileName: sensor.fileName, body)
    }

    /// ``withRecordLocked(_:_:)`` for the record file named `fileName` (`clearAll` knows only names).
    func withRecordLocked<T>(fileName: String, _ body: () throws(CalibrationStoreError) -> T) throws(CalibrationStoreError) -> T {
        try createDirectoryIfNeeded()
        let lockPath = directory.appendingPathComponent(".\(fileName).lock").path
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
        removeStaleTemporaries(ofFile: sensor.fileName)
    }

    /// ``removeStaleTemporaries(of:)`` for the record file named `fileName`; returns how many were removed.
    @discardableResult
    func removeStaleTemporaries(ofFile fileName: String) -> Int {
        var removed = 0
        let prefix = ".\(fileName)."
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            return 0   // best effort: the load or save that follows reports an unreadable directory
        }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            // .<file>.<pid>.<uuid>.tmp
            let fields = name.dropFirst(prefix.count).split(separator: ".")
            guard let pid = fields.first.flatMap({ Int32($0) }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH, unlink(directory.appendingPathComponent(name).path) == 0 {
                removed += 1
            }
        }
        return removed
    }

    /// Whether the store's directory exists. A path that cannot be a directory (a file in its
    /// place, a symbolic-link loop, a file among its parents) is an error in a person's terms.
    func directoryExists() throws(CalibrationStoreError) -> Bool {
        let path = directory.path
        let fix = "Move it out of the way, or set XDG_CONFIG_HOME to another directory"
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw CalibrationStoreError(path: path, detail: "is not a directory (a file is in its place)", fix: fix)
            }
            return true
        }
        let code = errno
        switch code {
        case ENOENT:
            var link = stat()
            if lstat(path, &link) == 0 {
                throw CalibrationStoreError(path: path, detail: "is a symbolic link to a directory that does not exist", fix: "Create its target, or remove the link")
            }
            return false
        case ELOOP: throw CalibrationStoreError(path: path, detail: "is a symbolic link that leads back to itself (a loop)", fix: fix)
        case ENOTDIR: throw CalibrationStoreError(path: path, detail: "has a file where one of its folders should be", fix: fix)
        case EACCES: throw CalibrationStoreError(path: path, detail: "cannot be reached: permission denied on a folder of its path", fix: "Check the folders' permissions, or set XDG_CONFIG_HOME")
        default: throw CalibrationStoreError(path: path, detail: "cannot be used (\(String(cString: strerror(code))))", fix: fix)
        }
    }

    /// Creates the store's directory (and its parents) unless it exists.
    func createDirectoryIfNeeded() throws(CalibrationStoreError) {
        guard try !directoryExists() else { return }
        // mkdir -p with errno kept: a parent that is a file or unwritable is said as it is.
        var missing: [String] = []
        var path = directory.path
        var status = stat()
        while !path.isEmpty, path != "/", stat(path, &status) != 0 {
            missing.append(path)
            path = (path as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() where mkdir(path, 0o755) != 0 && errno != EEXIST {
            let code = errno
            let parent = (path as NSString).deletingLastPathComponent
            throw CalibrationStoreError(
                path: directory.path, detail: "cannot be created: \(path): \(String(cString: strerror(code)))",
                fix: code == ENOTDIR ? "\(parent) is not a folder: move it out of the way, or set XDG_CONFIG_HOME" : "Check the permissions of \(parent), or set XDG_CONFIG_HOME")
        }
    }

    /// The names in the store's directory (which exists); an error says what the system said.
    func entries() throws(CalibrationStoreError) -> [String] {
        guard let handle = opendir(directory.path) else {
            throw CalibrationStoreError(
                path: directory.path, detail: "cannot be listed (\(String(cString: strerror(errno))))",
                fix: "Check that it is a directory you can read, or set XDG_CONFIG_HOME")
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes the record of `sensor`; returns whether there was one.
    @discardableResult
    package func clear(_ sensor: SensorIdentity) throws(CalibrationStoreError) -> Bool {
        let path = url(for: sensor).path
        guard FileManager.default.fileExists(atPath: path) else { return false }
        return try withRecordLocked(sensor) { () throws(CalibrationStoreError) -> Bool in try removeLocked(path) }
    }

    /// Removes the file at `path` (a record whose lock the caller holds); false when it was gone.
    func removeLocked(_ path: String) throws(CalibrationStoreError) -> Bool {
        if unlink(path) == 0 { return true }
        let code = errno
        if code == ENOENT { return false }
        throw CalibrationStoreError(path: path, detail: "cannot be removed (\(String(cString: strerror(code))))", fix: "Check the permissions of \(directory.path)")
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
