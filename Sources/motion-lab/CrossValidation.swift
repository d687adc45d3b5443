import ArgumentParser
import BroadData
import Dispatch
import Foundation
import Fusion

/// `motion-lab evaluate --cross-validate`: every parameter of ``AttitudeFilter/Parameters`` that
/// was chosen by looking at data, tuned by coordinate descent with leave-one-kind-out folds.
///
/// A fold holds out every trial of one kind of motion or disturbance (``BroadIndexEntry/kind``:
/// slow rotation, fast rotation, translation, tapping, …), tunes on the others from the library's
/// defaults, and scores its choice on the held-out trials: a rule that works only on the kind it
/// was shaped on shows up in the cross-validated figure. The in-sample figure is the same descent
/// on all trials, scored on the same trials.
///
/// The descent: the sensors' latency and the magnetometer's extra lag over grids (0–8 ms, −4–8
/// ms), then each other parameter at half and twice its value (a tenth and ten times for the
/// vertical bias factor), for at most ``sweeps`` passes. The objective: the mean 9D total error
/// over the training trials plus the mean 6D inclination error, each divided by its value at the
/// fold's start, so that both count alike. Every (parameters, trial) score is computed once and
/// shared by the folds.
///
/// When a move is worth taking (``MoveRule``) is itself a choice: three rules were compared on
/// these trials before. So it is chosen inside each fold (nested): on the fold's training kinds
/// alone, each rule is scored by its own leave-one-kind-out run over those kinds, and the best
/// one tunes the fold. The held-out kind never sees which rule won elsewhere.
struct CrossValidation {
    typealias Parameters = AttitudeFilter.Parameters

    /// One tuned parameter: its name as printed, where it lives, and the values tried around `x`.
    struct Tuned: Sendable {
        var name: String
        var keyPath: WritableKeyPath<Parameters, Double> & Sendable
        var candidates: @Sendable (Double) -> [Double]
        var unit: String
        var scale: Double = 1

        static func halfAndDouble(_ name: String, _ keyPath: WritableKeyPath<Parameters, Double> & Sendable, _ unit: String) -> Tuned {
            Tuned(name: name, keyPath: keyPath, candidates: { [$0 / 2, $0 * 2] }, unit: unit)
        }
    }

    /// Every parameter chosen by looking at data (the switches are not: they say what runs).
    static let tuned: [Tuned] = [
        Tuned(name: "sensorLatency", keyPath: \.sensorLatency, candidates: { _ in (0...8).map { Double($0) / 1000 } }, unit: "ms", scale: 1000),
        Tuned(name: "magnetometerLag", keyPath: \.magnetometerLag, candidates: { _ in (-4...8).map { Double($0) / 1000 } }, unit: "ms", scale: 1000),
        .halfAndDouble("accelerometerTimeConstant", \.accelerometerTimeConstant, "s"),
        .halfAndDouble("magnetometerTimeConstant", \.magnetometerTimeConstant, "s"),
        .halfAndDouble("biasSigmaInitial", \.biasSigmaInitial, "°/s"),
        .halfAndDouble("biasForgettingTime", \.biasForgettingTime, "s"),
        .halfAndDouble("biasClip", \.biasClip, "°/s"),
        .halfAndDouble("biasCorrectionClip", \.biasCorrectionClip, "°/s"),
        .halfAndDouble("biasSigmaMotion", \.biasSigmaMotion, "°/s"),
        Tuned(name: "biasVerticalForgettingFactor", keyPath: \.biasVerticalForgettingFactor, candidates: { [$0 / 10, $0 * 10] }, unit: ""),
        .halfAndDouble("biasSigmaRest", \.biasSigmaRest, "°/s"),
        .halfAndDouble("restMinTime", \.restMinTime, "s"),
        .halfAndDouble("restFilterTimeConstant", \.restFilterTimeConstant, "s"),
        .halfAndDouble("restGyroscopeThreshold", \.restGyroscopeThreshold, "°/s"),
        .halfAndDouble("restAccelerometerThreshold", \.restAccelerometerThreshold, ""),
        .halfAndDouble("magneticCurrentTimeConstant", \.magneticCurrentTimeConstant, "s"),
        .halfAndDouble("magneticReferenceTimeConstant", \.magneticReferenceTimeConstant, "s"),
        .halfAndDouble("magneticNormThreshold", \.magneticNormThreshold, ""),
        .halfAndDouble("magneticDipThreshold", \.magneticDipThreshold, "°"),
        .halfAndDouble("magneticNewFieldTime", \.magneticNewFieldTime, "s"),
        .halfAndDouble("magneticNewFieldFirstTime", \.magneticNewFieldFirstTime, "s"),
        .halfAndDouble("magneticNewFieldMinimumRate", \.magneticNewFieldMinimumRate, "°/s"),
        .halfAndDouble("magneticMinimumUndisturbedTime", \.magneticMinimumUndisturbedTime, "s"),
        .halfAndDouble("magneticMaximumRejectionTime", \.magneticMaximumRejectionTime, "s"),
        .halfAndDouble("magneticRejectionFactor", \.magneticRejectionFactor, ""),
    ]

