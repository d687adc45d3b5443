import ArgumentParser
import FileAccess
import CommandSupport
import Foundation
import Fusion
import Motion
import MotionSimulation
import MotionTools

/// `motionctl calibrate magnetometer`: guided figure-eight, ellipsoid fit, saved to the store.
struct CalibrateMagnetometerCommand: CalibrationSubcommand {
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

    func validate() throws {
        // Before a minute of turning the board: a path that cannot take the plot is said now.
        if let plot {
            do { try OutputFile.preflight(plot, what: "the plot (an SVG file)") } catch { throw ValidationError("--plot \(error)") }
        }
    }

    func calibrate() throws {
        let feed = try options.openFeed(defaultScenario: "figure-eight")
        var run: MagnetometerRun
        do { run = try MagnetometerRun(feed: feed) } catch { throw CommandFailure(message: "\(error)") }
        let duration = options.duration ?? 60
        if options.nonInteractive {
            run.measure(duration: duration, watched: false, shouldStop: { Interruption.isRequested })
        } else {
            print("Calibrating the magnetometer: \(run.sensor)")
            print("Hold the board away from steel and magnets and turn it slowly in figure-eights,")
            print("through every orientation (screen up, down, every edge up), until the map fills.")
            let keys = KeyReader()
            defer { keys?.restore() }
            if keys != nil { print("Press any key to stop early (Ctrl-C cancels).") }
            print("")
            var display = LiveDisplay()
            run.measure(duration: duration, watched: true, shouldStop: { Interruption.isRequested }) { progress, elapsed, error, _ in
                display.show(Self.progressLines(progress, elapsed: elapsed, error: error, magnetometerToDevice: feed.target.magnetometerToDevice))
                guard let key = keys?.pressedKey() else { return nil }
                if key == KeyReader.interrupt { Interruption.request() }
                return "stopped by a key press after \(decimals(elapsed, 1)) s"
            }
            keys?.restore()
        }
        try options.stopIfInterrupted(feed)
        try finish(run)
    }

    private func finish(_ run: MagnetometerRun) throws {
        let report: EllipsoidFit.Report
        do { report = try run.fit() } catch { throw CommandFailure(message: "\(error)") }
        let sensor = run.sensor
        var path: String?
        let notSaved = run.reasonNotToSave(report, store: options.store, replace: replace)
        if notSaved == nil {
            do { path = try run.save(report, to: options.store) } catch { throw CommandFailure(message: "\(error)") }
        }
        if let plot {
            let title = "\(sensor): \(report.model.storedName) fit, field \(decimals(report.fieldStrength, 1)) µT, fit error \(decimals(report.fitErrorPercent)) %"
            let svg = CalibrationPlot.svg(raw: run.session.samples, calibration: report.calibration, title: title, quality: .init(report))
            do {
                try CalibrationPlot.write(svg, to: plot)
            } catch {
                throw CommandFailure(message: "cannot write the plot: \(error)")
            }
        }
        var result = MagnetometerResult(report, sensor: sensor, sampleCount: run.session.samples.count, stoppedBecause: run.stopReason, path: path, plot: plot)
        result.notSavedBecause = notSaved
        if options.nonInteractive {
            try printJSON(result)
        } else {
            print(result.text)
        }
        if path == nil { throw ExitCode.failure }
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
