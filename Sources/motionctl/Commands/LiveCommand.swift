import CommandSupport
import Locking
import ArgumentParser
import Dispatch
import Foundation
import FieldCalibration
import Fusion
import Motion
import MotionSimulation
import Timing

#if canImport(Glibc)
import Glibc
#endif

/// `motionctl` with no subcommand: a live view of device motion, refreshed in place.
struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Show live device motion: attitude, gravity, user acceleration, rotation, orientation, rate and counters (the default).",
        discussion: "Runs on this machine's board, or on the simulated board when no IMU is found (it says so). Ctrl-C ends it.")

    @Option(parsing: .unconditional, help: "Stop after this many seconds.", transform: OptionRange.decimal) var duration: Double?
    @Option(parsing: .unconditional, help: "Screen refreshes per second (0.1 to 50).", transform: OptionRange.decimal) var refresh: Double = 10
    @Flag(help: "Read the IMU through its FIFO at the chip's output data rate, each sample timed by the chip's clock.")
    var fifo = false

    @OptionGroup var source: SourceOptions

    func validate() throws {
        try OptionRange.check(refresh, "--refresh", in: 0.1...50, unit: "per second")
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting {
            // A live view plays the simulated board on the system clock too.
            let opened = try source.open(virtualTime: false)
            opened.manager.usesChipFIFO = fifo
            // The source's barometer for the pressure line; none is no fault (most boards have none).
            let altimeter: Altimeter?
            do throws(MotionError) {
                altimeter = try Altimeter(source: opened.source, clock: opened.clock)
            } catch {
                if case .sensorNotAvailable = error {} else { printError("live: no pressure line: \(error)") }
                altimeter = nil
            }
            let view = LiveView(
                manager: opened.manager, refreshInterval: 1 / refresh, inPlace: TerminalStyle.standardOutput.redrawsInPlace,
                fellBack: !source.isSimulated, altimeter: altimeter)
            if view.run(runner: opened.runner(duration: duration)) { throw Interruption.exit("live view stopped") }
        }
    }
}

/// The screen, drawn from the manager's pull properties on a display timer.
struct LiveView: Sendable {
    let manager: MotionManager
    let refreshInterval: Double
    /// Redraw its own lines in place with ANSI escapes (a terminal; the screen above is left as
    /// it was); otherwise one plain block per second.
    let inPlace: Bool
    /// The simulated board was chosen because no real one answered (not asked for).
    let fellBack: Bool
    /// The source's barometer, for the pressure line; nil without one.
    var altimeter: Altimeter? = nil

