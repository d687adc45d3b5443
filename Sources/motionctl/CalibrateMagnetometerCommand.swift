import ArgumentParser
import Foundation
import Fusion
import Motion

/// `motionctl calibrate magnetometer`: guided figure-eight, ellipsoid fit, saved to the store.
struct CalibrateMagnetometerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "magnetometer",
        abstract: "Hard- and soft-iron calibration: turn the board in slow figure-eights through every orientation.",
        discussion: """
            Shows the directions covered so far and stops by itself when coverage and fit are good, \
            when you press a key, or after --duration (default 60 s). Then reports the field \
            strength, fit error, coverage, the model used and the accuracy, and saves the result.
            """)

    @OptionGroup var options: CalibrationOptions

    @Option(help: "Also write a picture of the fit (raw and corrected readings, three projections) to this SVG file.")
    var plot: String?

    @Flag(help: "Save even when the stored calibration of this magnetometer is more accurate.")
    var replace = false

    func run() throws {
        try CommandFailure.reporting(calibrate)
    }

    private func calibrate() throws {
        let feed = try options.openFeed(defaultScenario: "figure-eight")
        guard let sensor = feed.target.magnetometer else {
            throw CommandFailure(message: "\(feed.manager.deviceName) has no magnetometer: nothing to calibrate")
        }
        let duration = options.duration ?? 60
        var session = MagnetometerSession()
        var stopReason = "measured for \(decimals(duration, 0)) s"
        var lastError: MotionError?
        feed.start(.magnetometer)
        if options.nonInteractive {
            feed.measure(duration: duration, step: 1) { batch, _ in
                session.add(batch.magneticField)
                lastError = lastError ?? batch.error
                return true
            }
        } else {
            print("Calibrating the magnetometer: \(sensor)")
            print("Hold the board away from steel and magnets and turn it slowly in figure-eights,")
            print("through every orientation (screen up, down, every edge up), until the map fills.")
            let keys = KeyReader()
            defer { keys?.restore() }
            if keys != nil { print("Press any key to stop early (Ctrl-C cancels).") }
            print("")
            var display = LiveDisplay()
            feed.measure(duration: duration, step: feed.isVirtualTime ? 1 : 0.25) { batch, elapsed in
                session.add(batch.magneticField)
                lastError = batch.error ?? lastError
                let progress = session.progress()
                display.show(Self.progressLines(progress, elapsed: elapsed, error: lastError, magnetometerToDevice: feed.target.magnetometerToDevice))
                if progress.isGoodEnough {
                    stopReason = "coverage and fit are good (after \(decimals(elapsed, 1)) s)"
                    return false
                }
                if let key = keys?.pressedKey() {
                    if key == KeyReader.interrupt { Interruption.request() }
                    stopReason = "stopped by a key press after \(decimals(elapsed, 1)) s"
                    return false
                }
                // On the simulator, slow down enough for a person to watch.
                if feed.isVirtualTime { Thread.sleep(forTimeInterval: 0.05) }
                return true
            }
            keys?.restore()
        }
        try options.stopIfInterrupted(feed)
        feed.stop()
        try finish(session, sensor: sensor, feed: feed, stopReason: stopReason, lastError: lastError)
    }

    private func finish(_ session: MagnetometerSession, sensor: SensorIdentity, feed: CalibrationFeed, stopReason: String, lastError: MotionError?) throws {
        let report: EllipsoidFit.Report
        do {
            report = try session.fit()
        } catch {
            let cause = lastError.map { " (the sensor reported: \($0))" } ?? ""
            throw CommandFailure(message: "\(error)\(cause)")
        }
        var path: String?
        let notSaved = reasonNotToSave(report, sensor: sensor)
        if notSaved == nil {
            do {
                path = try options.store.update(sensor) { $0.magnetometer = CalibrationRecord.Magnetometer(report) }
            } catch {
                throw CommandFailure(message: "\(error)")
            }
        }
        if let plot {
            let title = "\(sensor): \(report.model.storedName) fit, field \(decimals(report.fieldStrength, 1)) µT, fit error \(decimals(report.fitErrorPercent)) %"
            do {
                let svg = CalibrationPlot.svg(raw: session.samples, calibration: report.calibration, title: title, quality: .init(report))
                try CalibrationPlot.write(svg, to: plot)
            } catch {
                throw CommandFailure(message: "cannot write the plot \(plot): \(error.localizedDescription)")
            }
        }
        var result = MagnetometerResult(report, sensor: sensor, sampleCount: session.samples.count, stoppedBecause: stopReason, path: path, plot: plot)
        result.notSavedBecause = notSaved
        if options.nonInteractive {
            try printJSON(result)
        } else {
            print(result.text)
        }
        if path == nil { throw ExitCode.failure }
    }

    /// Why this fit must not replace what is stored, nil to save it.
    private func reasonNotToSave(_ report: EllipsoidFit.Report, sensor: SensorIdentity) -> String? {
        if report.accuracy == .uncalibrated { return "the fit is too poor to use" }
        if !report.isFieldStrengthPlausible {
            return "a field of \(decimals(report.fieldStrength, 1)) µT is not the Earth's (22–67 µT): move away from steel and magnets, or turn the board through more orientations"
        }
        guard !replace else { return nil }
        // A damaged stored file is simply replaced.
        let stored: CalibrationRecord?
        do { stored = try options.store.load(sensor) } catch { return nil }
        if let accuracy = stored?.magnetometer.flatMap({ MagneticFieldCalibrationAccuracy(storedName: $0.accuracy) }), accuracy > report.accuracy {
            return "the stored calibration is more accurate (\(accuracy.storedName)); pass --replace to overwrite it"
        }
        return nil
    }

    static func progressLines(
        _ progress: MagnetometerSession.Progress, elapsed: Double, error: MotionError?, magnetometerToDevice: Matrix3 = .identity
    ) -> [String] {
        let width = 40
        let filled = Int((progress.coverage.coverage * Double(width)).rounded())
        let bar = TerminalStyle.standardOutput.colored(String(repeating: "#", count: filled), .blue) + String(repeating: ".", count: width - filled)
        let field = progress.currentFieldStrength.map { "\(decimals($0, 1)) µT" } ?? "(shown once the fit settles)"
        var lines = [
            "Coverage [\(bar)] \(decimals(progress.coverage.coverage * 100, 0)) %  (\(progress.coverage.coveredCellCount)/\(SphereCoverage.cells.count) regions)",
            "Samples \(progress.sampleCount)   field \(field)   \(decimals(elapsed, 1)) s",
            "Directions covered (# covered, . missing; top row +z, bottom -z):",
        ]
        lines += progress.coverage.map.split(separator: "\n").map { "    " + $0 }
        lines += progress.guidance(magnetometerToDevice: magnetometerToDevice)
        if let error { lines.append("sensor: \(error)") }
        return lines
    }
}
