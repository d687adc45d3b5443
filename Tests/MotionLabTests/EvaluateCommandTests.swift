import ArgumentParser
import BroadData
import Foundation
import Fusion
import Testing
@testable import motion_lab

@Suite struct EvaluateCommandTests {
    @Test func missingDataFolderSaysWhereToFindIt() {
        #expect {
            _ = try EvaluateCommand.parse(["--data", "/nonexistent/broad", "--out", NSTemporaryDirectory()])
        } throws: { error in
            EvaluateCommand.message(for: error) == "no BROAD data at /nonexistent/broad: pass --data ../shared/data/broad"
        }
    }

    /// The kinds the leave-one-kind-out folds hold out, from BROAD's trial names.
    @Test(arguments: [
        ("01_undisturbed_slow_rotation_A", "slow rotation"), ("09_undisturbed_fast_rotation_with_breaks_B", "fast rotation"),
        ("15_undisturbed_fast_translation_A", "translation"), ("21_undisturbed_fast_combined", "combined rotation and translation"),
        ("24_disturbed_tapping_A", "tapping"), ("26_disturbed_phone_vibration_A", "vibration"),
        ("30_disturbed_stationary_magnet_C", "stationary magnet"), ("36_disturbed_attached_magnet_5cm", "attached magnet"),
        ("99_something_else", "99_something_else"),
    ])
    func trialKindFromItsName(trial: String, kind: String) throws {
        let entry = try JSONDecoder().decode(BroadIndexEntry.self, from: Data(#"{"trial": "\#(trial)", "group": "disturbed"}"#.utf8))
        #expect(entry.kind == kind)
    }

    @Test func unknownTunedParameterIsNamed() throws {
        #expect {
            _ = try CrossValidation.parameters(named: ["sensorLatency", "gain"])
        } throws: { error in
            EvaluateCommand.message(for: error).hasPrefix("unknown parameter(s) gain for --tune; known: sensorLatency, ")
        }
        #expect(try CrossValidation.parameters(named: ["magneticNormThreshold", "sensorLatency"]).map(\.name)
            == ["sensorLatency", "magneticNormThreshold"])
        #expect(try CrossValidation.parameters(named: nil).count == CrossValidation.tuned.count)
    }

    /// Every tuned parameter is a different field of the filter's parameters, and the values it
    /// tries differ from the one it starts from.
    @Test func everyTunedParameterMovesItsOwnField() {
        let defaults = AttitudeFilter.Parameters()
        for tuned in CrossValidation.tuned {
            let start = defaults[keyPath: tuned.keyPath]
            for value in tuned.candidates(start) where value != start {
                var moved = defaults
                moved[keyPath: tuned.keyPath] = value
                let changed = CrossValidation.tuned.filter { moved[keyPath: $0.keyPath] != defaults[keyPath: $0.keyPath] }
                #expect(changed.map(\.name) == [tuned.name])
            }
        }
    }

    @Test func runsAndWritesOneRowPerSample() throws {
        // A two-second synthetic trial at rest, flat, x east: estimates must be near the identity.
        let folder = NSTemporaryDirectory() + "broad-eval-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,opt_w,opt_x,opt_y,opt_z,movement\n"
        for i in 0..<200 { text += "\(Double(i) * 0.01),0,0,0,0,0,9.81,0,20,-44,1,0,0,0,1\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/01_undisturbed_test.csv"))
        let out = folder + "/out"
        let command = try EvaluateCommand.parse(["--data", folder, "--out", out])
        try command.run()
        let rows = try String(contentsOfFile: out + "/9d/01_undisturbed_test.csv", encoding: .utf8)
            .split(separator: "\n")
        #expect(rows.count == 201)
        #expect(rows.first == "qw,qx,qy,qz")
        let last = rows.last?.split(separator: ",").compactMap { Double($0) } ?? []
        #expect(last.count == 4 && abs(abs(last[0]) - 1) < 1e-6)
    }

    /// The 9D figures are device motion's: the background calibration runs unless turned off, and
    /// what only it uses is refused without it, naming both options.
    @Test func theBackgroundCalibrationRunsByDefault() throws {
        let folder = NSTemporaryDirectory()
        #expect(try EvaluateCommand.parse(["--data", folder, "--out", folder]).backgroundCalibration)
        #expect(try EvaluateCommand.parse(["--data", folder, "--out", folder, "--background-calibration"]).backgroundCalibration)
        #expect(try !EvaluateCommand.parse(["--data", folder, "--out", folder, "--no-background-calibration"]).backgroundCalibration)
        for option in [["--trace-calibration"], ["--magnetometer-lag", "4"]] {
            #expect {
                _ = try EvaluateCommand.parse(["--data", folder, "--out", folder, "--no-background-calibration"] + option)
            } throws: { error in
                EvaluateCommand.message(for: error)
                    == "\(option[0]) is about the background calibration, which --no-background-calibration turns off: drop one of them"
            }
        }
    }

    /// `--reference-heading` on a synthetic trial whose reference north is magnetic north and
    /// whose magnetometer has an offset: the offset comes back, the corrected field at the opening
    /// rest points north, the raw one by as much as the offset turns it there.
    @Test func referenceHeadingFindsTheOffsetAndNorth() throws {
        let folder = NSTemporaryDirectory() + "broad-heading-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let world = SIMD3<Double>(0, 17, -42), offset = SIMD3<Double>(2, -1, 0.5)
        let rest = Quaternion(axis: SIMD3(0, 0, 1), angle: 0.5)
        var attitude = rest
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,opt_w,opt_x,opt_y,opt_z,movement\n"
        let interval = 0.01
        for i in 0..<6000 {
            let t = Double(i) * interval
            let moving = t >= 5
            let rate = moving ? SIMD3(sin(0.9 * t), cos(0.7 * t + 1), sin(0.5 * t + 2)) : .zero
            if moving { attitude = (attitude * Quaternion(axis: rate, angle: (rate * rate).sum().squareRoot() * interval)).normalized }
            let m = attitude.inverseRotate(world) + offset
            text += "\(t),0,0,0,0,0,9.81,\(m.x),\(m.y),\(m.z),\(attitude.w),\(attitude.x),\(attitude.y),\(attitude.z),\(moving ? 1 : 0)\n"
        }
        let path = folder + "/01_undisturbed_test.csv"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let measured = try #require(ReferenceHeading(try BroadTrial.load(path: path)))
        #expect(((measured.offset - offset) * (measured.offset - offset)).sum().squareRoot() < 0.01, "\(measured.offset)")
        #expect(abs(measured.corrected) < 0.05, "\(measured.corrected)")
        let raw = world + rest.rotate(offset)
        #expect(abs(measured.raw - atan2(raw.x, raw.y) * 180 / .pi) < 0.05, "\(measured.raw)")
        #expect(measured.residual < 0.01)
        #expect(measured.rawResidual > 1, "the offset (2.3 µT) is in the raw readings' residual: \(measured.rawResidual)")
        // The raw field's strength: at rest one reading's, moving within the offset of the world's.
        let atRest = rest.inverseRotate(world) + offset
        #expect(abs(measured.restStrength - (atRest * atRest).sum().squareRoot()) < 1e-9, "\(measured.restStrength)")
        let strength = (world * world).sum().squareRoot(), offsetSize = (offset * offset).sum().squareRoot()
        #expect(abs(measured.movingStrength - strength) < offsetSize, "\(measured.movingStrength)")
    }

    /// `--reference-lag`'s held drift: a gyroscope that reads 1 % high while the body turns about
    /// the vertical at 0.5 rad/s is 0.01 · 0.5 · 30 rad (8.59°) off in heading after 30 s, in
    /// every window. Its lag: half a sample (each rate here is the step's that ends at its sample,
    /// the reference's rate is taken centred on it).
    @Test func referenceLagMeasuresWhatTheGyroscopeAloneDrifts() throws {
        let folder = NSTemporaryDirectory() + "broad-held-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,opt_w,opt_x,opt_y,opt_z,movement\n"
        let interval = 0.01, rate = 0.5
        for i in 0..<6000 {
            let t = Double(i) * interval
            let moving = t >= 5
            let yaw = moving ? rate * (t - 5) : 0
            let turned = i > 500   // the rate of the step that ends at this sample
            text += "\(t),0,0,\(turned ? rate * 1.01 : 0),0,0,9.81,0,20,-44,\(cos(yaw / 2)),0,0,\(sin(yaw / 2)),\(moving ? 1 : 0)\n"
        }
        let path = folder + "/01_undisturbed_test.csv"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let measured = try #require(ReferenceLag(try BroadTrial.load(path: path)))
        #expect(abs(measured.lag - interval / 2) < 0.001, "\(measured.lag)")
        let held = try #require(measured.held)
        let expected = 0.01 * rate * ReferenceLag.heldTime * 180 / .pi
        #expect(abs(held.rms - expected) < 0.1, "\(held)")
        #expect(abs(held.worst - expected) < 0.1, "\(held)")
    }

    /// `--set`: values in the units the descent prints (ms for the latencies), each error naming
    /// what was wrong and what is accepted.
    @Test func setAppliesValuesInTheirPrintedUnits() throws {
        var parameters = AttitudeFilter.Parameters()
        let applied = try CrossValidation.apply(settings: "magneticNormThreshold=0.2, sensorLatency=4,magnetometerLag=-2", to: &parameters)
        #expect(parameters.magneticNormThreshold == 0.2)
        #expect(parameters.sensorLatency == 0.004)
        #expect(parameters.magnetometerLag == -0.002)
        #expect(applied == "magneticNormThreshold 0.2, sensorLatency 4 ms, magnetometerLag -2 ms")
        for (bad, named) in [("noSuchThing=1", "noSuchThing"), ("magneticNormThreshold", "magneticNormThreshold"),
                             ("restMinTime=soon", "soon"), ("biasClip=-1", "biasClip"), ("biasClip=nan", "biasClip")] {
            var untouched = AttitudeFilter.Parameters()
            #expect {
                _ = try CrossValidation.apply(settings: bad, to: &untouched)
            } throws: { error in
                "\(error)".contains(named) && "\(error)".contains("--set")
            }
        }
    }

    /// A trial of one sample, and one whose times do not advance or barely do, through `--rate`,
    /// `--reference-lag`, `--reference-heading` and `--trace-calibration`: figures or "too short",
    /// never a trap. A trial
    /// whose times do not advance is kept whole; one at 1e-300 s intervals is decimated to its first
    /// sample (every sample it has is closer than 1/100 s).
    @Test(arguments: [(["0"], 1), (["0", "0", "0"], 3), (["0", "1e-300", "2e-300"], 1)])
    func degenerateTimesAreNoTrap(times: [String], kept: Int) throws {
        let folder = NSTemporaryDirectory() + "broad-times-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,opt_w,opt_x,opt_y,opt_z,movement\n"
        for t in times { text += "\(t),0,0,0,0,0,9.81,0,20,-44,1,0,0,0,1\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/01_undisturbed_test.csv"))
        let command = try EvaluateCommand.parse(["--data", folder, "--out", folder + "/out", "--rate", "100", "--reference-lag", "--reference-heading",
                                                 "--background-calibration", "--trace-calibration"])
        try command.run()
        let rows = try String(contentsOfFile: folder + "/out/9d/01_undisturbed_test.csv", encoding: .utf8).split(separator: "\n")
        #expect(rows.count == kept + 1)
    }
}
