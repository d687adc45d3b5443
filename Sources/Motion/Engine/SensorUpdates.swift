import Locking
import Synchronization

/// What a manager does to all its kinds of update at once.
protocol SensorUpdatesControl: AnyObject, Sendable {
    var usesFIFO: Bool { get set }
    func stop()
}

/// One kind of update of one manager (accelerometer, gyro, magnetometer, all sensors or device
/// motion): its interval, its push or pull consumer on the hub, and the latest value. The generic
/// handle behind `MotionManager`'s per-sensor members, which are one-line forwards to it.
final class SensorUpdates<Value: Sendable>: SensorUpdatesControl {
    typealias Handler = @Sendable (Value?, MotionError?) -> Void
    typealias Extract = @Sendable (MotionSample, FusedMotion?) -> Value?
    private let hub: SensorHub
    private let needsFusion: Bool
    /// Makes the function that turns a sample into a value, once per start (it may keep state
    /// for that run, e.g. the heading an arbitrary reference frame starts from).
    private let makeExtract: @Sendable () -> Extract
    /// Whether this channel's consumers ask for the chip's FIFO even at timer rates.
    private let prefersFIFO = Atomic(false)

    private struct State {
        var interval: Double
        var consumerID: Int?
        var delivery: Delivery<Value>?
        var latest: Value?
    }
    private let state: Locked<State>
    /// Serialises start and stop (held while consumers are swapped on the hub, never while a
    /// handler runs).
    private let lifecycle = Locked(())

    init(hub: SensorHub, interval: Double, needsFusion: Bool = false, makeExtract: @escaping @Sendable () -> Extract) {
        self.hub = hub
        self.needsFusion = needsFusion
        self.makeExtract = makeExtract
        self.state = Locked(State(interval: interval))
    }

    convenience init(hub: SensorHub, interval: Double, extract: @escaping Extract) {
        self.init(hub: hub, interval: interval, makeExtract: { extract })
    }

    /// Seconds between updates; takes effect at the next start. At least the device's shortest
    /// interval (one FIFO sample period, else `MotionManager.minimumUpdateInterval`); a value that
    /// is not a positive number of seconds up to `MotionManager.maximumUpdateInterval` is refused
    /// with a log line and the old value kept.
    var interval: Double {
        get { state.withLock { $0.interval } }
        set {
            guard Self.isValid(newValue) else {
                MotionManager.logger.warning("ignoring update interval \(newValue) s: \(MotionError.invalidInterval(newValue))")
                return
            }
            let clamped = max(newValue, hub.minimumInterval)
            state.withLock { $0.interval = clamped }
        }
    }

    private static func isValid(_ interval: Double) -> Bool {
        interval > 0 && interval <= MotionManager.maximumUpdateInterval   // false for NaN too
    }

    /// `interval` clamped as the setter does, or the error that refuses it.
    func validatedStreamInterval(_ interval: Double) throws(MotionError) -> Double {
        guard Self.isValid(interval) else { throw .invalidInterval(interval) }
        return max(interval, hub.minimumInterval)
    }

    var isActive: Bool { state.withLock { $0.consumerID != nil } }

    /// Applies to the next start.
    var usesFIFO: Bool {
        get { prefersFIFO.load(ordering: .relaxed) }
        set { prefersFIFO.store(newValue, ordering: .relaxed) }
    }

    var latest: Value? { state.withLock { $0.latest } }

    /// Starts updates: pull only when `target` is nil, else the handler runs on `target`.
    /// A running consumer is stopped first (a second start replaces the handler, as in Core Motion).
    func start(_ target: DeliveryTarget?, _ handler: Handler?) {
        let delivery = target.flatMap { target in handler.map { Delivery<Value>(target: target, handler: $0) } }
        let extract = makeExtract()
        // The sink holds the state, not the channel: no cycle, and no weak load per sample.
        let id = hub.addConsumer(interval: interval, needsFusion: needsFusion, prefersFIFO: usesFIFO) { [state] event in
            switch event {
            case .sample(let sample, let fused):
                guard let value = extract(sample, fused) else { return }
                state.withLock { $0.latest = value }
                delivery?.send(value, nil)
            case .failure(let error):
                delivery?.send(nil, error)
            }
        }
        // Swap consumers under the lifecycle lock, so concurrent starts and stops never leave a
        // consumer registered that nobody owns.
        let replaced = lifecycle.withLock { _ in
            let previous = takeConsumer()
            state.withLock {
                $0.consumerID = id
                $0.delivery = delivery
            }
            return previous
        }
        replaced?.deactivate()
    }

    /// Stops updates. When it returns, no handler of this channel runs any more (one running on
    /// another thread is waited for; a stop from inside the handler is fine). `latest` stays.
    func stop() {
        lifecycle.withLock { _ in takeConsumer() }?.deactivate()
    }

    /// Removes the current consumer from the hub (under `lifecycle`); returns its delivery, to be
    /// deactivated outside the lock (that waits for a handler in progress).
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

    /// A stream of values at `interval`, independent of the push/pull consumer; the hub consumer
    /// goes away when the stream's consumer stops iterating (or the stream is dropped). A consumer
    /// that falls 256 values behind loses the oldest, each counted as a drop.
    func stream(interval: Double) throws(MotionError) -> AsyncStream<Value> {
        stream(validInterval: try validatedStreamInterval(interval))
    }

    /// The same, for an interval already validated.
    func stream(validInterval interval: Double) -> AsyncStream<Value> {
        let extract = makeExtract()
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = hub.addConsumer(interval: interval, needsFusion: needsFusion, prefersFIFO: usesFIFO) { [weak hub] event in
            if case .sample(let sample, let fused) = event, let value = extract(sample, fused),
               case .dropped = continuation.yield(value) {
                hub?.countDrop(.streamBufferFull)
            }
        }
        continuation.onTermination = { [weak hub] _ in hub?.removeConsumer(id) }
        return stream
    }
}
