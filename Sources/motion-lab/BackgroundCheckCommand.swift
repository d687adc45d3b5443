import ArgumentParser
import CommandSupport
import FieldCalibration
import Foundation
import Fusion
import Motion
import MotionTools

/// `motion-lab background-check`: the background magnetometer calibration on the
/// simulated board, seed after seed of hard iron, as docs/background-calibration.md's table shows it.
struct BackgroundCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "background-check",
        abstract: "Measure the background magnetometer calibration on the simulated board (virtual time, no calibration stored).",
        discussion: """
            For each seed: a hard iron drawn within ±50 µT per axis, the chosen scenario played \
            in virtual time with nothing stored, and the result against the simulator's truth: \
            the offset error after the handling, the heading error's RMS and worst for the rest \
            of the run, when the accuracy first said high, and how often it said high while \
            the offset was more than 1 µT off; and in how many seeds, when, the soft iron was \
            fitted (from the holds between turns, or once the board has been turned through \
            the directions a figure-eight covers), and how much of it was left at the end.
            """)

    @Option(help: "The first seed.")
    var firstSeed: UInt64 = 1

    @Option(help: "How many seeds.")
    var seeds = 20

    @Option(help: "The scenario (ordinary-handling, magnet-attached, magnet-passing, indoor-handling, rest, …).")
    var scenario = "ordinary-handling"

    @Option(help: "Seconds of virtual time to run.")
    var duration = 60.0

    @Option(help: "Seconds into the run from which offset and heading are judged (default: the end of the handling).")
    var judgeFrom = 25.5

    @Flag(help: "No soft iron (the chip preset's few per cent of soft iron otherwise).")
    var noSoftIron = false

    @Flag(help: "No hard iron either: the floor that the rest of the fusion leaves.")
    var noHardIron = false

    @Option(help: ArgumentHelp(
        "The manager's location as LATITUDE,LONGITUDE in degrees (the simulated world is Berlin: 52.52,13.40): the World Magnetic Model's field strength and dip there become the estimator's reference.",
        valueName: "latitude,longitude"))
    var location: String?

    @Option(help: ArgumentHelp(
        "Start each seed from a stored background record this far off the board's hard iron (µT, device axes), claiming high at σ 0.16 µT: a store that lies. Prints when it was found out and relearned.",
        valueName: "x,y,z"))
    var storedError: String?

    @Flag(help: "Print each seed's course once a second: offset error (and in the world's frame: east, north, up), σ, heading error, accuracy, reason.")
    var trace = false

    /// `--location` parsed; nil when not given.
    func geographicLocation() throws -> GeographicLocation? {
        guard let location else { return nil }
        let parts = location.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1], abs(latitude) <= 90, abs(longitude) <= 180 else {
            throw ValidationError("--location must be LATITUDE,LONGITUDE in degrees (latitude −90…90, longitude −180…180), e.g. 52.52,13.40; got \(location)")
        }
        return GeographicLocation(latitude: latitude, longitude: longitude)
    }

    /// `--stored-error` parsed; nil when not given.
    func wrongRecordError() throws -> SIMD3<Double>? {
        guard let storedError else { return nil }
        let parts = storedError.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2], [x, y, z].allSatisfy({ abs($0) <= 4_000 }) else {
            throw ValidationError("--stored-error must be X,Y,Z in µT, each within ±4000 (the largest magnetometer range), e.g. 1000,0,0; got \(storedError)")
        }
        return SIMD3(x, y, z)
    }

    func validate() throws {
        _ = try geographicLocation()
        _ = try wrongRecordError()
        guard (1...1000).contains(seeds) else { throw ValidationError("--seeds must be 1…1000") }
        guard duration > judgeFrom, judgeFrom >= 0, duration <= 3600 else {
            throw ValidationError("--duration must exceed --judge-from and be at most 3600 s")
        }
    }

    func run() throws {
        print("| seed | hard iron (µT) | offset error (µT) | heading RMS (°) | heading worst (°) | accuracy at end | first high (s) | high while > 1 µT off |")
        print("|---:|---|---:|---:|---:|---|---:|---:|")
        var offsetErrors: [Double] = []
        var headingRMS: [Double] = []
        var softIronFits: [Double] = []
        var softIronLeft: [Double] = []
        var changes: [Int] = []
        var foundOut: [Double] = [], relearned: [Double] = [], neverFoundOut = 0, highOnceDoubted = 0
        // Per accuracy said from --judge-from on: points, squared heading errors summed, seeds
        // whose RMS at that accuracy exceeded its promise.
        var byAccuracy: [MagneticFieldCalibrationAccuracy: (count: Int, squares: Double, broken: [UInt64])] = [:]
        let wrongRecord = try wrongRecordError()
        for seed in firstSeed..<(firstSeed + UInt64(seeds)) {
            let trial: BackgroundCalibrationTrial
            do {
                trial = try runTrial(seed: seed, wrongRecord: wrongRecord)
            } catch {
                printError("error: \(error)")
                throw ExitCode.failure
            }
            if wrongRecord != nil {
                // Found out: the accuracy demoted to `low` or below while the offset is more than
                // 1 µT off (`medium` may be the soft iron feared in a new pose); relearned: the
                // offset within 1 µT.
                if trial.firstAccuracy.map({ $0 <= .low }) == true {
                    foundOut.append(0)
                } else if let point = trial.points.first(where: { $0.accuracy <= .low && $0.offsetError > 1 }) {
                    foundOut.append(point.time)
                } else {
                    neverFoundOut += 1
                }
                if let point = trial.points.first(where: { $0.offsetError < 1 }) { relearned.append(point.time) }
                highOnceDoubted += trial.highButWrongOnceDoubted
            }
            if trace {
                for (index, point) in trial.points.enumerated() where index % 10 == 9 {
                    print("  t \(decimals(point.time, 1)) s: offset error \(decimals(point.offsetError)) µT (E \(decimals(point.offsetErrorWorld.x)), N \(decimals(point.offsetErrorWorld.y)), U \(decimals(point.offsetErrorWorld.z))), σ \(decimals(point.sigma)) µT, heading σ \(decimals(point.headingSigma))°, heading error \(decimals(point.headingError))°, \(point.accuracy.storedName), \(point.reason?.rawValue ?? "—"), NIS/3 \(decimals(point.consistency)), scatter \(decimals(point.scatter)), soft-iron bias ≤ \(decimals(point.softIronBias)) µT, soft iron left \(decimals(point.softIronLeft * 100, 1)) %\(point.softIronFitted ? " (fitted)" : "")")
                }
            }
            for (accuracy, level) in trial.headingRMSByAccuracy(after: judgeFrom) {
                var entry = byAccuracy[accuracy] ?? (0, 0, [])
                entry.count += level.count
                entry.squares += level.rms * level.rms * Double(level.count)
                if level.rms > HardIronEstimator.headingBound(accuracy) { entry.broken.append(seed) }
                byAccuracy[accuracy] = entry
            }
            let tail = trial.after(judgeFrom)
            let offsetError = tail.first?.offsetError ?? .nan
            let rms = trial.headingRMS(after: judgeFrom)
            let worst = tail.map { abs($0.headingError) }.max() ?? .nan
            if let fitted = trial.timeToSoftIronFit { softIronFits.append(fitted) }
            if let last = trial.points.last { softIronLeft.append(last.softIronLeft) }
            changes.append(trial.points.last?.changes ?? 0)
            offsetErrors.append(offsetError)
            headingRMS.append(rms)
            let hard = "(" + [trial.trueOffset.x, trial.trueOffset.y, trial.trueOffset.z].map { decimals($0, 1) }.joined(separator: ", ") + ")"
            print("| \(seed) | \(hard) | \(decimals(offsetError)) | \(decimals(rms)) | \(decimals(worst)) | \(trial.points.last?.accuracy.storedName ?? "—") | \(trial.timeToHigh.map { decimals($0, 1) } ?? "never") | \(trial.highButWrong) |")
        }
        print("")
        print("worst offset error \(decimals(offsetErrors.max() ?? .nan)) µT, worst heading RMS \(decimals(headingRMS.max() ?? .nan))° over \(seeds) seeds (\(scenario), judged from \(decimals(judgeFrom, 1)) s to \(decimals(duration, 0)) s); hard-iron changes adopted: \(changes.reduce(0, +)) in \(changes.filter { $0 > 0 }.count) of \(seeds) runs")
        if let first = softIronFits.min(), let last = softIronFits.max() {
            print("soft iron fitted in the background in \(softIronFits.count) of \(seeds) seeds, after \(decimals(first, 1))–\(decimals(last, 1)) s", terminator: "")
        } else {
            print("soft iron fitted in the background in none of the \(seeds) seeds", terminator: "")
        }
        if let least = softIronLeft.min(), let most = softIronLeft.max() {
            print("; soft iron left at the end \(decimals(least * 100, 1))–\(decimals(most * 100, 1)) %")
        } else {
            print("")
        }
        // Whether each accuracy kept its promise (the heading σ bound it stands for) on this motion.
        let levels = byAccuracy.keys.sorted { $0.rawValue > $1.rawValue }.map { accuracy in
            let entry = byAccuracy[accuracy] ?? (0, 0, [])
            let bound = HardIronEstimator.headingBound(accuracy)
            return "\(accuracy.storedName) \(entry.count) points, heading RMS \(decimals((entry.squares / Double(max(entry.count, 1))).squareRoot()))°"
                + (bound.isFinite ? " (promise ≤ \(decimals(bound, 0))°; exceeded in \(entry.broken.count) of \(seeds) seeds"
                    + (entry.broken.isEmpty ? "" : ": " + entry.broken.map(String.init).joined(separator: ", ")) + ")" : "")
        }
        print("from \(decimals(judgeFrom, 1)) s, by the accuracy said: " + levels.joined(separator: "; "))
        if let wrongRecord {
            let error = "(" + [wrongRecord.x, wrongRecord.y, wrongRecord.z].map { decimals($0, 1) }.joined(separator: ", ") + ")"
            print("a stored record \(error) µT off, claiming high: found out (accuracy low or below) in \(foundOut.count) of \(seeds) seeds"
                  + (foundOut.isEmpty ? "" : " after \(decimals(foundOut.min() ?? 0, 1))–\(decimals(foundOut.max() ?? 0, 1)) s")
                  + (neverFoundOut > 0 ? " (\(neverFoundOut) never, or not while more than 1 µT off)" : "")
                  + "; relearned within 1 µT in \(relearned.count) of \(seeds)"
                  + (relearned.isEmpty ? "" : " after \(decimals(relearned.min() ?? 0, 1))–\(decimals(relearned.max() ?? 0, 1)) s")
                  + "; high while more than 1 µT off once found out: \(highOnceDoubted) points")
        }
    }

    /// One seed's run: with nothing stored, or (`wrongRecord`) from a temporary store holding a
    /// record that far off (``BackgroundCalibrationTrial/storeWrongRecord(seed:error:hardIron:in:)``).
    func runTrial(seed: UInt64, wrongRecord: SIMD3<Double>?) throws -> BackgroundCalibrationTrial {
        let hardIron: SIMD3<Double>? = noHardIron ? .zero : nil
        guard let wrongRecord else {
            return try BackgroundCalibrationTrial.run(
                seed: seed, scenario: scenario, duration: duration, hardIron: hardIron, softIron: noSoftIron ? .identity : nil,
                location: geographicLocation())
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("background-check-\(UUID().uuidString)")
        defer {
            do { try FileManager.default.removeItem(at: directory) } catch {
                printError("warning: the temporary store \(directory.path) was not removed (\(error.localizedDescription)); delete it by hand")
            }
        }
        let store = CalibrationStore(directory: directory)
        try BackgroundCalibrationTrial.storeWrongRecord(seed: seed, error: wrongRecord, hardIron: hardIron, in: store)
        return try BackgroundCalibrationTrial.run(
            seed: seed, scenario: scenario, duration: duration, hardIron: hardIron, softIron: noSoftIron ? .identity : nil, store: store,
            location: geographicLocation())
    }
}
