import FileAccess
import I2C

/// Faults to inject on the simulated board at given times, written as a short text so that a
/// person (`motionctl --faults SPEC`), a test and a benchmark say them the same way.
///
/// A plan is a comma-separated list of faults, each `SENSOR:KIND@AT`:
/// - `SENSOR`: `imu` or `mag` (the magnetometer);
/// - `KIND`: `nack`, `eio` or `timeout`, each optionally `*N` (the next N transactions to that
///   chip fail with no acknowledge, a bus error or a timeout; default 10); `reset` (a power-on
///   reset: registers back to their defaults, FIFO emptied); `vanish` optionally `+S` (the chip
///   stops answering for S seconds, default 2, and comes back power-cycled); `stretch` optionally
///   `*N` (the next N read transactions from the chip reach it but return 0xFF bytes, default 10:
///   what a controller that does not wait out clock stretching, the Raspberry Pi's, reads);
/// - `@AT`: seconds after the start of the run, optionally `/EVERY` to repeat every EVERY seconds.
///
/// Example: `imu:nack*12@2,mag:vanish+3@5,imu:eio*1@1/0.5` — a burst of 12 NACKs from the IMU at
/// 2 s, the magnetometer gone from 5 s to 8 s, one IMU bus error every half second from 1 s.
public struct FaultPlan: Sendable, Equatable, CustomStringConvertible {
    package enum Sensor: String, Sendable, CaseIterable { case imu, mag }

    package enum Kind: Sendable, Equatable {
        /// The next `count` transactions to the chip fail with `kind`.
        case failures(I2CError.Kind, count: Int)
        /// A power-on reset of the chip.
        case reset
        /// The chip stops answering for `seconds`, then comes back power-cycled.
        case vanish(seconds: Double)
        /// The next `count` read transactions reach the chip, but every byte read is 0xFF.
        case stretchedReads(count: Int)
    }

    package struct Fault: Sendable, Equatable {
        package var sensor: Sensor
        package var kind: Kind
        /// Seconds after the start of the run.
        package var at: Double
        /// Repeats every this many seconds; nil: once.
        package var every: Double?

        package init(sensor: Sensor, kind: Kind, at: Double, every: Double? = nil) {
            self.sensor = sensor
            self.kind = kind
            self.at = at
            self.every = every
        }
    }

    package var faults: [Fault]

    package init(_ faults: [Fault]) {
        self.faults = faults
    }

    /// Reads a plan (see the type's documentation); the error names the part that is wrong.
    public init(parsing text: String) throws(FaultPlanError) {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw FaultPlanError(item: text, problem: "no fault given") }
        var faults: [Fault] = []
        // Empty parts ("imu:nack@1,", "@1/") are errors, not skipped.
        for item in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            faults.append(try Self.fault(item))
        }
        guard !faults.isEmpty else { throw FaultPlanError(item: text, problem: "no fault given") }
        self.faults = faults
    }

    /// The limits a plan's numbers must keep (no overflow, no endless burst).
    static let maximumCount = 1_000_000
    static let maximumSeconds = 31_536_000.0
    static let minimumEvery = 0.001

    private static func fault(_ item: String) throws(FaultPlanError) -> Fault {
        let parts = item.split(separator: "@", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw FaultPlanError(item: item, problem: "needs @SECONDS: when the fault starts") }
        let head = parts[0].split(separator: ":", maxSplits: 1).map(String.init)
        guard head.count == 2, let sensor = Sensor(rawValue: head[0].lowercased()) else {
            throw FaultPlanError(item: item, problem: "starts with the sensor: imu: or mag:")
        }
        let timing = parts[1].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let at = try seconds(timing[0], item: item, what: "the start")
        let every = try timing.count == 2 ? seconds(timing[1], item: item, what: "the repeat period") : nil
        if let every, every < minimumEvery { throw FaultPlanError(item: item, problem: "repeats at most every \(minimumEvery) s") }
        var kindText = head[1].lowercased()
        var count: Int?
        var duration: Double?
        if let star = kindText.firstIndex(of: "*") {
            let number = String(kindText[kindText.index(after: star)...])
            guard let value = Int(number), (1...maximumCount).contains(value) else {
                throw FaultPlanError(item: item, problem: "*N must be a whole number from 1 to \(maximumCount)")
            }
            count = value
            kindText = String(kindText[..<star])
        } else if let plus = kindText.firstIndex(of: "+") {
            duration = try seconds(String(kindText[kindText.index(after: plus)...]), item: item, what: "the duration")
            kindText = String(kindText[..<plus])
        }
        let kind: Kind
        switch kindText {
        case "nack", "eio", "timeout":
            guard duration == nil else { throw FaultPlanError(item: item, problem: "\(kindText) takes *N (a count), not +S") }
            let errorKind: I2CError.Kind = kindText == "nack" ? .noAcknowledge : kindText == "eio" ? .busError : .timeout
            kind = .failures(errorKind, count: count ?? 10)
        case "reset":
            guard count == nil, duration == nil else { throw FaultPlanError(item: item, problem: "reset takes neither *N nor +S") }
            kind = .reset
        case "vanish":
            guard count == nil else { throw FaultPlanError(item: item, problem: "vanish takes +S (seconds), not *N") }
            kind = .vanish(seconds: duration ?? 2)
        case "stretch":
            guard duration == nil else { throw FaultPlanError(item: item, problem: "stretch takes *N (a count), not +S") }
            kind = .stretchedReads(count: count ?? 10)
        default:
            throw FaultPlanError(item: item, problem: "the kind must be nack, eio, timeout, reset, vanish or stretch")
        }
        return Fault(sensor: sensor, kind: kind, at: at, every: every)
    }

    private static func seconds(_ text: String, item: String, what: String) throws(FaultPlanError) -> Double {
        guard let value = DecimalNumber.parse(text), (0...maximumSeconds).contains(value) else {
            throw FaultPlanError(item: item, problem: "\(what) must be seconds (a decimal number) from 0 to \(Int(maximumSeconds)), not \"\(text)\"")
        }
        return value
    }

    public var description: String {
        faults.map { fault in
            let kind = switch fault.kind {
            case .failures(let kind, let count): "\(kind == .noAcknowledge ? "nack" : kind == .busError ? "eio" : "timeout")*\(count)"
            case .reset: "reset"
            case .vanish(let seconds): "vanish+\(seconds)"
            case .stretchedReads(let count): "stretch*\(count)"
            }
            return "\(fault.sensor.rawValue):\(kind)@\(fault.at)" + (fault.every.map { "/\($0)" } ?? "")
        }.joined(separator: ",")
    }
}

/// A fault plan that cannot be read: which item, and what is wrong with it.
public struct FaultPlanError: Error, Sendable, CustomStringConvertible {
    public var item: String
    public var problem: String
    public var description: String {
        "fault \"\(item)\": \(problem) (e.g. imu:nack*12@2,mag:vanish+3@5,imu:eio*1@1/0.5)"
    }
}
