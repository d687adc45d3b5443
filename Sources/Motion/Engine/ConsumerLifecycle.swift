import Locking

/// The running consumer of one kind of update (``SensorUpdates``, ``BarometerUpdates``) on its hub,
/// and the delivery to its handler. A start replaces the running consumer; a stop returns without
/// waiting for a handler (so it never deadlocks with a handler that waits for the stopping thread,
/// and a stop from inside the handler is fine), and no handler starts after it.
final class ConsumerLifecycle<Value: Sendable>: Sendable {
    private let hub: any ConsumerHub

    private struct State {
        var consumerID: Int?
        var delivery: Delivery<Value>?
        /// Deliveries stopped while a handler of theirs was running (pruned as they go idle),
        /// for `waitUntilHandlersFinish`: their activity only, which holds no handler.
        var stopped: [Delivery<Value>.Activity] = []
    }
    private let state = Locked(State())
    /// Serialises the changes (held while consumers are swapped on the hub and the replaced
    /// delivery is deactivated, never while a handler runs); counts them. (A value with a size:
    /// an empty one lies at the mutex pointer's address, which the thread sanitizer then reports
    /// as raced.)
    private let lifecycle = Locked(0)

    init(hub: any ConsumerHub) { self.hub = hub }

    var isActive: Bool { state.withLock { $0.consumerID != nil } }

    /// The running start's delivery (nil when stopped, and for pull only).
    var delivery: Delivery<Value>? { state.withLock { $0.delivery } }

    /// Makes `consumerID` (a consumer already on the hub; nil: none, a stop or a refused start)
    /// and `delivery` the running ones. The running consumer is removed from the hub first and
    /// its delivery deactivated, all under one lock: concurrent calls never leave a consumer
    /// registered that nobody owns, and none returns before the delivery it replaced or stopped
    /// is deactivated (by whichever call took it). `then` runs under that lock too, last, given
    /// how many calls of the replaced handler were admitted before its deactivation (all there
    /// will ever be; 0 without one). Waits for no handler.
    func replace(with consumerID: Int?, _ delivery: Delivery<Value>?, then: (_ admitted: Int) -> Void = { _ in }) {
        lifecycle.withLock { changes in
            changes += 1
            let (id, replaced) = state.withLock { state in
                defer { (state.consumerID, state.delivery) = (nil, nil) }
                return (state.consumerID, state.delivery)
            }
            if let id { hub.removeConsumer(id) }
            let admitted = replaced.map(retire) ?? 0
            state.withLock { ($0.consumerID, $0.delivery) = (consumerID, delivery) }
            then(admitted)
        }
    }

    /// Deactivates a delivery taken off the hub; remembers it while its handler still runs.
    /// (After the deactivation no run starts, so one not running now never calls the handler.)
    private func retire(_ delivery: Delivery<Value>) -> Int {
        let admitted = delivery.deactivate()
        let activity = delivery.activity
        guard activity.isRunning else { return admitted }
        state.withLock { state in
            state.stopped.removeAll { !$0.isRunning }
            state.stopped.append(activity)
        }
        return admitted
    }

    /// Waits until no handler is running: the one of the current start, and those of earlier
    /// starts that were still running when stopped. Returns at once inside a handler (it cannot
    /// wait for itself); must not run on a thread a handler waits for.
    func waitUntilHandlersFinish() {
        let deliveries = state.withLock { state in
            state.stopped.removeAll { !$0.isRunning }
            return state.stopped + (state.delivery.map { [$0.activity] } ?? [])
        }
        for delivery in deliveries { delivery.waitUntilIdle() }
    }
}
