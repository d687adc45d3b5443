import Locking
import Dispatch
import FieldCalibration
import Fusion
import I2C
import Timing

/// What the attitude estimator says after one sample (the device-motion path).
struct FusedMotion: Sendable, Equatable {
    /// Device → magnetic East-North-Up (heading from the magnetometer when there is one).
    var orientation: Quaternion
    /// Device → a z-up frame with an arbitrary heading (from the gyroscope alone, for our filter).
    var orientation6D: Quaternion
    /// g, Core Motion sign, device axes.
    var gravity: SIMD3<Double>
    /// Running gyro bias estimate, rad/s, device axes.
    var gyroBias: SIMD3<Double>
    var magneticAccuracy: MagneticAccuracy
    /// The background hard-iron estimate behind ``magneticField`` (nil without a magnetometer).
    var hardIron: HardIronEstimator.Status?
    /// µT, device axes: the field the estimator was given (the stored calibration and the
    /// background offset removed); nil without a magnetometer.
    var magneticField: SIMD3<Double>?

    init(_ estimator: some AttitudeEstimator, hardIron: HardIronEstimator.Status? = nil, magneticField: SIMD3<Double>? = nil) {
        orientation = estimator.quaternion9D
        orientation6D = estimator.quaternion6D
        gravity = estimator.gravity
        gyroBias = estimator.gyroBias
        magneticAccuracy = estimator.magneticAccuracy
        self.hardIron = hardIron
        self.magneticField = magneticField
    }
}

/// What a consumer receives on the sampler queue (it hops to its own queue itself).
enum HubEvent: Sendable {
    case sample(MotionSample, FusedMotion?)
    case failure(MotionError)
}

/// How the sampler treats faults, of the IMU and of the magnetometer each apart. Defaults: one retry
/// within the period; three failed periods in a row make an incident (one error to each consumer
/// that uses the sensor: see `SensorHub.Sensors`);
/// then it backs off 1, 2, 4 … up to 64 ticks between attempts; a configuration register is read
/// back every 10 ticks to find a chip that reset.
struct SamplerPolicy: Sendable {
    /// About how often the FIFO is read in FIFO mode, seconds (see `SampleTimeEstimator.readInterval`).
    var fifoReadInterval = 0.02
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
    /// Makes the fusion run on every sample while a consumer needs it.
    let makeEstimator: AttitudeEstimatorFactory
    /// The magnetometer's background calibration (the device's, else one that saves nowhere).
    let background: BackgroundCalibration
    private let queue: DispatchQueue
    /// The device's, read once: every sample without a field is counted against it.
    private let hasMagnetometer: Bool

    /// The chips a consumer's values come from, and so the incidents it hears of: an incident of
    /// the IMU reaches every consumer (every sample is the IMU's), one of the magnetometer only
    /// those that use its field (as in Core Motion, an accelerometer handler never hears of it).
    struct Sensors: OptionSet, Sendable {
        let rawValue: Int
        /// The accelerometer and gyroscope: one chip, failing together.
        static let imu = Sensors(rawValue: 1 << 0)
        static let magnetometer = Sensors(rawValue: 1 << 1)
    }

    private final class Consumer: Sendable {
        let id: Int
        let interval: Double
        let needsFusion: Bool
        let prefersFIFO: Bool
        let sensors: Sensors
        let sink: @Sendable (HubEvent) -> Void
        let lastDelivered = Locked<Double?>(nil)
        init(
            id: Int, interval: Double, needsFusion: Bool, prefersFIFO: Bool, sensors: Sensors,
            sink: @escaping @Sendable (HubEvent) -> Void
        ) {
            self.id = id
            self.interval = interval
            self.needsFusion = needsFusion
            self.prefersFIFO = prefersFIFO
            self.sensors = sensors.union(.imu)
            self.sink = sink
        }
    }

    /// How samples are taken: one read per timer tick, or the chip's FIFO read every few periods.
    enum Mode: Equatable, Sendable {
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

    private struct State {
        /// An array, not a dictionary keyed by id: the tick copies it out of the lock every
        /// sample, and copying an array is a retain, not an allocation.
        var consumers: [Consumer] = []
        var nextID = 0
        var timer: (any MotionTimer)?
        var mode = Mode.idle
        var counters = SamplerCounters()
        /// The longest backoff in ticks of the current mode: as long in FIFO mode (longer ticks)
        /// as in timer mode at its fastest rate, so sampling resumes as promptly either way.
        var maximumBackoffTicks = 1
    }
    private let state = Locked(State())

