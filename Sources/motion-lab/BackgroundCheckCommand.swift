import ArgumentParser
import CommandSupport
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

    @Flag(help: "Print each seed's course once a second: offset error, σ, heading error, accuracy, reason.")
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

    func validate() throws {
        _ = try geographicLocation()
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
        for seed in firstSeed..<(firstSeed + UInt64(seeds)) {
            let trial: BackgroundCalibrationTrial
            do {
                trial = try BackgroundCalibrationTrial.run(
                    seed: seed, scenario: scenario, duration: duration, hardIron: noHardIron ? .zero : nil,
                    softIron: noSoftIron ? .identity : nil, location: geographicLocation())
            } catch {
                printError("error: \(error)")
                throw ExitCode.failure
            }
            if trace {
                for (index, point) in trial.points.enumerated() where index % 10 == 9 {
                    print("  t \(decimals(point.time, 1)) s: offset error \(decimals(point.offsetError)) µT, σ \(decimals(point.sigma)) µT, heading error \(decimals(point.headingError))°, \(point.accuracy.storedName), \(point.reason?.rawValue ?? "—"), NIS/3 \(decimals(point.consistency)), scatter \(decimals(point.scatter)), soft-iron bias ≤ \(decimals(point.softIronBias)) µT, soft iron left \(decimals(point.softIronLeft * 100, 1)) %\(point.softIronFitted ? " (fitted)" : "")")
                }
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
    }
}
