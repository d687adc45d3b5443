import BroadData
import Foundation
import Fusion
import MotionSimulator

/// How far a trial's inertial sensor lags its optical reference, and what that costs any filter
/// that does not know it (`motion-lab evaluate --reference-lag`).
///
/// The lag: the rotation rate the reference shows (from the quaternions one sample either side)
/// against the gyroscope's, the gyroscope shifted by whole samples; the shift with the least mean
/// squared difference over the moving samples, refined by a parabola through it and its
/// neighbours. The cost: the reference itself, delayed by that lag (interpolated between
/// samples), scored with the BROAD metric against the reference: the error of a perfect estimator
/// that sees the motion as late as the sensor does. And what holding the heading by the gyroscope
/// alone costs (``held``): how far the integrated rate, started from the reference, turns away
/// from it in heading within ``heldTime`` — the sensor's own errors under the trial's motion (scale,
/// axis misalignment, the bias moving), which no filter that rejects the magnetometer escapes.
struct ReferenceLag {
    /// Seconds the gyroscope lags the reference.
    var lag: Double
    /// The BROAD metric of the perfect but late estimator.
    var floor: BroadMetric
    /// What a heading held by the gyroscope alone costs on this trial: the heading error, degrees,
    /// of the gyroscope integrated for ``heldTime`` from the reference attitude (its bias the mean
    /// over the opening rest, its samples aligned by the lag in whole samples), RMS over windows
    /// starting every ``heldStep`` while the trial moves, and the worst window; nil when the trial
    /// has no opening rest or no whole window of movement with a reference.
    var held: (rms: Double, worst: Double)?

    static let heldTime = 30.0
    static let heldStep = 10.0

    static let searchedShifts = -4...8

    init?(_ trial: BroadTrial) {
        let n = trial.count, interval = trial.sampleInterval
        guard n > 2 * (Self.searchedShifts.upperBound + 2), interval > 0 else { return nil }
        // The reference's body rate at k from k − 1 and k + 1: conj(q[k−1]) ⊗ q[k+1] turns by 2·interval·ω.
        var referenceRate = [SIMD3<Double>?](repeating: nil, count: n)
        for k in 1..<(n - 1) where trial.movement[k] {
            guard let before = Self.quaternion(trial.reference[k - 1]), let after = Self.quaternion(trial.reference[k + 1]) else { continue }
            var step = before.conjugate * after
            if step.w < 0 { step = Quaternion(w: -step.w, x: -step.x, y: -step.y, z: -step.z) }
            referenceRate[k] = SIMD3(step.x, step.y, step.z) * (2 / (2 * interval))
        }
        let residuals = Self.searchedShifts.map { shift -> Double in
            var sum = 0.0, count = 0
            for k in 0..<n {
                guard let rate = referenceRate[k], k + shift >= 0, k + shift < n else { continue }
                let difference = trial.gyroscope[k + shift] - rate
                sum += (difference * difference).sum()
                count += 1
            }
            return count > 0 ? sum / Double(count) : .infinity
        }
        guard let best = residuals.indices.min(by: { residuals[$0] < residuals[$1] }), residuals[best].isFinite else { return nil }
        var shift = Double(Self.searchedShifts.lowerBound + best)
        if best > 0, best < residuals.count - 1 {
            let (a, b, c) = (residuals[best - 1], residuals[best], residuals[best + 1])
            let curvature = a - 2 * b + c
            if curvature > 0 { shift += 0.5 * (a - c) / curvature }
        }
        lag = shift * interval

        // The reference `lag` late: between samples k − i − 1 and k − i, normalised.
        let whole = Int(shift.rounded(.down)), fraction = shift - Double(whole)
        var late = [SIMD4<Double>](repeating: SIMD4(.nan, .nan, .nan, .nan), count: n)
        for k in 0..<n {
            let newer = k - whole, older = k - whole - 1
            guard older >= 0, newer < n, newer >= 0 else { continue }
            let a = trial.reference[newer]
            var b = trial.reference[older]
            if (a * b).sum() < 0 { b = -b }
            let mixed = a * (1 - fraction) + b * fraction
            late[k] = mixed / (mixed * mixed).sum().squareRoot()
        }
        // Samples whose late reference is unknown do not count: give them the reference itself.
        for k in 0..<n where late[k][0].isNaN { late[k] = trial.reference[k] }
        floor = BroadMetric(estimates: late, trial: trial)
        held = Self.heldDrift(trial, shift: Int(shift.rounded()))
    }

