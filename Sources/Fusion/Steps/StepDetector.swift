/// Counts steps from acceleration alone, causally, in O(1) time and no allocation per sample.
///
/// The method is the windowed peak detection with thresholds and a minimum step interval that
/// Brajdic & Harle compare ("Walk detection and step counting on unconstrained smartphones",
/// UbiComp 2013, §4.2 "windowed peak detection" and §4.1's smoothing), on the acceleration's
/// magnitude, which does not depend on how the board is held:
///
/// 1. `|a|` (g) less its own slow mean (time constant `Parameters.meanTimeConstant`): gravity and
///    any offset gone, the body's bounce left.
/// 2. Two first-order low passes at `Parameters.cutoff` band-limit it to the gait's band.
/// 3. Each lobe of that signal above zero that rises over `Parameters.peakThreshold`, and over
///    `Parameters.relativeThreshold` times the mean height of the same foot's recent candidates
///    (every other one: an arm swinging with one leg's stride halves the other foot's), gives one
///    candidate step at its highest sample, taken when the signal falls below zero again; a
///    candidate closer than `Parameters.minimumInterval` to the one before is not a step of its own,
///    nor, while walking, one closer than `Parameters.shortestStepFraction` of the walk's mean step.
/// 4. **The walking gate** (our rule, so that nothing counts where nobody walks): candidates count
///    only once `Parameters.gateSteps` of them follow each other at intervals between
///    `minimumInterval` and `maximumInterval`, each interval within `Parameters.intervalTolerance`
///    (a fraction) of the one before or of the one before that (a phone in a back pocket sees
///    one leg's steps long and the other's short: 0.41 s, 0.63 s, 0.41 s, …); then all of them count at once (back-filled) and every
///    further candidate counts while they keep coming within `maximumInterval`. A gap longer than
///    that ends the walk, and the gate closes again. Before the gate opens, a candidate too soon
///    after the one before (a shake, a tap's ringing) starts the run again.
/// 5. **A missed step** (with `Parameters.fillsMissedSteps`, off by default): while walking, a candidate whose
///    interval is as long (±15 %) as the two counted before it together, a stride, counts as two
///    steps, the one between too weak to see (the phone swung in the hand weakens one foot's
///    impacts). A stride, not twice the mean step: a back pocket's steps alternate 0.47 s and
///    0.70 s, and the long one is not a gap. Decided at the candidate after the gap, so it stays
///    causal; it never opens the gate, and a step counted so is not followed by another.
///
/// Timestamps drive every time constant, so any rate works (the filters take the interval of
/// each sample); a sample whose timestamp does not advance is skipped.
package struct StepDetector: Sendable {
    package struct Parameters: Sendable, Equatable {
        /// Cut-off of the two low passes, Hz.
        package var cutoff: Double = 3
        /// Height a lobe must rise to, g.
        package var peakThreshold: Double = 0.03
        /// Height a lobe must rise to as a fraction of the recent candidates' mean height (0: off),
        /// so that a soft walker's steps count and a hard walker's bounces between them do not.
        package var relativeThreshold: Double = 0.3
        /// Shortest step, s (3.3 steps a second: a run).
        package var minimumInterval: Double = 0.3
        /// Longest step of a walk, s.
        package var maximumInterval: Double = 1.3
        /// Candidates in a row, at consistent intervals, before any counts.
        package var gateSteps: Int = 5
        /// How far one interval may differ from the one before, a fraction of it.
        package var intervalTolerance: Double = 0.4
        /// The magnitude's slow mean, s.
        package var meanTimeConstant: Double = 1
        /// Whether a gap of two step intervals in a walk counts the step missed in it (step 5).
        /// Off: cross-validated by volunteer on the Oxford traces it does not help as recorded and
        /// costs at 100 Hz, the library's rate (docs/steps.md, "The missed-step rule").
        package var fillsMissedSteps = false
        /// While walking, a candidate sooner than this fraction of the walk's mean step interval
        /// after the last is not a step (step 3): half, because no walk's step halves from one
        /// step to the next (a walk breaking into a run at once, 1.6 → 3 steps a second, shortens
        /// it to 0.53 of the walk's), while a bounce or an arm's swing between two steps does.
        package var shortestStepFraction = 0.5

        package init() {}
    }

    package let parameters: Parameters
    /// Steps counted so far.
    package private(set) var steps = 0
    /// Whether the gate is open: candidates are counting as steps.
    package private(set) var isWalking = false
    /// The last counted step's time (the timestamps' clock), or nil before any.
    package private(set) var lastStepTime: Double?
    /// A running mean of the intervals between counted steps, s (0 before two steps).
    package private(set) var meanStepInterval: Double = 0
    /// Steps counted in the current walk (0 while not walking).
    package private(set) var stepsInWalk = 0

    private var lastTimestamp: Double?
    private var mean = 0.0
    private var low1 = 0.0
    private var low2 = 0.0
    private var lobeActive = false
    private var lobePeak = 0.0
    private var lobePeakTime = 0.0
    private var lastCandidateTime: Double?
    private var lastInterval = 0.0
    /// The interval before `lastInterval` (0 if none): a walk's steps may alternate long and short.
    private var earlierInterval = 0.0
    private var pending = 0
    /// The intervals before the last two counted steps (0 before them), and whether the last step
    /// was one counted in a gap (step 5): a gap is filled when it is as long as those two together.
    private var lastCountedInterval = 0.0
    private var earlierCountedInterval = 0.0
    private var lastCountWasFilled = false
    /// Running mean of the candidates' heights, g (0 at the start of a walk): the walk's
    /// intensity, which the activity classifier reads.
    package private(set) var peakLevel = 0.0
    /// The same, one for each foot (alternate candidates): an arm swinging with one leg's stride
    /// weakens the other foot's impacts in the magnitude.
    private var footLevels = SIMD2<Double>(0, 0)
    /// Which foot the next candidate is (0 or 1).
    private var foot = 0

    package init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Steps per second over the recent walk, or nil while not walking.
    package var cadence: Double? {
        isWalking && meanStepInterval > 0 ? 1 / meanStepInterval : nil
    }

    /// Takes one sample: acceleration in g (any sign convention: only its magnitude is used) and
    /// its timestamp in seconds. Returns how many steps this sample added (several when the gate
    /// opens and back-fills, 0 mostly).
    @discardableResult
    package mutating func add(acceleration a: SIMD3<Double>, timestamp t: Double) -> Int {
        let magnitude = (a * a).sum().squareRoot()
        guard magnitude.isFinite, t.isFinite else { return 0 }
        guard let previous = lastTimestamp else {
            lastTimestamp = t
            mean = magnitude
            return 0
        }
        let dt = t - previous
        guard dt > 0 else { return 0 }
        lastTimestamp = t
        // A gap in the samples counts as one interval of at most a tenth of a second.
        let step = min(dt, 0.1)
        mean += (magnitude - mean) * step / (parameters.meanTimeConstant + step)
        let lowTau = 1 / (2 * Double.pi * parameters.cutoff)
        let lowGain = step / (lowTau + step)
        low1 += (magnitude - mean - low1) * lowGain
        low2 += (low1 - low2) * lowGain
        let s = low2

        var added = 0
        if s > 0 {
            if !lobeActive { lobeActive = true; lobePeak = s; lobePeakTime = t }
            else if s > lobePeak { lobePeak = s; lobePeakTime = t }
        } else if lobeActive {
            lobeActive = false
            let level = footLevels[foot] > 0 ? footLevels[foot] : peakLevel
            if lobePeak >= max(parameters.peakThreshold, parameters.relativeThreshold * level) {
                peakLevel = peakLevel == 0 ? lobePeak : peakLevel + (lobePeak - peakLevel) * 0.2
                footLevels[foot] = footLevels[foot] == 0 ? lobePeak : footLevels[foot] + (lobePeak - footLevels[foot]) * 0.2
                foot = 1 - foot
                added = candidate(at: lobePeakTime)
            }
        }
        if let last = lastCandidateTime, t - last > parameters.maximumInterval, isWalking || pending > 0 {
            endWalk()
        }
        return added
    }

    private mutating func candidate(at time: Double) -> Int {
        guard let last = lastCandidateTime else {
            lastCandidateTime = time
            pending = 1
            return 0
        }
        let interval = time - last
        if interval < parameters.minimumInterval || (isWalking && interval < parameters.shortestStepFraction * meanStepInterval) {
            if !isWalking { lastCandidateTime = time; pending = 1; lastInterval = 0; earlierInterval = 0 }
            return 0
        }
        lastCandidateTime = time
        if isWalking {
            let stride = lastCountedInterval + earlierCountedInterval
            if parameters.fillsMissedSteps, !lastCountWasFilled, earlierCountedInterval > 0, close(interval, stride, tolerance: 0.15) {
                // This gap is as long as the last two steps together (a stride: one foot's and
                // the other's, whatever their pace): the missed step, then this one.
                steps += 1
                stepsInWalk += 1
                let added = count(time, interval: interval / 2) + 1
                lastCountWasFilled = true
                return added
            }
            return count(time, interval: interval)
        }
        let consistent = lastInterval == 0 || close(interval, lastInterval) || close(interval, earlierInterval)
        pending = consistent ? pending + 1 : 2
        earlierInterval = lastInterval
        lastInterval = interval
        guard pending >= parameters.gateSteps else { return 0 }
        isWalking = true
        let backFilled = pending
        pending = 0
        steps += backFilled
        stepsInWalk = backFilled
        lastStepTime = time
        meanStepInterval = interval
        earlierCountedInterval = earlierInterval
        lastCountedInterval = interval
        lastCountWasFilled = false
        return backFilled
    }

    private func close(_ interval: Double, _ reference: Double, tolerance: Double? = nil) -> Bool {
        reference > 0 && abs(interval - reference) <= (tolerance ?? parameters.intervalTolerance) * reference
    }

    private mutating func count(_ time: Double, interval: Double) -> Int {
        steps += 1
        stepsInWalk += 1
        lastStepTime = time
        meanStepInterval += (interval - meanStepInterval) * 0.25
        earlierCountedInterval = lastCountedInterval
        lastCountedInterval = interval
        lastCountWasFilled = false
        return 1
    }

    private mutating func endWalk() {
        isWalking = false
        stepsInWalk = 0
        pending = 0
        lastInterval = 0
        earlierInterval = 0
        lastCandidateTime = nil
        peakLevel = 0
        footLevels = .zero
        foot = 0
        lastCountedInterval = 0
        earlierCountedInterval = 0
        lastCountWasFilled = false
    }
}
