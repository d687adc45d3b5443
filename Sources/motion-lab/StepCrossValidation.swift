import Foundation
import Fusion

/// Leave-one-volunteer-out choice of the step detector's parameters: for each volunteer, the grid
/// point with the least mean absolute count error on the other volunteers' traces, then that
/// volunteer's traces counted with it. No parameter is chosen on the traces it is scored on.
/// The error a grid point is chosen by is against each trace's ``StepTrace/referenceSteps`` (the
/// alternation-checked count), or with `byDataSetCount` against the data set's own count.
struct StepCrossValidation {
    /// The grid searched in each fold (``StepDetector/Parameters``).
    static let cutoffs = [2.5, 3, 3.5]
    static let peakThresholds = [0.02, 0.03, 0.05]
    static let relativeThresholds = [0.0, 0.3, 0.5]
    static let minimumIntervals = [0.25, 0.3]
    static let fillsMissedSteps = [false, true]

    static var grid: [StepDetector.Parameters] {
        var points: [StepDetector.Parameters] = []
        for cutoff in cutoffs {
            for threshold in peakThresholds {
                for interval in minimumIntervals {
                    for relative in relativeThresholds {
                        for fills in fillsMissedSteps {
                            var p = StepDetector.Parameters()
                            p.cutoff = cutoff
                            p.peakThreshold = threshold
                            p.minimumInterval = interval
                            p.relativeThreshold = relative
                            p.fillsMissedSteps = fills
                            points.append(p)
                        }
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
        /// Against the data set's count.
        var errorPercent: Double { Self.percent(steps, trace.groundTruthSteps) }
        /// Against the alternation-checked count (the data set's where there are no switches).
        var checkedErrorPercent: Double { Self.percent(steps, trace.referenceSteps) }

        static func percent(_ count: Int, _ truth: Int) -> Double { 100 * Double(count - truth) / Double(truth) }
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
    static func run(_ traces: [StepTrace], grid points: [StepDetector.Parameters] = grid, byDataSetCount: Bool = false) -> [Row] {
        // all[p][t]: every grid point on every trace, once.
        let all = points.map { p in traces.map { count($0, p) } }
        let subjects = Array(Set(traces.map(\.subject))).sorted()
        var rows: [Row] = []
        for subject in subjects {
            let training = traces.indices.filter { traces[$0].subject != subject }
            var best = 0
            var bestError = Double.infinity
            for p in points.indices {
                let error = training.reduce(0.0) { sum, t in
                    let truth = byDataSetCount ? traces[t].groundTruthSteps : traces[t].referenceSteps
                    return sum + abs(Double(all[p][t] - truth)) / Double(truth)
                }
                if error < bestError { bestError = error; best = p }
            }
            for t in traces.indices where traces[t].subject == subject {
                rows.append(Row(trace: traces[t], steps: all[best][t], parameters: points[best]))
            }
        }
        return rows.sorted { $0.trace.name < $1.trace.name }
    }

    /// Per trace: truth (the data set's, and checked), our count, both errors, the app's count.
    static func table(_ rows: [StepCrossValidation.Row]) -> String {
        func percent(_ value: Double) -> String { String(format: "%+.1f %%", value) }
        var lines = [
            "| trace | position | truth | checked | ours | error | checked error | app | app error |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row in rows {
            let trace = row.trace
            let app = trace.appSteps.map { ("\($0)", percent(Row.percent($0, trace.groundTruthSteps))) } ?? ("-", "-")
            let checked = trace.checkedSteps.map { "\($0)" } ?? "-"
            lines.append("| \(trace.name) | \(trace.position) | \(trace.groundTruthSteps) | \(checked) | \(row.steps) | \(percent(row.errorPercent)) | \(percent(row.checkedErrorPercent)) | \(app.0) | \(app.1) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Per position and overall, at each rate: mean absolute error and the worst, against the data
    /// set's count and against the checked one.
    static func summary(_ runs: [(rate: String, rows: [Row])]) -> String {
        var header = "| position | traces |"
        var rule = "|---|---|"
        for run in runs {
            header += " \(run.rate): mean, worst | checked: mean, worst |"
            rule += "---|---|"
        }
        var lines = [header, rule]
        let positions = Array(Set(runs.flatMap { $0.rows.map(\.trace.position) })).sorted()
        for position in positions + ["all"] {
            var line = "| \(position) |"
            for (index, run) in runs.enumerated() {
                let group = run.rows.filter { position == "all" || $0.trace.position == position }
                if index == 0 { line += " \(group.count) |" }
                for errors in [group.map { abs($0.errorPercent) }, group.map { abs($0.checkedErrorPercent) }] {
                    let mean = errors.reduce(0, +) / Double(max(errors.count, 1))
                    line += String(format: " %.2f %%, %.1f %% |", mean, errors.max() ?? 0)
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

extension StepTrace {
    /// The count a trace is scored against when parameters are chosen: the alternation-checked
    /// count where the trace has its foot switches, else the data set's.
    var referenceSteps: Int { checkedSteps ?? groundTruthSteps }
}
