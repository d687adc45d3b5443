/// One sensor's faults, the policy's decisions as a value: the IMU and the magnetometer each have
/// their own, so that either fails, backs off and recovers without stopping the other. A transient
/// failure is retried at the next tick; a burst of `SamplerPolicy.failuresPerIncident` means the
/// chip may have lost power (it is set up again) and is one incident, reported once; then it is
/// tried at every tick for the schedule's `fullRateRetryTicks` (a second: a burst of failures costs
/// about its own length), and only then backed off from, 1, 2, 4 … ticks up to the schedule's longest
/// backoff (a quarter of a second: a bus that heals is sampled again within about that).
struct SensorFaults: Sendable, Equatable {
    /// Whose faults these are: its incidents reach the consumers that use it.
    let sensor: SensorHub.Sensors
    var isInitialized = false
    private(set) var consecutiveFailures = 0
    private(set) var inIncident = false
    private var ticksToSkip = 0
    private var backoffTicks = 1
    private var ticksSinceCheck = 0

    init(_ sensor: SensorHub.Sensors) {
        self.sensor = sensor
    }

    /// The sensor was set up: the configuration read-backs count from here.
    mutating func initialized() {
        isInitialized = true
        ticksSinceCheck = 0
    }

    /// True when this tick is one to skip while backing off.
    mutating func skipsTick() -> Bool {
        guard ticksToSkip > 0 else { return false }
        ticksToSkip -= 1
        return true
    }

    /// Counts a tick towards the next configuration read-back: true when it is due.
    mutating func checkIsDue(every ticks: Int) -> Bool {
        ticksSinceCheck += 1
        guard ticksSinceCheck >= ticks else { return false }
        ticksSinceCheck = 0
        return true
    }

    /// A read of the sensor worked: true when it ends an incident (one recovery to count).
    mutating func succeeded() -> Bool {
        defer {
            inIncident = false
            consecutiveFailures = 0
            backoffTicks = 1
        }
        return inIncident
    }

    /// A failed attempt: the error to report when it begins an incident (a missing acknowledge
    /// reported as the device being unavailable), nil otherwise.
    mutating func failed(_ error: MotionError, policy: SamplerPolicy, maximumBackoff: Int, fullRateRetries: Int = 0) -> MotionError? {
        consecutiveFailures += 1
        if consecutiveFailures >= policy.failuresPerIncident { isInitialized = false }
        if inIncident {
            if consecutiveFailures > policy.failuresPerIncident + fullRateRetries { backOff(maximum: maximumBackoff) }
            return nil
        }
        guard consecutiveFailures >= policy.failuresPerIncident else { return nil }
        inIncident = true
        if fullRateRetries == 0 { backOff(maximum: maximumBackoff) }
        return switch error {
        case .bus(let busError) where busError.kind == .noAcknowledge: .deviceUnavailable(busError)
        default: error
        }
    }

    /// The sensor lost its configuration (a reset): set up again at the next tick, an incident
    /// begun at once (no backoff: the chip answers).
    mutating func lostConfiguration() {
        isInitialized = false
        inIncident = true
    }

    private mutating func backOff(maximum: Int) {
        ticksToSkip = backoffTicks
        backoffTicks = min(backoffTicks * 2, maximum)
    }
}