    /// The estimator the tick runs, with what it was made for.
    private struct FusionState {
        let configuration: AttitudeEstimatorConfiguration
        var estimator: any AttitudeEstimator
        /// The time of the last sample it took: the next update covers the real interval.
        var lastTimestamp: Double?

        /// One sample through the estimator, updated where it lies (a copy out and back would
        /// cost more than the update's own arithmetic), the magnetometer's background
        /// calibration first (`magnetic`, nil without a magnetometer); the outputs.
        mutating func update(_ sample: MotionSample, _ magnetic: inout MagneticCalibrationState?) -> FusedMotion {
            let interval = lastTimestamp.map { sample.timestamp - $0 } ?? configuration.sampleInterval
            var field = sample.calibratedMagneticField ?? sample.magneticField
            if let measured = field, magnetic != nil {
                field = magnetic?.update(
                    measured, rotationRate: sample.rotationRate - estimator.gyroBias, gyroBias: estimator.gyroBias, acceleration: sample.acceleration,
                    interval: interval, timestamp: sample.timestamp, filter: &estimator)
            }
            estimator.update(AttitudeEstimatorInput(
                acceleration: sample.acceleration, rotationRate: sample.rotationRate, magneticField: field,
                interval: interval, chipOrientation: sample.chipAttitude))
            lastTimestamp = sample.timestamp
            return FusedMotion(estimator, hardIron: field == nil ? nil : magnetic?.status, magneticField: field)
        }
    }

    /// The background magnetometer calibration on the sampler's queue (see `BackgroundCalibration`):
    /// whichever ``BackgroundFieldCalibrator`` its factory made (this library's by default).
    struct MagneticCalibrationState {
        let link: BackgroundCalibration
        var correction: any BackgroundFieldCalibrator
        var status: HardIronEstimator.Status { correction.status }

        /// The expected field the estimator was last given (`BackgroundCalibration.expectedField`).
        private var expected: SIMD2<Double>?

        init(_ link: BackgroundCalibration) {
            self.link = link
            correction = link.makeCalibrator()
            expected = link.expectedField
        }

        /// One reading (µT, device axes) through the calibrator; the field it gives the attitude filter.
        /// The status is published (a lock) ten times a second of sample time, and the attitude
        /// filter told when the calibration moved under it.
        mutating func update(
            _ field: SIMD3<Double>, rotationRate: SIMD3<Double>, gyroBias: SIMD3<Double>, acceleration: SIMD3<Double>, interval: Double,
            timestamp: Double, filter: inout any AttitudeEstimator
        ) -> SIMD3<Double> {
            let result = correction.correct(
                field, rotationRate: rotationRate, gyroBias: gyroBias, acceleration: acceleration, interval: interval, timestamp: timestamp)
            if result.checked {
                link.publish(correction.status, softIron: correction.softIronFit, at: timestamp)
                let field = link.expectedField   // a manager's location, set or changed since
                if field != expected {
                    expected = field
                    correction.expect(field: field)
                }
            }
            if result.changed { filter.magneticCalibrationChanged() }
            return result.field
        }
    }

    /// One sensor's faults: the IMU and the magnetometer each have their own, so that either
    /// fails, backs off and recovers without stopping the other.
    private struct FailureState {
        /// Whose faults these are: its incidents reach the consumers that use it.
        let sensor: Sensors
        var isInitialized = false
        var consecutiveFailures = 0
        var inIncident = false
        var ticksToSkip = 0
        var backoffTicks = 1
        var ticksSinceCheck = 0

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

        mutating func backOff(maximum: Int) {
            ticksToSkip = backoffTicks
            backoffTicks = min(backoffTicks * 2, maximum)
        }
    }

