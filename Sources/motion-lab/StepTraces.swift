import FileAccess
import Foundation

/// Walking traces in the Oxford Step Counter data set's layout (its README, beside the data):
/// `DIR/index.json` lists the traces; `DIR/<trace>.csv` holds `t_ns,ax_ms2,ay_ms2,az_ms2`,
/// Android readings (m/s², face up +9.81), which ``samples`` turns into Core Motion's g
/// (a_g = -a / 9.80665, the README's conversion). Oxford Step Counter data set:
/// https://github.com/Oxford-step-counter/DataSet, CC BY 4.0.
struct StepTrace: Sendable {
    var name: String
    var subject: String
    var position: String
    var groundTruthSteps: Int
    /// The recording app's own count, where the index has one.
    var appSteps: Int?
    /// The foot switches' steps checked by the feet's alternation (``FootSwitches``), where the
    /// trace has its switches' states (`<trace>.gt.csv` of the optimisation campaign); the number
    /// of transitions that rule set aside as bounces and of steps it added as missed.
    var checkedSteps: Int?
    var switchBounces = 0
    var switchMissed = 0
    /// Seconds from the first sample.
    var timestamps: [Double]
    /// g, Core Motion's sign.
    var accelerations: [SIMD3<Double>]

    /// Standard gravity, m/s² (the CGPM's 1901 value, as the data's README converts).
    static let standardGravity = 9.80665

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Every trace `DIR/index.json` lists whose name `including` accepts, read and converted.
    static func load(folder: String, including: (String) -> Bool = { _ in true }) throws(Failure) -> [StepTrace] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Failure(description: "no step traces at \(folder): pass --data with the folder of the Oxford Step Counter traces (e.g. ../shared/data/steps), which holds index.json")
        }
        let indexPath = (folder as NSString).appendingPathComponent("index.json")
        let index: Data
        do {
            index = try FileContents.read(indexPath, what: "the traces' index.json", limit: FileContents.Limit.broadIndex)
        } catch {
            throw Failure(description: "\(indexPath) \(error)")
        }
        let shape = "it needs a \"traces\" list of entries with \"trace\", \"subject\", \"position\" and \"gt_steps\""
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: index)
        } catch {
            throw Failure(description: "\(indexPath) is not a step-trace index (\(error.localizedDescription)): \(shape)")
        }
        guard let root = parsed as? [String: Any], let entries = root["traces"] as? [[String: Any]] else {
            throw Failure(description: "\(indexPath) is not a step-trace index: \(shape)")
        }
        var traces: [StepTrace] = []
        for entry in entries {
            guard let name = entry["trace"] as? String, let truth = entry["gt_steps"] as? Int else {
                throw Failure(description: "\(indexPath): an entry lacks \"trace\" or \"gt_steps\"; each trace needs its name and its ground-truth count")
            }
            guard including(name) else { continue }
            var trace = StepTrace(
                name: name, subject: entry["subject"] as? String ?? "unknown", position: entry["position"] as? String ?? "unknown",
                groundTruthSteps: truth, appSteps: entry["app_algo_steps"] as? Int, timestamps: [], accelerations: [])
            let start = try trace.readSamples(from: (folder as NSString).appendingPathComponent(name + ".csv"))
            try trace.readSwitches(from: (folder as NSString).appendingPathComponent(name + ".gt.csv"), start: start)
            traces.append(trace)
        }
        return traces
    }

    /// The foot switches' transitions, checked, from `path` when it exists and holds them.
    private mutating func readSwitches(from path: String, start: Int64) throws(Failure) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let bytes: Data
        do {
            bytes = try FileContents.read(path, what: "the trace's foot switches", limit: FileContents.Limit.broadTrial)
        } catch {
            throw Failure(description: "\(path) \(error)")
        }
        guard let transitions = FootSwitches.transitions(csv: String(decoding: bytes, as: UTF8.self), start: start) else { return }
        let checked = FootSwitches.checkedSteps(transitions)
        checkedSteps = checked.steps
        switchBounces = checked.bounces
        switchMissed = checked.missed
    }

    /// The trace on a uniform grid at `rate` Hz from its first sample, each acceleration the mean
    /// of the recorded motion (linear between its samples) over the output interval that ends at
    /// the tick: a box low pass before the decimation, as a chip filters before it gives its
    /// output rate. Taking the motion at the tick alone (interpolating) folds the impacts'
    /// content above half the rate into the gait's band, which no chip's output carries.
    func resampled(to rate: Double) -> StepTrace {
        var copy = self
        copy.timestamps = []
        copy.accelerations = []
        guard let end = timestamps.last, rate > 0 else { return copy }
        copy.timestamps.reserveCapacity(Int(end * rate) + 1)
        copy.accelerations.reserveCapacity(Int(end * rate) + 1)
        // integral[i]: the motion's integral from the first sample to sample i (trapezoids).
        var integral = [SIMD3<Double>](repeating: .zero, count: timestamps.count)
        for i in timestamps.indices.dropFirst() {
            integral[i] = integral[i - 1] + (accelerations[i] + accelerations[i - 1]) * (0.5 * (timestamps[i] - timestamps[i - 1]))
        }
        var low = 0
        var high = 0
        var tick = 0
        while true {
            let time = Double(tick) / rate
            guard time <= end else { break }
            let from = max(time - 1 / rate, 0)
            let acceleration: SIMD3<Double>
            if time > from {
                acceleration = (integralUntil(time, &high, integral) - integralUntil(from, &low, integral)) / (time - from)
            } else {
                acceleration = accelerations[0]
            }
            copy.timestamps.append(time)
            copy.accelerations.append(acceleration)
            tick += 1
        }
        return copy
    }

    /// The motion's integral from the first sample to `time`, the motion linear between samples;
    /// `index` is the sample at or before the last time asked, advanced (times asked in order).
    private func integralUntil(_ time: Double, _ index: inout Int, _ integral: [SIMD3<Double>]) -> SIMD3<Double> {
        while index + 1 < timestamps.count, timestamps[index + 1] <= time { index += 1 }
        guard index + 1 < timestamps.count else { return integral[index] }
        let span = timestamps[index + 1] - timestamps[index]
        let into = time - timestamps[index]
        guard span > 0, into > 0 else { return integral[index] }
        let (a0, a1) = (accelerations[index], accelerations[index + 1])
        return integral[index] + a0 * into + (a1 - a0) * (into * into / (2 * span))
    }

    /// Reads the samples; returns the first one's timestamp (ns), the clock the switches share.
    private mutating func readSamples(from path: String) throws(Failure) -> Int64 {
        let bytes: Data
        do {
            bytes = try FileContents.read(path, what: "the trace's CSV", limit: FileContents.Limit.broadTrial)
        } catch {
            throw Failure(description: "\(path) \(error)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var first: Int64?
        var row = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            row += 1
            if row == 1 { continue }
            let fields = line.split(separator: ",")
            guard fields.count >= 4, let ns = Int64(fields[0].trimmingCharacters(in: .whitespaces)),
                  let x = Double(fields[1]), let y = Double(fields[2]), let z = Double(fields[3].trimmingCharacters(in: .whitespacesAndNewlines))
            else {
                throw Failure(description: "\(path) row \(row): expected t_ns,ax_ms2,ay_ms2,az_ms2 (integer nanoseconds, three numbers)")
            }
            let start = first ?? ns
            first = start
            timestamps.append(Double(ns - start) / 1e9)
            accelerations.append(SIMD3(x, y, z) / -Self.standardGravity)
        }
        guard let first, !timestamps.isEmpty else {
            throw Failure(description: "\(path) holds no samples")
        }
        return first
    }
}
