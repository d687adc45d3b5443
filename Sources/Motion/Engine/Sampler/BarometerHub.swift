import Dispatch
import Locking
import Timing

/// What a barometer consumer receives on the hub's queue (it hops to its own queue itself).
enum BarometerEvent: Sendable {
    case sample(BarometerSample)
    case failure(MotionError)
}

/// The barometer's sampler: one per barometer, shared by its consumers, each given every reading.
/// It polls at the chip's own rate (``BarometerDevice/rate``: 26.3 Hz for a BMP280 in its
/// indoor-navigation mode) on a serial queue of its own, on the ``MotionClock`` (a `VirtualClock`
/// drives it in tests), and keeps the IMU sampler's rules: a failed read is retried once within
/// the period, a burst of failures is one incident reported once (``SensorFaults``), the chip's
/// configuration is read back every few ticks, and every period is counted as sampled or dropped
/// with its reason (``SamplerCounters``). The timer runs only while a consumer listens.
final class BarometerHub: Sendable {
    let device: any BarometerDevice
    let clock: any MotionClock
    let policy: SamplerPolicy
    private let queue: DispatchQueue

    private struct Consumer: Sendable {
        let id: Int
        let sink: @Sendable (BarometerEvent) -> Void
    }

    /// What callers on any thread touch: under the lock, never held while a sink or the device runs.
    private struct State {
        var consumers: [Consumer] = []
        var nextID = 0
        var timer: (any MotionTimer)?
        var counters = SamplerCounters()
    }
    private let state = Locked(State())

    /// The tick's own state: on `queue` only, which serialises every access (so no lock, and no
    /// dynamic exclusivity check per reading).
    private struct TickState {
        var faults = SensorFaults(.barometer)
    }
    @exclusivity(unchecked) nonisolated(unsafe) private var ticks = TickState()

    init(device: any BarometerDevice, clock: any MotionClock, policy: SamplerPolicy = SamplerPolicy()) {
        self.device = device
        self.clock = clock
        self.policy = policy
        queue = DispatchQueue(label: "swift-motion.barometer", qos: .userInitiated)
    }

    /// Seconds between two readings.
    var interval: Double { 1 / device.rate }

    var counters: SamplerCounters { state.withLock { $0.counters } }

    /// Adds a consumer, given every reading from the next tick on; the first starts the timer.
    func addConsumer(sink: @escaping @Sendable (BarometerEvent) -> Void) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.consumers.append(Consumer(id: state.nextID, sink: sink))
            if state.timer == nil {
                state.timer = clock.scheduleTicks(every: interval, on: queue) { [weak self] in self?.tick(skipped: $0) }
            }
            return state.nextID
        }
    }

    /// Removes a consumer; the timer stops with the last one. Events already handed to its sink
    /// may still arrive; the sink's owner discards them (``Delivery``).
    func removeConsumer(_ id: Int) {
        state.withLock { state in
            state.consumers.removeAll { $0.id == id }
            guard state.consumers.isEmpty else { return }
            state.timer?.cancel()
            state.timer = nil
        }
    }

    /// Counts a reading lost after the hub handed it on (a full stream buffer).
    func countDrop(_ reason: DropReason) { count(reason) }

    /// Waits until the hub's queue has run everything given to it so far (tests).
    func flush() { queue.sync {} }

    // MARK: - The tick (on `queue`)

    private func tick(skipped: Int) {
        dispatchPrecondition(condition: .onQueue(queue))
        let consumers = state.withLock { $0.consumers }
        guard !consumers.isEmpty else { return }
        if skipped > 0 { count(.late, skipped) }
        if ticks.faults.skipsTick() {
            count(.deviceUnavailable)
            return
        }
        do throws(MotionError) {
            if !ticks.faults.isInitialized {
                try retryingOnce { () throws(MotionError) in try device.initialize() }
                ticks.faults.initialized()
            }
            if ticks.faults.checkIsDue(every: policy.ticksPerConfigurationCheck), try !device.isStillConfigured() {
                count(.deviceReset)
                ticks.faults.lostConfiguration()
                report(.deviceReset("\(device.name) lost its configuration"), consumers)
                return
            }
            let sample = try retryingOnce { () throws(MotionError) in try device.read(at: clock.now) }
            let recovered = ticks.faults.succeeded()
            state.withLock { state in
                state.counters.sampled += 1
                if recovered { state.counters.recovered += 1 }
            }
            for consumer in consumers { consumer.sink(.sample(sample)) }
        } catch {
            count(.busError)
            let maximumBackoff = max(1, Int((policy.maximumBackoff / interval).rounded()))
            let fullRate = Int((policy.fullRateRetry / interval).rounded())
            if let reported = ticks.faults.failed(error, policy: policy, maximumBackoff: maximumBackoff, fullRateRetries: fullRate) {
                report(reported, consumers)
            }
        }
    }

    /// One read, tried again once within the period when it fails (counted as retried).
    private func retryingOnce<Value>(_ read: () throws(MotionError) -> Value) throws(MotionError) -> Value {
        do {
            return try read()
        } catch {
            let value = try read()
            state.withLock { $0.counters.retried += 1 }
            return value
        }
    }

    /// An incident, counted once and reported once to every consumer.
    private func report(_ error: MotionError, _ consumers: [Consumer]) {
        state.withLock { $0.counters.incidents += 1 }
        for consumer in consumers { consumer.sink(.failure(error)) }
    }

    private func count(_ reason: DropReason, _ samples: Int = 1) {
        guard samples > 0 else { return }
        state.withLock { $0.counters.dropped[reason, default: 0] += samples }
    }
}
