import Foundation
import Fusion
import Motion
import MotionFormats

/// The JSON of every message a ``MotionPublisher`` sends (availability is the plain text
/// `online`/`offline` Home Assistant and most dashboards expect).
enum Payloads {
    /// One device-motion sample: `seq` and the columns of `motionctl stream --format jsonl
    /// --device-motion` (``MachineOutput``'s conventions: units in the keys, 6 decimals, null for a
    /// missing heading), the chip's own attitude beside ours where the chip fuses.
    static func motion(_ motion: DeviceMotion, seq: Int, chipAttitude: Bool) -> String {
        let columns = ["seq"] + MachineOutput.deviceMotionColumns + (chipAttitude ? MachineOutput.chipAttitudeColumns : [])
        let values = [MachineOutput.Value.integer(seq)] + MachineOutput.deviceMotionRow(motion)
            + (chipAttitude ? MachineOutput.chipAttitudeRow(motion) : [])
        return MachineOutput.jsonLine(columns, values)
    }

    static func orientation(_ orientation: DeviceOrientation, timestamp: Double?) -> String {
        MachineOutput.jsonLine(["orientation", "timestamp_s"], [.name(orientation.name), timestamp.map { .time($0) } ?? .missing])
    }

    static func moving(_ moving: Bool, timestamp: Double?) -> String {
        "{\"moving\":\(moving),\"timestamp_s\":\((timestamp.map { MachineOutput.Value.time($0) } ?? .missing).json)}"
    }

    /// The altimeter's update: pressure (kPa, as Core Motion's `AltitudeData`), the altitude
    /// gained since publishing started, the altitude above sea level with its 1σ accuracy (from
    /// the standard atmosphere until a reference is given: ``AltitudeReference``), and the
    /// barometer's die temperature (°C), each null until known.
    static let altitudeKeys = ["pressure_kPa", "relative_altitude_m", "altitude_m", "altitude_accuracy_m", "temperature_C", "timestamp_s"]

    static func altitude(_ data: AltitudeData, absolute: AbsoluteAltitudeData?, temperature: Double?) -> String {
        MachineOutput.jsonLine(altitudeKeys, [
            .number(data.pressure.doubleValue), .number(data.relativeAltitude.doubleValue),
            absolute.map { .number($0.altitude) } ?? .missing, absolute.map { .number($0.accuracy) } ?? .missing,
            temperature.map { .number($0) } ?? .missing, .time(data.timestamp),
        ])
    }

    /// The step count since publishing started, the cadence (steps/s), floors (null without a
    /// barometer) and the activity with its confidence, by name.
    static let stepsKeys = ["steps", "cadence_steps_s", "floors_up", "floors_down", "activity", "confidence"]

    /// The activity's names, Core Motion's flags: the first that is set, `unknown` when none is.
    static let activityNames = ["stationary", "walking", "running", "automotive", "cycling", "unknown"]

    static func activityName(_ activity: MotionActivity?) -> String {
        guard let activity else { return "unknown" }
        let flags = [activity.stationary, activity.walking, activity.running, activity.automotive, activity.cycling]
        return flags.firstIndex(of: true).map { activityNames[$0] } ?? "unknown"
    }

    static let confidenceNames = ["low", "medium", "high"]

    static func steps(_ data: PedometerData?, activity: MotionActivity?) -> String {
        MachineOutput.jsonLine(stepsKeys, [
            .integer(data?.numberOfSteps.intValue ?? 0), data?.currentCadence.map { .number($0.doubleValue) } ?? .missing,
            data?.floorsAscended.map { .integer($0.intValue) } ?? .missing, data?.floorsDescended.map { .integer($0.intValue) } ?? .missing,
            .name(activityName(activity)), .name(confidenceNames[activity?.confidence.rawValue ?? 0]),
        ])
    }

    struct Counters: Encodable {
        struct Sampler: Encodable {
            var sampled, retried, incidents, recovered: Int
            var dropped: [String: Int]
        }
        struct Publisher: Encodable {
            var samples, published, connections: Int
            var dropped: [String: Int]
        }
        var sampler: Sampler
        var publisher: Publisher
    }

    static func counters(sampler: SamplerCounters, publisher: PublishCounters) -> String {
        let value = Counters(
            sampler: .init(sampled: sampler.sampled, retried: sampler.retried, incidents: sampler.incidents, recovered: sampler.recovered,
                           dropped: Dictionary(uniqueKeysWithValues: sampler.dropped.map { (key($0.key.rawValue), $0.value) })),
            publisher: .init(samples: publisher.samples, published: publisher.published, connections: publisher.connections,
                             dropped: Dictionary(uniqueKeysWithValues: publisher.dropped.map { (key($0.key.rawValue), $0.value) })))
        return encode(value)
    }

    struct Device: Encodable {
        var device, version: String
        var board: String?, magnetometer: Bool, rate_hz: Double
    }

    static func device(_ manager: MotionManager, board: String?, rate: Double) -> String {
        encode(Device(device: manager.deviceName, version: MotionManager.version, board: board, magnetometer: manager.isMagnetometerAvailable,
                      rate_hz: rate))
    }

    /// "lost with the connection" → "lost_with_the_connection".
    static func key(_ reason: String) -> String { reason.replacingOccurrences(of: " ", with: "_") }

    /// Compact, sorted keys, `/` unescaped, ASCII only.
    static func encode<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs of strings, numbers and dictionaries cannot fail; "{}" is
        // what a failure would publish.
        guard let data = try? encoder.encode(value) else { return "{}" }
        return MachineOutput.asciiJSON(String(decoding: data, as: UTF8.self))
    }
}
