import Fusion
import Locking

/// An activity as the engine records it: what, how sure, since when (s, monotonic).
struct ActivityRecord: Sendable, Equatable {
    var kind: ActivityClassifier.Kind
    var confidence: ActivityClassifier.Confidence
    var start: Double
}

/// Where a pedometer's updates stand: cumulative since `from` (s, monotonic).
struct StepProgress: Sendable, Equatable {
    var from: Double
    /// The last sample's time.
    var to: Double
    var steps: Int
    /// Seconds walked in `[from, to]` (gaps between steps over the detector's longest step left out).
    var activeTime: Double
    /// Steps a second now; nil while not walking.
    var cadence: Double?
}

/// A walk paused (its last step's time) or resumed (its first step's time), s, monotonic.
struct WalkEvent: Sendable, Equatable {
    var resumed: Bool
    var time: Double
}

/// One step consumer on a sampler, for a `Pedometer` or a `MotionActivityManager`: counts from
/// its creation until it goes, keeps the history queries read (`StepHistory`, the activities),
/// and hands updates to the deliveries its owner starts. Its sink runs on the sampler's queue:
/// it records under its lock (no allocation) and sends outside it; no handler runs there.
final class StepTracker: Sendable {
    let hub: SensorHub
    /// The detector's longest step: a longer gap between steps is a pause.
    static let maximumStepInterval = StepDetector.Parameters().maximumInterval
    /// How often the sink is given a snapshot (the stage itself sees every sample).
    static let interval = 0.01

    private struct Session {
        var progress: StepProgress
        var lastStep: Double?
        let delivery: Delivery<StepProgress>
    }

    private struct State {
        var consumerID: Int?
        /// The stage's count at the last snapshot (nil before the first).
        var lastSteps: Int?
        var history = StepHistory()
        var activities = ActivityHistory<ActivityRecord>()
        var now = 0.0
        var walking = false
        var lastStep: Double?
        var session: Session?
        var events: Delivery<WalkEvent>?
        var activityUpdates: Delivery<ActivityRecord>?
    }
    private let state = Locked(State())
    /// Serialises starts and stops (held while a replaced delivery is deactivated, never while a
    /// handler runs).
    private let lifecycle = Locked(0)

    /// - Parameter countsOnChip: the steps from the IMU's own step counter (the device has one)
    ///   instead of the step detector's; activity comes from the detector either way.
    init(hub: SensorHub, countsOnChip: Bool = false) {
        self.hub = hub
        let id = hub.addConsumer(interval: Self.interval, needsFusion: false, needsSteps: true, needsChipSteps: countsOnChip, sensors: .imu) {
            [state] event in
            Self.receive(event, state, countsOnChip: countsOnChip)
        }
        state.withLock { $0.consumerID = id }
    }

    deinit {
        let (id, deliveries) = state.withLock { state in
            (state.consumerID, (state.session?.delivery, state.events, state.activityUpdates))
        }
        if let id { hub.removeConsumer(id) }
        deliveries.0?.deactivate()
        deliveries.1?.deactivate()
        deliveries.2?.deactivate()
    }

    /// On the sampler's queue.
    private static func receive(_ event: HubEvent, _ state: Locked<State>, countsOnChip: Bool) {
        switch event {
        case .steps(var snapshot):
            if countsOnChip {
                // The chip's count, times and pace in place of the detector's (nothing before its first reading).
                let chip = snapshot.chip ?? ChipStepFollower.Progress()
                snapshot.steps = chip.steps
                snapshot.lastStepTime = chip.lastStepTime
                snapshot.stepInterval = chip.stepInterval
                snapshot.isWalking = chip.isWalking
            }
            var progress: (Delivery<StepProgress>, StepProgress)?
            var walk: (Delivery<WalkEvent>, WalkEvent)?
            var activity: (Delivery<ActivityRecord>, ActivityRecord)?
            state.withLock { state in
                state.now = snapshot.timestamp
                let added = state.lastSteps.map { snapshot.steps - $0 } ?? 0
                state.lastSteps = snapshot.steps
                if added > 0, let last = snapshot.lastStepTime {
                    // Steps back-filled when the walking gate opened lie one interval apart before the last.
                    for index in 0..<added {
                        let time = last - Double(added - 1 - index) * snapshot.stepInterval
                        state.history.append(time)
                        if var session = state.session, time >= session.progress.from {
                            session.progress.steps += 1
                            if let previous = session.lastStep, time - previous <= maximumStepInterval {
                                session.progress.activeTime += time - previous
                            }
                            session.lastStep = time
                            state.session = session
                        }
                    }
                    state.lastStep = last
                }
                if var session = state.session {
                    session.progress.to = snapshot.timestamp
                    session.progress.cadence = snapshot.cadence
                    state.session = session
                    if added > 0 { progress = (session.delivery, session.progress) }
                }
                if snapshot.isWalking != state.walking {
                    state.walking = snapshot.isWalking
                    let first = (snapshot.lastStepTime ?? snapshot.timestamp) - Double(max(0, added - 1)) * snapshot.stepInterval
                    let event = WalkEvent(resumed: snapshot.isWalking, time: snapshot.isWalking ? first : state.lastStep ?? snapshot.timestamp)
                    if let events = state.events { walk = (events, event) }
                }
                let record = ActivityRecord(kind: snapshot.activity, confidence: snapshot.confidence, start: snapshot.activityStart)
                if state.activities.last != record, state.activities.last != nil || record.kind != .unknown {
                    state.activities.append(record)
                    if let updates = state.activityUpdates { activity = (updates, record) }
                }
            }
            if let (delivery, value) = progress { delivery.send(value, nil) }
            if let (delivery, value) = walk { delivery.send(value, nil) }
            if let (delivery, value) = activity { delivery.send(value, nil) }
        case .failure(let error):
            let (session, events) = state.withLock { ($0.session?.delivery, $0.events) }
            session?.send(nil, error)
            events?.send(nil, error)
        case .sample:
            return
        }
    }

