import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file a person named, or says in their terms what the path is instead: an empty
/// path, a directory, a symbolic-link loop, a device or pipe, a missing file, or what the system
/// said — never a Foundation error code.
package enum FileContents {
    package struct Failure: Error, CustomStringConvertible {
        /// "is a directory", "does not exist", …: reads after the path.
        package var problem: String
        /// What to pass instead.
        package var fix: String
        package var description: String { "\(problem); \(fix)" }
    }

    /// The file's bytes; `what` names the kind of file wanted in the fix ("a board file").
    package static func read(_ path: String, what: String) throws(Failure) -> Data {
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
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let reason = code == EACCES ? "permission denied" : String(cString: strerror(code))
            throw Failure(problem: "cannot be opened: \(reason)", fix: "check that this user may read it")
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                return data
            } else if errno != EINTR {
                throw Failure(problem: "cannot be read: \(String(cString: strerror(errno)))", fix: "check the disk and the file")
            }
        }
    }
}
