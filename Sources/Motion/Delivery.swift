import Dispatch
import Foundation

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
}

/// Carries events from the sampler queue to a handler on the consumer's queue, and guarantees that
/// no handler runs after ``deactivate()`` returns: each handler runs under a recursive lock that
/// `deactivate` takes too, so a stop waits for a handler in progress — unless it is called from
/// inside that handler (same thread: the lock is recursive), which is allowed.
final class Delivery: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var isActive = true  // guarded by `lock`
    private let target: DeliveryTarget

    init(target: DeliveryTarget) {
        self.target = target
    }

    /// Runs `handler(value, error)` on the target queue unless deactivated by then. The value
    /// travels in the one closure handed to the queue (no wrapper closure around the handler).
    func send<Value: Sendable>(
        _ value: Value?, _ error: MotionError?, to handler: @escaping @Sendable (Value?, MotionError?) -> Void
    ) {
        target.async { [self] in
            lock.lock()
            defer { lock.unlock() }
            guard isActive else { return }
            handler(value, error)
        }
    }

    func deactivate() {
        lock.lock()
        isActive = false
        lock.unlock()
    }
}
