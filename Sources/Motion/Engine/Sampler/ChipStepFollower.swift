import Sensors

/// Steps as the IMU's own step counter gives them: its raw readings, ten a second, turned into
/// steps since the follower started, and a walk's pace from when the count moves (the chip says
/// how many, not when: each reading's new steps are dated at the reading, spread one step
/// interval apart before it). The pace is the time over the last eight readings that moved,
/// divided by the steps they added (none before five): a reading dates a step to within its
/// interval (0.1 s), so over eight steps the interval is within about 3 %.
struct ChipStepFollower: Sendable, Equatable {
    /// Where the steps stand after the last reading.
    struct Progress: Sendable, Equatable {
        /// Steps since the follower started.
        var steps = 0
        /// The last counted step's time (s, monotonic), nil before any.
        var lastStepTime: Double?
        /// The mean step interval, s (0 before two readings that moved).
        var stepInterval = 0.0
        /// Whether a step came within the detector's longest step (and a reading's interval).
        var isWalking = false
    }

    let feature: StepCounterFeature
    /// The longest step of a walk, s (``StepDetector/Parameters/maximumInterval``).
    let maximumStepInterval: Double
    /// How often the sampler reads the counter, s.
    static let readInterval = 0.1
    /// The most steps a second anyone takes (a sprint's cadence is under 5): a larger jump between
    /// readings is a counter that started again from 0 (the chip was reset).
    static let fastestCadence = 6.0

    private(set) var progress = Progress()
    private var lastRaw: Int?
    private var lastReading: Double?
    /// The last eight readings that moved within this walk: their times and the steps counted
    /// by then, in a ring (`moved` of them, the next written at `slot`).
    private var movedTimes = SIMD8<Double>()
    private var movedSteps = SIMD8<Double>()
    private var moved = 0
    private var slot = 0

    init(feature: StepCounterFeature, maximumStepInterval: Double) {
        self.feature = feature
        self.maximumStepInterval = maximumStepInterval
    }

    /// One reading of the counter, `raw`, taken at `time` (s, monotonic).
    mutating func take(_ raw: Int, at time: Double) {
        defer {
            lastRaw = raw
            lastReading = time
            if let last = progress.lastStepTime { progress.isWalking = time - last <= maximumStepInterval + Self.readInterval }
        }
        guard let previous = lastRaw, let previousTime = lastReading else { return }
        var added = feature.steps(from: previous, to: raw)
        let plausible = Int(((time - previousTime) * Self.fastestCadence).rounded(.up)) + feature.debounceSteps
        if added > plausible {
            // The counter started again (a reset of the chip): what it holds came since.
            added = raw < previous ? raw : 0
        }
        guard added > 0 else { return }
        let sameWalk = progress.lastStepTime.map { time - $0 <= maximumStepInterval + Self.readInterval } ?? false
        progress.steps += added
        progress.lastStepTime = time
        // A new walk, or the debounce's steps added at once: the pace is timed from here, and
        // unknown until five readings have moved.
        if !sameWalk || added > 3 {
            moved = 0
            progress.stepInterval = 0
        }
        movedTimes[slot] = time
        movedSteps[slot] = Double(progress.steps)
        slot = (slot + 1) % 8
        moved = min(moved + 1, 8)
        guard moved >= 5 else { return }
        let oldest = (slot + 8 - moved) % 8
        let newest = (slot + 7) % 8
        progress.stepInterval = (movedTimes[newest] - movedTimes[oldest]) / (movedSteps[newest] - movedSteps[oldest])
    }
}
