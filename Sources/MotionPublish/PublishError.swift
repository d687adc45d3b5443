/// Why publishing could not start: each names the thing at fault and what to do.
public enum PublishError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broker URL cannot be used.
    case invalidURL(String, problem: String, fix: String)
    /// The topic prefix (or discovery prefix) is not a valid topic to publish to.
    case invalidTopicPrefix(String, setting: String, problem: String, fix: String)
    /// Another setting is out of range or inconsistent.
    case invalidSetting(String, problem: String, fix: String)
    /// No TCP connection to the broker's host and port.
    case unreachable(host: String, port: Int, reason: String)
    /// The broker answered the connection with a refusal (CONNACK return code, MQTT 3.1.1 section 3.2.2.3).
    case refused(host: String, port: Int, code: Int, reason: String)
    /// The TLS handshake failed.
    case tls(host: String, port: Int, reason: String)
    /// The broker did not complete the connection in time.
    case timeout(host: String, port: Int, seconds: Double, detail: String)
    /// libmosquitto refused a call (its error text).
    case library(String)
    /// ``MotionPublisher/start()`` on a publisher that has already started.
    case alreadyStarted
    /// ``MotionPublisher/cancelStart()`` ended ``MotionPublisher/start()`` before anything was published.
    case cancelled

    public var description: String {
        switch self {
        case .invalidURL(let url, let problem, let fix):
            "the broker URL \"\(url)\" \(problem): \(fix)"
        case .invalidTopicPrefix(let prefix, let setting, let problem, let fix):
            "the \(setting) \"\(prefix)\" \(problem): \(fix)"
        case .invalidSetting(let setting, let problem, let fix):
            "the \(setting) \(problem): \(fix)"
        case .unreachable(let host, let port, let reason):
            "cannot reach the MQTT broker at \(host):\(port): \(reason); check the host and port, and that the broker runs "
                + "(on the same machine: apt-get install mosquitto; systemctl status mosquitto)"
        case .refused(let host, let port, let code, let reason):
            "the MQTT broker at \(host):\(port) refused the connection: \(reason) (CONNACK code \(code)); "
                + (code == 4 || code == 5
                    ? "check the user name and password (--username, SWIFT_MOTION_MQTT_PASSWORD or --password-file) against the broker's password file"
                    : "check the broker's configuration and log")
        case .tls(let host, let port, let reason):
            "the TLS handshake with \(host):\(port) failed: \(reason); check --ca-file (the CA that signed the broker's certificate), "
                + "the host name in the certificate, and --cert/--key"
        case .timeout(let host, let port, let seconds, let detail):
            "the MQTT broker at \(host):\(port) did not complete the connection within \(Int(seconds)) s"
                + (detail.isEmpty ? "" : " (\(detail))") + "; check that it is an MQTT broker and that the scheme (mqtt:// or mqtts://) matches its listener"
        case .library(let text):
            "libmosquitto: \(text)"
        case .alreadyStarted:
            "this publisher has already started: make a new MotionPublisher to publish again"
        case .cancelled:
            "the start was cancelled before anything was published: make a new MotionPublisher to publish"
        }
    }
}

/// Why a device-motion sample was not published (``PublishCounters/dropped``).
public enum PublishDropReason: String, Sendable, CaseIterable, Comparable {
    /// The publishing thread fell ``BrokerConfiguration/queueCapacity`` samples behind.
    case queueFull = "queue full"
    /// No connection to the broker when the sample's turn came (down, or reconnecting).
    case disconnected
    /// More than ``BrokerConfiguration/inFlightLimit`` messages were waiting for the socket.
    case brokerSlow = "broker slow"
    /// Handed to libmosquitto, but the connection broke before it was written to the socket.
    case connectionLost = "lost with the connection"
    /// libmosquitto refused the message (its error counted here).
    case rejected
    /// Still waiting in the queue when the publisher stopped.
    case stopped

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What a ``MotionPublisher`` has done since it started. Every device-motion sample it was given
/// (``samples``, numbered by `seq` from 1) is published, waiting, or dropped with its reason.
public struct PublishCounters: Sendable, Equatable, CustomStringConvertible {
    /// Device-motion samples handed to the publisher (the last `seq`); of them, the stream
    /// messages written to the broker's connection (QoS 0: delivery is the broker's); connections
    /// made to the broker (the first and every reconnection).
    public var samples = 0, published = 0, connections = 0
    /// Samples not published, by reason.
    public var dropped: [PublishDropReason: Int] = [:]
    /// Whether the publisher is connected now.
    public var isConnected = false

    public init() {}

    public var totalDropped: Int { dropped.values.reduce(0, +) }

    public var description: String {
        let drops = dropped.isEmpty ? "0" : dropped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        return "samples \(samples), published \(published), dropped \(drops), connections \(connections)"
    }
}