    /// Touched only on `queue` (the tick), so no lock: fault handling and the estimator.
    private struct TickState {
        var imu = FailureState(sensor: .imu)
        var magnetometer = FailureState(sensor: .magnetometer)
        var fusion: FusionState?
        var isFIFORunning = false
        /// FIFO mode: the chip's time of the last sample period accounted for (the last sample
        /// delivered, or the last period of an outage counted), and why the next delivered
        /// sample may follow a gap (the FIFO was restarted: overflow, set-up again, chip reset).
        /// The gap's sample periods are counted as drops with that reason when the next sample
        /// arrives, so every period of the chip's clock is a delivered sample or a counted drop.
        var lastFIFOSample: Double?
        var fifoGapReason: DropReason?
        /// FIFO mode: when its first tick ran, from where an outage before any sample is counted.
        var fifoBegan: Double?
        /// The samples of the last FIFO read: one array whose storage every read reuses.
        var fifoSamples: [MotionSample] = []
        /// The magnetometer's background calibration: kept across estimators (a new sample
        /// rate does not forget the offset); made when fusion first runs.
        var magnetic: MagneticCalibrationState?
    }
    private let tickState = Locked(TickState())

    /// - Parameter makeEstimator: the fusion; nil for this library's ``AttitudeFilter``.
    init(
        device: any MotionDevice, clock: any MotionClock, policy: SamplerPolicy = SamplerPolicy(),
        makeEstimator: AttitudeEstimatorFactory? = nil
    ) {
        self.device = device
        self.clock = clock
        self.policy = policy
        self.makeEstimator = makeEstimator ?? .standard
        self.hasMagnetometer = device.hasMagnetometer
        self.background = device.backgroundCalibration ?? BackgroundCalibration()
        self.queue = DispatchQueue(label: "swift-motion.sampler", qos: .userInteractive)
    }

    var counters: SamplerCounters { state.withLock { $0.counters } }

    /// How samples are taken now.
    var mode: Mode { state.withLock { $0.mode } }

    /// The shortest interval a consumer can get: a FIFO sample period, else a timer tick.
    var minimumInterval: Double {
        device.fifoRate.map { 1 / $0 } ?? 1 / device.maximumTimerRate
    }

    /// Adds a consumer; sampling speeds up if it asks for a shorter interval (through the FIFO
    /// below the timer's fastest tick, or whenever a consumer prefers it). `sensors`: the chips
    /// its values come from, whose incidents it hears of (the IMU's always). Returns its id.
    func addConsumer(
        interval: Double, needsFusion: Bool, prefersFIFO: Bool = false, sensors: Sensors,
        sink: @escaping @Sendable (HubEvent) -> Void
    ) -> Int {
        let interval = max(interval, minimumInterval)
        return state.withLock { state in
            state.nextID += 1
            state.consumers.append(Consumer(
                id: state.nextID, interval: interval, needsFusion: needsFusion, prefersFIFO: prefersFIFO, sensors: sensors, sink: sink))
            reschedule(&state)
            return state.nextID
        }
    }

    /// Removes a consumer; the timer stops with the last one. Events already handed to the
    /// consumer's sink may still arrive; the sink's owner discards them (see `Delivery`).
    func removeConsumer(_ id: Int) {
        state.withLock { state in
            guard let index = state.consumers.firstIndex(where: { $0.id == id }) else { return }
            state.consumers.remove(at: index)
            reschedule(&state)
        }
    }

    private func reschedule(_ state: inout State) {
        let mode: Mode
        if let shortest = state.consumers.lazy.map(\.interval).min() {
            let timerLimit = 1 / device.maximumTimerRate
            let wantsFIFO = shortest < timerLimit - 1e-12 || state.consumers.contains(where: \.prefersFIFO)
            mode = wantsFIFO ? device.fifoRate.map { .fifo(rate: $0) } ?? .timer(interval: max(shortest, timerLimit)) : .timer(interval: shortest)
        } else {
            mode = .idle
        }
        guard mode != state.mode else { return }
        state.timer?.cancel()
        state.timer = nil
        if state.mode.isFIFO, mode == .idle {
            // On the sampler's queue, after any tick in flight: the device lets go of its FIFO and
            // the next FIFO start begins afresh (the idle time is no gap in anyone's stream).
            queue.async { [device, tickState] in
                tickState.withLock { ticks in
                    ticks.lastFIFOSample = nil
                    ticks.fifoGapReason = nil
                    ticks.fifoBegan = nil
                    guard ticks.isFIFORunning else { return }
                    ticks.isFIFORunning = false
                    device.stopFIFO()
                }
            }
        }
        state.mode = mode
        let tick: Double = switch mode {
        case .idle: 0
        case .timer(let interval): interval
        case .fifo(let rate): SampleTimeEstimator.readInterval(rate: rate, near: policy.fifoReadInterval)
        }
        state.maximumBackoffTicks = mode.isFIFO && tick > 0
            ? max(1, Int((Double(policy.maximumBackoffTicks) / device.maximumTimerRate / tick).rounded()))
            : policy.maximumBackoffTicks
        guard tick > 0 else { return }
        let lastDue = Locked<Double?>(nil)   // per timer: ticks it skipped (ran too late) are counted
        state.timer = clock.scheduleRepeating(every: tick, on: queue) { [weak self] due in
            let skipped = lastDue.withLock { last in
                defer { last = due }
                // Clamped before conversion: a clock jump of any size is a count, never a trap.
                return last.map { max(0, Int(min(max(((due - $0) / tick).rounded(), 0), 1e9)) - 1) } ?? 0
            }
            self?.tick(skipped: skipped)
        }
    }