    /// The gyroscope alone over windows of ``heldTime`` (see ``held``).
    private static func heldDrift(_ trial: BroadTrial, shift: Int) -> (rms: Double, worst: Double)? {
        let n = trial.count, interval = trial.sampleInterval
        var bias = SIMD3<Double>.zero, restCount = 0
        for k in 0..<n {
            if trial.movement[k] { break }
            bias += trial.gyroscope[k]
            restCount += 1
        }
        let length = trial.samples(spanning: heldTime), step = trial.samples(spanning: heldStep)
        guard restCount > 0, interval > 0, length < n else { return nil }   // a window must fit in the trial
        bias /= Double(restCount)
        var squares = 0.0, worst = 0.0, windows = 0
        var start = 0
        while start + length < n {
            defer { start += step }
            let end = start + length
            guard trial.movement[start], trial.movement[end], start + shift >= 0, end + shift < n,
                  var attitude = quaternion(trial.reference[start]), let reference = quaternion(trial.reference[end]) else { continue }
            for k in (start + 1)...end {
                let rate = trial.gyroscope[k + shift] - bias
                let angle = (rate * rate).sum().squareRoot() * interval
                if angle > 0 { attitude = attitude * Quaternion(axis: rate, angle: angle) }
            }
            let error = BroadMetric.error(SIMD4(attitude.w, attitude.x, attitude.y, attitude.z), SIMD4(reference.w, reference.x, reference.y, reference.z))
            let degrees = error.heading * 180 / .pi
            squares += degrees * degrees
            worst = max(worst, degrees)
            windows += 1
        }
        guard windows > 0 else { return nil }
        return ((squares / Double(windows)).squareRoot(), worst)
    }

    /// A reference quaternion (w, x, y, z) as a unit quaternion; nil where the reference is missing
    /// (NaN, as where BROAD's cameras lost the markers) or zero.
    static func quaternion(_ value: SIMD4<Double>) -> Quaternion? {
        guard !any(value .!= value) else { return nil }
        let norm = (value * value).sum().squareRoot()
        guard norm > 0 else { return nil }
        return Quaternion(w: value[0] / norm, x: value[1] / norm, y: value[2] / norm, z: value[3] / norm)
    }

    /// Prints each trial's lag and the late reference's scores, then the group means.
    static func report(_ loaded: [(entry: BroadIndexEntry, trial: BroadTrial)]) {
        print("")
        print("the sensor against its reference (--reference-lag): the gyroscope's lag, and the score of the")
        print("reference itself that late (a perfect estimator that sees the motion when the sensor does); and what a")
        print("heading held by the gyroscope alone drifts to, started from the reference (bias from the opening rest)")
        print("trial                                          lag ms   9D total   6D incl.   gyroscope alone for \(Int(heldTime)) s: heading RMS, worst °")
        var scores: [EvaluateCommand.Score] = []
        for (entry, trial) in loaded {
            guard let measured = ReferenceLag(trial) else {
                print(EvaluateCommand.pad(entry.trial, 46) + "too short or no reference")
                continue
            }
            scores.append(EvaluateCommand.Score(group: entry.group, total: measured.floor.total, inclination: measured.floor.inclination))
            print(EvaluateCommand.pad(entry.trial, 46) + EvaluateCommand.number(measured.lag * 1000, 7)
                + EvaluateCommand.number(measured.floor.total, 11) + EvaluateCommand.number(measured.floor.inclination, 11)
                + (measured.held.map { EvaluateCommand.number($0.rms, 14) + EvaluateCommand.number($0.worst, 8) } ?? "   no opening rest or no whole window"))
        }
        print("")
        print("group          9D total  6D incl.  trials   (the late reference)")
        EvaluateCommand.printGroups(scores)
    }
}