    /// Returns true when ended by Ctrl-C.
    func run(runner: UpdateRunner) -> Bool {
        let frame: AttitudeReferenceFrame = manager.isMagnetometerAvailable ? .xMagneticNorthZVertical : .xArbitraryZVertical
        manager.startDeviceMotionUpdates(using: frame)   // a frame the device has: never refused
        manager.beginGeneratingDeviceOrientationNotifications()
        // The step line: a pedometer and an activity manager on the same sampler.
        let pedometer = Pedometer(sharing: manager)
        let activities = MotionActivityManager(sharing: manager)
        let steps = Locked<PedometerData?>(nil)
        pedometer.startUpdates(from: Date()) { data, _ in
            if let data { steps.withLock { $0 = data } }
        }
        // The pressure line: the altimeter's update, once a second.
        let altitude = Locked<(data: AltitudeData?, error: MotionError?)>((nil, nil))
        altimeter?.startRelativeAltitudeUpdates(to: DispatchQueue(label: "motionctl.live.altitude")) { data, error in
            altitude.withLock { $0 = (data ?? $0.data, error) }
        }
        defer {
            altimeter?.stopRelativeAltitudeUpdates()
            pedometer.stopUpdates()
            manager.endGeneratingDeviceOrientationNotifications()
            manager.stopDeviceMotionUpdates()
        }
        let output = OutputLines()
        let display = Locked(LiveDisplay())
        var header = manager.deviceName
        if manager.simulatedHardware != nil {
            header = "SIMULATED BOARD" + (fellBack ? " (this machine is not a known board; `motionctl doctor` says more)" : "")
                + " — " + header
        }
        let queue = DispatchQueue(label: "motionctl.live")
        let rate = RateMeter()
        let interval = inPlace ? refreshInterval : LiveDisplay.plainBlockInterval
        let timer = SystemClock().scheduleRepeating(every: interval, on: queue) { [manager, inPlace, header] now in
            let stepLine = Self.stepLine(steps.withLock { $0 }, activities.currentActivity)
            let pressureLine = altimeter.map { Self.pressureLine(altitude.withLock { $0 }, barometer: $0.barometerName) }
            let lines = Self.screen(
                manager: manager, header: header, frame: frame, rate: rate.update(sampled: manager.counters.sampled, at: now), steps: stepLine,
                pressure: pressureLine)
            if inPlace {
                display.withLock { $0.show(lines) }
            } else {
                output.write(lines.joined(separator: "\n") + "\n")
            }
        }
        // A standard output that fails (a full disk, a closed descriptor) ends the view: the
        // failure is the command's error (StandardStreams.finish).
        let interrupted = runner.run(isDone: { CheckedOutput.standardOutput.error != nil }, drain: {})
        timer.cancel()
        queue.sync {}
        if !inPlace {
            // In a pipe the last state is shown too, however short the run.
            let lines = Self.screen(
                manager: manager, header: header, frame: frame, rate: rate.update(sampled: manager.counters.sampled, at: SystemClock.monotonicSeconds()),
                steps: Self.stepLine(steps.withLock { $0 }, activities.currentActivity),
                pressure: altimeter.map { Self.pressureLine(altitude.withLock { $0 }, barometer: $0.barometerName) })
            output.write(lines.joined(separator: "\n") + "\n")
        }
        output.write((inPlace ? "\n" : "") + "stopped: \(manager.counters)")
        return interrupted
    }

    /// The background magnetometer calibration's progress in one line.
    static func describe(_ status: HardIronEstimator.Status) -> String {
        let what: String = switch status.reason {
        case .calibrated: "calibrated"
        case .learning: "learning — keep turning the board now and then"
        case .needsRotation: "turn the board a few times (at rest the magnetometer's offset cannot be learned)"
        case .disturbed: "field disturbed (a magnet or steel nearby?): not learning"
        case .relearning: "the field no longer fits the offset (a magnet attached?): checking before relearning"
        case .off: "off: the field is used as read"
        }
        return String(format: "offset σ %.2f µT, heading σ %.1f°: ", status.sigma, status.headingSigma) + what
            + (status.changes > 0 ? " (\(status.changes) change\(status.changes == 1 ? "" : "s") relearned)" : "")
    }

    /// The pedometer's count and cadence and the activity, in one line.
    static func stepLine(_ data: PedometerData?, _ activity: MotionActivity?) -> String {
        let count = data?.numberOfSteps.intValue ?? 0
        let cadence = data?.currentCadence.map { String(format: "  cadence %.2f/s", $0.doubleValue) } ?? ""
        let kind = activity.map { $0.stationary ? "stationary" : $0.walking ? "walking" : $0.running ? "running" : "unknown" } ?? "unknown"
        let confidence = activity.map { ["low", "medium", "high"][$0.confidence.rawValue] } ?? "low"
        return "steps        \(count)\(cadence)  \(kind) (\(confidence))"
    }

