import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C, and the signals a service manager or a closing terminal sends, the same in every
/// command: SIGINT (Ctrl-C), SIGTERM (`systemctl stop`, `kill`) and SIGHUP (the terminal went
/// away). The command stops what it is doing, finishes what must be finished (the terminal
/// restored, a recording's rows flushed and put under its name, a calibration *not* saved), writes
/// one line `interrupted: …` to standard error saying what became of its work, and exits with
/// 128 + the signal's number, what a shell reports for a program the signal ended: 130 for
/// SIGINT, 143 for SIGTERM, 129 for SIGHUP. SIGPIPE is ignored, so that a write to a reader that
/// went away is an error the command handles (``CheckedOutput``), not a death that leaves a file
/// half-written.
enum Interruption {
    /// The signals that end a command as Ctrl-C does.
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// The first of ``signals`` received; 0 before one.
    private static let received = Atomic<Int32>(0)

    /// The status to exit with: 128 + the signal received (SIGINT's 130 before one).
    static var exitStatus: Int32 { 128 + (signalReceived ?? SIGINT) }

    /// The signal received, nil before one.
    static var signalReceived: Int32? {
        let signal = received.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    /// The signals turned into a flag, from the first call on (later calls do nothing). Commands
    /// that loop call it before they start, and check ``isRequested`` in the loop.
    static func watch() {
        _ = installed
    }

    // Written once (a lazy static): the handlers are installed by its initialisation.
    private static let installed: Bool = {
        // Initialised here, so that the handler never runs a static's lazy initialisation.
        _ = received.load(ordering: .relaxed)
        signal(SIGPIPE, SIG_IGN)
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals {
            // The handler only stores the number (async-signal-safe: a lock-free atomic); glibc's
            // signal() keeps it installed and restarts interrupted system calls.
            signal(number) { Interruption.record($0) }
            sigaddset(&set, number)
        }
        // Whoever started us may have blocked them (a test runner's worker thread does).
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        return true
    }()

    /// True once one of ``signals`` arrived (or a key reader saw Ctrl-C as a key).
    static var isRequested: Bool { signalReceived != nil }

    /// Records a Ctrl-C read as a key (a terminal in key-at-a-time mode delivers it as byte 3).
    static func request() { record(SIGINT) }

    private static func record(_ number: Int32) {
        _ = received.compareExchange(expected: 0, desired: number, ordering: .relaxed)
    }

    /// Writes `interrupted: <outcome>` (naming the signal when it was not Ctrl-C) to standard
    /// error and returns the exit to throw.
    static func exit(_ outcome: String) -> ExitCode {
        let name = switch signalReceived {
        case SIGTERM: " (SIGTERM)"
        case SIGHUP: " (SIGHUP)"
        default: ""
        }
        printError("interrupted\(name): \(outcome)")
        return ExitCode(exitStatus)
    }
}