    // MARK: - The tick (on `queue`)

    private func tick(skipped: Int) {
        let (consumers, mode, maximumBackoff) = state.withLock { ($0.consumers, $0.mode, $0.maximumBackoffTicks) }
        guard !consumers.isEmpty else { return }
        // In FIFO mode a late read loses nothing: the chip kept the samples (an overflow or a
        // restart shows up as a gap in its clock, counted when the next sample arrives).
        if skipped > 0, !mode.isFIFO { state.withLock { $0.counters.dropped[.late, default: 0] += skipped } }
        tickState.withLock { ticks in
            let now = clock.now
            if mode.isFIFO, ticks.fifoBegan == nil { ticks.fifoBegan = now }
            if ticks.imu.skipsTick() {
                // Backing off from an IMU that stopped answering. In FIFO mode its FIFO will be
                // started afresh: every period up to now is lost, counted as the outage goes on.
                if mode.isFIFO {
                    countFIFOOutage(through: now, .deviceUnavailable, period: mode.sampleInterval, &ticks)
                } else {
                    count(.deviceUnavailable)
                }
                return
            }
            do throws(MotionError) {
                if !ticks.imu.isInitialized {
                    try device.initialize()
                    ticks.imu.isInitialized = true
                    // A chip the IMU's set-up gates (a magnetometer behind its I2C bypass, or on
                    // the same power) is set up again after it too.
                    ticks.magnetometer.isInitialized = false
                    if ticks.isFIFORunning { ticks.fifoGapReason = ticks.fifoGapReason ?? .resetByRecovery }
                    ticks.isFIFORunning = false
                    ticks.imu.ticksSinceCheck = 0
                }
                if ticks.imu.checkIsDue(every: policy.ticksPerConfigurationCheck), try !device.isStillConfigured() {
                    imuWasReset(&ticks, consumers, mode: mode, now: now, maximumBackoff: maximumBackoff)
                    return
                }
                if mode.isFIFO {
                    let wasRunning = ticks.isFIFORunning
                    if !ticks.isFIFORunning {
                        try device.startFIFO()
                        ticks.isFIFORunning = true
                    }
                    let lost = try device.readFIFO(at: now, into: &ticks.fifoSamples)
                    // A running chip FIFO read a read interval (over a sample period) later has
                    // samples: none means the chip may have reset and stopped. Checked at once, not
                    // at the next periodic check, so the periods it loses are counted as they pass.
                    if wasRunning, ticks.fifoSamples.isEmpty, lost == 0, device.fifoReadsEverySampleTaken,
                       try !device.isStillConfigured() {
                        imuWasReset(&ticks, consumers, mode: mode, now: now, maximumBackoff: maximumBackoff)
                        return
                    }
                    // The driver restarted an overflowed FIFO: the gap is counted at the next sample.
                    if lost > 0 { ticks.fifoGapReason = .fifoOverflow }
                    recovered(&ticks.imu)
                    if device.readsMagnetometerSeparately, let reading = readMagnetometer(&ticks, consumers, maximumBackoff: maximumBackoff) {
                        for index in ticks.fifoSamples.indices { ticks.fifoSamples[index].setMagnetometer(reading) }
                    }
                    for sample in ticks.fifoSamples {
                        countFIFOGap(before: sample.timestamp, period: mode.sampleInterval, &ticks)
                        deliver(sample, &ticks, consumers, sampleInterval: mode.sampleInterval)
                    }
                } else {
                    ticks.isFIFORunning = false
                    ticks.lastFIFOSample = nil
                    ticks.fifoGapReason = nil
                    ticks.fifoBegan = nil
                    var sample = try retryingOnce { () throws(MotionError) in try device.read(at: clock.now) }
                    recovered(&ticks.imu)
                    if device.readsMagnetometerSeparately { sample.setMagnetometer(readMagnetometer(&ticks, consumers, maximumBackoff: maximumBackoff)) }
                    deliver(sample, &ticks, consumers, sampleInterval: mode.sampleInterval)
                }
            } catch {
                // Timer: this tick's sample is lost. FIFO: a failed read loses nothing while the
                // samples wait in the chip for the next read; once the IMU must be set up again its
                // FIFO restarts, so what it held and every period until it answers are lost,
                // counted from then on as they pass.
                if !mode.isFIFO { count(.busError) }
                fail(error, &ticks.imu, consumers, maximumBackoff: maximumBackoff)
                if mode.isFIFO, !ticks.imu.isInitialized {
                    let heldSamples = ticks.imu.consecutiveFailures == policy.failuresPerIncident
                    countFIFOOutage(through: now, heldSamples ? .resetByRecovery : .busError, period: mode.sampleInterval, &ticks)
                }
            }
        }
    }

