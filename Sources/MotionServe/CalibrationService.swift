import Foundation
import Fusion
import Locking
import Motion
import MotionTools

/// How the server gets at the magnetometer for a calibration: a feed of raw readings from a
/// manager opened without stored calibrations (the same as `motionctl calibrate magnetometer`
/// opens), and the store a result is saved into.
package struct CalibrationAccess: Sendable {
    package var openFeed: @Sendable () throws -> CalibrationFeed
    package var store: CalibrationStore

    package init(store: CalibrationStore, openFeed: @escaping @Sendable () throws -> CalibrationFeed) {
        self.store = store
        self.openFeed = openFeed
    }
}

/// A request the calibration cannot do now; becomes an HTTP status with the message.
struct CalibrationRefusal: Error {
    var status: Int
    var message: String
}

/// The browser's magnetometer calibration: one ``MagnetometerRun`` at a time on a thread of its
/// own, its progress published to every browser, then saved or dropped when the person says.
/// Nothing is written unless the person saves.
final class CalibrationService: Sendable {
    /// What the page's person does to save over a more accurate stored calibration (the page's button).
    static let howToReplace = "press “Save over the stored one” to overwrite it"
    enum Phase: String, Sendable {
        case idle, measuring, finished, saved, cancelled, failed
    }

    private struct State {
        var phase = Phase.idle
        /// Set by cancel while measuring; the run stops at its next step.
        var cancelRequested = false
        /// The latest progress (JSON object), for the state endpoint and late browsers.
        var snapshot = "{\"phase\":\"idle\"}"
        /// The finished run and its fit, kept until saved or cancelled.
        var finished: (run: MagnetometerRun, report: EllipsoidFit.Report)?
    }

    private let access: CalibrationAccess
    private let publish: @Sendable (String) -> Void
    private let state = Locked(State())
    /// Points of the cloud sent with each update, at most.
    static let pointCount = 200

    init(access: CalibrationAccess, publish: @escaping @Sendable (String) -> Void) {
        self.access = access
        self.publish = publish
    }

    /// The current state as JSON (see ``progressJSON``).
    var snapshot: String { state.withLock { $0.snapshot } }

    /// Starts a figure-eight of at most `duration` seconds.
    func start(duration: Double) throws(CalibrationRefusal) {
        let started = state.withLock { state -> Bool in
            guard state.phase != .measuring else { return false }
            state = State(phase: .measuring, snapshot: Self.phaseJSON(.measuring, extra: ""))
            return true
        }
        guard started else { throw CalibrationRefusal(status: 409, message: "a calibration is already running: cancel it first") }
        let run: MagnetometerRun
        do {
            run = try MagnetometerRun(feed: try access.openFeed())
        } catch {
            update(.failed, extra: ",\"message\":\(EventEncoding.string("\(error)"))")
            throw CalibrationRefusal(status: 409, message: "cannot calibrate: \(error)")
        }
        update(.measuring, extra: ",\"sensor\":\(EventEncoding.string("\(run.sensor)"))")
        let thread = Thread { [self] in measure(run, duration: duration) }
        thread.name = "swift-motion.serve.calibration"
        thread.start()
    }

    private func measure(_ initial: MagnetometerRun, duration: Double) {
        var run = initial
        let toDevice = run.feed.target.magnetometerToDevice
        run.measure(duration: duration, watched: true, shouldStop: { state.withLock { $0.cancelRequested } }) { progress, elapsed, error, readings in
            update(.measuring, extra: Self.progressJSON(progress, elapsed: elapsed, samples: readings, toDevice: toDevice, error: error))
            return nil
        }
        if state.withLock({ $0.cancelRequested }) {
            update(.cancelled, extra: "")
            return
        }
        let report: EllipsoidFit.Report
        do {
            report = try run.fit()
        } catch {
            update(.failed, extra: ",\"message\":\(EventEncoding.string("\(error)"))")
            return
        }
        var result = MagnetometerResult(report, sensor: run.sensor, sampleCount: run.session.samples.count, stoppedBecause: run.stopReason, path: nil, plot: nil)
        result.notSavedBecause = run.reasonNotToSave(report, store: access.store, replace: false, howToReplace: Self.howToReplace)
        let progress = run.session.progress()
        let extra = Self.progressJSON(progress, elapsed: run.elapsed, samples: run.session.samples, toDevice: toDevice, error: run.lastError)
            + ",\"result\":\(Self.json(result))"
        // A cancel that came while fitting wins: nothing to save then.
        let json = Self.phaseJSON(.finished, extra: extra)
        let cancelled = state.withLock { state -> Bool in
            guard !state.cancelRequested else { return true }
            state.finished = (run, report)
            state.phase = .finished
            state.snapshot = json
            return false
        }
        if cancelled { update(.cancelled, extra: "") } else { publish(json) }
    }

    /// Stops a measurement (nothing saved), or drops a finished one.
    func cancel() throws(CalibrationRefusal) {
        let phase: Phase? = state.withLock { state in
            switch state.phase {
            case .measuring:
                state.cancelRequested = true
                return .measuring
            case .finished:
                state.finished = nil
                return .cancelled
            default:
                return nil
            }
        }
        guard let phase else { throw CalibrationRefusal(status: 409, message: "no calibration to cancel") }
        if phase == .cancelled { update(.cancelled, extra: "") }
    }

