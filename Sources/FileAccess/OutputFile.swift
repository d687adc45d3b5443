import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one way the package writes a file a person named (`--plot`, `record --output`,
/// `evaluate --write-trials`, …), whatever is at the path:
/// - nothing, or a regular file: replaced atomically — the bytes go to a temporary file in the
///   same directory, are flushed to the disk (`fsync`), then renamed over the path (and the
///   directory is flushed), so a crash leaves the old file or the new one, never a mix;
/// - a symbolic link: followed; the link stays, its target is written as below (a link whose
///   target does not exist is refused: creating files at a link's far end is not our call);
/// - a character or block device (`/dev/null`, a serial port): written into, never replaced;
/// - a FIFO: written into when a reader has it open; without a reader it is refused at once with
///   "no reader" (opening it would otherwise wait for one forever);
/// - a directory or a socket: refused with a message that says what to pass instead.
package final class OutputFile: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible, Equatable {
        /// The path as given.
        package var path: String
        /// "is a directory", "is a FIFO with no reader", …: reads after the path.
        package var problem: String
        /// What to do.
        package var fix: String
        package var description: String { "\(path) \(problem): \(fix)" }
    }

    /// The path as given (for messages).
    package let path: String
    /// Where the bytes go now: the temporary file's or the device's descriptor.
    package let descriptor: Int32
    /// For a regular file: the temporary file and the path it is renamed to (the link's target
    /// for a symbolic link).
    private let replacement: (temporary: String, final: String, directory: String)?
    // Touched only by the one thread that writes the file (a command's main flow).
    private var finished = false

    /// Opens `path` for writing as described in the type's documentation; `what` names the kind
    /// of file in messages ("the plot", "the CSV file").
    package init(path: String, what: String) throws(Failure) {
        self.path = path
        guard !path.isEmpty else { throw Failure(path: "\"\"", problem: "is an empty path", fix: "pass the path of \(what)") }
        var status = stat()
        if stat(path, &status) != 0 {
            let code = errno
            guard code == ENOENT else { throw Self.failure(path, code: code, what: what) }
            var link = stat()
            if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
                throw Failure(
                    path: path, problem: "is a symbolic link to \(Self.linkTarget(path)), which does not exist",
                    fix: "create the file it points to, or pass another path for \(what)")
            }
            // Nothing there: a new file, created by rename.
            let opened = try Self.temporary(beside: path, what: what, mode: 0o644)
            replacement = (opened.temporary, opened.final, opened.directory)
            descriptor = opened.descriptor
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            // The link's target is replaced, not the link (realpath resolves every link).
            guard let resolved = realpath(path, nil) else { throw Self.failure(path, code: errno, what: what) }
            let final = String(cString: resolved)
            free(resolved)
            let opened = try Self.temporary(beside: final, what: what, mode: mode_t(status.st_mode & 0o777), shownAs: path)
            replacement = (opened.temporary, opened.final, opened.directory)
            descriptor = opened.descriptor
        case S_IFDIR:
            throw Failure(path: path, problem: "is a directory", fix: "pass the path of a file in it for \(what), e.g. \((path as NSString).appendingPathComponent("name"))")
        case S_IFSOCK:
            throw Failure(path: path, problem: "is a socket", fix: "pass the path of a file or a FIFO for \(what)")
        case S_IFIFO:
            // Non-blocking, so a FIFO without a reader fails now (ENXIO) instead of waiting forever.
            let opened = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            guard opened >= 0 else {
                let code = errno
                if code == ENXIO {
                    throw Failure(path: path, problem: "is a FIFO with no reader", fix: "start its reader first (e.g. `cat \(path)`), or pass the path of a file for \(what)")
                }
                throw Self.failure(path, code: code, what: what)
            }
            // Writes then wait for the reader as writes to a pipe do.
            let flags = fcntl(opened, F_GETFL)
            if flags >= 0 { _ = fcntl(opened, F_SETFL, flags & ~O_NONBLOCK) }
            descriptor = opened
            replacement = nil
        default:
            // Character and block devices: written into as they are (no O_CREAT, no O_TRUNC).
            let opened = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
            guard opened >= 0 else { throw Self.failure(path, code: errno, what: what) }
            descriptor = opened
            replacement = nil
        }
    }

    deinit {
        if !finished { discard() }
    }

    /// Writes all of `bytes` (again after `EINTR`); a failure removes the temporary file.
    package func write(_ bytes: some Collection<UInt8>) throws(Failure) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let written = array.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }   // never: offset < count
                return Glibc.write(descriptor, base + offset, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                let code = written < 0 ? errno : EIO
                discard()
                throw Self.writeFailure(path, code: code)
            }
        }
    }

    /// Finishes: a regular file is flushed, closed and renamed over the path; a device or FIFO
    /// is closed. After a failure nothing is left behind but what was there before.
    package func commit() throws(Failure) {
        guard !finished else { return }
        finished = true
        guard let replacement else {
            guard close(descriptor) == 0 || errno == EINTR else { throw Self.writeFailure(path, code: errno) }
            return
        }
        if fsync(descriptor) != 0 {
            let code = errno
            close(descriptor)
            unlink(replacement.temporary)
            throw Self.writeFailure(path, code: code)
        }
        if close(descriptor) != 0, errno != EINTR {
            let code = errno
            unlink(replacement.temporary)
            throw Self.writeFailure(path, code: code)
        }
        // What is at the path now must still be a regular file (or nothing): a device or FIFO put
        // there meanwhile is never replaced.
        var status = stat()
        if lstat(replacement.final, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            unlink(replacement.temporary)
            throw Failure(path: path, problem: "was replaced by something that is not a file while it was written", fix: "run again")
        }
        guard rename(replacement.temporary, replacement.final) == 0 else {
            let code = errno
            unlink(replacement.temporary)
            throw Failure(path: path, problem: "cannot be replaced: \(String(cString: strerror(code)))", fix: "check the permissions of \(replacement.directory)")
        }
        let directory = open(replacement.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// Gives up: the temporary file is removed, a device or FIFO closed.
    package func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        if let replacement { unlink(replacement.temporary) }
    }

    /// Says early (when options are checked, before a long run) what makes `path` unusable: an
    /// empty path, a directory, a socket, a link loop, a dangling link, a missing folder. Opens
    /// nothing: a FIFO's reader and the permissions are checked when the file is written.
    package static func preflight(_ path: String, what: String) throws(Failure) {
        guard !path.isEmpty else { throw Failure(path: "\"\"", problem: "is an empty path", fix: "pass the path of \(what)") }
        var status = stat()
        if stat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                throw Failure(path: path, problem: "is a directory", fix: "pass the path of a file in it for \(what), e.g. \((path as NSString).appendingPathComponent("name"))")
            case S_IFSOCK: throw Failure(path: path, problem: "is a socket", fix: "pass the path of a file or a FIFO for \(what)")
            default: return
            }
        }
        let code = errno
        guard code == ENOENT else { throw failure(path, code: code, what: what) }
        var link = stat()
        if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
            throw Failure(path: path, problem: "is a symbolic link to \(linkTarget(path)), which does not exist", fix: "create the file it points to, or pass another path for \(what)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        var folderStatus = stat()
        if stat(folder.isEmpty ? "." : folder, &folderStatus) != 0 || folderStatus.st_mode & S_IFMT != S_IFDIR {
            throw Failure(path: path, problem: "cannot be created: its folder \(folder) does not exist", fix: "create the folder first, or pass another path for \(what)")
        }
    }

    /// Writes `bytes` to `path` in one go (open, write, commit).
    package static func write(_ bytes: some Collection<UInt8>, to path: String, what: String) throws(Failure) {
        let file = try OutputFile(path: path, what: what)
        try file.write(bytes)
        try file.commit()
    }

    // MARK: - Helpers

    private static func temporary(
        beside final: String, what: String, mode: mode_t, shownAs shown: String? = nil
    ) throws(Failure) -> (descriptor: Int32, temporary: String, final: String, directory: String) {
        let folder = (final as NSString).deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        let name = (final as NSString).lastPathComponent
        let temporary = (directory as NSString).appendingPathComponent(".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).partial")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            let code = errno
            var status = stat()
            if stat(directory, &status) != 0 || status.st_mode & S_IFMT != S_IFDIR {
                throw Failure(path: shown ?? final, problem: "cannot be created: its folder \(directory) does not exist", fix: "create the folder first, or pass another path for \(what)")
            }
            throw Failure(path: shown ?? final, problem: "cannot be created: \(String(cString: strerror(code)))", fix: "check that \(directory) is writable")
        }
        // The existing file's permissions are kept (open applies the umask to `mode`).
        fchmod(descriptor, mode)
        return (descriptor, temporary, final, directory)
    }

    private static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "a missing file"
    }

    private static func failure(_ path: String, code: Int32, what: String) -> Failure {
        switch code {
        case ELOOP: Failure(path: path, problem: "is a symbolic link that leads back to itself (a loop)", fix: "point the link at a file, or pass another path for \(what)")
        case ENOTDIR: Failure(path: path, problem: "has a part that is not a folder", fix: "check the path of \(what)")
        case EACCES: Failure(path: path, problem: "cannot be written: permission denied", fix: "check the permissions, or pass another path for \(what)")
        case ENXIO: Failure(path: path, problem: "is a device with nothing behind it", fix: "pass the path of a file for \(what)")
        default: Failure(path: path, problem: "cannot be written: \(String(cString: strerror(code)))", fix: "check the path of \(what)")
        }
    }

    private static func writeFailure(_ path: String, code: Int32) -> Failure {
        let hint = code == ENOSPC || code == EDQUOT ? "free some space or write elsewhere (the disk is full)" : "check the disk and the path"
        return Failure(path: path, problem: "could not be written: \(String(cString: strerror(code)))", fix: hint)
    }
}
