import Dispatch
import Foundation
import Locking

/// Where a consumer's handler runs.
enum DeliveryTarget: @unchecked Sendable {
    case dispatch(DispatchQueue)
    case operation(OperationQueue)

    func async(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .dispatch(let queue): queue.async(execute: work)
        case .operation(let queue): queue.addOperation(work)
        }
    }

    /// The same, for a block made once and submitted many times: Dispatch retains it rather than
    /// copying it, so a submission allocates no closure and no block.
    func submit(_ block: @escaping @convention(block) @Sendable () -> Void) {
        switch self {
        case .dispatch(let queue): queue.async(execute: block)
        case .operation(let queue): queue.addOperation(block)
        }
    }
}

/// Carries one consumer's events from the sampler queue to its handler on the consumer's queue,
/// and guarantees that no handler runs after ``deactivate()`` returns: each handler runs under a
/// recursive lock that `deactivate` takes too, so a stop waits for a handler in progress — unless
/// it is called from inside that handler (same thread: the lock is recursive), which is allowed.
///
/// Events wait in a queue that keeps its capacity. One block, made once, drains it on the target
/// queue: an event submits the block only when none is submitted and not yet started, so the
/// events of one FIFO read, or those that arrive while the consumer's queue is busy, share one
/// submission. A run hands over the events waiting when it started, no more: events that come
/// while it runs submit it again, behind whatever else was put on the queue meanwhile, so a
/// handler slower than the samples never starves the queue's other work. An event sent before a
/// `queue.sync {}` on the handler's queue is handled before that block runs: either it submitted
/// the drain itself, ahead of the sync, or it found one submitted and not started, which will
/// count it (the mark is cleared and the events counted under the lock the sender appends under).
/// Events are taken one at a time under the gate's lock, so the handler sees them in order even
/// on a concurrent queue.
///
/// The one allocation per submission is Dispatch's: `dispatch_async` takes a continuation from the
/// submitting thread's cache, and continuations return to the cache of the thread that ran them,
/// so the sampler's thread allocates one from the heap each time. (A user-data Dispatch source
/// signalled per event allocates nothing, but it does not keep that order: an event merged while
/// the source's handler runs is delivered after a `queue.sync {}` that began meanwhile — a test
/// saw 497 of 500 samples after 5 s at 100 Hz.)
final class Delivery<Value: Sendable>: Sendable {
    typealias Handler = @Sendable (Value?, MotionError?) -> Void
    private typealias Event = (value: Value?, error: MotionError?)

    private final class Gate: @unchecked Sendable {
        let lock = NSRecursiveLock()
        var isActive = true  // guarded by `lock`
    }
    /// Waiting events, and whether a drain is submitted and not yet started.
    private struct Inbox {
        var events: [Event] = []
        var isSubmitted = false
    }
    private let gate = Gate()
    private let inbox: Locked<Inbox>
    private let target: DeliveryTarget
    private let drain: @convention(block) @Sendable () -> Void

    init(target: DeliveryTarget, handler: @escaping Handler) {
        self.target = target
        var empty = Inbox()
        empty.events.reserveCapacity(16)
        let inbox = Locked(empty)
        self.inbox = inbox
        // Holds the gate and the inbox, not `self`: no cycle through the block.
        drain = { [gate] in
            let waiting = inbox.withLock { inbox -> Int in
                inbox.isSubmitted = false
                return inbox.events.count
            }
            for _ in 0..<waiting {
                gate.lock.lock()
                defer { gate.lock.unlock() }
                // Another run (a concurrent queue) may have taken it: then there is no more to do.
                guard let event = inbox.withLock({ $0.events.isEmpty ? nil : $0.events.removeFirst() }) else { return }
                if gate.isActive { handler(event.value, event.error) }
            }
        }
    }

    /// Runs the handler with `value` or `error` on the target queue, unless deactivated by then.
    func send(_ value: Value?, _ error: MotionError?) {
        let submits = inbox.withLock { inbox -> Bool in
            inbox.events.append((value, error))
            guard !inbox.isSubmitted else { return false }
            inbox.isSubmitted = true
            return true
        }
        if submits { target.submit(drain) }
    }

    func deactivate() {
        gate.lock.lock()
        gate.isActive = false
        inbox.withLock { $0.events.removeAll(keepingCapacity: true) }
        gate.lock.unlock()
    }
}
