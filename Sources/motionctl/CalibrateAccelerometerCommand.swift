import ArgumentParser
import Foundation
import Fusion
import Motion

/// `motionctl calibrate accelerometer`: offset and scale per axis from the board resting on each
/// of its six faces, guided face by face.
struct CalibrateAccelerometerCommand: ParsableCommand {
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

    func run() throws {
        try CommandFailure.reporting(calibrate)
    }

    private func calibrate() throws {
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
        feed.measure(duration: duration, step: 0.25) { batch, _ in
            lastError = batch.error ?? lastError
            for face in session.add(acceleration: batch.acceleration, rotationRate: batch.rotationRate) where interactive {
                print("  measured \(face.rawValue) (\(session.measuredDeviceFaces.count)/6)")
                if let next = session.nextFace { print("Next: \(next.placementHint)") }
            }
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
        let path: String
        do {
            path = try options.store.update(feed.target.imu) {
                $0.accelerometer = CalibrationRecord.Accelerometer(offset: calibration.offset, scale: calibration.scale)
            }
        } catch {
            throw CommandFailure(message: "\(error)")
        }
        if options.nonInteractive {
            try printJSON(Result(
                sensor: feed.target.imu, offset: [calibration.offset.x, calibration.offset.y, calibration.offset.z],
                scale: [calibration.scale.x, calibration.scale.y, calibration.scale.z],
                faces: Dictionary(uniqueKeysWithValues: session.readings.map { ($0.key.rawValue, [$0.value.x, $0.value.y, $0.value.z]) }),
                path: path))
        } else {
            print("Accelerometer offset \(decimals(calibration.offset, 4)) g, scale \(decimals(calibration.scale, 4)) (chip axes)")
            print("Saved to \(path)")
        }
    }
}
