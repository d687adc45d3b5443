import CommandSupport
import Locking
import Dispatch
import Foundation
import Synchronization
import Timing

#if canImport(Glibc)
import Glibc
#endif

/// Drives a command that listens to updates until it has enough, its time is up, or Ctrl-C:
/// in virtual time by advancing the clock as fast as it can, in real time by waiting.
/// Not on the main actor: handlers and signal sources run on their own queues.
struct UpdateRunner: Sendable {
    /// Set for simulated runs in virtual time.
    let virtualClock: VirtualClock?
    /// Stop after this many seconds (of the clock in use); nil: until done or Ctrl-C.
    let duration: Double?

    /// Runs until `isDone()` is true, the duration is over, or SIGINT. `drain` is called after
    /// each step so handler queues can catch up. Returns true when interrupted by Ctrl-C.
    @discardableResult
    func run(isDone: @Sendable () -> Bool, drain: () -> Void) -> Bool {
        Interruption.watch()
        if let clock = virtualClock {
            let end = duration.map { clock.now + $0 } ?? .infinity
            while !isDone(), !Interruption.isRequested, clock.now < end - 1e-9 {
                clock.advance(by: min(0.1, end - clock.now))
                drain()
            }
            return Interruption.isRequested
        }
        let end = duration.map { SystemClock.monotonicSeconds() + $0 } ?? .infinity
        while !isDone(), !Interruption.isRequested, SystemClock.monotonicSeconds() < end {
            usleep(20_000)
            drain()
        }
        drain()
        return Interruption.isRequested
    }
}

/// Lines to standard output from any queue, in order, checked (``CheckedOutput``): after a write
/// error nothing more is written and ``error`` says what happened.
final class OutputLines: Sendable {
    private let written = Atomic(0)
    private let lock = Locked(())
    private let output = CheckedOutput.standardOutput

    var count: Int { written.load(ordering: .relaxed) }

    /// The first write error, nil while every line got out.
    var error: CommandFailure? { output.error }

    func write(_ line: String) {
        lock.withLock { _ in
            fflush(nil)   // whatever `print` buffered goes first
            do {
                try output.write(line + "\n")
                written.add(1, ordering: .relaxed)
            } catch {
                // Kept in `error`; the command reports it when it stops.
            }
        }
    }
}
