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
        var firing: Firing
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
    package var activeTimers: Int { state.withLock { $0.timers.count } }

    package func scheduleRepeating(
        every interval: Double, on queue: DispatchQueue, _ handler: @escaping @Sendable (Double) -> Void
    ) -> any MotionTimer {
        let id = state.withLock { state in
            state.nextID += 1
            state.timers.append(Timer(
                id: state.nextID, interval: interval, tickNumber: 1, origin: state.now, firing: Firing(queue: queue, handler: handler)))
            return state.nextID
        }
        return VirtualTimer(clock: self, id: id)
    }

    fileprivate func cancel(id: Int) {
        // The timer's source is cancelled when its last reference goes (`Firing.deinit`), not here: an
        // `advance` on another thread may be firing it right now, and a cancelled source never runs
        // the handler that `advance` waits for.
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
            timer.firing.fire(at: timer.due)
        }
        state.withLock { $0.now = max($0.now, target) }
    }
}

/// Runs one timer's handler on its queue, synchronously, without allocating: a user-data Dispatch
/// source targeting the queue (made once) is signalled, its event handler runs the timer's handler
/// and then signals a semaphore the caller waits on. (A `queue.sync` with a closure copies a block
/// to the heap on every tick.)
private final class Firing: Sendable {
    private struct Source: @unchecked Sendable {  // Dispatch sources are safe from any thread
        let source: any DispatchSourceUserDataAdd
    }
    private let source: Source
    private let done = DispatchSemaphore(value: 0)
    /// The tick being fired.
    private let due = Locked(0.0)
    /// Held while a tick's handler runs: one tick at a time, whoever advances the clock.
    private let serial = Locked(())

    init(queue: DispatchQueue, handler: @escaping @Sendable (Double) -> Void) {
        let source = DispatchSource.makeUserDataAddSource(queue: queue)
        source.setEventHandler { [due, done] in
            handler(due.withLock { $0 })
            done.signal()
        }
        source.activate()
        self.source = Source(source: source)
    }

    func fire(at time: Double) {
        serial.withLock { _ in
            due.withLock { $0 = time }
            source.source.add(data: 1)
            done.wait()
        }
    }

    deinit {
        source.source.cancel()
    }
}

private struct VirtualTimer: MotionTimer {
    let clock: VirtualClock
    let id: Int
    func cancel() { clock.cancel(id: id) }
}
