import Locking
import Dispatch
import Fusion
import I2C
import Timing

/// What a consumer receives on the sampler queue (it hops to its own queue itself).
enum HubEvent: Sendable {
    case sample(MotionSample, FusedMotion?)
    /// To a step consumer instead of the sample: the step stage's state after it.
    case steps(StepSnapshot)
    case failure(MotionError)
}

/// One bus reader per device, shared by every consumer of it (several managers, several sensors),
/// each consumer at its own interval. The timer runs at the fastest interval asked for; the I/O
/// happens on the hub's own serial queue, never on a caller's queue.
///
/// The parts are values with tests of their own: the schedule (`SamplingSchedule`), each sensor's
/// fault policy (`SensorFaults`), FIFO mode's accounting (`FIFOAccounting`) and the fusion stage
/// (`FusionStage`). This class orchestrates them. What the tick changes lives on the hub's queue
/// alone (`dispatchPrecondition` checks it), so the device, the sinks and the attitude estimator
/// (perhaps the application's own) run under no lock of ours; a lock guards only what callers on
/// other threads touch: the consumer list, the schedule and the counters.
final class SensorHub: Sendable {
    let device: any MotionDevice
    let clock: any MotionClock
    let policy: SamplerPolicy
    /// Makes the fusion run on every sample while a consumer needs it.
    let makeEstimator: AttitudeEstimatorFactory
    /// The magnetometer's background calibration (its start and where it is saved; without one, a
    /// calibration from nothing that saves nowhere).
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
        /// The barometer, sampled by a hub of its own (``BarometerHub``).
        static let barometer = Sensors(rawValue: 1 << 2)
    }

    private final class Consumer: Sendable {
        let id: Int
        let interval: Double
        let needsFusion: Bool
        /// Given the step stage's snapshot (which then runs on every sample) instead of the sample.
        let needsSteps: Bool
        /// Counts with the IMU's own step counter (read a few times a second into the snapshots).
        let needsChipSteps: Bool
        let prefersFIFO: Bool
        let sensors: Sensors
        let sink: @Sendable (HubEvent) -> Void
        /// The timestamp of the last sample it was given: on the hub's queue only, like the tick's state.
        nonisolated(unsafe) var lastDelivered: Double?
        init(
            id: Int, interval: Double, needsFusion: Bool, needsSteps: Bool, needsChipSteps: Bool, prefersFIFO: Bool, sensors: Sensors,
            sink: @escaping @Sendable (HubEvent) -> Void
        ) {
            self.id = id
            self.interval = interval
            self.needsFusion = needsFusion
            self.needsSteps = needsSteps || needsChipSteps
            self.needsChipSteps = needsChipSteps
            self.prefersFIFO = prefersFIFO
            self.sensors = sensors.union(.imu)
            self.sink = sink
        }
    }

    typealias Mode = SamplingMode

    /// What callers on any thread add to and read: under `state`'s lock, never held while a sink,
    /// the device or the estimator runs.
    private struct State {
        /// An array, not a dictionary keyed by id: the tick copies it out of the lock every
        /// sample, and copying an array is a retain, not an allocation.
        var consumers: [Consumer] = []
        var nextID = 0
        var timer: (any MotionTimer)?
        var schedule = SamplingSchedule()
        var counters = SamplerCounters()
    }
    private let state = Locked(State())

    /// What the tick changes: on `queue` only (every access goes through `onQueue`), so no lock.
    private struct TickState {
        var imu = SensorFaults(.imu)
        var magnetometer = SensorFaults(.magnetometer)
        var fusion = FusionStage()
        var steps = StepStage()
        /// Whether the IMU's step counter was started since its last set-up, and when it was last read.
        var isChipStepCounterRunning = false
        var lastChipStepRead: Double?
        var isFIFORunning = false
        var fifo = FIFOAccounting()
        /// The samples of the last FIFO read: one array whose storage every read reuses.
        var fifoSamples: [MotionSample] = []
    }
    /// Unchecked exclusivity: the queue already serializes every access (and the runtime's dynamic
    /// check would cost on every sample).
    @exclusivity(unchecked) nonisolated(unsafe) private var ticks = TickState()

    /// `body` with the tick's state; on the hub's queue only.
    private func onQueue<Result, Failure: Error>(_ body: (inout TickState) throws(Failure) -> Result) throws(Failure) -> Result {
        dispatchPrecondition(condition: .onQueue(queue))
        return try body(&ticks)
    }

    /// - Parameters:
    ///   - makeEstimator: the fusion; nil for this library's ``AttitudeFilter``.
    ///   - background: the magnetometer's background calibration; nil for one from nothing that saves nowhere.
    init(
        device: any MotionDevice, clock: any MotionClock, policy: SamplerPolicy = SamplerPolicy(),
        makeEstimator: AttitudeEstimatorFactory? = nil, background: BackgroundCalibration? = nil
    ) {
        self.device = device
        self.clock = clock
        self.policy = policy
        self.makeEstimator = makeEstimator ?? .standard
        self.hasMagnetometer = device.hasMagnetometer
        self.background = background ?? BackgroundCalibration()
        self.queue = DispatchQueue(label: "swift-motion.sampler", qos: .userInteractive)
    }

    var counters: SamplerCounters { state.withLock { $0.counters } }

    /// How samples are taken now.
    var mode: Mode { state.withLock { $0.schedule.mode } }

    /// The shortest interval a consumer can get: a FIFO sample period, else a timer tick.
    var minimumInterval: Double {
        device.fifoRate.map { 1 / $0 } ?? 1 / device.maximumTimerRate
    }

    /// Adds a consumer; sampling speeds up if it asks for a shorter interval (through the FIFO
    /// below the timer's fastest tick, or whenever a consumer prefers it). `sensors`: the chips
    /// its values come from, whose incidents it hears of (the IMU's always). Returns its id.
    func addConsumer(
        interval: Double, needsFusion: Bool, needsSteps: Bool = false, needsChipSteps: Bool = false, prefersFIFO: Bool = false,
        sensors: Sensors, sink: @escaping @Sendable (HubEvent) -> Void
    ) -> Int {
        let interval = max(interval, minimumInterval)
        return state.withLock { state in
            state.nextID += 1
            state.consumers.append(Consumer(
                id: state.nextID, interval: interval, needsFusion: needsFusion, needsSteps: needsSteps, needsChipSteps: needsChipSteps,
                prefersFIFO: prefersFIFO, sensors: sensors, sink: sink))
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
        let schedule = SamplingSchedule.plan(
            intervals: state.consumers.map(\.interval), prefersFIFO: state.consumers.contains(where: \.prefersFIFO),
            maximumTimerRate: device.maximumTimerRate, fifoRate: device.fifoRate, policy: policy)
        guard schedule.mode != state.schedule.mode else { return }
        state.timer?.cancel()
        state.timer = nil
        if state.schedule.mode.isFIFO, schedule.mode == .idle {
            // On the sampler's queue, after any tick in flight: the device lets go of its FIFO and
            // the next FIFO start begins afresh (the idle time is no gap in anyone's stream).
            queue.async { self.stopFIFO() }
        }
        state.schedule = schedule
        guard schedule.tick > 0 else { return }
        state.timer = clock.scheduleTicks(every: schedule.tick, on: queue) { [weak self] in self?.tick(skipped: $0) }
    }

    private func stopFIFO() {
        onQueue { ticks in
            ticks.fifo.reset()
            guard ticks.isFIFORunning else { return }
            ticks.isFIFORunning = false
            device.stopFIFO()
        }
    }

    // MARK: - The tick (on `queue`)

    private func tick(skipped: Int) {
        let (consumers, schedule) = state.withLock { ($0.consumers, $0.schedule) }
        guard !consumers.isEmpty else { return }
        let mode = schedule.mode
        // In FIFO mode a late read loses nothing: the chip kept the samples (an overflow or a
        // restart shows up as a gap in its clock, counted when the next sample arrives).
        if skipped > 0, !mode.isFIFO { count(.late, skipped) }
        onQueue { ticks in
            let now = clock.now
            if mode.isFIFO { ticks.fifo.ticked(at: now) }
            if ticks.imu.skipsTick() {
                // Backing off from an IMU that stopped answering. In FIFO mode its FIFO will be
                // started afresh: every period up to now is lost, counted as the outage goes on.
                if mode.isFIFO {
                    count(.deviceUnavailable, ticks.fifo.outage(through: now, period: mode.sampleInterval))
                } else {
                    count(.deviceUnavailable)
                }
                return
            }
            do throws(MotionError) {
                if !ticks.imu.isInitialized {
                    // Retried within the tick like a read: one failed transaction of a stuttering
                    // bus does not cost a set-up the whole tick (and, in an incident, a backoff).
                    try retryingOnce { () throws(MotionError) in try device.initialize() }
                    ticks.imu.initialized()
                    // A chip the IMU's set-up gates (a magnetometer behind its I2C bypass, or on
                    // the same power) is set up again after it too.
                    ticks.magnetometer.isInitialized = false
                    if ticks.isFIFORunning { ticks.fifo.gapReason = ticks.fifo.gapReason ?? .resetByRecovery }
                    ticks.isFIFORunning = false
                    ticks.isChipStepCounterRunning = false
                }
                if ticks.imu.checkIsDue(every: policy.ticksPerConfigurationCheck), try !device.isStillConfigured() {
                    imuWasReset(&ticks, consumers, mode: mode, now: now)
                    return
                }
                try followChipSteps(&ticks, consumers, now: now)
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
                        imuWasReset(&ticks, consumers, mode: mode, now: now)
                        return
                    }
                    // The driver restarted an overflowed FIFO: the gap is counted at the next sample.
                    if lost > 0 { ticks.fifo.gapReason = .fifoOverflow }
                    recovered(&ticks.imu)
                    if device.readsMagnetometerSeparately, let reading = readMagnetometer(&ticks, consumers, schedule: schedule) {
                        for index in ticks.fifoSamples.indices { ticks.fifoSamples[index].setMagnetometer(reading) }
                    }
                    for sample in ticks.fifoSamples {
                        if let gap = ticks.fifo.gap(before: sample.timestamp, period: mode.sampleInterval) { count(gap.reason, gap.count) }
                        deliver(sample, &ticks, consumers, sampleInterval: mode.sampleInterval)
                    }
                } else {
                    ticks.isFIFORunning = false
                    ticks.fifo.reset()
                    var sample = try retryingOnce { () throws(MotionError) in try device.read(at: clock.now) }
                    recovered(&ticks.imu)
                    if device.readsMagnetometerSeparately { sample.setMagnetometer(readMagnetometer(&ticks, consumers, schedule: schedule)) }
                    deliver(sample, &ticks, consumers, sampleInterval: mode.sampleInterval)
                }
            } catch {
                // Timer: this tick's sample is lost. FIFO: a failed read loses nothing while the
                // samples wait in the chip for the next read; once the IMU must be set up again its
                // FIFO restarts, so what it held and every period until it answers are lost,
                // counted from then on as they pass.
                if !mode.isFIFO { count(.busError) }
                fail(error, &ticks.imu, consumers, schedule: schedule)
                if mode.isFIFO, !ticks.imu.isInitialized {
                    let heldSamples = ticks.imu.consecutiveFailures == policy.failuresPerIncident
                    count(heldSamples ? .resetByRecovery : .busError, ticks.fifo.outage(through: now, period: mode.sampleInterval))
                }
            }
        }
    }

    /// Reads the IMU's step counter every ``ChipStepFollower/readInterval`` while a consumer counts
    /// with it (starting it first after each set-up of the IMU), into the step stage. The reads
    /// fall at the first tick of each whole interval of the sampler's clock, not an interval after
    /// the first read: when the steps are timed (to the read) does not depend on the tick at which
    /// the consumer happened to arrive (a second pedometer started beside a first one printed its
    /// steps 10 ms apart from run to run).
    private func followChipSteps(_ ticks: inout TickState, _ consumers: [Consumer], now: Double) throws(MotionError) {
        guard consumers.contains(where: \.needsChipSteps), let feature = device.stepCounter else {
            if ticks.lastChipStepRead != nil { ticks.steps.stopChip() }
            ticks.lastChipStepRead = nil
            return
        }
        if !ticks.isChipStepCounterRunning {
            try device.startStepCounter()
            ticks.isChipStepCounterRunning = true
        }
        if let last = ticks.lastChipStepRead, Self.readSlot(now) <= Self.readSlot(last) { return }
        let raw = try device.readStepCounter()
        ticks.lastChipStepRead = now
        ticks.steps.chipReading(raw, feature: feature, at: now)
    }

    /// The whole ``ChipStepFollower/readInterval`` of the sampler's clock that `time` (s) lies in
    /// (a microsecond early: a tick computed as 13.3 may read 13.299999…).
    private static func readSlot(_ time: Double) -> Double {
        ((time + 1e-6) / ChipStepFollower.readInterval).rounded(.down)
    }

    /// The IMU was found reset (its configuration lost): set up again at the next tick, one
    /// incident. Timer: this tick's sample is not trusted. FIFO: what the FIFO held is gone, so
    /// the periods up to now are counted lost with the reset, the rest of the gap at the next sample.
    private func imuWasReset(_ ticks: inout TickState, _ consumers: [Consumer], mode: Mode, now: Double) {
        if mode.isFIFO {
            ticks.fifo.gapReason = .deviceReset
            count(.deviceReset, ticks.fifo.outage(through: now, period: mode.sampleInterval))
        } else {
            count(.deviceReset)
        }
        ticks.imu.lostConfiguration()
        report(.deviceReset("\(device.name) lost its configuration"), of: .imu, consumers)
    }

    /// The magnetometer's reading for this tick, tried on its own fault state: nil while it is
    /// out (the IMU's samples go on without a field and the fusion runs 6D), set up again and
    /// backed off from like the IMU, one error per incident to the consumers that use its field.
    private func readMagnetometer(_ ticks: inout TickState, _ consumers: [Consumer], schedule: SamplingSchedule) -> MagnetometerReading? {
        guard !ticks.magnetometer.skipsTick() else { return nil }
        do throws(MotionError) {
            if !ticks.magnetometer.isInitialized {
                try device.initializeMagnetometer()
                ticks.magnetometer.initialized()
            }
            if ticks.magnetometer.checkIsDue(every: policy.ticksPerConfigurationCheck), try !device.isMagnetometerStillConfigured() {
                ticks.magnetometer.lostConfiguration()
                report(.deviceReset("the magnetometer of \(device.name) lost its configuration"), of: .magnetometer, consumers)
                return nil
            }
            let reading = try retryingOnce { () throws(MotionError) in try device.readMagnetometer() }
            recovered(&ticks.magnetometer)
            return reading
        } catch {
            fail(error, &ticks.magnetometer, consumers, schedule: schedule)
            return nil
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

    /// A read of the sensor worked: an incident of it in progress is over.
    private func recovered(_ faults: inout SensorFaults) {
        if faults.succeeded() { state.withLock { $0.counters.recovered += 1 } }
    }

    /// A failed attempt of one sensor, through its fault policy: an incident it begins is reported.
    private func fail(_ error: MotionError, _ faults: inout SensorFaults, _ consumers: [Consumer], schedule: SamplingSchedule) {
        if let reported = faults.failed(error, policy: policy, maximumBackoff: schedule.maximumBackoffTicks, fullRateRetries: schedule.fullRateRetryTicks) {
            report(reported, of: faults.sensor, consumers)
        }
    }

    /// An incident of one sensor, counted once and reported once to each consumer that uses it.
    private func report(_ error: MotionError, of sensor: Sensors, _ consumers: [Consumer]) {
        state.withLock { $0.counters.incidents += 1 }
        for consumer in consumers where consumer.sensors.contains(sensor) { consumer.sink(.failure(error)) }
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
            fused = ticks.fusion.fuse(
                sample, configuration: configuration, makeEstimator: makeEstimator, background: background, hasMagnetometer: hasMagnetometer)
        } else {
            ticks.fusion.stop()
        }

        // The step detector and activity classifier see every sample, not only those due to a consumer.
        var steps: StepSnapshot?
        if consumers.contains(where: \.needsSteps) {
            steps = ticks.steps.update(sample)
        } else {
            ticks.steps.stop()
        }

        for consumer in consumers {
            guard SamplingSchedule.isDue(sample.timestamp, last: consumer.lastDelivered, interval: consumer.interval, sampleInterval: sampleInterval) else { continue }
            consumer.lastDelivered = sample.timestamp
            if consumer.needsSteps, let steps {
                consumer.sink(.steps(steps))
            } else {
                consumer.sink(.sample(sample, consumer.needsFusion ? fused : nil))
            }
        }
    }

    /// Waits until the sampler's queue has run everything given to it so far (tests).
    func flush() {
        queue.sync {}
    }

    /// Counts a sample lost after the sampler delivered it (e.g. a full stream buffer).
    func countDrop(_ reason: DropReason) {
        count(reason)
    }

    private func count(_ reason: DropReason, _ samples: Int = 1) {
        guard samples > 0 else { return }
        state.withLock { $0.counters.dropped[reason, default: 0] += samples }
    }
}
