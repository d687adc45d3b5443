import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C, the same in every command: the command stops what it is doing, finishes what must be
/// finished (the terminal restored, a recording's rows flushed and closed, a calibration *not*
/// saved), writes one line `interrupted: …` to standard error saying what became of its work,
/// and exits with status 130 (128 + SIGINT, what a shell reports for an interrupted program).
enum Interruption {
    /// The status every command exits with after Ctrl-C.
    static let exitStatus: Int32 = 130

    private static let requested = Atomic(false)

    /// SIGINT turned into a flag, from the first call on (later calls do nothing). Commands that
    /// loop call it before they start, and check ``isRequested`` in the loop.
    static func watch() {
        _ = watcher
    }

    // Written once (a lazy static), read by nobody: it only keeps the source alive.
    nonisolated(unsafe) private static let watcher: any DispatchSourceSignal = {
        // Whoever started us may have blocked SIGINT (a test runner's worker thread does).
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "motionctl.interrupt"))
        source.setEventHandler { requested.store(true, ordering: .relaxed) }
        source.resume()
        return source
    }()

    /// True once Ctrl-C was pressed (or a key reader saw Ctrl-C as a key).
    static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Records a Ctrl-C read as a key (a terminal in key-at-a-time mode delivers it as byte 3).
    static func request() { requested.store(true, ordering: .relaxed) }

    /// Writes `interrupted: <outcome>` to standard error and returns the exit to throw.
    static func exit(_ outcome: String) -> ExitCode {
        printError("interrupted: \(outcome)")
        return ExitCode(exitStatus)
    }
}
