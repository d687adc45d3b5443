import Dispatch
import Fusion
import I2C
import Synchronization
import Timing

/// What the attitude filter says after one sample (the device-motion path).
struct FusedMotion: Sendable, Equatable {
    /// Sensor → magnetic East-North-Up (heading from the magnetometer when there is one).
    var orientation: Quaternion
    /// Sensor → a z-up frame with heading from the gyroscope alone.
    var orientation6D: Quaternion
    /// g, Core Motion sign, device axes.
    var gravity: SIMD3<Double>
    /// Running gyro bias estimate, rad/s, device axes.
    var gyroBias: SIMD3<Double>
    var magneticAccuracy: MagneticAccuracy

    init(_ filter: AttitudeFilter) {
        orientation = filter.quaternion9D
        orientation6D = filter.quaternion6D
        gravity = filter.gravity
        gyroBias = filter.gyroBias
        magneticAccuracy = filter.magneticAccuracy
    }
}

/// What a consumer receives on the sampler queue (it hops to its own queue itself).
enum HubEvent: Sendable {
    case sample(MotionSample, FusedMotion?)
    case failure(MotionError)
}

/// How the sampler treats faults. Defaults: one retry within the period; three failed periods in a
/// row make an incident (one error to each consumer); then it backs off 1, 2, 4 … up to 64 ticks
/// between attempts; a configuration register is read back every 10 ticks to find a chip that reset.
struct SamplerPolicy: Sendable {
    var failuresPerIncident = 3
    var maximumBackoffTicks = 64
    var ticksPerConfigurationCheck = 10
}

/// One bus reader per device, shared by every consumer of it (several managers, several sensors),
/// each consumer at its own interval. The timer runs at the fastest interval asked for; the I/O
/// happens on the hub's own serial queue, never on a caller's queue.
final class SensorHub: Sendable {
    let device: any MotionDevice
    let clock: any MotionClock
    let policy: SamplerPolicy
    private let queue: DispatchQueue

    private final class Consumer: Sendable {
        let interval: Double
        let needsFusion: Bool
        let sink: @Sendable (HubEvent) -> Void
        let lastDelivered = Mutex<Double?>(nil)
        init(interval: Double, needsFusion: Bool, sink: @escaping @Sendable (HubEvent) -> Void) {
            self.interval = interval
            self.needsFusion = needsFusion
            self.sink = sink
        }
    }

    private struct State {
        var consumers: [Int: Consumer] = [:]
        var nextID = 0
        var timer: (any MotionTimer)?
        var tickInterval = 0.0
        var counters = SamplerCounters()
    }
    private let state = Mutex(State())

    /// Touched only on `queue` (the tick), so no lock: fault handling and the filter.
    private struct TickState {
        var isInitialized = false
        var consecutiveFailures = 0
        var inIncident = false
        var ticksToSkip = 0
        var backoffTicks = 1
        var ticksSinceCheck = 0
        var filter: AttitudeFilter?
    }
    private let tickState = Mutex(TickState())

    init(device: any MotionDevice, clock: any MotionClock, policy: SamplerPolicy = SamplerPolicy()) {
        self.device = device
        self.clock = clock
        self.policy = policy
        self.queue = DispatchQueue(label: "swift-motion.sampler", qos: .userInteractive)
    }

    var counters: SamplerCounters { state.withLock { $0.counters } }

    /// The tick interval now in force (0 when nobody is listening).
    var tickInterval: Double { state.withLock { $0.tickInterval } }

    /// Adds a consumer; the timer speeds up if it asks for a shorter interval. Returns its id.
    func addConsumer(interval: Double, needsFusion: Bool, sink: @escaping @Sendable (HubEvent) -> Void) -> Int {
        let minimum = 1 / device.maximumTimerRate
        let consumer = Consumer(interval: max(interval, minimum), needsFusion: needsFusion, sink: sink)
        return state.withLock { state in
            state.nextID += 1
            state.consumers[state.nextID] = consumer
            reschedule(&state)
            return state.nextID
        }
    }

    /// Removes a consumer; the timer stops with the last one. Events already handed to the
    /// consumer's sink may still arrive; the sink's owner discards them (see `Delivery`).
    func removeConsumer(_ id: Int) {
        state.withLock { state in
            guard state.consumers.removeValue(forKey: id) != nil else { return }
            reschedule(&state)
        }
    }

