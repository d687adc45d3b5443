import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the sampler gets its time and its ticks: the system's monotonic clock in a running
/// program, a ``VirtualClock`` in tests (a day of 100 Hz samples in seconds, deterministic).
public protocol MotionClock: Sendable {
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
public protocol MotionTimer: Sendable {
    /// Stops further ticks. Idempotent.
    func cancel()
}

/// The real clock: `CLOCK_MONOTONIC`, ticks from a strict `DispatchSourceTimer` with zero leeway.
public struct SystemClock: MotionClock {
    public init() {}

    public var now: Double { Self.monotonicSeconds() }

    /// Seconds since boot on `CLOCK_MONOTONIC`.
    public static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    public func scheduleRepeating(
        every interval: Double, on queue: DispatchQueue, _ handler: @escaping @Sendable (Double) -> Void
    ) -> any MotionTimer {
        let source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        let nanoseconds = max(1, Int((interval * 1e9).rounded()))
        let start = Self.monotonicSeconds()
        let tick = TickCounter()
        source.setEventHandler {
            // The due time is computed, not read, so delivery jitter does not leak into timestamps
            // of samples that are timed by the tick. Missed ticks (coalesced by Dispatch) are
            // skipped over by counting from the real time.
            let elapsed = Self.monotonicSeconds() - start
            let due = tick.next(elapsedTicks: elapsed / interval)
            handler(start + Double(due) * interval)
        }
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .nanoseconds(0))
        source.resume()
        return DispatchTimer(source: source)
    }
}

/// Counts ticks on the timer's own queue (only ever touched there).
private final class TickCounter: @unchecked Sendable {
    private var last = 0
    func next(elapsedTicks: Double) -> Int {
        let due = max(last + 1, Int(elapsedTicks.rounded(.down)))
        last = due
        return due
    }
}

private struct DispatchTimer: MotionTimer, @unchecked Sendable {
    let source: any DispatchSourceTimer
    func cancel() { source.cancel() }
}
