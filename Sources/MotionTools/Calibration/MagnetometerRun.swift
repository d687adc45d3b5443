import Motion
import MotionSimulation
import Foundation
import Fusion
import Timing

/// One magnetometer figure-eight from the first reading to the saved result: readings from a
/// ``CalibrationFeed`` into a ``MagnetometerSession``, the rules for stopping, the fit and the
/// rules for saving. `motionctl calibrate magnetometer` and `motionctl serve` both run it, so a
/// calibration made in the browser is the one the command line makes from the same readings.
///
/// Runs on one thread at a time (the loop blocks while time passes).
package struct MagnetometerRun: Sendable {
    package let feed: CalibrationFeed
    /// The magnetometer being calibrated (the store's key).
    package let sensor: SensorIdentity
    package private(set) var session = MagnetometerSession()
    /// Why the measurement ended ("coverage and fit are good (after 41.0 s)").
    package private(set) var stopReason = ""
    /// The latest error the sampler reported during the measurement.
    package private(set) var lastError: MotionError?
    /// Seconds measured so far.
    package private(set) var elapsed = 0.0

    /// - Throws: ``MotionError/sensor(_:)`` when the board has no magnetometer.
    package init(feed: CalibrationFeed) throws(MotionError) {
        guard let sensor = feed.target.magnetometer else {
            throw .sensor("\(feed.manager.deviceName) has no magnetometer: nothing to calibrate")
        }
        self.feed = feed
        self.sensor = sensor
    }

    /// The step between two looks at the readings while a person watches: a second of virtual
    /// time (the simulated board), a quarter second of real time.
    package var watchedStep: Double { feed.clock is VirtualClock ? 1 : 0.25 }

    /// Measures for at most `duration` seconds. `watched`: a person follows the progress, so
    /// the measurement stops by itself once coverage and fit are good, goes in ``watchedStep``s
    /// and, on the simulated board, slows down enough to be seen (20× real time); otherwise it
    /// measures the whole duration in steps of a second. `onProgress` sees each step (only when
    /// watched, with the readings so far) and returns a reason to stop, or nil; `shouldStop` ends the measurement without
    /// a reason (Ctrl-C, a cancel), leaving ``stopReason`` empty.
    package mutating func measure(
        duration: Double, watched: Bool, shouldStop: () -> Bool,
        onProgress: (MagnetometerSession.Progress, _ elapsed: Double, MotionError?, _ readings: [SIMD3<Double>]) -> String? = { _, _, _, _ in nil }
    ) {
        stopReason = "measured for \(Self.format(duration, 0)) s"
        let virtual = feed.clock is VirtualClock
        feed.start(.magnetometer)
        defer { feed.stop() }
        var reason: String?
        let measured = feed.measure(duration: duration, step: watched ? watchedStep : 1, shouldStop: shouldStop) { batch, elapsed in
            session.add(batch.magneticField)
            lastError = watched ? batch.error ?? lastError : lastError ?? batch.error
            guard watched else { return true }
            let progress = session.progress()
            let asked = onProgress(progress, elapsed, lastError, session.samples)
            if progress.isGoodEnough {
                reason = "coverage and fit are good (after \(Self.format(elapsed, 1)) s)"
            } else if let asked {
                reason = asked
            } else if virtual {
                Thread.sleep(forTimeInterval: 0.05)
            }
            return reason == nil
        }
        elapsed = measured
        if let reason { stopReason = reason }
        if shouldStop() { stopReason = "" }
    }

    /// The fit of everything measured; an error names what the sensor reported, if anything.
    package func fit() throws(MagnetometerRunError) -> EllipsoidFit.Report {
        do {
            return try session.fit()
        } catch {
            throw MagnetometerRunError(fit: error, sensorError: lastError)
        }
    }

    /// Why `report` must not be saved over what `store` holds, nil to save it: a poor fit, a
    /// field that is not the Earth's, or (unless `replace`) a more accurate stored calibration,
    /// with `howToReplace`, what the person in front of this interface does to save it anyway.
    package func reasonNotToSave(
        _ report: EllipsoidFit.Report, store: CalibrationStore, replace: Bool, howToReplace: String = "pass --replace to overwrite it"
    ) -> String? {
        if report.accuracy == .uncalibrated { return "the fit is too poor to use" }
        if !report.isFieldStrengthPlausible {
            return "a field of \(Self.format(report.fieldStrength, 1)) µT is not the Earth's (22–67 µT): move away from steel and magnets, or turn the board through more orientations"
        }
        guard !replace else { return nil }
        // A damaged stored file is simply replaced.
        let stored: CalibrationRecord?
        do { stored = try store.load(sensor) } catch { return nil }
        if let accuracy = stored?.magnetometer.flatMap({ MagneticFieldCalibrationAccuracy(storedName: $0.accuracy) }), accuracy > report.accuracy {
            return "the stored calibration is more accurate (\(accuracy.storedName)); \(howToReplace)"
        }
        return nil
    }

    /// Saves `report` atomically into `store`; returns the path written.
    package func save(_ report: EllipsoidFit.Report, to store: CalibrationStore) throws(CalibrationStoreError) -> String {
        try store.update(sensor) { $0.magnetometer = CalibrationRecord.Magnetometer(report) }
    }

    static func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
}

/// The readings of a magnetometer calibration could not be fitted; keeps the fit's error and
/// what the sensor reported meanwhile.
package struct MagnetometerRunError: Error, Sendable, CustomStringConvertible {
    package var fit: EllipsoidFitError
    package var sensorError: MotionError?
    package var description: String { "\(fit)" + (sensorError.map { " (the sensor reported: \($0))" } ?? "") }
}
