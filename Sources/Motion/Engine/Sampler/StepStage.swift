import Fusion
import Sensors

/// What the step stage says after one sample: the step detector's and the activity classifier's
/// state, cumulative, so a consumer that is given only some samples misses nothing.
struct StepSnapshot: Sendable, Equatable {
    /// The sample's timestamp (s, monotonic).
    var timestamp: Double
    /// Steps counted since the stage started (it runs while any step consumer is present).
    var steps: Int
    /// The last counted step's time, nil before any.
    var lastStepTime: Double?
    /// The walk's mean step interval, s (0 before two steps).
    var stepInterval: Double
    /// Whether the detector's walking gate is open.
    var isWalking: Bool
    var activity: ActivityClassifier.Kind
    var confidence: ActivityClassifier.Confidence
    /// When the current activity began (s, monotonic).
    var activityStart: Double
    /// The IMU's own step counter, while a consumer counts with it (nil otherwise).
    var chip: ChipStepFollower.Progress? = nil

    /// Steps a second over the recent walk, nil while not walking.
    var cadence: Double? { isWalking && stepInterval > 0 ? 1 / stepInterval : nil }
}

/// The step stage of the tick: the step detector and the activity classifier on every sample the
/// sampler takes, while a step consumer (a `Pedometer`, a `MotionActivityManager`) is present,
/// whatever interval its handlers run at. The acceleration's magnitude (and, for stillness, the
/// rotation rate's) is all they use, so the board may be held any way and turned at will; the
/// fused gravity is not needed. Lives on
/// the sampler's queue; O(1) and no allocation per sample. Its consumers ask for 100 Hz, the
/// timer's fastest: at 50 Hz a finger's taps (40 ms) alias into the gait's band and count.
struct StepStage {
    private var detector: StepDetector?
    private var classifier = ActivityClassifier()
    /// The IMU's step counter, followed while a consumer counts with it.
    private var chip: ChipStepFollower?

    /// A reading of the IMU's step counter (the sampler's, a few times a second): the next
    /// snapshots carry it. The first reading after ``stopChip()`` is the starting point.
    mutating func chipReading(_ raw: Int, feature: StepCounterFeature, at time: Double) {
        if chip == nil { chip = ChipStepFollower(feature: feature, maximumStepInterval: StepDetector.Parameters().maximumInterval) }
        chip?.take(raw, at: time)
    }

    /// No consumer counts with the chip any more.
    mutating func stopChip() {
        chip = nil
    }

    /// One sample through the detector, then the classifier.
    mutating func update(_ sample: MotionSample) -> StepSnapshot {
        if detector == nil {
            detector = StepDetector()
            classifier = ActivityClassifier()
        }
        detector?.add(acceleration: sample.acceleration, timestamp: sample.timestamp)
        let detector = self.detector ?? StepDetector()
        classifier.update(acceleration: sample.acceleration, rotationRate: sample.rotationRate, timestamp: sample.timestamp, detector: detector)
        return StepSnapshot(
            timestamp: sample.timestamp, steps: detector.steps, lastStepTime: detector.lastStepTime,
            stepInterval: detector.meanStepInterval, isWalking: detector.isWalking, activity: classifier.kind,
            confidence: classifier.confidence, activityStart: classifier.start, chip: chip?.progress)
    }

    /// No step consumer: the detector goes (the next one starts from zero).
    mutating func stop() {
        detector = nil
    }
}
