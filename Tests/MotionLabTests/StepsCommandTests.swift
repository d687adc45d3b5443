import Foundation
import TestSupport
import Testing
@testable import motion_lab

/// `motion-lab steps` on a small folder in the Oxford Step Counter layout written here (a walk and
/// a rest, Android m/s²), on a missing folder, and on the real traces where they are present.
@Suite struct StepsCommandTests {
    /// Where the traces live in CI: `../shared/data/steps` from the repository root, or `STEPS_DATA`.
    static let dataFolder = ProcessInfo.processInfo.environment["STEPS_DATA"] ?? URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/data/steps").path

    static var dataPresent: Bool {
        FileManager.default.fileExists(atPath: (dataFolder as NSString).appendingPathComponent("index.json"))
    }

    /// A trace's CSV: 100 Hz for `seconds`, the Android reading of a phone face up (+9.81 on z)
    /// with `bounce(t)` g added upward.
    static func csv(seconds: Double, bounce: (Double) -> Double) -> String {
        var lines = ["t_ns,ax_ms2,ay_ms2,az_ms2"]
        let start: Int64 = 263_239_144_953_734
        for i in 0..<Int(seconds * 100) {
            let t = Double(i) / 100
            lines.append("\(start + Int64(i) * 10_000_000),0.1,0.05,\(9.80665 * (1 + bounce(t)))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func writeFolder(_ folder: URL) throws {
        let walk = csv(seconds: 30) { t in 0.25 * sin(2 * .pi * 1.8 * t) + 0.08 * sin(4 * .pi * 1.8 * t + 0.7) }
        try walk.write(to: folder.appendingPathComponent("walk.csv"), atomically: true, encoding: .utf8)
        try csv(seconds: 30) { _ in 0 }.write(to: folder.appendingPathComponent("rest.csv"), atomically: true, encoding: .utf8)
        let index = """
            {"dataset": "test", "traces": [
              {"trace": "walk", "subject": "a", "position": "hand", "gt_steps": 54, "app_algo_steps": 50},
              {"trace": "rest", "subject": "b", "position": "bag", "gt_steps": 1, "app_algo_steps": null}]}
            """
        try index.write(to: folder.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
    }

    static func steps(in file: URL) throws -> Int {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        return try #require(object?["steps"] as? Int, "\(file.path) holds no steps")
    }

    @Test(arguments: [false, true])
    func writesOneCountFilePerTrace(crossValidate: Bool) throws {
        try withTemporaryDirectory("steps-data") { folder in
            try Self.writeFolder(folder)
            let out = folder.appendingPathComponent("out")
            try StepsCommand.parse(["--data", folder.path, "--out", out.path] + (crossValidate ? ["--cross-validate"] : [])).run()
            let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
            #expect(files == ["rest.json", "walk.json"])
            #expect(abs(try Self.steps(in: out.appendingPathComponent("walk.json")) - 54) <= 1)
            #expect(try Self.steps(in: out.appendingPathComponent("rest.json")) == 0)
        }
    }

    @Test func aMissingFolderIsNamed() throws {
        let result = try runToEnd(try builtExecutable("motion-lab"), ["steps", "--data", "/nonexistent/steps", "--out", NSTemporaryDirectory()])
        #expect(result.status == 1)
        #expect(result.error.contains("no step traces at /nonexistent/steps"), "\(result.error)")
    }

    /// A fraction of a step outside 0..<1 is refused, naming the option and what to give.
    @Test func aShortestStepFractionOutsideAStepIsRefused() throws {
        let result = try runToEnd(try builtExecutable("motion-lab"), ["steps", "--data", NSTemporaryDirectory(), "--out", NSTemporaryDirectory(), "--shortest-step-fraction", "1.5"])
        #expect(result.status != 0)
        #expect(result.error.contains("--shortest-step-fraction 1.5 is not a fraction of a step"), "\(result.error)")
    }

    @Test func aChoiceByTheDataSetsCountWithoutCrossValidationIsRefused() throws {
        let folder = NSTemporaryDirectory()
        let choice = try runToEnd(try builtExecutable("motion-lab"), ["steps", "--data", folder, "--out", folder, "--choose-by-data-set-count"])
        #expect(choice.status != 0)
        #expect(choice.error.contains("add --cross-validate"), "\(choice.error)")
    }

    /// The six validation traces (one volunteer, six positions) with the detector's defaults:
    /// each within 3 % of the foot switches' count.
    @Test(.enabled(if: dataPresent, "no step traces at ../shared/data/steps (or STEPS_DATA)"))
    func countsTheValidationTraces() throws {
        let traces = try StepTrace.load(folder: Self.dataFolder) { $0.hasPrefix("val_") }
        #expect(traces.count == 6)
        for trace in traces {
            let steps = StepCrossValidation.count(trace, .init())
            let error = abs(Double(steps - trace.groundTruthSteps)) / Double(trace.groundTruthSteps)
            #expect(error < 0.03, "\(trace.name): \(steps) against \(trace.groundTruthSteps)")
        }
    }
}
