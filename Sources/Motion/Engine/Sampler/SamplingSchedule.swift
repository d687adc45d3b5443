import Dispatch
import Locking
import Timing

/// How the sampler treats faults, of the IMU and of the magnetometer each apart. Defaults: one retry
/// within the period; three failed periods in a row make an incident (one error to each consumer
/// that uses the sensor: see `SensorHub.Sensors`); then it backs off 1, 2, 4 … ticks between
/// attempts, up to a quarter of a second at any rate, so that sampling resumes within about that
/// once the bus is healthy again; a configuration register is read back every 10 ticks to find a
/// chip that reset.
struct SamplerPolicy: Sendable {
    /// About how often the FIFO is read in FIFO mode, seconds (see `SampleTimeEstimator.readInterval`).
    var fifoReadInterval = 0.02
    var failuresPerIncident = 3
    /// The longest wait between two attempts on a failing sensor, seconds.
    var maximumBackoff = 0.25
    /// How long a failing sensor is tried at every tick before it is backed off from, seconds.
    var fullRateRetry = 1.0
    var ticksPerConfigurationCheck = 10
}

/// How samples are taken: one read per timer tick, or the chip's FIFO read every few periods.
enum SamplingMode: Equatable, Sendable {
    case idle
    /// One read per tick of this interval (seconds).
    case timer(interval: Double)
    /// The FIFO at the chip's output data rate (Hz), read every `SamplerPolicy.fifoReadInterval`.
    case fifo(rate: Double)

    var isFIFO: Bool {
        if case .fifo = self { true } else { false }
    }

    /// Seconds between two samples.
    var sampleInterval: Double {
        switch self {
        case .idle: 0
        case .timer(let interval): interval
        case .fifo(let rate): 1 / rate
        }
    }
}

/// What the consumers' intervals ask of the sampler: the mode, how often the timer ticks, and how
/// many ticks a backoff may skip at most. A value: `SensorHub` makes a new one whenever a consumer
/// comes or goes.
struct SamplingSchedule: Equatable, Sendable {
    var mode = SamplingMode.idle
    /// Seconds between two ticks of the timer; 0 when idle.
    var tick: Double = 0
    /// The longest backoff in ticks: `SamplerPolicy.maximumBackoff` at this tick, whatever the
    /// mode and rate, so sampling resumes as promptly at 10 Hz as at 100 Hz or through the FIFO.
    var maximumBackoffTicks = 1
    /// `SamplerPolicy.fullRateRetry` at this tick.
    var fullRateRetryTicks = 0

    /// The schedule for consumers at `intervals` (seconds; empty: idle). The timer serves an interval
    /// down to `1 / maximumTimerRate`; shorter ones, or a consumer that prefers it, take the FIFO at
    /// `fifoRate` when the device has one, else the timer's fastest tick.
    static func plan(
        intervals: [Double], prefersFIFO: Bool, maximumTimerRate: Double, fifoRate: Double?, policy: SamplerPolicy
    ) -> SamplingSchedule {
        guard let shortest = intervals.min() else { return SamplingSchedule() }
        let timerLimit = 1 / maximumTimerRate
        let wantsFIFO = shortest < timerLimit - 1e-12 || prefersFIFO
        let mode: SamplingMode = wantsFIFO
            ? fifoRate.map { .fifo(rate: $0) } ?? .timer(interval: max(shortest, timerLimit))
            : .timer(interval: shortest)
        let tick: Double = switch mode {
        case .idle: 0
        case .timer(let interval): interval
        case .fifo(let rate): SampleTimeEstimator.readInterval(rate: rate, near: policy.fifoReadInterval)
        }
        let maximumBackoffTicks = tick > 0 ? max(1, Int((policy.maximumBackoff / tick).rounded())) : 1
        let fullRateRetryTicks = tick > 0 ? Int((policy.fullRateRetry / tick).rounded()) : 0
        return SamplingSchedule(mode: mode, tick: tick, maximumBackoffTicks: maximumBackoffTicks, fullRateRetryTicks: fullRateRetryTicks)
    }

    /// The ticks a timer skipped between the tick due at `last` and the one due at `due` (it ran too
    /// late); 0 for the first. Clamped before conversion: a clock jump of any size is a count, never a trap.
    static func skippedTicks(from last: Double?, to due: Double, tick: Double) -> Int {
        last.map { max(0, Int(min(max(((due - $0) / tick).rounded(), 0), 1e9)) - 1) } ?? 0
    }

    /// Whether a sample at `timestamp` is due to a consumer at `interval` that last got one at
    /// `last` (half a sample period early counts as on time, so a 0.02 s consumer of a 0.01 s
    /// stream gets every second sample).
    static func isDue(_ timestamp: Double, last: Double?, interval: Double, sampleInterval: Double) -> Bool {
        guard let last else { return true }
        return !(timestamp - last < interval - sampleInterval / 2)
    }
}

extension MotionClock {
    /// A timer of `tick` seconds whose handler is given the ticks it skipped (ran too late) since
    /// its last run, by ``SamplingSchedule/skippedTicks(from:to:tick:)``: each hub counts them as late.
    func scheduleTicks(every tick: Double, on queue: DispatchQueue, _ handler: @escaping @Sendable (_ skipped: Int) -> Void) -> any MotionTimer {
        let lastDue = Locked<Double?>(nil)
        return scheduleRepeating(every: tick, on: queue) { due in
            handler(lastDue.withLock { last in
                defer { last = due }
                return SamplingSchedule.skippedTicks(from: last, to: due, tick: tick)
            })
        }
    }
}