    /// The IMU was found reset (its configuration lost): set up again at the next tick, one
    /// incident. Timer: this tick's sample is not trusted. FIFO: what the FIFO held is gone, so
    /// the periods up to now are counted lost with the reset, the rest of the gap at the next sample.
    private func imuWasReset(_ ticks: inout TickState, _ consumers: [Consumer], mode: Mode, now: Double, maximumBackoff: Int) {
        if mode.isFIFO {
            ticks.fifoGapReason = .deviceReset
            countFIFOOutage(through: now, .deviceReset, period: mode.sampleInterval, &ticks)
        } else {
            count(.deviceReset)
        }
        ticks.imu.isInitialized = false
        beginIncident(.deviceReset("\(device.name) lost its configuration"), &ticks.imu, consumers, backOff: false, maximumBackoff: maximumBackoff)
    }

    /// The magnetometer's reading for this tick, tried on its own fault state: nil while it is
    /// out (the IMU's samples go on without a field and the fusion runs 6D), set up again and
    /// backed off from like the IMU, one error per incident to the consumers that use its field.
    private func readMagnetometer(_ ticks: inout TickState, _ consumers: [Consumer], maximumBackoff: Int) -> MagnetometerReading? {
        guard !ticks.magnetometer.skipsTick() else { return nil }
        do throws(MotionError) {
            if !ticks.magnetometer.isInitialized {
                try device.initializeMagnetometer()
                ticks.magnetometer.isInitialized = true
                ticks.magnetometer.ticksSinceCheck = 0
            }
            if ticks.magnetometer.checkIsDue(every: policy.ticksPerConfigurationCheck), try !device.isMagnetometerStillConfigured() {
                ticks.magnetometer.isInitialized = false
                beginIncident(
                    .deviceReset("the magnetometer of \(device.name) lost its configuration"), &ticks.magnetometer, consumers,
                    backOff: false, maximumBackoff: maximumBackoff)
                return nil
            }
            let reading = try retryingOnce { () throws(MotionError) in try device.readMagnetometer() }
            recovered(&ticks.magnetometer)
            return reading
        } catch {
            fail(error, &ticks.magnetometer, consumers, maximumBackoff: maximumBackoff)
            return nil
        }
    }

    /// FIFO mode: the sample periods between the last delivered sample and `timestamp` that no
    /// sample filled (and no outage count covered), counted with the reason the FIFO was
    /// restarted (none expected otherwise).
    private func countFIFOGap(before timestamp: Double, period: Double, _ ticks: inout TickState) {
        defer {
            ticks.lastFIFOSample = timestamp
            ticks.fifoGapReason = nil
        }
        guard let last = ticks.lastFIFOSample, period > 0 else { return }
        let periods = ((timestamp - last) / period).rounded()
        guard periods.isFinite, periods > 1 else { return }
        let missing = Int(min(periods - 1, 1e9))
        // No restart seen: the chip dropped samples without saying so; count them as overflow.
        let reason = ticks.fifoGapReason ?? .fifoOverflow
        state.withLock { $0.counters.dropped[reason, default: 0] += missing }
    }

