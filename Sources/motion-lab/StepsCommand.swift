import ArgumentParser
import CommandSupport
import FileAccess
import Foundation
import Fusion

/// `motion-lab steps`: the step detector over walking traces with ground truth, each trace's count
/// written to a file, and with `--cross-validate` its parameters chosen leave one volunteer out.
struct StepsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "Count steps in walking traces (the Oxford Step Counter layout) and score the counts.",
        discussion: """
            Reads every trace DIR/index.json lists (DIR/<trace>.csv: t_ns,ax_ms2,ay_ms2,az_ms2, \
            Android m/s², turned into Core Motion's g as a_g = -a / 9.80665), runs the step detector \
            (Fusion's StepDetector, docs/steps.md) causally over it and writes OUT/<trace>.json with \
            {"steps": N, ...}; prints the counts against the ground truth. --cross-validate chooses the \
            detector's parameters on a small grid leaving one volunteer out (each volunteer's traces \
            counted with the grid point best on the other volunteers' traces, scored against the foot \
            switches' count checked by the feet's alternation, or with --choose-by-data-set-count against \
            the data set's own count) and writes those counts. --rate R \
            (repeatable) counts each trace resampled to R Hz, as a board sampling at R would read it (each sample the motion's mean over its interval, as a chip low-passes before its output rate); \
            the count files hold the first rate's count as "steps" and every rate's under "steps_at_rate". \
            Data: Oxford Step Counter data set, https://github.com/Oxford-step-counter/DataSet, CC BY 4.0 \
            (../shared/data/steps holds a re-laid-out subset; its README lists the changes).
            """)

    @Option(name: .customLong("data"), help: "Folder with index.json and the traces (e.g. ../shared/data/steps).")
    var data: String

    @Option(name: .customLong("out"), help: "Folder for the counts, one <trace>.json a trace.")
    var out: String

    @Flag(help: "Choose the detector's parameters leave one volunteer out and print the cross-validated table.")
    var crossValidate = false

    @Flag(name: .customLong("choose-by-data-set-count"), help: "With --cross-validate, choose each fold's grid point by the error against the data set's own count, not the alternation-checked one.")
    var chooseByDataSetCount = false

    @Option(name: .customLong("rate"), help: "Resample each trace to this rate, Hz, before counting (repeatable; default: as recorded).")
    var rates: [Double] = []

    @Option(name: .customLong("fills-missed-steps"), help: "Count with the missed-step rule on (true) or off (false) only: the grid keeps that value with --cross-validate, the defaults take it without (default: the grid tries both, the defaults' own).")
    var fillsMissedSteps: Bool?

    @Option(name: .customLong("shortest-step-fraction"), help: "While walking, a candidate sooner than this fraction of the walk's mean step is not a step (0: off; default: the detector's 0.5), in the grid and the defaults alike.")
    var shortestStepFraction: Double?

    func validate() throws {
        if let fraction = shortestStepFraction, !(fraction >= 0 && fraction < 1) {
            throw ValidationError("--shortest-step-fraction \(fraction) is not a fraction of a step: give one from 0 (off) to below 1 (e.g. 0.5)")
        }
        if chooseByDataSetCount, !crossValidate {
            throw ValidationError("--choose-by-data-set-count chooses the cross-validation's parameters: add --cross-validate")
        }
        for rate in rates where !(rate >= 10 && rate <= 1000) {
            throw ValidationError("--rate \(rate) is not a sampling rate the detector runs at: give one from 10 to 1000 Hz (e.g. --rate 50 --rate 100)")
        }
    }

    func run() throws {
        try CommandFailure.reporting {
            let traces: [StepTrace]
            do {
                traces = try StepTrace.load(folder: data)
            } catch {
                throw CommandFailure(message: "\(error)")
            }
            print("Oxford Step Counter data set (github.com/Oxford-step-counter/DataSet, CC BY 4.0): \(traces.count) traces from \(data)")
            if crossValidate {
                print("parameters chosen leaving one volunteer out, by the error against \(chooseByDataSetCount ? "the data set's count" : "the checked count") (grid: cutoff \(StepCrossValidation.cutoffs) Hz, peak \(StepCrossValidation.peakThresholds) g, relative \(StepCrossValidation.relativeThresholds), minimum interval \(StepCrossValidation.minimumIntervals) s, fills missed steps \(fillsMissedSteps.map { [$0] } ?? StepCrossValidation.fillsMissedSteps); a step sooner than \(shortestStepFraction ?? StepDetector.Parameters().shortestStepFraction) of the walk's mean step is not one)")
            } else {
                print("parameters: StepDetector's defaults")
            }
            var runs: [(rate: String, rows: [StepCrossValidation.Row])] = []
            for rate in rates.isEmpty ? [nil] : rates.map(Optional.some) {
                let resampled = rate.map { rate in traces.map { $0.resampled(to: rate) } } ?? traces
                let rows: [StepCrossValidation.Row]
                if crossValidate {
                    let grid = StepCrossValidation.grid.filter { fillsMissedSteps == nil || $0.fillsMissedSteps == fillsMissedSteps }.map { point in
                        var point = point
                        if let shortestStepFraction { point.shortestStepFraction = shortestStepFraction }
                        return point
                    }
                    rows = StepCrossValidation.run(resampled, grid: grid, byDataSetCount: chooseByDataSetCount)
                } else {
                    var defaults = StepDetector.Parameters()
                    if let fillsMissedSteps { defaults.fillsMissedSteps = fillsMissedSteps }
                    if let shortestStepFraction { defaults.shortestStepFraction = shortestStepFraction }
                    rows = resampled.map { StepCrossValidation.Row(trace: $0, steps: StepCrossValidation.count($0, defaults), parameters: defaults) }
                }
                let label = rate.map { String(format: "%g Hz", $0) } ?? "as recorded"
                print("\n\(label):")
                if crossValidate {
                    for subject in Set(rows.map(\.trace.subject)).sorted() {
                        guard let p = rows.first(where: { $0.trace.subject == subject })?.parameters else { continue }
                        print("\(subject)'s traces counted with: cutoff \(p.cutoff) Hz, peak \(p.peakThreshold) g, relative \(p.relativeThreshold), minimum interval \(p.minimumInterval) s, fills missed steps \(p.fillsMissedSteps)")
                    }
                }
                print(StepCrossValidation.table(rows))
                runs.append((label, rows))
            }
            try write(runs)
            print("")
            print(StepCrossValidation.summary(runs))
            let bounces = traces.reduce(0) { $0 + $1.switchBounces }
            let missed = traces.reduce(0) { $0 + $1.switchMissed }
            print("checked: the foot switches' count with \(bounces) bounces set aside and \(missed) missed steps added (the feet's alternation; docs/steps.md)")
        }
    }

    private func write(_ runs: [(rate: String, rows: [StepCrossValidation.Row])]) throws {
        guard let rows = runs.first?.rows else { return }
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(message: "cannot make the output folder \(out): \(error.localizedDescription); pass --out with a folder you can write")
        }
        for row in rows {
            let p = row.parameters
            var object: [String: Any] = [
                "steps": row.steps, "ground_truth_steps": row.trace.groundTruthSteps,
                "position": row.trace.position, "subject": row.trace.subject,
                "parameters": ["cutoff_hz": p.cutoff, "peak_threshold_g": p.peakThreshold, "relative_threshold": p.relativeThreshold,
                               "minimum_interval_s": p.minimumInterval, "maximum_interval_s": p.maximumInterval, "gate_steps": p.gateSteps,
                               "fills_missed_steps": p.fillsMissedSteps, "shortest_step_fraction": p.shortestStepFraction],
            ]
            if let app = row.trace.appSteps { object["app_algo_steps"] = app }
            if let checked = row.trace.checkedSteps { object["checked_steps"] = checked }
            if !rates.isEmpty {
                var byRate: [String: Int] = [:]
                for (rate, run) in zip(rates, runs) {
                    byRate[String(format: "%g", rate)] = run.rows.first { $0.trace.name == row.trace.name }?.steps
                }
                object["steps_at_rate"] = byRate
            }
            let path = (out as NSString).appendingPathComponent(row.trace.name + ".json")
            do {
                let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                try OutputFile.write(Array(json) + [10], to: path, what: "a count file")
            } catch let failure as OutputFile.Failure {
                throw CommandFailure(message: "\(path): \(failure)")
            }
        }
    }
}
