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
        /// The running start's token: a sample of a consumer already replaced or stopped (handed
        /// over just before) does not become `latest`.
        var token: ConsumerToken?
        var latest: Value?
    }
    private let state: Locked<State>
    private let consumer: ConsumerLifecycle<Value.HandedOut>
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
        consumer = ConsumerLifecycle(hub: hub)
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

    var isActive: Bool { consumer.isActive }

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
        replace(with: id, delivery, token: token)
    }

    /// A start that cannot be honoured: the running consumer stops, ``latest`` is cleared, and
    /// `error` goes to the handler (on `target`, through a delivery like a sample's, so a stop
    /// right after keeps it from the handler, and a start right after keeps it from the next
    /// start's handler) and to the manager's latest error.
    func refuse(_ target: DeliveryTarget?, _ handler: Handler?, _ error: MotionError) {
        let delivery = Self.delivery(target, handler)
        replace(with: nil, delivery, token: nil, clearsLatest: true)
        errors?.withLock { $0 = error }
        delivery?.send(nil, error)
    }

    /// Tells the current consumer about `error` (its handler, in order with its samples) and the
    /// manager's latest error; the updates go on.
    func report(_ error: MotionError) {
        errors?.withLock { $0 = error }
        consumer.delivery?.send(nil, error)
    }

    /// Stops updates. When it returns, no handler of this channel starts any more; one running
    /// on another thread may finish (it is not waited for, so a stop never deadlocks with a
    /// handler that waits for the stopping thread; a stop from inside the handler is fine too).
    /// `latest` stays.
    func stop() { replace(with: nil, nil, token: nil) }

    /// The consumer swap (``ConsumerLifecycle/replace(with:_:then:)``), and under its lock the
    /// count of the calls admitted and the token (and `latest`) that go with the new consumer.
    private func replace(with id: Int?, _ delivery: Delivery<Value.HandedOut>?, token: ConsumerToken?, clearsLatest: Bool = false) {
        consumer.replace(with: id, delivery) { admitted in
            admittedBeforeStop.add(admitted, ordering: .relaxed)
            state.withLock {
                $0.token = token
                if clearsLatest { $0.latest = nil }
            }
        }
    }

    /// Waits until no handler of this channel is running: the one of the current start, and
    /// those of earlier starts that were still running when stopped. Returns at once inside a
    /// handler (it cannot wait for itself); must not run on a thread a handler waits for.
    func waitUntilHandlersFinish() { consumer.waitUntilHandlersFinish() }

    /// A stream of values at `interval` (each handed out as it is yielded), independent of the
    /// push/pull consumer (``ConsumerHub/stream(adding:)``).
    func stream(interval: Double) throws(MotionError) -> AsyncStream<Value.HandedOut> {
        stream(validInterval: try validatedStreamInterval(interval))
    }

    /// The same, for an interval already validated.
    func stream(validInterval interval: Double) -> AsyncStream<Value.HandedOut> {
        let extract = makeExtract()
        return hub.stream { yield in
            hub.addConsumer(interval: interval, needsFusion: needsFusion, prefersFIFO: usesFIFO, sensors: sensors) { event in
                if case .sample(let sample, let fused) = event, let value = extract(sample, fused) { yield(value.handedOut) }
            }
        }
    }
}

/// Identifies one start of a channel (compared by identity).
final class ConsumerToken: Sendable {}
