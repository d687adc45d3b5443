import Locking
import Synchronization

/// What a manager does to all its kinds of update at once.
protocol SensorUpdatesControl: AnyObject, Sendable {
    var usesFIFO: Bool { get set }
    func stop()
    func waitUntilHandlersFinish()
}

/// One kind of update of one manager (accelerometer, gyro, magnetometer, all sensors or device
/// motion): its interval, its push or pull consumer on the hub, and the latest value. The generic
/// handle behind `MotionManager`'s per-sensor members, which are one-line forwards to it.
final class SensorUpdates<Value: ChannelValue>: SensorUpdatesControl {
    typealias Handler = @Sendable (Value.HandedOut?, MotionError?) -> Void
    typealias Extract = @Sendable (MotionSample, FusedMotion?) -> Value?
    private let hub: SensorHub
    private let needsFusion: Bool
    /// The chips its values come from: it hears of their incidents (the IMU's always).
    private let sensors: SensorHub.Sensors
    /// Makes the function that turns a sample into a value, once per start (it may keep state
    /// for that run, e.g. the heading an arbitrary reference frame starts from).
    private let makeExtract: @Sendable () -> Extract
    /// Whether this channel's consumers ask for the chip's FIFO even at timer rates.
    private let prefersFIFO = Atomic(false)
    /// The manager's latest error, set by every error this channel's push or pull consumer gets.
    private let errors: Locked<MotionError?>?

    private struct State {
        var interval: Double
        var consumerID: Int?
        /// The running start's token: a sample of a consumer already replaced or stopped (handed
        /// over just before) does not become `latest`.
        var token: ConsumerToken?
        var delivery: Delivery<Value.HandedOut>?
        /// Deliveries stopped while a handler of theirs was running (pruned as they go idle),
        /// for `waitUntilHandlersFinish`: their activity only, which holds no handler.
        var stopped: [Delivery<Value.HandedOut>.Activity] = []
        var latest: Value?
    }
    private let state: Locked<State>
    /// Serialises start and stop (held while consumers are swapped on the hub and the replaced
    /// delivery is deactivated, never while a handler runs); counts them. (A value with a size:
    /// an empty one lies at the mutex pointer's address, which the thread sanitizer then reports
    /// as raced.)
    private let lifecycle = Locked(0)
    /// The calls of the handler that this channel's stopped or replaced deliveries admitted before
    /// their deactivation returned (``Delivery/deactivate()``), summed: once they have run, every
    /// call the handlers saw is one of these (StopPromiseTests' exact check).
    let admittedBeforeStop = Atomic(0)

    init(
        hub: SensorHub, interval: Double, sensors: SensorHub.Sensors, needsFusion: Bool = false, errors: Locked<MotionError?>? = nil,
        makeExtract: @escaping @Sendable () -> Extract
    ) {
        self.hub = hub
        self.sensors = sensors
        self.needsFusion = needsFusion
        self.errors = errors
        self.makeExtract = makeExtract
        self.state = Locked(State(interval: interval))
    }

    convenience init(
        hub: SensorHub, interval: Double, sensors: SensorHub.Sensors, errors: Locked<MotionError?>? = nil, extract: @escaping Extract
    ) {
        self.init(hub: hub, interval: interval, sensors: sensors, errors: errors, makeExtract: { extract })
    }

    /// Seconds between updates; takes effect at the next start. At least the device's shortest
    /// interval (one FIFO sample period, else `Library.minimumUpdateInterval`); a value that
    /// is not a positive number of seconds up to `Library.maximumUpdateInterval` is refused
    /// with a log line and the old value kept.
    var interval: Double {
        get { state.withLock { $0.interval } }
        set {
            guard Self.isValid(newValue) else {
                Library.logger.warning("ignoring update interval \(newValue) s: \(MotionError.invalidInterval(newValue))")
                return
            }
            let clamped = max(newValue, hub.minimumInterval)
            state.withLock { $0.interval = clamped }
        }
    }