    /// Saves the finished calibration atomically into the store (unless it must not replace
    /// what is stored, and `replace` is false). Returns the result as JSON.
    func save(replace: Bool) throws(CalibrationRefusal) -> String {
        guard let (run, report) = state.withLock({ $0.phase == .finished ? $0.finished : nil }) else {
            throw CalibrationRefusal(status: 409, message: "nothing to save: start a calibration and wait until it has finished")
        }
        if let reason = run.reasonNotToSave(report, store: access.store, replace: replace, howToReplace: Self.howToReplace) {
            throw CalibrationRefusal(status: 409, message: "not saved: \(reason)")
        }
        let path: String
        do {
            path = try run.save(report, to: access.store)
        } catch {
            throw CalibrationRefusal(status: 500, message: "not saved: \(error)")
        }
        let result = Self.json(MagnetometerResult(
            report, sensor: run.sensor, sampleCount: run.session.samples.count, stoppedBecause: run.stopReason, path: path, plot: nil))
        state.withLock { $0.finished = nil }
        update(.saved, extra: ",\"result\":\(result)")
        return result
    }

    /// Cancels a measurement and waits for nothing: the thread ends at its next step.
    func stop() {
        state.withLock { $0.cancelRequested = true }
    }

    private func update(_ phase: Phase, extra: String) {
        let json = Self.phaseJSON(phase, extra: extra)
        state.withLock { state in
            state.phase = phase
            state.snapshot = json
        }
        publish(json)
    }

    static func phaseJSON(_ phase: Phase, extra: String) -> String {
        "{\"phase\":\"\(phase.rawValue)\"\(extra)}"
    }

    /// The figures of a calibration in progress, as members of a JSON object (each after a
    /// comma): `sampleCount`, `elapsed` (s), `coveragePercent`, `coveredCells`, `cellsPerBand`
    /// and `covered` (one 0/1 per region, band by band from +z), `fieldStrength` (µT, null until
    /// the fit settles), `fitErrorPercent`, `model`, `accuracy` (null before a fit), `center`
    /// (the hard-iron offset so far, µT), `guidance` (lines), `raw` and `corrected` (up to
    /// ``pointCount`` readings, µT, chip axes), `sensorError`.
    static func progressJSON(
        _ progress: MagnetometerSession.Progress, elapsed: Double, samples: [SIMD3<Double>], toDevice: Matrix3, error: MotionError?
    ) -> String {
        let coverage = progress.coverage
        var json = ",\"sampleCount\":\(progress.sampleCount),\"elapsed\":\(EventEncoding.number(elapsed, 2))"
        json += ",\"coveragePercent\":\(EventEncoding.number(coverage.coverage * 100, 1)),\"coveredCells\":\(coverage.coveredCellCount)"
        json += ",\"cellsPerBand\":[\(SphereCoverage.cellsPerBand.map(String.init).joined(separator: ","))]"
        json += ",\"covered\":\"\(coverage.counts.map { $0 >= coverage.minimumSamplesPerCell ? "1" : "0" }.joined())\""
        json += ",\"fieldStrength\":" + (progress.currentFieldStrength.map { EventEncoding.number($0, 2) } ?? "null")
        let report = progress.report
        json += ",\"fitErrorPercent\":" + (report.map { EventEncoding.number($0.fitErrorPercent, 2) } ?? "null")
        json += ",\"model\":" + (report.map { EventEncoding.string($0.model.rawValue) } ?? "null")
        json += ",\"accuracy\":" + (report.map { EventEncoding.string($0.accuracy.storedName) } ?? "null")
        json += ",\"goodEnough\":\(progress.isGoodEnough)"
        let calibration = report?.calibration
        json += ",\"center\":" + (calibration.map { EventEncoding.vector($0.hardIronOffset, 2) } ?? "null")
        json += ",\"guidance\":[\(progress.guidance(magnetometerToDevice: toDevice).map(EventEncoding.string).joined(separator: ","))]"
        let points = thinned(samples)
        json += ",\"raw\":[\(points.map { EventEncoding.vector($0, 1) }.joined(separator: ","))]"
        if let calibration {
            json += ",\"corrected\":[\(points.map { EventEncoding.vector(calibration.apply($0), 1) }.joined(separator: ","))]"
        }
        json += ",\"sensorError\":" + (error.map { EventEncoding.string("\($0)") } ?? "null")
        return json
    }

    /// At most ``pointCount`` readings, evenly spread over all of them.
    static func thinned(_ samples: [SIMD3<Double>]) -> [SIMD3<Double>] {
        guard samples.count > pointCount else { return samples }
        return (0..<pointCount).map { samples[$0 * samples.count / pointCount] }
    }

    static func json(_ result: MagnetometerResult) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return String(decoding: try encoder.encode(result), as: UTF8.self)
        } catch {
            return "null"   // a struct of numbers and strings always encodes
        }
    }
}
