import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import Motion
import MotionSimulation

/// `motionctl orientation`: prints each change of device orientation as it is posted.
struct OrientationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientation",
        abstract: "Print each change of device orientation (face up, portrait, …) with its time.",
        discussion: """
            One line per change: seconds since the start, then old → new orientation, e.g. \
            "12.310  faceUp → portrait". With --simulated or --scenario the simulated board plays a \
            scenario in virtual time (as fast as the machine goes, the same every run) unless \
            --real-time is given. On a real board it runs until Ctrl-C or --duration. Without \
            --board, --bus or --simulated: this machine's board, else the simulated board.
            """)

    @Option(parsing: .unconditional, help: "Seconds to run. Default: simulated, the scenario's length plus 1 s; real board, until Ctrl-C.", transform: OptionRange.decimal)
    var duration: Double?

    @OptionGroup var source: SourceOptions

    func validate() throws {
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting {
            // The simulated board plays without stored calibrations: the same output every run.
            let opened = try source.open(calibrationStore: source.isSimulated ? nil : .userDefault())
            let interrupted = OrientationWatch.run(
                opened.manager, start: opened.clock.now, runner: opened.runner(duration: duration ?? opened.scenarioLength.map { $0 + 1 }))
            if interrupted { throw Interruption.exit("stopped watching the orientation") }
        }
    }
}

/// Writes one line per posted change. Its closures run on the notifier's and Dispatch's queues,
/// so they live here, outside the main actor.
struct OrientationPrinter: Sendable {
    /// Seconds since boot that print as 0.
    let start: Double

    static func line(_ change: DeviceOrientationChange, since start: Double) -> String {
        String(format: "%.3f", change.timestamp - start) + "  \(change.old.name) → \(change.new.name)"
    }

    static func fail(_ message: String) {
        printError("error: \(message)")
    }

    func observe(_ manager: MotionManager) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .deviceOrientationDidChange, object: manager, queue: nil) { [start] note in
            guard let old = note.userInfo?[MotionManager.oldOrientationKey] as? DeviceOrientation,
                  let new = note.userInfo?[MotionManager.newOrientationKey] as? DeviceOrientation,
                  let timestamp = note.userInfo?[MotionManager.orientationTimestampKey] as? Double else { return }
            let change = DeviceOrientationChange(old: old, new: new, timestamp: timestamp)
            StandardStreams.output(Self.line(change, since: start) + "\n")
        }
    }
}

/// Runs orientation notifications for a while and prints them.
enum OrientationWatch {
    /// Runs until the runner stops (duration or Ctrl-C), then waits for the last notification;
    /// sampler errors go to standard error. Returns true when ended by Ctrl-C.
    static func run(_ manager: MotionManager, start: Double, runner: UpdateRunner) -> Bool {
        let observer = OrientationPrinter(start: start).observe(manager)
        // Errors reach every consumer; a slow accelerometer consumer reports them.
        manager.accelerometerUpdateInterval = 1
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "motionctl.errors")) { _, error in
            if let error { OrientationPrinter.fail("\(error)") }
        }
        manager.beginGeneratingDeviceOrientationNotifications()
        let interrupted = runner.run(isDone: { false }, drain: {})
        manager.endGeneratingDeviceOrientationNotifications()
        manager.stopAccelerometerUpdates()
        manager.waitForOrientationNotifications()
        NotificationCenter.default.removeObserver(observer)
        return interrupted
    }
}
