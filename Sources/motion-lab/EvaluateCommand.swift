import FileAccess
import BroadData
import ArgumentParser
import CommandSupport
import Foundation
import FieldCalibration
import Fusion
import MotionSimulator

/// `motion-lab evaluate`: runs the attitude filter causally over BROAD trials and scores it.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Run the attitude filter over BROAD trials and print the error metric.",
        discussion: """
            Reads every trial listed in DIR/index.json (or every DIR/*.csv), runs the filter online \
            (6D without and 9D with the magnetometer, the 9D behind the background magnetometer \
            calibration as in device motion unless --no-background-calibration), writes OUT/6d/<trial>.csv and \
            OUT/9d/<trial>.csv (qw,qx,qy,qz per input sample, sensor → East-North-Up) and prints \
            the 9D total and 6D inclination RMSE per trial and group. It prints no other filter's \
            figures: to compare, run ../shared/tools/broad_peers.py (or BROAD's own tools) on the same \
            folder, which measures VQF there and scores OUT with the same metric. BROAD: Laidig, \
            Caruso, Cereatti, Seel, Data 6(7) 2021, CC BY 4.0.
            """)

    @Option(name: .customLong("data"), help: "Folder with the BROAD trials (e.g. ../shared/data/broad).")
    var data: String

    @Option(name: .customLong("out"), help: "Folder for the estimate files.")
    var out: String

    @Option(parsing: .unconditional, help: "The sensors' latency in ms (their output filter's delay) to compensate (default 0, the library's default for a sensor it knows nothing of; --cross-validate tunes it from there).", transform: OptionRange.decimal)
    var sensorLatency: Double = 0

    @Option(name: .customLong("trials"), help: "Comma-separated trial names (default: all).")
    var trials: String?

    @Option(parsing: .unconditional, help: "Evaluate at this rate (Hz): every k-th sample, k = the trials' rate / HZ rounded (BROAD's 285.7 Hz: 100 → every 3rd, 95.2 Hz).", transform: OptionRange.decimal)
    var rate: Double?

    @Option(help: "Also write the (decimated) trials here as BROAD CSV with an index.json, so other tools (broad_peers.py) score the same data.")
    var writeTrials: String?

    @Flag(help: "Also tune every parameter chosen by looking at data (the sensors' latency, time constants, thresholds, bias limits, magnetic gains) by coordinate descent with leave-one-kind-out folds, and print the cross-validated figures per trial and group next to the in-sample ones.")
    var crossValidate = false

    @Option(help: "With --cross-validate: tune only these parameters (comma-separated names of AttitudeFilter.Parameters, e.g. sensorLatency,accelerometerTimeConstant; default: every one chosen by looking at data).")
    var tune: String?

    @Option(name: .customLong("set"), help: "Run with these filter parameters instead of the library's defaults: comma-separated NAME=VALUE, the names --tune takes, each value in the unit --cross-validate prints it in (ms for the latencies, °/s, °, s), e.g. magneticCurrentTimeConstant=0.025,restGyroscopeThreshold=1. --cross-validate starts from them too.")
    var settings: String?

    @Option(help: "With --cross-validate: fix the descent's move rule instead of choosing it in each fold: a percentage the objective must fall by (0.2, 1) or 'majority' (a move must help more training kinds than it hurts).")
    var moveRule: String?

    @Flag(help: "Also measure how far the gyroscope lags the optical reference in each trial, and score the reference itself that late (what no filter without the latency can beat).")
    var referenceLag = false

    @Flag(help: "Also show where each trial's reference puts north: the heading of the magnetometer's field at the opening rest in the reference's frame, raw and with the offset the reference implies removed (what a background calibration that finds that offset is charged on the trial); and the raw field's mean strength at that rest and while moving (a place whose field differs from the rest's spot).")
    var referenceHeading = false

    @Flag(inversion: .prefixedNo, help: "Run the background magnetometer calibration (HardIronEstimator, never tuned on BROAD) ahead of the 9D filter, as the sampler always does: the filter gets the field with the learned hard-iron offset removed (the default: the figures are those of device motion). BROAD's magnetometer comes calibrated, so the estimator starts as the product starts it from a stored figure-eight calibration at high (offset 0, σ 0.2 µT, 1 % soft iron left). --no-background-calibration: the 9D filter alone, on the field as measured.")
    var backgroundCalibration = true

    @Option(parsing: .unconditional, help: "How long the magnetometer lags the gyroscope, ms (a property of the sensor; default the estimator's, half an 80 Hz period); for the background calibration.")
    var magnetometerLag: Double?

    @Flag(help: "Print the background calibration's course once a second for each trial (offset, σ, the reference field strength, the readings' scatter about the sphere, the stretches' consistency, accuracy, reason, changes adopted).")
    var traceCalibration = false

    func validate() throws {
        try OptionRange.check(sensorLatency, "--sensor-latency", in: 0...100, unit: "ms")
        try OptionRange.check(rate, "--rate", in: 1...10_000, unit: "Hz")
        if !backgroundCalibration, traceCalibration || magnetometerLag != nil {
            throw ValidationError("\(traceCalibration ? "--trace-calibration" : "--magnetometer-lag") is about the background calibration, which --no-background-calibration turns off: drop one of them")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: data, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("no BROAD data at \(data): pass --data ../shared/data/broad")
        }
    }

    func run() throws {
        let tuning = try CrossValidation.parameters(named: tune?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        var entries = try BroadIndexEntry.load(directory: data)
        if let trials {
            let wanted = trials.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let unknown = wanted.filter { name in !entries.contains { $0.trial == name } }
            guard unknown.isEmpty else {
                throw ValidationError("unknown trial(s) \(unknown.joined(separator: ", ")) in \(data)")
            }
            entries = entries.filter { wanted.contains($0.trial) }
        }
        for mode in ["6d", "9d"] {
            let folder = (out as NSString).appendingPathComponent(mode)
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("cannot create \(folder): \(error.localizedDescription)")
            }
        }

        print("BROAD (Laidig et al., Data 2021, CC BY 4.0): \(entries.count) trials from \(data)")
        var loaded: [(entry: BroadIndexEntry, trial: BroadTrial)] = []
        for entry in entries {
            let path = (data as NSString).appendingPathComponent(entry.trial + ".csv")
            var trial = try BroadTrial.load(path: path)
            // A trial of one sample, or whose times do not advance, is kept as it is.
            if let rate { trial = trial.decimated(by: trial.samples(spanning: 1 / rate)) }
            loaded.append((entry, trial))
        }
        if let rate, let first = loaded.first {
            print(String(format: "decimated for --rate %g: %.1f Hz", rate, 1 / first.trial.sampleInterval))
        }
        if let writeTrials { try Self.writeTrials(loaded, to: writeTrials) }

        var parameters = AttitudeFilter.Parameters()
        parameters.sensorLatency = sensorLatency / 1000
        let changed = try CrossValidation.apply(settings: settings, to: &parameters)
        let background = backgroundCalibration ? BackgroundStart.calibratedSensor(magnetometerLag: magnetometerLag.map { $0 / 1000 }) : nil
        print("filter: AttitudeFilter defaults, sensorLatency \(sensorLatency) ms, causal"
            + (changed.isEmpty ? "" : "; set: " + changed)
            + (background.map { "; 9D behind the background magnetometer calibration (\($0.description))" } ?? ""))
        if traceCalibration, let background {
            for (entry, trial) in loaded { Self.traceCalibration(entry.trial, trial, parameters: parameters, background: background) }
        }
        print("trial                                          9D total   6D incl.  ns/sample 9D  6D")
        var results: [Score] = []
        var cost9D: [Double] = [], cost6D: [Double] = []   // ns per sample, per trial
        for (entry, trial) in loaded {
            let run9D = Self.runFilter(trial, magnetometer: true, parameters: parameters, backgroundCalibration: background)
            let run6D = Self.runFilter(trial, magnetometer: false, parameters: parameters)
            try Self.write(run9D.estimates, to: (out as NSString).appendingPathComponent("9d/\(entry.trial).csv"))
            try Self.write(run6D.estimates, to: (out as NSString).appendingPathComponent("6d/\(entry.trial).csv"))
            let metric9D = BroadMetric(estimates: run9D.estimates, trial: trial)
            let metric6D = BroadMetric(estimates: run6D.estimates, trial: trial)
            results.append(Score(group: entry.group, total: metric9D.total, inclination: metric6D.inclination))
            cost9D.append(run9D.nanoseconds / Double(trial.count))
            cost6D.append(run6D.nanoseconds / Double(trial.count))
            print(Self.pad(entry.trial, 46) + Self.number(metric9D.total, 9) + Self.number(metric6D.inclination, 10)
                + Self.number(run9D.nanoseconds / Double(trial.count), 13, digits: 0)
                + Self.number(run6D.nanoseconds / Double(trial.count), 5, digits: 0))
        }

        print("")
        print("group          9D total  6D incl.  trials")
        Self.printGroups(results)
        print("")
        // The median over trials: robust to other load on a shared machine.
        print("filter cost per sample (update + reading the quaternion, median over trials, this build): "
            + "9D \(Self.format(Self.median(cost9D), digits: 0)) ns, 6D \(Self.format(Self.median(cost6D), digits: 0)) ns")
        if referenceLag { ReferenceLag.report(loaded) }
        if referenceHeading { ReferenceHeading.report(loaded) }
        if crossValidate {
            CrossValidation.run(loaded, start: parameters, tuning: tuning, rules: try CrossValidation.rules(named: moveRule), backgroundCalibration: background)
        }
    }

    /// How `--background-calibration` starts the estimator. BROAD's magnetometer comes calibrated
    /// (its offset ≈ 0): the honest equivalent is the product's start from a stored figure-eight
    /// calibration at `high` (``HardIronEstimator/start(from:magnetometerRate:)``, the same
    /// mapping `BackgroundCalibration` uses), not the from-scratch start of a board with nothing stored.
    struct BackgroundStart: Sendable {
        var parameters: HardIronEstimator.Parameters
        /// The starting σ per axis, µT (nil: the estimator's initial σ).
        var sigma: Double?

        /// A figure-eight record at `high`; `magnetometerLag` (s) overrides the estimator's default.
        static func calibratedSensor(magnetometerLag: Double?) -> BackgroundStart {
            var (parameters, sigma) = HardIronEstimator.start(from: .figureEightHigh)
            if let magnetometerLag { parameters.magnetometerLag = magnetometerLag }
            return BackgroundStart(parameters: parameters, sigma: sigma)
        }

        func makeCorrection() -> BackgroundFieldCorrection {
            BackgroundFieldCorrection(HardIronEstimator(parameters: parameters, sigma: sigma))
        }

        var description: String {
            "started as from a stored figure-eight calibration at high, BROAD's sensor being calibrated: offset 0, σ "
                + (sigma.map { "\($0) µT" } ?? "initial") + ", soft-iron allowance \(parameters.softIronAllowance * 100) %, "
                + "magnetometer lag \(parameters.magnetometerLag * 1000) ms"
        }
    }

    /// One trial's scores: 9D total and 6D inclination RMSE, degrees.
    struct Score {
        var group: String
        var total: Double
        var inclination: Double
    }

    static func printGroups(_ results: [Score], label: String = "") {
        for group in ["undisturbed", "disturbed", "all"] {
            let members = results.filter { group == "all" || $0.group == group }
            guard !members.isEmpty else { continue }
            let total = members.map(\.total).reduce(0, +) / Double(members.count)
            let inclination = members.map(\.inclination).reduce(0, +) / Double(members.count)
            print(pad(label + group, label.isEmpty ? 13 : 23) + number(total, 10) + number(inclination, 10) + number(Double(members.count), 8, digits: 0))
        }
    }

    /// Writes the trials as BROAD CSV files and an index.json into `folder`.
    static func writeTrials(_ loaded: [(entry: BroadIndexEntry, trial: BroadTrial)], to folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            var index: [[String: Any]] = []
            for (entry, trial) in loaded {
                let path = (folder as NSString).appendingPathComponent(entry.trial + ".csv")
                try OutputFile.write(Array(trial.csv().utf8), to: path, what: "a trial CSV file")
                index.append(["trial": entry.trial, "group": entry.group, "samples": trial.count, "sampling_rate_hz": 1 / trial.sampleInterval])
            }
            let json = try JSONSerialization.data(withJSONObject: index, options: [.prettyPrinted, .sortedKeys])
            try OutputFile.write(json, to: (folder as NSString).appendingPathComponent("index.json"), what: "the index")
        } catch let failure as OutputFile.Failure {
            throw CommandFailure(message: "cannot write the trials to \(folder): \(failure)")
        } catch {
            throw CommandFailure(message: "cannot write the trials to \(folder): \(error.localizedDescription)")
        }
        print("wrote \(loaded.count) trials to \(folder)")
    }

    /// Runs one filter over a trial; the time covers the update calls and reading and storing the
    /// output quaternion (nothing else: loading and writing are outside).
    /// One parameter set for every trial (the defaults unless an option or the cross-validation
    /// grid says otherwise).
    /// With `backgroundCalibration` (9D only) the field first goes through the background
    /// magnetometer calibration (`BackgroundFieldCorrection`, as the sampler runs it), in the time
    /// measured too.
    static func runFilter(
        _ trial: BroadTrial, magnetometer: Bool, parameters: AttitudeFilter.Parameters,
        backgroundCalibration: BackgroundStart? = nil
    ) -> (estimates: [SIMD4<Double>], nanoseconds: Double) {
        var filter = AttitudeFilter(sampleInterval: trial.sampleInterval, parameters: parameters)
        var correction = magnetometer ? backgroundCalibration?.makeCorrection() : nil
        var estimates = [SIMD4<Double>](repeating: .zero, count: trial.count)
        let clock = ContinuousClock()
        let start = clock.now
        estimates.withUnsafeMutableBufferPointer { output in
            for i in 0..<trial.count {
                let field = magnetometer ? Self.field(trial, i, through: &correction, filter: &filter) : nil
                filter.update(gyroscope: trial.gyroscope[i], accelerometer: trial.accelerometer[i], magnetometer: field)
                let q = magnetometer ? filter.quaternion9D : filter.quaternion6D
                output[i] = SIMD4(q.w, q.x, q.y, q.z)
            }
        }
        let elapsed = clock.now - start
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) * 1e-9
        return (estimates, nanoseconds)
    }

    /// `--trace-calibration`: the background calibration's status once a second of one trial's run.
    static func traceCalibration(_ name: String, _ trial: BroadTrial, parameters: AttitudeFilter.Parameters, background: BackgroundStart) {
        var filter = AttitudeFilter(sampleInterval: trial.sampleInterval, parameters: parameters)
        var correction: BackgroundFieldCorrection? = background.makeCorrection()
        let every = trial.samples(spanning: 1)   // every sample where the times do not advance
        print("trace \(name)")
        for i in 0..<trial.count {
            let field = Self.field(trial, i, through: &correction, filter: &filter)
            filter.update(gyroscope: trial.gyroscope[i], accelerometer: trial.accelerometer[i], magnetometer: field)
            guard i % every == every - 1, let status = correction?.status else { continue }
            let o = status.offset
            print(String(format: "  t %6.1f s  offset (%6.2f, %6.2f, %6.2f) µT  σ %5.2f  field %5.2f µT  scatter %4.2f µT  consistency %4.2f  ",
                         Double(i + 1) * trial.sampleInterval, o.x, o.y, o.z, status.sigma, status.fieldStrength, status.fieldScatter, status.consistency)
                + "\(status.accuracy.storedName)  \(status.reason.rawValue)  changes \(status.changes)")
        }
    }

    /// Sample `i`'s field for the 9D filter: as measured, or through the background magnetometer
    /// calibration (`correction`, as the sampler runs it), which tells `filter` when its offset moved.
    static func field(_ trial: BroadTrial, _ i: Int, through correction: inout BackgroundFieldCorrection?, filter: inout AttitudeFilter) -> SIMD3<Double> {
        let measured = trial.magnetometer[i]
        guard correction != nil else { return measured }
        // BROAD's accelerometer is specific force in m/s²; the estimator takes g with Core
        // Motion's sign (for the dip angle only).
        let result = correction?.correct(
            measured, rotationRate: trial.gyroscope[i] - filter.gyroBias, gyroBias: filter.gyroBias,
            acceleration: -trial.accelerometer[i] / 9.80665, interval: trial.sampleInterval,
            timestamp: Double(i) * trial.sampleInterval)
        if result?.changed == true { filter.magneticCalibrationChanged() }
        return result?.field ?? measured
    }

    static func write(_ estimates: [SIMD4<Double>], to path: String) throws {
        var text = "qw,qx,qy,qz\n"
        text.reserveCapacity(estimates.count * 80)
        for q in estimates {
            text += "\(q[0]),\(q[1]),\(q[2]),\(q[3])\n"
        }
        do {
            try OutputFile.write(Array(text.utf8), to: path, what: "an estimates CSV file")
        } catch {
            throw CommandFailure(message: "cannot write \(error)")
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func format(_ value: Double, digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
    static func number(_ value: Double, _ width: Int, digits: Int = 2) -> String {
        let text = format(value, digits: digits)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }
}

