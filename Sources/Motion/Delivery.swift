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
/// No allocation per event: an event waits in a queue that keeps its capacity. On a
/// `DispatchQueue` a user-data source targeting it, made once, is signalled per event (merging
/// data into a source queues the source itself: no block, no continuation); each run of its
/// handler hands every waiting event to the handler, oldest first. On an `OperationQueue`, one
/// block made once is added per event (the queue wraps it in an operation: one allocation there).
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
    /// The signal to the handler's queue, for a `DispatchQueue` target.
    private let signal: Signal?

    /// A Dispatch source is safe to use from any thread (Dispatch's own guarantee).
    private struct Signal: @unchecked Sendable {
        let source: any DispatchSourceUserDataAdd
    }

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
        if case .dispatch(let queue) = target {
            let source = DispatchSource.makeUserDataAddSource(queue: queue)
            source.setEventHandler { [gate, pending] in
                gate.lock.lock()
                defer { gate.lock.unlock() }
                // Events sent while the handler runs signal again: this run takes only those waiting now.
                var waiting = pending.withLock { $0.count }
                while gate.isActive, waiting > 0, let event = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                    waiting -= 1
                    handler(event.value, event.error)
                }
            }
            source.activate()
            signal = Signal(source: source)
        } else {
            signal = nil
        }
    }

    /// Runs the handler with `value` or `error` on the target queue, unless deactivated by then.
    func send(_ value: Value?, _ error: MotionError?) {
        pending.withLock { $0.append((value, error)) }
        if let signal {
            signal.source.add(data: 1)
        } else {
            target.submit(runOldest)
        }
    }

    deinit {
        signal?.source.cancel()
    }

    func deactivate() {
        gate.lock.lock()
        gate.isActive = false
        pending.withLock { $0.removeAll() }
        gate.lock.unlock()
        signal?.source.cancel()
    }
}
