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
package final class CheckedOutput: Sendable {
    package let descriptor: Int32
    /// For messages: "standard output" or the file's path.
    package let name: String
    private let failure = Locked<CommandFailure?>(nil)

    package init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    package static let standardOutput = CheckedOutput(descriptor: STDOUT_FILENO, name: "standard output")
    package static let standardError = CheckedOutput(descriptor: STDERR_FILENO, name: "standard error")

    /// Writes `text` and keeps a failure instead of throwing it: for messages and lines written
    /// from handlers, whose failure the command reports when it ends (``StandardStreams/finish(status:)``).
    package func send(_ text: String) {
        do {
            try write(text)
        } catch {
            // Kept in `error`.
        }
    }

    /// The first write error, once one happened.
    package var error: CommandFailure? { failure.withLock { $0 } }

    /// Writes `text`; throws (and keeps) the first error.
    package func write(_ text: String) throws(CommandFailure) {
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
            if code == EPIPE, descriptor == STDOUT_FILENO { Self.endQuietly() }
            let error = CommandFailure(message: "cannot write \(name): \(String(cString: strerror(code)))" + Self.hint(code))
            failure.withLock { if $0 == nil { $0 = error } }
            throw error
        }
    }

    /// The reader of our output went away (`| head`): stop without a message, with the status a
    /// shell reports for a process ended by SIGPIPE.
    package static func endQuietly() -> Never {
        exit(128 + SIGPIPE)
    }

    package static func hint(_ code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: " (the disk is full: free some space or write elsewhere)"
        case EBADF: " (it is closed)"
        default: ""
        }
    }

}

/// The one way the command-line tools write to its standard streams: standard output through C's buffered
/// stream (`print`) or ``CheckedOutput/standardOutput`` (flushed first, so order is kept),
/// standard error through ``CheckedOutput/standardError`` (``printError(_:)``). Nothing traps:
/// every failure is kept, and ``finish(status:)`` turns it into a message on whichever stream
/// still works and a non-zero exit status.
package enum StandardStreams {
    /// Before anything is opened: a closed standard stream (0, 1, 2) is taken by /dev/null opened
    /// for the other direction, so the first file the command opens does not become its standard
    /// output, and writes to a closed standard output or error fail (`EBADF`) as they should.
    package static func guardClosedDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            let placeholder = open("/dev/null", descriptor == STDIN_FILENO ? O_WRONLY : O_RDONLY)
            if placeholder >= 0, placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
        }
    }

    /// Text for standard output in order with what `print` buffered.
    package static func output(_ text: String) {
        fflush(nil)
        CheckedOutput.standardOutput.send(text)
    }

    /// Flushes standard output and returns the exit status: `status`, or 1 when it was 0 and a
    /// write to standard output or standard error failed. A failure is said on the other stream
    /// when that one works; a reader that went away (`EPIPE` on standard output) ends quietly.
    /// The messages of failures already printed as `error: …` (``reportFailure(_:)``): a write error
    /// the command reported is not said again by ``finish(status:)``.
    private static let reported = Locked<Set<String>>([])

    /// Prints `error: <message>` on standard error, once for this message.
    package static func reportFailure(_ failure: CommandFailure) {
        reported.withLock { _ = $0.insert(failure.message) }
        printError("error: \(failure.message)")
    }

    package static func finish(status: Int32) -> Int32 {
        var outputFailure = CheckedOutput.standardOutput.error
        let code = CStandardOutput_flushFailed()
        if code != 0 {
            if code == EPIPE { CheckedOutput.endQuietly() }
            outputFailure = outputFailure ?? CommandFailure(
                message: "cannot write standard output: \(String(cString: strerror(code)))" + CheckedOutput.hint(code))
        }
        let errorFailure = CheckedOutput.standardError.error
        if let outputFailure, errorFailure == nil, !reported.withLock({ $0.contains(outputFailure.message) }) {
            CheckedOutput.standardError.send("error: \(outputFailure.message)\n")
        }
        if let errorFailure, outputFailure == nil {
            // The message goes where it can: standard output (its last line).
            CheckedOutput.standardOutput.send("error: \(errorFailure.message)\n")
        }
        return outputFailure == nil && errorFailure == nil ? status : (status == 0 ? 1 : status)
    }
}

/// Prints a line to standard error (the data on standard output stays clean); a failure is kept
/// and makes the command's exit status non-zero.
package func printError(_ message: String) {
    CheckedOutput.standardError.send(message + "\n")
}
