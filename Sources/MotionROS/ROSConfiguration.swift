/// Where and how ``ROSPublisher`` publishes: the DDS domain, the ROS namespace and frame, the rate, the QoS.
public struct ROSConfiguration: Sendable, Equatable {
    /// The DDS domain (ROS's `ROS_DOMAIN_ID`): 0…232, the range whose RTPS ports stay valid
    /// (ROS 2 documentation, "The ROS_DOMAIN_ID").
    public var domainID: Int = 0
    /// The ROS namespace the topics go under, e.g. "/robot1" (default: none). ROS name rules:
    /// segments of letters, digits and '_', not starting with a digit.
    public var namespace: String = ""
    /// `header.frame_id` of every message (REP-103's body frame of the board: x forward, y left, z up).
    public var frameID: String = "imu_link"
    /// Messages per second on each topic (the sampler keeps its own rate).
    public var rate: Double = 50
    /// Reliable delivery instead of ROS's sensor-data profile (best effort); both keep the last 5, volatile.
    public var reliable = false
    /// Samples waiting for the publishing thread at most; more are dropped (``ROSDropReason/queueFull``).
    public var queueCapacity = 64

    public init() {}

    /// Topic names, relative to ``namespace`` (imu_tools' conventions: `imu/data` with the
    /// fused orientation, `imu/data_raw` without, `imu/mag`).
    public static let imuTopic = "imu/data", rawTopic = "imu/data_raw", magneticFieldTopic = "imu/mag"
    /// The barometer's topics (`sensor_msgs/FluidPressure`, `sensor_msgs/Temperature`), relative to ``namespace``.
    public static let pressureTopic = "pressure", temperatureTopic = "temperature"

    /// The DDS topic of a ROS topic `name` under the namespace: rmw_cyclonedds_cpp's `rt/` prefix
    /// (ROS 2 design article "Topic and Service name mapping to DDS"), no leading slash.
    public func ddsTopic(_ name: String) -> String {
        let trimmed = namespace.split(separator: "/").joined(separator: "/")
        return trimmed.isEmpty ? "rt/\(name)" : "rt/\(trimmed)/\(name)"
    }

    /// Throws the first setting that cannot be used.
    public func validate() throws(ROSError) {
        guard (0...232).contains(domainID) else {
            throw .invalidSetting("domain id \(domainID)", problem: "is out of range", fix: "use 0…232 (ROS_DOMAIN_ID's range)")
        }
        let relative = namespace.hasPrefix("/") ? namespace.dropFirst() : Substring(namespace)
        for segment in relative.split(separator: "/", omittingEmptySubsequences: false) where !relative.isEmpty {
            guard Self.isROSName(segment) else {
                throw .invalidSetting(
                    "namespace \"\(namespace)\"", problem: "is not a ROS name",
                    fix: "use segments of letters, digits and '_' separated by '/', none empty or starting with a digit, e.g. /robot1")
            }
        }
        guard !frameID.isEmpty, !frameID.contains(where: { $0.isWhitespace }) else {
            throw .invalidSetting("frame id \"\(frameID)\"", problem: "is empty or has spaces", fix: "use a tf frame name such as imu_link")
        }
        guard rate >= 0.001, rate <= 1000 else {
            throw .invalidSetting("rate \(rate) Hz", problem: "is out of range", fix: "use 0.001…1000 Hz")
        }
        guard queueCapacity >= 1 else {
            throw .invalidSetting("queue capacity \(queueCapacity)", problem: "is below 1", fix: "use at least 1")
        }
    }

    private static func isROSName(_ segment: Substring) -> Bool {
        guard let first = segment.first, !first.isNumber else { return false }
        return segment.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}

/// Why a sample was not published.
public enum ROSDropReason: String, Sendable, CaseIterable, Comparable {
    /// The publishing thread was behind: the bounded queue was full (the sampler is never held up).
    case queueFull = "queue-full"
    /// Cyclone DDS refused the write.
    case writeFailed = "write-failed"
    /// The publisher stopped with the sample still queued.
    case stopped

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What a ``ROSPublisher`` has done so far.
public struct ROSCounters: Sendable, Equatable, CustomStringConvertible {
    /// Device-motion samples handed to the publisher.
    public var samples = 0
    /// `sensor_msgs/Imu` messages written to `imu/data` (one a sample; `imu/data_raw` and `imu/mag` go with it).
    public var published = 0
    /// Samples not published, by reason.
    public var dropped: [ROSDropReason: Int] = [:]
    /// Barometer readings handed to the publisher (with an ``Altimeter``).
    public var barometerReadings = 0
    /// Readings written to `pressure` (and `temperature`).
    public var publishedBarometerReadings = 0
    /// Readings not published, by reason.
    public var droppedBarometerReadings: [ROSDropReason: Int] = [:]

    public var description: String {
        func drops(_ dropped: [ROSDropReason: Int]) -> String {
            dropped.isEmpty ? "none" : dropped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        }
        let barometer = barometerReadings == 0 ? ""
            : "; barometer: \(barometerReadings) readings, \(publishedBarometerReadings) published, dropped: \(drops(droppedBarometerReadings))"
        return "\(samples) samples, \(published) published, dropped: \(drops(dropped))" + barometer
    }
}
