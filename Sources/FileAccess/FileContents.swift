import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file a person named, or says in their terms what the path is instead: an empty
/// path, a directory, a symbolic-link loop, a device or pipe, a missing file, a file larger than
/// any file of its kind can be, or what the system said — never a Foundation error code.
///
/// Every file the package reads goes through ``read(_:what:limit:)`` with a bound suited to its
/// kind (``Limit``): the size is checked before anything is allocated, and at most `limit + 1`
/// bytes are read (a file that grows while it is read is caught too), so a 3 GB file named as a
/// calibration is a message, not an allocation failure.
package enum FileContents {
    package struct Failure: Error, CustomStringConvertible {
        /// "is a directory", "does not exist", …: reads after the path.
        package var problem: String
        /// What to pass instead.
        package var fix: String
        package var description: String { "\(problem); \(fix)" }
    }

    /// The largest file of each kind, in bytes: far above what a real one holds, far below what
    /// would strain the memory of a small board.
    package enum Limit {
        /// A calibration record is under 2 KB (three sections of a few numbers).
        package static let calibrationRecord = 1 << 20
        /// A board file is under 4 KB (a name, a few addresses, a 3×3 matrix, a setup text).
        package static let boardFile = 1 << 20
        /// A recording (`motionctl record`): about 150 bytes a row; 256 MB is half an hour at 1 kHz.
        package static let recording = 256 << 20
        /// A BROAD trial CSV: the largest of the data set is ~9 MB (5 minutes at 286 Hz).
        package static let broadTrial = 256 << 20
        /// A BROAD `index.json`: 39 short entries.
        package static let broadIndex = 16 << 20
        /// The device-tree model string: a NUL-terminated line.
        package static let deviceTreeModel = 4096
        /// `motionctl publish --password-file`: a password on its first line.
        package static let passwordFile = 64 << 10
    }

    /// "1 MiB", "256 MiB", "3.0 GiB": sizes in messages.
    package static func describe(bytes: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        return value == value.rounded() ? "\(Int(value)) \(units[unit])" : String(format: "%.1f %@", value, units[unit])
    }

    /// The file's bytes; `what` names the kind of file wanted in the fix ("a board file"); a file
    /// larger than `limit` bytes is refused with its size and the bound.
    package static func read(_ path: String, what: String, limit: Int) throws(Failure) -> Data {
        guard !path.isEmpty else { throw Failure(problem: "is an empty path", fix: "pass the path of \(what)") }
        var status = stat()
        if stat(path, &status) != 0 {
            let code = errno
            switch code {
            case ENOENT: throw Failure(problem: "does not exist", fix: "check the path of \(what)")
            case ELOOP: throw Failure(problem: "is a symbolic link that leads back to itself (a loop)", fix: "point the link at \(what)")
            case EACCES: throw Failure(problem: "cannot be reached: permission denied on a folder of its path", fix: "check the folders' permissions")
            case ENOTDIR: throw Failure(problem: "has a part that is not a folder", fix: "check the path of \(what)")
            default: throw Failure(problem: "cannot be read: \(String(cString: strerror(code)))", fix: "check the path of \(what)")
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Failure(problem: "is a directory", fix: "pass \(what) in it, not the directory")
        case S_IFCHR, S_IFBLK: throw Failure(problem: "is a device node, not a file", fix: "pass \(what)")
        case S_IFIFO, S_IFSOCK: throw Failure(problem: "is a pipe or socket, not a file", fix: "pass \(what)")
        default: throw Failure(problem: "is not a regular file", fix: "pass \(what)")
        }
        if Int64(status.st_size) > Int64(limit) { throw tooLarge(Int(clamping: Int64(status.st_size)), limit: limit, what: what) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let reason = code == EACCES ? "permission denied" : String(cString: strerror(code))
            throw Failure(problem: "cannot be opened: \(reason)", fix: "check that this user may read it")
        }
        defer { close(descriptor) }
        var data = Data()
        data.reserveCapacity(Int(status.st_size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            // Never more than limit + 1 bytes: one byte past the bound is enough to refuse.
            let wanted = min(buffer.count, limit + 1 - data.count)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
                if data.count > limit { throw tooLarge(data.count, limit: limit, what: what, grew: true) }
            } else if count == 0 {
                return data
            } else if errno != EINTR {
                throw Failure(problem: "cannot be read: \(String(cString: strerror(errno)))", fix: "check the disk and the file")
            }
        }
    }

    private static func tooLarge(_ size: Int, limit: Int, what: String, grew: Bool = false) -> Failure {
        Failure(
            problem: grew ? "grew beyond \(describe(bytes: limit)) while it was read" : "is \(describe(bytes: size)): too large for \(what) (at most \(describe(bytes: limit)))",
            fix: "check the path")
    }
}