    // MARK: - Pedometer updates

    /// Starts updates cumulative since `from` (s, monotonic): the steps already counted since then
    /// first, then each new one. Replaces a running start.
    func startUpdates(from: Double, delivery: Delivery<StepProgress>) {
        lifecycle.withLock { _ in
            let (replaced, first) = state.withLock { state -> (Delivery<StepProgress>?, StepProgress) in
                let now = state.now
                let progress = StepProgress(
                    from: from, to: now, steps: state.history.steps(from: from, to: .infinity, now: now),
                    activeTime: state.history.activeTime(from: from, to: .infinity, now: now, maximumInterval: Self.maximumStepInterval),
                    cadence: nil)
                let replaced = state.session?.delivery
                state.session = Session(progress: progress, lastStep: state.history.count > 0 ? state.lastStep : nil, delivery: delivery)
                return (replaced, progress)
            }
            replaced?.deactivate()
            if first.steps > 0 { delivery.send(first, nil) }
        }
    }

    /// No update handler starts after it returns (one running may finish).
    func stopUpdates() {
        lifecycle.withLock { _ in
            let replaced = state.withLock { state -> Delivery<StepProgress>? in
                defer { state.session = nil }
                return state.session?.delivery
            }
            replaced?.deactivate()
        }
    }

    func startEvents(_ delivery: Delivery<WalkEvent>) {
        lifecycle.withLock { _ in
            let replaced = state.withLock { state -> Delivery<WalkEvent>? in
                defer { state.events = delivery }
                return state.events
            }
            replaced?.deactivate()
        }
    }

    func stopEvents() {
        lifecycle.withLock { _ in
            let replaced = state.withLock { state -> Delivery<WalkEvent>? in
                defer { state.events = nil }
                return state.events
            }
            replaced?.deactivate()
        }
    }

    /// Steps and walking time in `[from, to)` (s, monotonic) from the history, and the time of
    /// the last sample.
    func query(from: Double, to: Double) -> (steps: Int, activeTime: Double, now: Double) {
        state.withLock { state in
            (state.history.steps(from: from, to: to, now: state.now),
             state.history.activeTime(from: from, to: to, now: state.now, maximumInterval: Self.maximumStepInterval),
             state.now)
        }
    }

    /// The oldest step the history still holds and how long it answers for.
    var historyBounds: (oldest: Double?, maximumAge: Double) { state.withLock { ($0.history.oldest, $0.history.maximumAge) } }

    // MARK: - Activity

    /// Starts activity updates: the current activity first (when there is one), then each change.
    func startActivityUpdates(_ delivery: Delivery<ActivityRecord>) {
        lifecycle.withLock { _ in
            let (replaced, current) = state.withLock { state -> (Delivery<ActivityRecord>?, ActivityRecord?) in
                defer { state.activityUpdates = delivery }
                return (state.activityUpdates, state.activities.last)
            }
            replaced?.deactivate()
            if let current { delivery.send(current, nil) }
        }
    }

    func stopActivityUpdates() {
        lifecycle.withLock { _ in
            let replaced = state.withLock { state -> Delivery<ActivityRecord>? in
                defer { state.activityUpdates = nil }
                return state.activityUpdates
            }
            replaced?.deactivate()
        }
    }

    /// The activities that began in `[from, to)`, with the one going on at `from` first (s, monotonic).
    func activities(from: Double, to: Double) -> [ActivityRecord] {
        let all = state.withLock { $0.activities.all }
        var result: [ActivityRecord] = []
        if let before = all.last(where: { $0.start < from }) { result.append(before) }
        result += all.filter { $0.start >= from && $0.start < to }
        return result
    }

    /// The activity now, nil before the first.
    var currentActivity: ActivityRecord? { state.withLock { $0.activities.last } }

    /// Waits until the sampler's queue has handed over everything so far (tests, queries).
    func flush() { hub.flush() }

    /// Waits until no handler of the current deliveries is running.
    func waitUntilHandlersFinish() {
        let (updates, events, activities) = state.withLock { ($0.session?.delivery.activity, $0.events?.activity, $0.activityUpdates?.activity) }
        updates?.waitUntilIdle()
        events?.waitUntilIdle()
        activities?.waitUntilIdle()
    }
}