    static let sweeps = 2

    /// When the descent takes its best move for a parameter.
    enum MoveRule: Sendable, Equatable, CustomStringConvertible {
        /// When it lowers the objective by more than this fraction.
        case gain(Double)
        /// When it lowers the objective and lowers more training kinds' share of it than it raises.
        case majorityOfKinds

        var description: String {
            switch self {
            case .gain(let fraction): "a move must gain \(fraction * 100) %"
            case .majorityOfKinds: "a move must help more training kinds than it hurts"
            }
        }
    }

    /// The rules compared earlier on these trials, among which each fold chooses by its own
    /// inner cross-validation.
    static let rules: [MoveRule] = [.gain(0.002), .gain(0.01), .majorityOfKinds]

    typealias Score = EvaluateCommand.Score
    let loaded: [(entry: BroadIndexEntry, trial: BroadTrial)]
    /// The parameters this run tunes (a subset of ``tuned``, in its order).
    let tuning: [Tuned]
    /// With `--background-calibration`: the estimator the 9D runs' field goes through (never tuned).
    let background: EvaluateCommand.BackgroundStart?
    /// Per parameter vector (the tuned values in ``tuned``'s order): the score on every trial.
    private var cache: [[Double]: [Score]] = [:]
    /// Filter runs made (parameter sets × trials), for the report.
    private(set) var runs = 0

    init(_ loaded: [(entry: BroadIndexEntry, trial: BroadTrial)], tuning: [Tuned] = CrossValidation.tuned, background: EvaluateCommand.BackgroundStart? = nil) {
        self.loaded = loaded
        self.tuning = tuning
        self.background = background
    }

    /// The rule `name` fixes (a percentage, or `majority`), or every rule for nil.
    static func rules(named name: String?) throws -> [MoveRule] {
        guard let name else { return rules }
        if name == "majority" { return [.majorityOfKinds] }
        guard let percent = Double(name), percent.isFinite, percent >= 0, percent < 100 else {
            throw ValidationError("--move-rule \(name): give a percentage from 0 to 100 (e.g. 0.2) or 'majority'")
        }
        return [.gain(percent / 100)]
    }

    /// The tuned parameters `names` lists (nil: all); throws on a name it does not know.
    static func parameters(named names: [String]?) throws -> [Tuned] {
        guard let names else { return tuned }
        let unknown = names.filter { name in !tuned.contains { $0.name == name } }
        guard unknown.isEmpty else {
            throw ValidationError("unknown parameter(s) \(unknown.joined(separator: ", ")) for --tune; known: \(tuned.map(\.name).joined(separator: ", "))")
        }
        return tuned.filter { names.contains($0.name) }
    }

