import Locking
import Dispatch

/// A clock that moves only when a test says so. ``advance(by:)`` fires every due tick in time
/// order, each on its timer's queue (synchronously), with ``now`` set to the tick's time.
public final class VirtualClock: MotionClock {
    private struct Timer {
        var id: Int
        var interval: Double
        var tickNumber: Int
        var origin: Double
        var queue: DispatchQueue
        var handler: @Sendable (Double) -> Void
        var due: Double { origin + Double(tickNumber) * interval }
    }
    private struct State {
        var now: Double
        var timers: [Timer] = []
        var nextID = 0
    }
    private let state: Locked<State>

    /// Starts at `start` seconds "since boot".
    public init(start: Double = 1000) {
        state = Locked(State(now: start))
    }

    public var now: Double { state.withLock { $0.now } }

    /// Number of timers still scheduled.
    public var activeTimers: Int { state.withLock { $0.timers.count } }

    public func scheduleRepeating(
        every interval: Double, on queue: DispatchQueue, _ handler: @escaping @Sendable (Double) -> Void
    ) -> any MotionTimer {
        let id = state.withLock { state in
            state.nextID += 1
            state.timers.append(Timer(id: state.nextID, interval: interval, tickNumber: 1, origin: state.now, queue: queue, handler: handler))
            return state.nextID
        }
        return VirtualTimer(clock: self, id: id)
    }

    fileprivate func cancel(id: Int) {
        state.withLock { $0.timers.removeAll { $0.id == id } }
    }

    /// Moves time forward by `duration` seconds, firing due ticks in order (ties: first scheduled first).
    /// Call it from a thread that is not one of the timers' queues.
    public func advance(by duration: Double) {
        let target = state.withLock { $0.now } + duration
        while true {
            let next: Timer? = state.withLock { state in
                guard let index = state.timers.indices.min(by: { state.timers[$0].due < state.timers[$1].due }),
                      state.timers[index].due <= target + 1e-12 else { return nil }
                let timer = state.timers[index]
                state.now = timer.due
                state.timers[index].tickNumber += 1
                return timer
            }
            guard let timer = next else { break }
            let due = timer.due
            timer.queue.sync { timer.handler(due) }
        }
        state.withLock { $0.now = max($0.now, target) }
    }
}

private struct VirtualTimer: MotionTimer {
    let clock: VirtualClock
    let id: Int
    func cancel() { clock.cancel(id: id) }
}
