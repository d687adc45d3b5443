import ArgumentParser
import CommandSupport
import Foundation
import Fusion
import Motion
import MotionSimulation
import MotionTools

/// `motionctl calibrate gyroscope`: the zero-rate bias, measured with the board at rest.
struct CalibrateGyroscopeCommand: CalibrationSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "gyroscope",
        abstract: "Gyroscope bias: leave the board still on a table for a few seconds (refused while it moves).")

    @OptionGroup var options: CalibrationOptions

    struct Result: Encodable {
        var sensor: SensorIdentity
        /// rad/s, chip axes.
        var bias: [Double]
        var biasDegreesPerSecond: [Double]
        /// rad/s per axis: the noise at rest.
        var standardDeviation: [Double]
        var sampleCount: Int
        var path: String
    }

    func calibrate() throws {
        let feed = try options.openFeed(defaultScenario: "rest")
        let duration = options.duration ?? 5
        if !options.nonInteractive {
            print("Calibrating the gyroscope of \(feed.target.imu)")
            print("Put the board on a table and do not touch it for \(decimals(duration, 0)) s.")
        }
        var bias = GyroBiasCalibration()
        var display = LiveDisplay()
        var lastError: MotionError?
        feed.start(.inertial)
        feed.measure(duration: duration, step: feed.isVirtualTime ? 1 : 0.25) { batch, elapsed in
            for rate in batch.rotationRate { bias.add(rate) }
            lastError = batch.error ?? lastError
            if !options.nonInteractive {
                let spread = bias.standardDeviation * (180 / .pi)
                display.show(["measuring \(decimals(elapsed, 1)) / \(decimals(duration, 0)) s   \(bias.sampleCount) samples   spread \(decimals(spread, 3)) °/s"])
            }
            // Moving already: no point waiting for the rest of the window.
            return bias.sampleCount < 100 || bias.standardDeviation.max() <= bias.configuration.maximumStandardDeviation
        }
        try options.stopIfInterrupted(feed)
        feed.stop()
        let estimate: GyroBiasCalibration.Estimate
        do {
            estimate = try bias.result()
        } catch {
            // Refused (moving, turning, too few readings): nothing is saved.
            throw CommandFailure(message: "\(error)" + (lastError.map { " (the sensor reported: \($0))" } ?? "") + "; nothing saved")
        }
        let path = try options.save(feed.target.imu) {
            $0.gyroscope = CalibrationRecord.Gyroscope(bias: estimate.bias, sampleCount: estimate.sampleCount)
        }
        let degrees = estimate.bias * (180 / .pi)
        if options.nonInteractive {
            try printJSON(Result(
                sensor: feed.target.imu, bias: [estimate.bias.x, estimate.bias.y, estimate.bias.z],
                biasDegreesPerSecond: [degrees.x, degrees.y, degrees.z],
                standardDeviation: [estimate.standardDeviation.x, estimate.standardDeviation.y, estimate.standardDeviation.z],
                sampleCount: estimate.sampleCount, path: path))
        } else {
            print("Gyroscope bias \(decimals(degrees, 3)) °/s (chip axes) over \(estimate.sampleCount) samples, noise \(decimals(estimate.standardDeviation * (180 / .pi), 3)) °/s")
            print("Saved to \(path)")
        }
    }
}