    /// `--set`: NAME=VALUE pairs, comma-separated, each value in the unit the descent prints it in
    /// (``Tuned/unit``, ``Tuned/scale``). Returns the pairs as applied, for the report.
    static func apply(settings: String?, to parameters: inout Parameters) throws -> String {
        guard let settings else { return "" }
        var applied: [String] = []
        for item in settings.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let parameter = tuned.first(where: { $0.name == parts[0] }) else {
                throw ValidationError("--set takes NAME=VALUE with NAME one of: \(tuned.map(\.name).joined(separator: ", ")) (got '\(item)')")
            }
            guard let value = Double(parts[1]), value.isFinite, value >= 0 || parameter.name == "magnetometerLag" else {
                throw ValidationError("--set \(parameter.name) needs a finite number\(parameter.name == "magnetometerLag" ? "" : " ≥ 0") in \(parameter.unit.isEmpty ? "its own unit" : parameter.unit) (got '\(parts[1])')")
            }
            parameters[keyPath: parameter.keyPath] = value / parameter.scale
            applied.append("\(parameter.name) \(parts[1])\(parameter.unit.isEmpty ? "" : " " + parameter.unit)")
        }
        return applied.joined(separator: ", ")
    }

    static func key(_ parameters: Parameters) -> [Double] { tuned.map { parameters[keyPath: $0.keyPath] } }

    /// Scores every parameter set not yet scored, on every trial, in parallel.
    mutating func evaluate(_ sets: [Parameters]) {
        var seen = Set<[Double]>()
        let missing = sets.filter { cache[Self.key($0)] == nil && seen.insert(Self.key($0)).inserted }
        guard !missing.isEmpty else { return }
        let trials = loaded.map(\.trial), background = background
        let jobs = missing.count * trials.count
        var results = [(total: Double, inclination: Double)](repeating: (0, 0), count: jobs)
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: jobs) { job in
                output[job] = Self.score(trials[job % trials.count], missing[job / trials.count], background: background)
            }
        }
        for (s, parameters) in missing.enumerated() {
            cache[Self.key(parameters)] = loaded.indices.map { t in
                Score(group: loaded[t].entry.group, total: results[s * trials.count + t].total,
                      inclination: results[s * trials.count + t].inclination)
            }
        }
        runs += jobs
    }

    func scores(_ parameters: Parameters) -> [Score] { cache[Self.key(parameters)] ?? [] }

    /// One run with the magnetometer: its 9D total and its 6D inclination RMSE, degrees (the 6D
    /// attitude does not depend on the magnetometer, so this run gives both scores).
    static func score(_ trial: BroadTrial, _ parameters: Parameters, background: EvaluateCommand.BackgroundStart?) -> (total: Double, inclination: Double) {
        var filter = AttitudeFilter(sampleInterval: trial.sampleInterval, parameters: parameters)
        var correction = background?.makeCorrection()
        var total = 0.0, inclination = 0.0, counted = 0
        for i in 0..<trial.count {
            let field = EvaluateCommand.field(trial, i, through: &correction, filter: &filter)
            filter.update(gyroscope: trial.gyroscope[i], accelerometer: trial.accelerometer[i], magnetometer: field)
            let reference = trial.reference[i]
            guard trial.movement[i], !any(reference .!= reference) else { continue }
            let q9 = filter.quaternion9D, q6 = filter.quaternion6D
            let e9 = BroadMetric.error(SIMD4(q9.w, q9.x, q9.y, q9.z), reference).total
            let e6 = BroadMetric.error(SIMD4(q6.w, q6.x, q6.y, q6.z), reference).inclination
            total += e9 * e9
            inclination += e6 * e6
            counted += 1
        }
        let n = Double(max(counted, 1)), degrees = 180 / Double.pi
        return ((total / n).squareRoot() * degrees, (inclination / n).squareRoot() * degrees)
    }

    /// The descent on the trials `training` selects, from `start`, taking moves by `rule`.
    mutating func tune(from start: Parameters, training: [Bool], rule: MoveRule) -> Parameters {
        evaluate([start])
        let kinds = loaded.map(\.entry.kind)
        let trainingKinds = Set(loaded.indices.filter { training[$0] }.map { kinds[$0] })
        // Each trial's share of the objective: its errors over the training means at the start.
        let startScores = scores(start)
        let trainingCount = Double(max(training.filter { $0 }.count, 1))
        let base9D = max(loaded.indices.filter { training[$0] }.map { startScores[$0].total }.reduce(0, +) / trainingCount, 1e-9)
        let base6D = max(loaded.indices.filter { training[$0] }.map { startScores[$0].inclination }.reduce(0, +) / trainingCount, 1e-9)
        func share(_ p: Parameters, _ t: Int) -> Double {
            let s = scores(p)[t]
            return (s.total / base9D + s.inclination / base6D) / trainingCount
        }
        func objective(_ p: Parameters) -> Double {
            loaded.indices.filter { training[$0] }.map { share(p, $0) }.reduce(0, +)
        }
        func worthTaking(_ candidate: Parameters, over current: Parameters) -> Bool {
            let (new, old) = (objective(candidate), objective(current))
            switch rule {
            case .gain(let fraction): return new < old * (1 - fraction)
            case .majorityOfKinds:
                guard new < old else { return false }
                var helped = 0, hurt = 0
                for kind in trainingKinds {
                    let members = loaded.indices.filter { training[$0] && kinds[$0] == kind }
                    let change = members.map { share(candidate, $0) - share(current, $0) }.reduce(0, +)
                    if change < 0 { helped += 1 } else if change > 0 { hurt += 1 }
                }
                return helped > hurt
            }
        }
        var current = start
        for _ in 0..<Self.sweeps {
            var moved = false
            for parameter in tuning {
                let sets = parameter.candidates(current[keyPath: parameter.keyPath]).map { value -> Parameters in
                    var p = current
                    p[keyPath: parameter.keyPath] = value
                    return p
                }
                evaluate(sets)
                guard let best = sets.min(by: { objective($0) < objective($1) }) else { continue }
                if worthTaking(best, over: current) {
                    current = best
                    moved = true
                }
            }
            if !moved { break }
        }
        return current
    }

    /// What `parameters` changes from `start`, one `name value` a parameter.
    static func describe(_ parameters: Parameters, from start: Parameters) -> String {
        let changes = tuned.compactMap { t -> String? in
            let (value, before) = (parameters[keyPath: t.keyPath], start[keyPath: t.keyPath])
            guard value != before else { return nil }
            return "\(t.name) \(short(value * t.scale))\(t.unit.isEmpty ? "" : " " + (t.scale == 1000 ? "ms" : t.unit)) (was \(short(before * t.scale)))"
        }
        return changes.isEmpty ? "no change" : changes.joined(separator: ", ")
    }

    static func short(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e6 ? String(Int(value)) : String(format: "%.4g", value)
    }

    /// The rule among `rules` whose leave-one-kind-out run over the kinds `training` selects
    /// scores best there (the objective of the held-out trials' scores, relative to `start`'s on
    /// the same trials), and each rule's score.
    mutating func chooseRule(from start: Parameters, training: [Bool], among rules: [MoveRule]) -> (rule: MoveRule, scores: [Double]) {
        guard rules.count > 1 else { return (rules.first ?? Self.rules[0], [0]) }
        let kinds = loaded.indices.filter { training[$0] }.map { loaded[$0].entry.kind }
            .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        evaluate([start])
        let startScores = scores(start)
        let members = loaded.indices.filter { training[$0] }
        let n = Double(max(members.count, 1))
        let base9D = max(members.map { startScores[$0].total }.reduce(0, +) / n, 1e-9)
        let base6D = max(members.map { startScores[$0].inclination }.reduce(0, +) / n, 1e-9)
        var ruleScores: [Double] = []
        for rule in rules {
            var held = [Score?](repeating: nil, count: loaded.count)
            for kind in kinds {
                let inner = loaded.indices.map { training[$0] && loaded[$0].entry.kind != kind }
                let tuned = tune(from: start, training: inner, rule: rule)
                let chosen = scores(tuned)
                for t in members where loaded[t].entry.kind == kind { held[t] = chosen[t] }
            }
            let got = members.compactMap { held[$0] }
            ruleScores.append(got.map(\.total).reduce(0, +) / n / base9D + got.map(\.inclination).reduce(0, +) / n / base6D)
        }
        let best = ruleScores.indices.min { ruleScores[$0] < ruleScores[$1] } ?? 0
        return (rules[best], ruleScores)
    }

    /// Runs the folds and the in-sample descent and prints the figures side by side.
    static func run(
        _ loaded: [(entry: BroadIndexEntry, trial: BroadTrial)], start: Parameters, tuning: [Tuned], rules: [MoveRule] = CrossValidation.rules,
        backgroundCalibration: EvaluateCommand.BackgroundStart? = nil
    ) {
        let clock = ContinuousClock()
        let began = clock.now
        var validation = CrossValidation(loaded, tuning: tuning, background: backgroundCalibration)
        let kinds = loaded.map(\.entry.kind).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        print("")
        print("cross-validation: leave one kind out (\(kinds.count) folds), coordinate descent over \(tuning.count) parameters "
            + "(\(tuning.count == tuned.count ? "all" : tuning.map(\.name).joined(separator: ", ")); latency 0–8 ms, magnetometer lag −4–8 ms, the others ×½ and ×2; at most \(sweeps) passes), "
            + "objective: mean 9D total + mean 6D inclination, each relative to the fold's start; "
            + (rules.count > 1
                ? "the move rule chosen in each fold by leave-one-kind-out over its training kinds among: \(rules.map(\.description).joined(separator: "; "))"
                : "\(rules[0]) (fixed)"))
        func ruleNote(_ choice: (rule: MoveRule, scores: [Double])) -> String {
            rules.count > 1 ? "[\(choice.rule); inner scores \(choice.scores.map { format($0, digits: 3) }.joined(separator: " / "))] " : ""
        }
        var crossValidated = [Score?](repeating: nil, count: loaded.count)
        for kind in kinds {
            let training = loaded.map { $0.entry.kind != kind }
            let choice = validation.chooseRule(from: start, training: training, among: rules)
            let chosen = validation.tune(from: start, training: training, rule: choice.rule)
            let scores = validation.scores(chosen)
            for t in loaded.indices where !training[t] {
                crossValidated[t] = scores[t]
            }
            let held = loaded.indices.filter { !training[$0] }.map { loaded[$0].entry.trial.prefix(2) }.joined(separator: ", ")
            print("fold \(kind) (trials \(held) held out): \(ruleNote(choice))\(describe(chosen, from: start))")
        }
        let all = loaded.map { _ in true }
        let inSampleChoice = validation.chooseRule(from: start, training: all, among: rules)
        let inSampleParameters = validation.tune(from: start, training: all, rule: inSampleChoice.rule)
        let inSample = validation.scores(inSampleParameters)
        print("in-sample (all trials): \(ruleNote(inSampleChoice))\(describe(inSampleParameters, from: start))")
        let elapsed = clock.now - began
        print("\(validation.runs) filter runs over a trial in \(format(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, digits: 0)) s")
        print("")
        print("trial                                          kind                                9D in-sample  cross-val   6D in-sample  cross-val")
        for t in loaded.indices {
            guard let cv = crossValidated[t] else { continue }
            print(EvaluateCommand.pad(loaded[t].entry.trial, 46) + EvaluateCommand.pad(loaded[t].entry.kind, 36)
                + EvaluateCommand.number(inSample[t].total, 12) + EvaluateCommand.number(cv.total, 11)
                + EvaluateCommand.number(inSample[t].inclination, 15) + EvaluateCommand.number(cv.inclination, 11))
        }
        print("")
        print("                         9D total  6D incl.  trials")
        EvaluateCommand.printGroups(inSample, label: "in-sample ")
        EvaluateCommand.printGroups(crossValidated.compactMap { $0 }, label: "cross-val ")
    }

    static func format(_ value: Double, digits: Int) -> String { EvaluateCommand.format(value, digits: digits) }
}