    /// The barometer's latest update in one line: pressure, the altitude gained since the view
    /// started, and the chip; its error while it has one.
    static func pressureLine(_ latest: (data: AltitudeData?, error: MotionError?), barometer: String?) -> String {
        if let error = latest.error { return "pressure     \(error)" }
        guard let data = latest.data else { return "pressure     waiting for the first second of readings…" }
        return String(format: "pressure     %.2f hPa  altitude %+.2f m since the start", data.pressure.doubleValue * 10, data.relativeAltitude.doubleValue)
            + "  (\(barometer ?? "barometer"))"
    }

    static func screen(
        manager: MotionManager, header: String, frame: AttitudeReferenceFrame, rate: Double?, steps: String? = nil, pressure: String? = nil
    ) -> [String] {
        func degrees(_ radians: Double) -> String { String(format: "%+7.1f°", radians * 180 / .pi) }
        func vector(_ v: SIMD3<Double>, _ format: String) -> String {
            String(format: "x \(format)  y \(format)  z \(format)", v.x, v.y, v.z)
        }
        var lines = ["swift-motion — \(header)", ""]
        guard let motion = manager.deviceMotion else {
            return lines + ["waiting for the first sample…", "", "counters     \(manager.counters)"]
        }
        let attitude = motion.attitude
        lines.append("attitude     roll \(degrees(attitude.roll))  pitch \(degrees(attitude.pitch))  yaw \(degrees(attitude.yaw))  (\(frame))")
        if let chip = motion.chipAttitude {
            // The chip's own fusion, same frame: side by side with ours, and how far apart.
            let apart = String(format: "%.1f°", chip.quaternion.angle(to: attitude.quaternion) * 180 / .pi)
            lines.append("chip's own   roll \(degrees(chip.roll))  pitch \(degrees(chip.pitch))  yaw \(degrees(chip.yaw))  (\(apart) from ours)")
        }
        if motion.heading >= 0 { lines.append(String(format: "heading      %5.1f° from magnetic north", motion.heading)) }
        lines.append("gravity      " + vector(motion.gravity, "%+6.3f") + "  g")
        lines.append("user accel   " + vector(motion.userAcceleration, "%+6.3f") + "  g")
        lines.append("rotation     " + vector(motion.rotationRate, "%+6.3f") + "  rad/s")
        if manager.isMagnetometerAvailable {
            lines.append("field        " + vector(motion.magneticField.field, "%+6.1f") + "  µT  (accuracy: \(motion.magneticField.accuracy))")
            if let status = manager.backgroundCalibrationStatus {
                lines.append("calibration  " + Self.describe(status) + (manager.backgroundSoftIronFit != nil ? "; soft iron fitted" : ""))
                if let failure = manager.backgroundCalibrationSaveError { lines.append("             not saved: \(failure)") }
            }
        }
        lines.append("orientation  \(manager.orientation.name)")
        if let steps { lines.append(steps) }
        if let pressure { lines.append(pressure) }
        lines.append(rate.map { String(format: "rate         %.1f Hz (last second)", $0) } ?? "rate         measuring…")
        lines.append("counters     \(manager.counters)" + (manager.usesChipFIFO ? " (per period of the chip's FIFO)" : ""))
        lines.append("")
        lines.append("Ctrl-C to stop")
        return lines
    }
}

/// Samples per second over the last second or more (a sliding window), nil until a whole second
/// has been seen: a rate measured over one refresh jumps with every timer wake-up.
final class RateMeter: Sendable {
    /// Seconds the rate is measured over, at least.
    static let window = 1.0
    /// (time, samples so far) at each refresh, oldest first; only as far back as the window needs.
    private let history = Locked<[(time: Double, sampled: Int)]>([])

    func update(sampled: Int, at time: Double) -> Double? {
        history.withLock { history in
            history.append((time, sampled))
            // Keep the newest entry at least one window old, drop what is older than it.
            while history.count > 2, history[1].time <= time - Self.window { history.removeFirst() }
            guard let oldest = history.first, time - oldest.time >= Self.window - 1e-9 else { return nil }
            return Double(sampled - oldest.sampled) / (time - oldest.time)
        }
    }
}
