import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import Locking
import Motion
import MotionSimulation
import Timing

/// `motionctl steps`: the pedometer and the activity classifier, live.
struct StepsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "Count steps and print the cadence and the activity (stationary, walking, running) as they change.",
        discussion: """
            A line every 20 steps (seconds since the start, the count, the cadence) and one at each \
            change of activity or its confidence (with the time the activity began: a walk from its \
            first step); at the end the total, its distance and the time. With --chip the IMU's own \
            step counter (LSM6DSO, LSM6DSOX, LSM6DSO32) counts too: its lines say "chip steps" and the \
            total line ends with its count, beside the library's. \
            With --simulated or --scenario the simulated board plays a scenario (walk-hand unless \
            named; walk-pocket, run, stairs, walk-pauses walk too) in virtual time unless \
            --real-time is given. On a real board it runs until Ctrl-C or --duration.
            """)

    @OptionGroup var source: SourceOptions

    @Option(parsing: .unconditional, help: "Seconds to run. Default: simulated, the scenario's length plus 3 s; real board, until Ctrl-C.", transform: OptionRange.decimal)
    var duration: Double?

    @Option(parsing: .unconditional, help: "The walker's height in metres, for the distance (a step is 0.415 × height). Default 1.70.", transform: OptionRange.decimal)
    var height: Double = 1.70

    @Flag(help: "Also count with the IMU's own step counter (LSM6DSO, LSM6DSOX, LSM6DSO32) and print its count beside the library's.")
    var chip = false

    func validate() throws {
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
        guard height >= 0.5, height <= 2.5 else {
            throw ValidationError("--height \(height) is not a person's height in metres: give one between 0.5 and 2.5")
        }
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting {
            let opened = try source.open(defaultScenario: "walk-hand", calibrationStore: source.isSimulated ? nil : .userDefault())
            let interrupted = try StepWatch.run(
                opened.manager, clock: opened.clock, height: height, chip: chip,
                runner: opened.runner(duration: duration ?? opened.scenarioLength.map { $0 + 3 }))
            if interrupted { throw Interruption.exit("stopped counting steps") }
        }
    }
}

/// Runs a pedometer and an activity manager on a manager's device and prints what they say, in
/// the order of their sample times.
enum StepWatch {
    /// One line to print, at the sample time it is about.
    private typealias Line = (time: Double, text: String)

    /// With `chip`, a second pedometer counts on the IMU's own step counter (refused, naming the
    /// fix, when it has none); its lines say "chip steps" and the total line ends with its count.
    static func run(_ manager: MotionManager, clock: any MotionClock, height: Double, chip: Bool = false, runner: UpdateRunner) throws -> Bool {
        let pedometer = Pedometer(sharing: manager)
        pedometer.stepLength = .height(height)
        var chipPedometer: Pedometer?
        if chip {
            do {
                chipPedometer = try Pedometer(sharing: manager, stepCounter: .chip)
            } catch {
                throw CommandFailure(message: "--chip: \(error); drop --chip to count with the library's detector alone")
            }
        }
        let activities = MotionActivityManager(sharing: manager)
        // Times are seconds since the start, each class's dates mapped back to its monotonic clock.
        let startTime = clock.now
        let pending = Locked<[Line]>([])
        /// A line every 20 steps of `counter`, named `label`; the latest data kept in `latest`.
        func follow(_ counter: Pedometer, _ label: String, _ latest: Locked<PedometerData?>) {
            counter.startUpdates(from: counter.dates.date(startTime)) { data, error in
                if let error { printError("error: \(error)") }
                guard let data else { return }
                let previous = latest.withLock { latest in
                    defer { latest = data }
                    return latest?.numberOfSteps.intValue ?? 0
                }
                let steps = data.numberOfSteps.intValue
                guard steps / 20 > previous / 20 else { return }
                let cadence = data.currentCadence.map { String(format: "%.2f/s", $0.doubleValue) } ?? "-"
                // Through this counter's own dates: each pedometer reads the wall clock once when it
                // is made, so another's dates can be milliseconds apart (the chip's line printed
                // 10 ms late on a loaded machine).
                let time = counter.dates.monotonic(data.endDate) - startTime
                pending.withLock { $0.append((time, String(format: "%.2f", time) + "  \(label) \(steps)  cadence \(cadence)")) }
            }
        }
        let latest = Locked<PedometerData?>(nil)
        let chipLatest = Locked<PedometerData?>(nil)
        follow(pedometer, "steps", latest)
        if let chipPedometer { follow(chipPedometer, "chip steps", chipLatest) }
        let activityQueue = OperationQueue()
        activityQueue.maxConcurrentOperationCount = 1
        activities.startActivityUpdates(to: activityQueue) { activity in
            guard let activity else { return }
            // Reported when it began, and again when its confidence rose (5 s and 15 s after).
            let since = activities.dates.monotonic(activity.startDate) - startTime
            let time = since + (activity.unknown ? 0 : [0, 5, 15][activity.confidence.rawValue])
            let text = String(format: "%.2f", time) + "  \(name(of: activity)) (\(name(of: activity.confidence))) since " + String(format: "%.2f", since)
            pending.withLock { $0.append((time, text)) }
        }
        let printLines = {
            pedometer.flush()
            chipPedometer?.flush()
            activityQueue.waitUntilAllOperationsAreFinished()
            let lines = pending.withLock { lines in
                defer { lines.removeAll() }
                return lines.sorted { $0.time < $1.time }
            }
            for line in lines { StandardStreams.output(line.text + "\n") }
        }
        let interrupted = runner.run(isDone: { false }, drain: printLines)
        pedometer.stopUpdates()
        chipPedometer?.stopUpdates()
        activities.stopActivityUpdates()
        printLines()
        let total = latest.withLock { $0 }
        let steps = total?.numberOfSteps.intValue ?? 0
        let distance = total?.distance?.doubleValue ?? 0
        let seconds = total.map { pedometer.dates.monotonic($0.endDate) - startTime } ?? 0
        let chipTotal = chipPedometer.map { _ in "  chip \(chipLatest.withLock { $0?.numberOfSteps.intValue ?? 0 }) steps" } ?? ""
        StandardStreams.output("total  \(steps) steps  " + String(format: "%.1f m  in %.1f s", distance, seconds) + chipTotal + "\n")
        return interrupted
    }

    private static func name(of activity: MotionActivity) -> String {
        activity.stationary ? "stationary" : activity.walking ? "walking" : activity.running ? "running" : "unknown"
    }

    private static func name(of confidence: MotionActivityConfidence) -> String {
        switch confidence {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}
