import Foundation
import Fusion

/// Leave-one-volunteer-out choice of the step detector's parameters: for each volunteer, the grid
/// point with the least mean absolute count error on the other volunteers' traces, then that
/// volunteer's traces counted with it. No parameter is chosen on the traces it is scored on.
struct StepCrossValidation {
    /// The grid searched in each fold (``StepDetector/Parameters``).
    static let cutoffs = [2.5, 3, 3.5]
    static let peakThresholds = [0.02, 0.03, 0.05]
    static let relativeThresholds = [0.0, 0.3, 0.5]
    static let minimumIntervals = [0.25, 0.3]

    static var grid: [StepDetector.Parameters] {
        var points: [StepDetector.Parameters] = []
        for cutoff in cutoffs {
            for threshold in peakThresholds {
                for interval in minimumIntervals {
                    for relative in relativeThresholds {
                        var p = StepDetector.Parameters()
                        p.cutoff = cutoff
                        p.peakThreshold = threshold
                        p.minimumInterval = interval
                        p.relativeThreshold = relative
                        points.append(p)
                    }
                }
            }
        }
        return points
    }

    struct Row {
        var trace: StepTrace
        var steps: Int
        var parameters: StepDetector.Parameters
        var errorPercent: Double { 100 * Double(steps - trace.groundTruthSteps) / Double(trace.groundTruthSteps) }
    }

    /// The trace's count with these parameters.
    static func count(_ trace: StepTrace, _ parameters: StepDetector.Parameters) -> Int {
        var detector = StepDetector(parameters: parameters)
        for i in trace.timestamps.indices {
            detector.add(acceleration: trace.accelerations[i], timestamp: trace.timestamps[i])
        }
        return detector.steps
    }

    /// One row per trace, each counted with the parameters chosen without its volunteer.
    static func run(_ traces: [StepTrace]) -> [Row] {
        let points = grid
        // counts[p][t]: every grid point on every trace, once.
        let counts = points.map { p in traces.map { count($0, p) } }
        let subjects = Array(Set(traces.map(\.subject))).sorted()
        var rows: [Row] = []
        for subject in subjects {
            let training = traces.indices.filter { traces[$0].subject != subject }
            var best = 0
            var bestError = Double.infinity
            for p in points.indices {
                let error = training.reduce(0.0) { sum, t in
                    sum + abs(Double(counts[p][t] - traces[t].groundTruthSteps)) / Double(traces[t].groundTruthSteps)
                }
                if error < bestError { bestError = error; best = p }
            }
            for t in traces.indices where traces[t].subject == subject {
                rows.append(Row(trace: traces[t], steps: counts[best][t], parameters: points[best]))
            }
        }
        return rows.sorted { $0.trace.name < $1.trace.name }
    }

    /// Per trace, then per position and overall: truth, our count, error, the app's count.
    static func table(_ rows: [StepCrossValidation.Row]) -> String {
        func percent(_ value: Double) -> String { String(format: "%+.1f %%", value) }
        var lines = ["| trace | position | truth | ours | error | app | app error |", "|---|---|---|---|---|---|---|"]
        for row in rows {
            let app = row.trace.appSteps.map { ("\($0)", percent(100 * Double($0 - row.trace.groundTruthSteps) / Double(row.trace.groundTruthSteps))) } ?? ("-", "-")
            lines.append("| \(row.trace.name) | \(row.trace.position) | \(row.trace.groundTruthSteps) | \(row.steps) | \(percent(row.errorPercent)) | \(app.0) | \(app.1) |")
        }
        lines += ["", "| position | traces | mean abs error | worst |", "|---|---|---|---|"]
        let positions = Array(Set(rows.map(\.trace.position))).sorted()
        for position in positions + ["all"] {
            let group = rows.filter { position == "all" || $0.trace.position == position }
            let errors = group.map { abs($0.errorPercent) }
            lines.append("| \(position) | \(group.count) | \(String(format: "%.2f %%", errors.reduce(0, +) / Double(max(group.count, 1)))) | \(String(format: "%.1f %%", errors.max() ?? 0)) |")
        }
        return lines.joined(separator: "\n")
    }
}
