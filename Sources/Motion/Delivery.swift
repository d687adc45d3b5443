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
/// An event waits in a queue that keeps its capacity, and one block, made once, is submitted per
/// event; each run of it hands the oldest waiting event to the handler. The one allocation per
/// event is Dispatch's: `dispatch_async` takes a continuation from the submitting thread's cache,
/// and the continuations come back to the cache of the thread that ran them, so the sampler's
/// thread allocates one from the heap for each event. (A user-data Dispatch source signalled per
/// event allocates nothing, but with it a `queue.sync {}` on the handler's queue no longer found
/// every sent event handled: a test saw 497 of 500 samples after 5 s at 100 Hz.)
final class Delivery<Value: Sendable>: Sendable {
    typealias Handler = @Sendable (Value?, MotionError?) -> Void

    private final class Gate: @unchecked Sendable {
        let lock = NSRecursiveLock()
        var isActive = true  // guarded by `lock`
    }
    private let gate = Gate()
    private let pending = Locked<[(value: Value?, error: MotionError?)]>([])
    private let target: DeliveryTarget
    private let runOldest: @convention(block) @Sendable () -> Void

    init(target: DeliveryTarget, handler: @escaping Handler) {
        self.target = target
        pending.withLock { $0.reserveCapacity(16) }
        // Holds the gate and the queue of events, not `self`: no cycle through the block.
        runOldest = { [gate, pending] in
            gate.lock.lock()
            defer { gate.lock.unlock() }
            guard gate.isActive,
                  let event = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            handler(event.value, event.error)
        }
    }

    /// Runs the handler with `value` or `error` on the target queue, unless deactivated by then.
    func send(_ value: Value?, _ error: MotionError?) {
        pending.withLock { $0.append((value, error)) }
        target.submit(runOldest)
    }

    func deactivate() {
        gate.lock.lock()
        gate.isActive = false
        pending.withLock { $0.removeAll() }
        gate.lock.unlock()
    }
}
