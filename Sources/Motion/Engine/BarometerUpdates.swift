/// One kind of barometer update of one altimeter (relative or absolute altitude): its consumer on
/// the ``BarometerHub`` and its delivery, with the motion sensors' lifecycle (``ConsumerLifecycle``).
/// The value is made from the readings by a function made afresh at each start, which may keep
/// state for that run (the reference a relative altitude counts from, the readings of the update
/// being gathered): it runs on the hub's queue only, one reading at a time, and gives a value
/// when one is due.
final class BarometerUpdates<Value: Sendable>: Sendable {
    typealias Handler = @Sendable (Value?, MotionError?) -> Void
    typealias Extract = @Sendable (BarometerSample) -> Value?
    private let hub: BarometerHub
    private let makeExtract: @Sendable () -> Extract
    private let consumer: ConsumerLifecycle<Value>

    init(hub: BarometerHub, makeExtract: @escaping @Sendable () -> Extract) {
        self.hub = hub
        self.makeExtract = makeExtract
        consumer = ConsumerLifecycle(hub: hub)
    }

    var isActive: Bool { consumer.isActive }

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
        consumer.replace(with: id, delivery)
    }

    /// A start that cannot be honoured: the running consumer stops and `error` goes to the
    /// handler on `target` (through a delivery, so a stop right after keeps it from the handler).
    func refuse(_ target: DeliveryTarget, _ handler: @escaping Handler, _ error: MotionError) {
        let delivery = Delivery<Value>(target: target, handler: handler)
        consumer.replace(with: nil, delivery)
        delivery.send(nil, error)
    }

    /// Stops updates: when it returns no handler of this channel starts; one running on another
    /// thread may finish (it is not waited for).
    func stop() { consumer.replace(with: nil, nil) }

    /// Waits until no handler of this channel is running (returns at once inside a handler).
    func waitUntilHandlersFinish() { consumer.waitUntilHandlersFinish() }

    /// The values as a stream, independent of the handler (``ConsumerHub/stream(adding:)``).
    func stream() -> AsyncStream<Value> {
        let extract = makeExtract()
        return hub.stream { yield in
            hub.addConsumer { event in
                if case .sample(let sample) = event, let value = extract(sample) { yield(value) }
            }
        }
    }
}

/// What one run of an extract keeps between readings (the update being gathered, the reference).
/// Unchecked: the hub calls a consumer's sink on its serial queue only, one reading at a time, so
/// the run's state is never touched from two threads.
final class ExtractState<State>: @unchecked Sendable {
    var value: State
    init(_ value: State) { self.value = value }
}
