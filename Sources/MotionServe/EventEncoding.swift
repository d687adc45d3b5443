import Foundation
import Motion

/// The JSON of the event stream, written by hand: a handful of numbers per sample, 30 times a
/// second per browser, without an encoder's allocations.
///
/// A sample (`event: sample`): `t` (s since boot), `q` (attitude quaternion w, x, y, z), `roll`,
/// `pitch`, `yaw` (rad), `heading` (degrees from magnetic north, null without one), `acc`
/// (acceleration, g, Core Motion sign: gravity + user acceleration), `user` (user acceleration, g),
/// `gravity` (g), `rot` (rotation rate, rad/s), `mag` (calibrated field, µT, null without a
/// magnetometer), `magAccuracy`, `orientation`, `counters` (the sampler's: `sampled`, `retried`,
/// `dropped`, `drops` by reason, `incidents`, `recovered`), `client` (this browser's `sent`
/// and `dropped` events), `steps` (`count`, `cadence` in steps/s or null, `activity` and its
/// `confidence` by name) and, with a barometer, `altitude` (the altimeter's latest update:
/// `t`, `relative` m since the server started, `pressure` kPa; null before the first).
struct EventEncoding: Sendable {
    let manager: MotionManager
    var extras: AltitudeAndSteps? = nil

    func encode(_ event: ServerEvent, counts: ClientBuffer.Counts) -> String {
        switch event {
        case .sample(let motion): "event: sample\ndata: \(sample(motion, counts: counts))\n\n"
        case .sampleError(let message): "event: sensor-error\ndata: {\"message\":\(Self.string(message))}\n\n"
        case .calibration(let json): "event: calibration\ndata: \(json)\n\n"
        }
    }

    func sample(_ motion: DeviceMotion, counts: ClientBuffer.Counts) -> String {
        let q = motion.attitude.quaternion
        let attitude = motion.attitude
        let counters = manager.counters
        let drops = counters.dropped.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\(Self.string($0.key.rawValue)):\($0.value)" }.joined(separator: ",")
        let hasField = manager.isMagnetometerAvailable
        var json = "{\"t\":\(Self.number(motion.timestamp, 4))"
        json += ",\"q\":[\(Self.number(q.w, 5)),\(Self.number(q.x, 5)),\(Self.number(q.y, 5)),\(Self.number(q.z, 5))]"
        json += ",\"roll\":\(Self.number(attitude.roll, 5)),\"pitch\":\(Self.number(attitude.pitch, 5)),\"yaw\":\(Self.number(attitude.yaw, 5))"
        json += ",\"heading\":" + (motion.heading >= 0 ? Self.number(motion.heading, 2) : "null")
        json += ",\"acc\":\(Self.vector(motion.gravity + motion.userAcceleration, 4)),\"user\":\(Self.vector(motion.userAcceleration, 4))"
        json += ",\"gravity\":\(Self.vector(motion.gravity, 4)),\"rot\":\(Self.vector(motion.rotationRate, 4))"
        json += ",\"mag\":" + (hasField ? Self.vector(motion.magneticField.field, 2) : "null")
        json += ",\"magAccuracy\":" + Self.string(hasField ? motion.magneticField.accuracy.storedName : "none")
        if hasField, let status = manager.backgroundCalibrationStatus {
            json += ",\"magCalibration\":{\"sigma\":\(Self.number(status.sigma, 3)),\"headingSigma\":\(Self.number(status.headingSigma, 2))"
            json += ",\"state\":\(Self.string(status.reason.rawValue)),\"changes\":\(status.changes)}"
        }
        json += ",\"orientation\":" + Self.string(manager.orientation.name)
        json += ",\"counters\":{\"sampled\":\(counters.sampled),\"retried\":\(counters.retried),\"dropped\":\(counters.totalDropped)"
        json += ",\"drops\":{\(drops)},\"incidents\":\(counters.incidents),\"recovered\":\(counters.recovered)}"
        json += ",\"client\":{\"sent\":\(counts.sent),\"dropped\":\(counts.dropped)}"
        if let extras { json += Self.altitudeAndSteps(extras.current, barometer: extras.altimeter != nil) }
        return json + "}"
    }

    /// `,"steps":{…}` and, with a barometer, `,"altitude":{…}|null`.
    static func altitudeAndSteps(
        _ current: (altitude: AltitudeData?, steps: PedometerData?, activity: MotionActivity?), barometer: Bool
    ) -> String {
        let activity = current.activity
        let kind = activity.map { $0.stationary ? "stationary" : $0.walking ? "walking" : $0.running ? "running" : "unknown" } ?? "unknown"
        let confidence = ["low", "medium", "high"][activity?.confidence.rawValue ?? 0]
        var json = ",\"steps\":{\"count\":\(current.steps?.numberOfSteps.intValue ?? 0)"
        json += ",\"cadence\":" + (current.steps?.currentCadence.map { number($0.doubleValue, 2) } ?? "null")
        json += ",\"activity\":\(string(kind)),\"confidence\":\(string(confidence))}"
        guard barometer else { return json }
        guard let altitude = current.altitude else { return json + ",\"altitude\":null" }
        json += ",\"altitude\":{\"t\":\(number(altitude.timestamp, 4)),\"relative\":\(number(altitude.relativeAltitude.doubleValue, 3))"
        return json + ",\"pressure\":\(number(altitude.pressure.doubleValue, 4))}"
    }

    /// A number with `decimals` digits after the point; null when not finite.
    static func number(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "null" }
        return String(format: "%.\(decimals)f", value)
    }

    static func vector(_ value: SIMD3<Double>, _ decimals: Int) -> String {
        "[\(number(value.x, decimals)),\(number(value.y, decimals)),\(number(value.z, decimals))]"
    }

    /// A JSON string literal.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
