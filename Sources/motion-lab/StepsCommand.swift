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
            counted with the grid point best on the other volunteers' traces) and writes those counts. \
            Data: Oxford Step Counter data set, https://github.com/Oxford-step-counter/DataSet, CC BY 4.0 \
            (../shared/data/steps holds a re-laid-out subset; its README lists the changes).
            """)

    @Option(name: .customLong("data"), help: "Folder with index.json and the traces (e.g. ../shared/data/steps).")
    var data: String

    @Option(name: .customLong("out"), help: "Folder for the counts, one <trace>.json a trace.")
    var out: String

    @Flag(help: "Choose the detector's parameters leave one volunteer out and print the cross-validated table.")
    var crossValidate = false

    func run() throws {
        try CommandFailure.reporting {
            let traces: [StepTrace]
            do {
                traces = try StepTrace.load(folder: data)
            } catch {
                throw CommandFailure(message: "\(error)")
            }
            print("Oxford Step Counter data set (github.com/Oxford-step-counter/DataSet, CC BY 4.0): \(traces.count) traces from \(data)")
            let rows: [StepCrossValidation.Row]
            if crossValidate {
                rows = StepCrossValidation.run(traces)
                print("parameters chosen leaving one volunteer out (grid: cutoff \(StepCrossValidation.cutoffs) Hz, peak \(StepCrossValidation.peakThresholds) g, relative \(StepCrossValidation.relativeThresholds), minimum interval \(StepCrossValidation.minimumIntervals) s)")
            } else {
                let defaults = StepDetector.Parameters()
                rows = traces.map { StepCrossValidation.Row(trace: $0, steps: StepCrossValidation.count($0, defaults), parameters: defaults) }
                print("parameters: StepDetector's defaults")
            }
            try write(rows)
            print(StepCrossValidation.table(rows))
        }
    }

    private func write(_ rows: [StepCrossValidation.Row]) throws {
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
                               "minimum_interval_s": p.minimumInterval, "maximum_interval_s": p.maximumInterval, "gate_steps": p.gateSteps],
            ]
            if let app = row.trace.appSteps { object["app_algo_steps"] = app }
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
