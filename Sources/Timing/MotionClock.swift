import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the sampler gets its time and its ticks: the system's monotonic clock in a running
/// program, a ``VirtualClock`` in tests (a day of 100 Hz samples in seconds, deterministic).
package protocol MotionClock: Sendable {
    /// Seconds since boot on the monotonic clock (`CLOCK_MONOTONIC`; does not advance in suspend).
    var now: Double { get }

    /// Calls `handler` on `queue` every `interval` seconds, the first time one interval from now.
    /// The handler receives the time the tick was due (seconds since boot).
    /// Cancel the returned timer to stop; a tick already running on `queue` finishes first.
    func scheduleRepeating(
        every interval: Double, on queue: DispatchQueue, _ handler: @escaping @Sendable (Double) -> Void
    ) -> any MotionTimer
}

/// A repeating timer made by a ``MotionClock``.
package protocol MotionTimer: Sendable {
    /// Stops further ticks. Idempotent.
    func cancel()
}

/// The real clock: `CLOCK_MONOTONIC`.
///
/// Ticks come from a dedicated thread that sleeps to each absolute deadline with
/// `clock_nanosleep(TIMER_ABSTIME)` and then runs the handler on the caller's serial queue
/// (`queue.sync`, so the work still happens on that queue, one tick at a time). A strict
/// `DispatchSourceTimer` with zero leeway was the first design; on Linux its tick passes through
/// Dispatch's timer thread and then a worker-thread wake-up, and measured twice the interval
/// jitter at the 99th percentile of a plain `clock_nanosleep` loop run beside it (`motion-bench
/// timer` prints all three). A tick that runs so late that the next deadlines have passed skips
/// them: the handler sees the gap in the due times.
package struct SystemClock: MotionClock {
    package init() {}

    package var now: Double { Self.monotonicSeconds() }

    /// Seconds since boot on `CLOCK_MONOTONIC`.
    package static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    package func scheduleRepeating(
        every interval: Double, on queue: DispatchQueue, _ handler: @escaping @Sendable (Double) -> Void
    ) -> any MotionTimer {
        // Between a microsecond and a day: deadlines stay representable as `timespec`.
        let interval = interval.isFinite ? min(max(interval, 1e-6), 86_400) : 86_400
        let timer = SleepingTimer()
        let start = Self.monotonicSeconds()
        let thread = Thread {
            var tick = 1
            while !timer.isCancelled {
                let due = start + Double(tick) * interval
                var deadline = timespec(tv_sec: Int(due.rounded(.down)), tv_nsec: Int((due - due.rounded(.down)) * 1e9))
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
                queue.sync {
                    if !timer.isCancelled { handler(due) }
                }
                // Next deadline in the future: ticks whose time has already passed are skipped.
                let elapsed = (Self.monotonicSeconds() - start) / interval
                tick = max(tick + 1, Int(elapsed.rounded(.down)) + 1)
            }
        }
        thread.name = "swift-motion.timer"
        thread.qualityOfService = .userInteractive
        thread.start()
        return timer
    }
}

/// Cancellation of a ``SystemClock`` timer: no tick starts once it is seen (a tick already
/// started finishes), and the thread ends at its next deadline.
private final class SleepingTimer: MotionTimer {
    private let cancelled = Atomic(false)
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    func cancel() { cancelled.store(true, ordering: .releasing) }
}
