/// Says whether the person carrying the board is still, walking or running, from the step
/// detector's state and the acceleration's magnitude, causally and without allocating.
///
/// - **Walking / running:** while the step detector's walking gate is open (five steps in a row
///   at a walking rhythm, `StepDetector`). Running where the cadence is at least
///   `Parameters.runningCadence` steps a second, or the steps' impacts (the detector's
///   `peakLevel`, the band-passed magnitude's mean lobe height) reach `Parameters.runningIntensity`.
///   The activity starts at the gate's first step.
/// - **Stationary:** not walking, the magnitude's standard deviation (over about a second,
///   `Parameters.deviationTimeConstant`) below `Parameters.restDeviation` and the rotation rate's
///   smoothed magnitude below `Parameters.restRotation`, for `Parameters.restTime` seconds: a
///   board lying still, or held still (turning it in the hand is not still, though its
///   acceleration's magnitude hardly changes). It starts where the quiet began.
/// - **Unknown:** anything else (handled, shaken, carried in a vehicle, the first steps of a walk).
///
/// Confidence grows with the time the activity has held since its start: `low`, then `medium`
/// after `Parameters.mediumAfter` seconds, `high` after `Parameters.highAfter`. `unknown` stays
/// `low`.
package struct ActivityClassifier: Sendable {
    package enum Kind: UInt8, Sendable, Equatable {
        case unknown, stationary, walking, running
    }

    package enum Confidence: Int, Sendable, Comparable {
        case low = 0, medium = 1, high = 2
        package static func < (a: Confidence, b: Confidence) -> Bool { a.rawValue < b.rawValue }
    }

    package struct Parameters: Sendable, Equatable {
        /// Steps a second from which a walk is a run (150 a minute).
        package var runningCadence: Double = 2.5
        /// Mean impact height (g, band-passed magnitude) from which a walk is a run.
        package var runningIntensity: Double = 0.8
        /// The magnitude's standard deviation under which the board is still, g.
        package var restDeviation: Double = 0.01
        /// The rotation rate's smoothed magnitude under which the board is still, rad/s (8.6 °/s:
        /// over an uncalibrated MEMS gyroscope's bias, under a slow turn in the hand).
        package var restRotation: Double = 0.15
        /// How long both must stay under them, s.
        package var restTime: Double = 2
        /// Time constant of the magnitude's mean and variance, s.
        package var deviationTimeConstant: Double = 1
        /// Seconds an activity holds before its confidence is medium, and high.
        package var mediumAfter: Double = 5
        package var highAfter: Double = 15

        package init() {}
    }

    package let parameters: Parameters
    package private(set) var kind = Kind.unknown
    package private(set) var confidence = Confidence.low
    /// When the current activity began (the timestamps' clock).
    package private(set) var start = 0.0

    private var lastTimestamp: Double?
    private var mean = 0.0
    private var variance = 0.0
    private var rotation = 0.0
    /// When the magnitude last became quiet, nil while it is not.
    private var quietSince: Double?

    package init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// One sample after the detector took it: acceleration in g and rotation rate in rad/s (only
    /// their magnitudes are used; zero rotation for a board without a gyroscope), its timestamp
    /// (s). Returns true when the activity or its confidence changed.
    @discardableResult
    package mutating func update(
        acceleration a: SIMD3<Double>, rotationRate w: SIMD3<Double> = .zero, timestamp t: Double, detector: StepDetector
    ) -> Bool {
        let magnitude = (a * a).sum().squareRoot()
        guard magnitude.isFinite, t.isFinite else { return false }
        guard let previous = lastTimestamp else {
            lastTimestamp = t
            mean = magnitude
            start = t
            return false
        }
        let dt = t - previous
        guard dt > 0 else { return false }
        lastTimestamp = t
        let gain = min(dt, 0.1) / (parameters.deviationTimeConstant + min(dt, 0.1))
        let deviation = magnitude - mean
        mean += deviation * gain
        variance += (deviation * deviation - variance) * gain
        let turning = (w * w).sum().squareRoot()
        if turning.isFinite { rotation += (turning - rotation) * gain }
        let quiet = variance.squareRoot() < parameters.restDeviation && rotation < parameters.restRotation
        if quiet { quietSince = quietSince ?? t } else { quietSince = nil }

        var next = Kind.unknown
        var nextStart = t
        if detector.isWalking, let cadence = detector.cadence {
            let runs = cadence >= parameters.runningCadence || detector.peakLevel >= parameters.runningIntensity
            next = runs ? .running : .walking
            let walkStart = (detector.lastStepTime ?? t) - Double(detector.stepsInWalk - 1) * detector.meanStepInterval
            nextStart = walkStart
        } else if let quietSince, t - quietSince >= parameters.restTime {
            next = .stationary
            nextStart = quietSince
        }
        var changed = false
        if next != kind {
            // Walking and running are one walk: a change between them starts where it changed.
            let sameWalk = (next == .walking || next == .running) && (kind == .walking || kind == .running)
            kind = next
            start = sameWalk ? t : nextStart
            confidence = .low
            changed = true
        }
        let held = t - start
        let level: Confidence = kind == .unknown ? .low
            : held >= parameters.highAfter ? .high : held >= parameters.mediumAfter ? .medium : .low
        if level != confidence {
            confidence = level
            changed = true
        }
        return changed
    }
}