    private func reschedule(_ state: inout State) {
        let wanted = state.consumers.values.map(\.interval).min() ?? 0
        guard wanted != state.tickInterval else { return }
        state.timer?.cancel()
        state.timer = nil
        state.tickInterval = wanted
        guard wanted > 0 else { return }
        state.timer = clock.scheduleRepeating(every: wanted, on: queue) { [weak self] _ in
            self?.tick()
        }
    }

    // MARK: - The tick (on `queue`)

    private func tick() {
        let (consumers, tickInterval) = state.withLock { (Array($0.consumers.values), $0.tickInterval) }
        guard !consumers.isEmpty else { return }
        tickState.withLock { ticks in
            if ticks.ticksToSkip > 0 {
                ticks.ticksToSkip -= 1
                count(.deviceUnavailable)
                return
            }
            do throws(MotionError) {
                if !ticks.isInitialized {
                    try device.initialize()
                    ticks.isInitialized = true
                    ticks.ticksSinceCheck = 0
                }
                ticks.ticksSinceCheck += 1
                if ticks.ticksSinceCheck >= policy.ticksPerConfigurationCheck {
                    ticks.ticksSinceCheck = 0
                    if try !device.isStillConfigured() {
                        count(.deviceReset)
                        ticks.isInitialized = false
                        beginIncident(.deviceReset("\(device.name) lost its configuration"), &ticks, consumers, backOff: false)
                        return
                    }
                }
                let sample = try readWithRetry()
                deliver(sample, &ticks, consumers, tickInterval: tickInterval)
            } catch {
                fail(error, &ticks, consumers)
            }
        }
    }

    private func readWithRetry() throws(MotionError) -> MotionSample {
        do {
            return try device.read(at: clock.now)
        } catch {
            let sample = try device.read(at: clock.now)
            state.withLock { $0.counters.retried += 1 }
            return sample
        }
    }

    private func deliver(_ sample: MotionSample, _ ticks: inout TickState, _ consumers: [Consumer], tickInterval: Double) {
        if ticks.inIncident {
            ticks.inIncident = false
            state.withLock { $0.counters.recovered += 1 }
        }
        ticks.consecutiveFailures = 0
        ticks.backoffTicks = 1
        state.withLock { $0.counters.sampled += 1 }

        var fused: FusedMotion?
        if consumers.contains(where: \.needsFusion) {
            // The filter runs on every sample at the tick rate; a new rate starts a new filter.
            var filter = ticks.filter.flatMap { $0.sampleInterval == tickInterval ? $0 : nil }
                ?? AttitudeFilter(sampleInterval: tickInterval)
            filter.update(
                gyroscope: sample.rotationRate,
                accelerometer: -sample.acceleration,   // the filter takes specific force
                magnetometer: sample.calibratedMagneticField ?? sample.magneticField)
            fused = FusedMotion(filter)
            ticks.filter = filter
        } else {
            ticks.filter = nil
        }

        for consumer in consumers {
            let due = consumer.lastDelivered.withLock { last in
                if let previous = last, sample.timestamp - previous < consumer.interval - tickInterval / 2 { return false }
                last = sample.timestamp
                return true
            }
            if due { consumer.sink(.sample(sample, consumer.needsFusion ? fused : nil)) }
        }
    }

    private func fail(_ error: MotionError, _ ticks: inout TickState, _ consumers: [Consumer]) {
        count(.busError)
        ticks.consecutiveFailures += 1
        ticks.isInitialized = false
        if ticks.inIncident {
            ticks.ticksToSkip = ticks.backoffTicks
            ticks.backoffTicks = min(ticks.backoffTicks * 2, policy.maximumBackoffTicks)
        } else if ticks.consecutiveFailures >= policy.failuresPerIncident {
            let reported: MotionError = switch error {
            case .bus(let busError) where busError.kind == .noAcknowledge: .deviceUnavailable(busError)
            default: error
            }
            beginIncident(reported, &ticks, consumers, backOff: true)
        }
    }

    private func beginIncident(_ error: MotionError, _ ticks: inout TickState, _ consumers: [Consumer], backOff: Bool) {
        ticks.inIncident = true
        if backOff {
            ticks.ticksToSkip = ticks.backoffTicks
            ticks.backoffTicks = min(ticks.backoffTicks * 2, policy.maximumBackoffTicks)
        }
        state.withLock { $0.counters.incidents += 1 }
        for consumer in consumers { consumer.sink(.failure(error)) }
    }

    private func count(_ reason: DropReason) {
        state.withLock { $0.counters.dropped[reason, default: 0] += 1 }
    }
}