    /// FIFO mode while the IMU is out and its FIFO will be started afresh: the periods of the
    /// chip's clock from the last one accounted for up to `now`, counted as they pass, so that
    /// the counters are true during the outage and the first sample after it counts only the rest
    /// of the gap (with `fifoGapReason`).
    private func countFIFOOutage(through now: Double, _ reason: DropReason, period: Double, _ ticks: inout TickState) {
        guard period > 0, let from = ticks.lastFIFOSample ?? ticks.fifoBegan else { return }
        let periods = ((now - from) / period).rounded(.down)
        guard periods.isFinite, periods >= 1 else { return }
        let missing = Int(min(periods, 1e9))
        ticks.lastFIFOSample = from + Double(missing) * period
        state.withLock { $0.counters.dropped[reason, default: 0] += missing }
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

    /// A read of the sensor worked: an incident of it in progress is over.
    private func recovered(_ failures: inout FailureState) {
        if failures.inIncident {
            failures.inIncident = false
            state.withLock { $0.counters.recovered += 1 }
        }
        failures.consecutiveFailures = 0
        failures.backoffTicks = 1
    }

    private func deliver(_ sample: MotionSample, _ ticks: inout TickState, _ consumers: [Consumer], sampleInterval: Double) {
        let withoutField = hasMagnetometer && sample.magneticField == nil
        state.withLock { state in
            state.counters.sampled += 1
            if withoutField { state.counters.sampledWithoutMagnetometer += 1 }
        }

        var fused: FusedMotion?
        if consumers.contains(where: \.needsFusion) {
            // The estimator runs on every sample; a new sample rate or chip filter starts a new one.
            let configuration = AttitudeEstimatorConfiguration(
                sampleInterval: sampleInterval, sensorLatency: device.sensorLatency, gyroscopeBiasRange: device.gyroscopeBiasRange)
            if ticks.fusion?.configuration != configuration {
                ticks.fusion = FusionState(configuration: configuration, estimator: makeEstimator(configuration))
                ticks.magnetic?.correction.restartStretch()   // unseen samples may lie before this one
            }
            if ticks.magnetic == nil, device.hasMagnetometer {
                ticks.magnetic = MagneticCalibrationState(background)
            }
            fused = ticks.fusion?.update(sample, &ticks.magnetic)
        } else {
            ticks.fusion = nil
        }

        for consumer in consumers {
            let due = consumer.lastDelivered.withLock { last in
                if let previous = last, sample.timestamp - previous < consumer.interval - sampleInterval / 2 { return false }
                last = sample.timestamp
                return true
            }
            if due { consumer.sink(.sample(sample, consumer.needsFusion ? fused : nil)) }
        }
    }

    /// A failed attempt of one sensor: a transient failure is just retried at the next tick; a
    /// burst means the chip may have lost power (it is set up again) and is one incident, reported
    /// once; then the sensor is backed off from.
    private func fail(_ error: MotionError, _ failures: inout FailureState, _ consumers: [Consumer], maximumBackoff: Int) {
        failures.consecutiveFailures += 1
        if failures.consecutiveFailures >= policy.failuresPerIncident { failures.isInitialized = false }
        if failures.inIncident {
            failures.backOff(maximum: maximumBackoff)
        } else if failures.consecutiveFailures >= policy.failuresPerIncident {
            let reported: MotionError = switch error {
            case .bus(let busError) where busError.kind == .noAcknowledge: .deviceUnavailable(busError)
            default: error
            }
            beginIncident(reported, &failures, consumers, backOff: true, maximumBackoff: maximumBackoff)
        }
    }

    /// An incident of one sensor, counted once and reported once to each consumer that uses it.
    private func beginIncident(_ error: MotionError, _ failures: inout FailureState, _ consumers: [Consumer], backOff: Bool, maximumBackoff: Int) {
        failures.inIncident = true
        if backOff { failures.backOff(maximum: maximumBackoff) }
        state.withLock { $0.counters.incidents += 1 }
        for consumer in consumers where consumer.sensors.contains(failures.sensor) { consumer.sink(.failure(error)) }
    }

    /// Waits until the sampler's queue has run everything given to it so far (tests).
    func flush() {
        queue.sync {}
    }

    /// Counts a sample lost after the sampler delivered it (e.g. a full stream buffer).
    func countDrop(_ reason: DropReason) {
        count(reason)
    }

    private func count(_ reason: DropReason) {
        state.withLock { $0.counters.dropped[reason, default: 0] += 1 }
    }
}
