import ArgumentParser
import CommandSupport
import Foundation
import Fusion
import Motion
import MotionSimulation
import MotionTools

/// `motionctl calibrate accelerometer`: offset and scale per axis from the board resting on each
/// of its six faces, guided face by face.
struct CalibrateAccelerometerCommand: CalibrationSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "accelerometer",
        abstract: "Accelerometer offset and scale per axis: rest the board still on each of its six faces in turn.")

    @OptionGroup var options: CalibrationOptions

    struct Result: Encodable {
        var sensor: SensorIdentity
        /// g, chip axes.
        var offset: [Double]
        var scale: [Double]
        /// Mean reading (g, chip axes) per face.
        var faces: [String: [Double]]
        var path: String
    }

    /// "now: face up, still 0.4 of 1.0 s · 170 s left": the face detected, whether it is
    /// measured already, and how long the board has been still.
    static func statusLine(_ status: SixFaceSession.Status, secondsLeft: Double) -> String {
        let window = Double(status.window) / 100   // readings at 100 Hz
        let state: String
        if let face = status.face {
            let still = status.isStill
                ? "still \(decimals(min(Double(status.stillReadings) / 100, window), 1)) of \(decimals(window, 1)) s"
                : "moving: hold it still"
            state = status.isMeasured ? "\(face.name), measured already: turn it to the next face" : "\(face.name), \(still)"
        } else {
            state = "on no face (tilted or moving): lay it flat on one face"
        }
        return "  now: \(state) · \(decimals(max(0, secondsLeft), 0)) s left"
    }

    func calibrate() throws {
        let feed = try options.openFeed(defaultScenario: "six-faces")
        let duration = options.duration ?? 180
        var session = SixFaceSession(imuToDevice: feed.target.imuToDevice)
        var lastError: MotionError?
        let interactive = !options.nonInteractive
        if interactive {
            print("Calibrating the accelerometer of \(feed.target.imu)")
            print("Rest the board still on each of its six faces; each is measured after 1 s without motion.")
            if let next = session.nextFace { print("Next: \(next.placementHint)") }
        }
        feed.start(.inertial)
        var display = LiveDisplay()
        feed.measure(duration: duration, step: 0.25) { batch, elapsed in
            lastError = batch.error ?? lastError
            let measured = session.add(acceleration: batch.acceleration, rotationRate: batch.rotationRate)
            guard interactive else { return !session.isComplete }
            if !measured.isEmpty { display = LiveDisplay() }   // the measured lines stay; a new live line starts below
            for face in measured {
                print(TerminalStyle.standardOutput.colored("  measured \(face.name) (\(session.measuredDeviceFaces.count)/6)", .blue))
                if let next = session.nextFace { print("Next: \(next.placementHint)") }
            }
            if !session.isComplete { display.show([Self.statusLine(session.status, secondsLeft: duration - elapsed)]) }
            return !session.isComplete
        }
        try options.stopIfInterrupted(feed)
        feed.stop()
        let calibration: AccelerometerCalibration
        do {
            calibration = try AccelerometerCalibration.fromSixFaces(session.readings)
        } catch {
            throw CommandFailure(message: "\(error) (within \(decimals(duration, 0)) s)" + (lastError.map { "; the sensor reported: \($0)" } ?? "") + "; nothing saved")
        }
        let path = try options.save(feed.target.imu) {
            $0.accelerometer = CalibrationRecord.Accelerometer(offset: calibration.offset, scale: calibration.scale)
        }
        if options.nonInteractive {
            try printJSON(Result(
                sensor: feed.target.imu, offset: [calibration.offset.x, calibration.offset.y, calibration.offset.z],
                scale: [calibration.scale.x, calibration.scale.y, calibration.scale.z],
                faces: Dictionary(uniqueKeysWithValues: session.readings.map { ($0.key.name, [$0.value.x, $0.value.y, $0.value.z]) }),
                path: path))
        } else {
            print("Accelerometer offset \(decimals(calibration.offset, 4)) g, scale \(decimals(calibration.scale, 4)) (chip axes)")
            print("Saved to \(path)")
        }
    }
}
