import Locking

/// One kind of barometer update of one altimeter (relative or absolute altitude): its consumer on
/// the ``BarometerHub`` and its delivery. The same lifecycle as ``SensorUpdates`` (a start
/// replaces the running consumer; a stop returns without waiting for a handler, and no handler
/// starts after it), on the same ``Delivery``. The value is made from the readings by a function
/// made afresh at each start, which may keep state for that run (the reference a relative
/// altitude counts from, the readings of the update being gathered): it runs on the hub's queue
/// only, one reading at a time, and gives a value when one is due.
final class BarometerUpdates<Value: Sendable>: Sendable {
    typealias Handler = @Sendable (Value?, MotionError?) -> Void
    typealias Extract = @Sendable (BarometerSample) -> Value?
    private let hub: BarometerHub
    private let makeExtract: @Sendable () -> Extract

    private struct State {
        var consumerID: Int?
        var delivery: Delivery<Value>?
        /// Deliveries stopped while a handler of theirs was running, for `waitUntilHandlersFinish`.
        var stopped: [Delivery<Value>.Activity] = []
    }
    private let state = Locked(State())
    /// Serialises start and stop (never held while a handler runs); counts them.
    private let lifecycle = Locked(0)

    init(hub: BarometerHub, makeExtract: @escaping @Sendable () -> Extract) {
        self.hub = hub
        self.makeExtract = makeExtract
    }

    var isActive: Bool { state.withLock { $0.consumerID != nil } }

    /// Starts updates to `handler` on `target`, replacing a running start.
    func start(_ target: DeliveryTarget, _ handler: @escaping Handler) {
        let delivery = Delivery<Value>(target: target, handler: handler)
        let extract = makeExtract()
        let id = hub.addConsumer { event in
            switch event {
            case .sample(let sample):
                if let value = extract(sample) { delivery.send(value, nil) }
            case .failure(let error):
                delivery.send(nil, error)
            }
        }
        lifecycle.withLock { changes in
            changes += 1
            if let replaced = takeConsumer() { retire(replaced) }
            state.withLock {
                $0.consumerID = id
                $0.delivery = delivery
            }
        }
    }

    /// A start that cannot be honoured: the running consumer stops and `error` goes to the
    /// handler on `target` (through a delivery, so a stop right after keeps it from the handler).
    func refuse(_ target: DeliveryTarget, _ handler: @escaping Handler, _ error: MotionError) {
        let delivery = Delivery<Value>(target: target, handler: handler)
        lifecycle.withLock { changes in
            changes += 1
            if let replaced = takeConsumer() { retire(replaced) }
            state.withLock { $0.delivery = delivery }
        }
        delivery.send(nil, error)
    }

    /// Stops updates: when it returns no handler of this channel starts; one running on another
    /// thread may finish (it is not waited for).
    func stop() {
        lifecycle.withLock { changes in
            changes += 1
            if let delivery = takeConsumer() { retire(delivery) }
        }
    }

    private func retire(_ delivery: Delivery<Value>) {
        delivery.deactivate()
        let activity = delivery.activity
        guard activity.isRunning else { return }
        state.withLock { state in
            state.stopped.removeAll { !$0.isRunning }
            state.stopped.append(activity)
        }
    }

    /// Waits until no handler of this channel is running (returns at once inside a handler).
    func waitUntilHandlersFinish() {
        let deliveries = state.withLock { state in
            state.stopped.removeAll { !$0.isRunning }
            return state.stopped + (state.delivery.map { [$0.activity] } ?? [])
        }
        for delivery in deliveries { delivery.waitUntilIdle() }
    }

    /// Removes the current consumer from the hub (under `lifecycle`); returns its delivery (a
    /// refused start's too, which has no consumer).
    private func takeConsumer() -> Delivery<Value>? {
        let (id, delivery) = state.withLock { state in
            defer {
                state.consumerID = nil
                state.delivery = nil
            }
            return (state.consumerID, state.delivery)
        }
        if let id { hub.removeConsumer(id) }
        return delivery
    }

    /// The values as a stream, independent of the handler; the hub consumer goes away when the
    /// stream's consumer stops iterating. One that falls 256 values behind loses the oldest, each
    /// counted as a drop.
    func stream() -> AsyncStream<Value> {
        let extract = makeExtract()
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = hub.addConsumer { [weak hub] event in
            if case .sample(let sample) = event, let value = extract(sample), case .dropped = continuation.yield(value) {
                hub?.countDrop(.streamBufferFull)
            }
        }
        continuation.onTermination = { [weak hub] _ in hub?.removeConsumer(id) }
        return stream
    }
}

/// What one run of an extract keeps between readings (the update being gathered, the reference).
/// Unchecked: the hub calls a consumer's sink on its serial queue only, one reading at a time, so
/// the run's state is never touched from two threads.
final class ExtractState<State>: @unchecked Sendable {
    var value: State
    init(_ value: State) { self.value = value }
}
