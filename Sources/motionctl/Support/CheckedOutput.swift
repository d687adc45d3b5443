import ArgumentParser
import CStandardOutput
import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// Writes to a file descriptor completely or not at all: `write(2)` until every byte is out,
/// `EINTR` retried, and the first error kept (later writes are dropped), so a full disk or a
/// closed reader is reported instead of passing silently. A closed pipe (`EPIPE`) is not an error
/// of ours: the process ends quietly, as Unix tools do when their reader goes away.
final class CheckedOutput: Sendable {
    let descriptor: Int32
    /// For messages: "standard output" or the file's path.
    let name: String
    private let failure = Locked<CommandFailure?>(nil)

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    static let standardOutput = CheckedOutput(descriptor: STDOUT_FILENO, name: "standard output")

    /// The first write error, once one happened.
    var error: CommandFailure? { failure.withLock { $0 } }

    /// Writes `text`; throws (and keeps) the first error.
    func write(_ text: String) throws(CommandFailure) {
        if let error { throw error }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }   // never: offset < count
                return Glibc.write(descriptor, base + offset, buffer.count - offset)
            }
            if written >= 0 {
                offset += written
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EPIPE { Self.endQuietly() }
            let error = CommandFailure(message: "cannot write \(name): \(String(cString: strerror(code)))" + Self.hint(code))
            failure.withLock { if $0 == nil { $0 = error } }
            throw error
        }
    }

    /// The reader of our output went away (`| head`): stop without a message, with the status a
    /// shell reports for a process ended by SIGPIPE.
    static func endQuietly() -> Never {
        exit(128 + SIGPIPE)
    }

    private static func hint(_ code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: " (the disk is full: free some space or write elsewhere)"
        case EBADF: " (it is closed)"
        default: ""
        }
    }

    /// After a command: whatever `print` buffered is flushed, and a failure to write it (a full
    /// disk behind `> file`) is an error naming standard output.
    static func flushStandardOutput() throws(CommandFailure) {
        let code = CStandardOutput_flushFailed()
        if code != 0 {
            if code == EPIPE { endQuietly() }
            throw CommandFailure(message: "cannot write standard output: \(String(cString: strerror(code)))" + hint(code))
        }
    }
}