    private static func isValid(_ interval: Double) -> Bool {
        interval > 0 && interval <= Library.maximumUpdateInterval   // false for NaN too
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

    /// The latest value, handed out anew at each read (see ``ChannelValue``).
    var latest: Value.HandedOut? { state.withLock { $0.latest }?.handedOut }

    /// The delivery of `handler` on `target`. It carries values as handed out
    /// (``ChannelValue/handedOut``, made when the sample is sent to it), so that nothing but the
    /// delivery's gate stands between its decision to call the handler and the call.
    private static func delivery(_ target: DeliveryTarget?, _ handler: Handler?) -> Delivery<Value.HandedOut>? {
        guard let target, let handler else { return nil }
        return Delivery<Value.HandedOut>(target: target, handler: handler)
    }

    /// Starts updates: pull only when `target` is nil, else the handler runs on `target`.
    /// A running consumer is stopped first (a second start replaces the handler, as in Core Motion).
    func start(_ target: DeliveryTarget?, _ handler: Handler?) {
        let delivery = Self.delivery(target, handler)
        let extract = makeExtract()
        let token = ConsumerToken()
        // The sink holds the state, not the channel: no cycle, and no weak load per sample.
        let id = hub.addConsumer(interval: interval, needsFusion: needsFusion, prefersFIFO: usesFIFO, sensors: sensors) { [state, errors] event in
            switch event {
            case .sample(let sample, let fused):
                guard let value = extract(sample, fused) else { return }
                state.withLock { if $0.token === token { $0.latest = value } }
                if let delivery { delivery.send(value.handedOut, nil) }
            case .failure(let error):
                errors?.withLock { $0 = error }
                delivery?.send(nil, error)
            case .steps:
                return   // a step consumer's, never this channel's
            }
        }
        // Swap consumers under the lifecycle lock, so concurrent starts and stops never leave a
        // consumer registered that nobody owns, and none returns before the delivery it replaced
        // or stopped is deactivated (by whichever call took it).
        lifecycle.withLock { changes in
            changes += 1
            if let replaced = takeConsumer() { retire(replaced) }
            state.withLock {
                $0.consumerID = id
                $0.token = token
                $0.delivery = delivery
            }
        }
    }

    /// A start that cannot be honoured: the running consumer stops, ``latest`` is cleared, and
    /// `error` goes to the handler (on `target`, through a delivery like a sample's, so a stop
    /// right after keeps it from the handler) and to the manager's latest error.
    func refuse(_ target: DeliveryTarget?, _ handler: Handler?, _ error: MotionError) {
        let delivery = Self.delivery(target, handler)
        lifecycle.withLock { changes in
            changes += 1
            if let replaced = takeConsumer() { retire(replaced) }
            state.withLock {
                $0.delivery = delivery
                $0.latest = nil
            }
        }
        report(error)
    }

    /// Tells the current consumer about `error` (its handler, in order with its samples) and the
    /// manager's latest error; the updates go on.
    func report(_ error: MotionError) {
        errors?.withLock { $0 = error }
        state.withLock { $0.delivery }?.send(nil, error)
    }

    /// Stops updates. When it returns, no handler of this channel starts any more; one running
    /// on another thread may finish (it is not waited for, so a stop never deadlocks with a
    /// handler that waits for the stopping thread; a stop from inside the handler is fine too).
    /// `latest` stays.
    func stop() {
        lifecycle.withLock { changes in
            changes += 1
            if let delivery = takeConsumer() { retire(delivery) }
        }
    }

    /// Deactivates a delivery taken off the hub; remembers it while its handler still runs.
    /// (After the deactivation no run starts, so one not running now never calls the handler.)
    /// Under `lifecycle`: a stop that finds nothing to stop, because a concurrent call took the
    /// consumer, returns only after that call has deactivated it. Waits for no handler.
    private func retire(_ delivery: Delivery<Value.HandedOut>) {
        admittedBeforeStop.add(delivery.deactivate(), ordering: .relaxed)
        let activity = delivery.activity
        guard activity.isRunning else { return }
        state.withLock { state in
            state.stopped.removeAll { !$0.isRunning }
            state.stopped.append(activity)
        }
    }

    /// Waits until no handler of this channel is running: the one of the current start, and
    /// those of earlier starts that were still running when stopped. Returns at once inside a
    /// handler (it cannot wait for itself); must not run on a thread a handler waits for.
    func waitUntilHandlersFinish() {
        let deliveries = state.withLock { state in
            state.stopped.removeAll { !$0.isRunning }
            return state.stopped + (state.delivery.map { [$0.activity] } ?? [])
        }
        for delivery in deliveries { delivery.waitUntilIdle() }
    }

    /// Removes the current consumer from the hub (under `lifecycle`); returns its delivery, to be
    /// deactivated outside the lock.
    private func takeConsumer() -> Delivery<Value.HandedOut>? {
        let (id, delivery) = state.withLock { state in
            defer {
                state.consumerID = nil
                state.token = nil
                state.delivery = nil
            }
            return (state.consumerID, state.delivery)
        }
        if let id { hub.removeConsumer(id) }
        return delivery
    }

    /// A stream of values at `interval` (each handed out as it is yielded), independent of the
    /// push/pull consumer; the hub consumer goes away when the stream's consumer stops iterating
    /// (or the stream is dropped). A consumer that falls 256 values behind loses the oldest, each
    /// counted as a drop.
    func stream(interval: Double) throws(MotionError) -> AsyncStream<Value.HandedOut> {
        stream(validInterval: try validatedStreamInterval(interval))
    }

    /// The same, for an interval already validated.
    func stream(validInterval interval: Double) -> AsyncStream<Value.HandedOut> {
        let extract = makeExtract()
        let (stream, continuation) = AsyncStream<Value.HandedOut>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = hub.addConsumer(interval: interval, needsFusion: needsFusion, prefersFIFO: usesFIFO, sensors: sensors) { [weak hub] event in
            if case .sample(let sample, let fused) = event, let value = extract(sample, fused),
               case .dropped = continuation.yield(value.handedOut) {
                hub?.countDrop(.streamBufferFull)
            }
        }
        continuation.onTermination = { [weak hub] _ in hub?.removeConsumer(id) }
        return stream
    }
}

/// Identifies one start of a channel (compared by identity).
final class ConsumerToken: Sendable {}
