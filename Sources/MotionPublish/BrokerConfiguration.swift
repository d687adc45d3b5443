import Foundation

/// Where and how a ``MotionPublisher`` publishes: the broker (`mqtt://host[:port]` or
/// `mqtts://host[:port]`), its credentials, the topic prefix and the rate.
///
/// The topics under ``topicPrefix`` (default `swift-motion/<hostname>-<machine>`), with their QoS:
///
/// | topic | QoS | retained | payload |
/// |---|---|---|---|
/// | `<prefix>/motion` | 0 | no | one device-motion sample (JSON: `motionctl stream --format jsonl --device-motion`'s keys and `seq`) |
/// | `<prefix>/orientation` | 1 | yes | `{"orientation":"faceUp","timestamp_s":…}` on every change |
/// | `<prefix>/moving` | 1 | yes | `{"moving":true,"timestamp_s":…}` on every change |
/// | `<prefix>/availability` | 1 | yes | `online`; `offline` at a clean stop and as the will (the broker sends it when the connection dies) |
/// | `<prefix>/counters` | 1 | yes | the sampler's and the publisher's counters, every ``countersInterval`` seconds |
/// | `<prefix>/device` | 1 | yes | the device read (chips, bus), the rate, the library's version |
///
/// The stream is QoS 0: a sample late is worth less than the next one, and a broker that is slow
/// or away must never hold samples back (they are dropped and counted instead). State is QoS 1
/// and retained: a subscriber that joins late gets it at once.
public struct BrokerConfiguration: Sendable, Equatable {
    /// `mqtt` (TCP, default port 1883) or `mqtts` (TLS, default port 8883).
    public enum Scheme: String, Sendable, Equatable {
        case mqtt, mqtts
    }

    public var scheme: Scheme
    public var host: String
    public var port: Int
    public var username: String?
    /// Sent only with a ``username``.
    public var password: String?
    /// With `mqtts`: the CA certificate (PEM) that signed the broker's; nil: the system's CAs.
    public var caFile: String?
    /// With `mqtts`: a client certificate (PEM) and its key, for brokers that ask for one.
    public var clientCertificate: String?
    public var clientKey: String?
    /// Every topic starts with it; default ``defaultTopicPrefix``. No `+`, `#` or empty level.
    public var topicPrefix: String
    /// Device-motion messages per second (the sampler keeps its own rate).
    public var rate: Double = 10
    /// Publish Home Assistant MQTT discovery configurations (sensors orientation, roll, pitch,
    /// heading and a binary sensor "moving"), retained under ``discoveryPrefix``.
    public var homeAssistantDiscovery = false
    /// Home Assistant's discovery prefix (its default: `homeassistant`).
    public var discoveryPrefix = "homeassistant"
    /// Seconds between two `<prefix>/counters` messages.
    public var countersInterval: Double = 5
    /// Samples waiting for the publishing thread at most; more are dropped (``PublishDropReason/queueFull``).
    public var queueCapacity = 256
    /// Stream messages handed to libmosquitto but not yet written to the socket, at most; more are
    /// dropped (``PublishDropReason/brokerSlow``).
    public var inFlightLimit = 64
    /// Seconds ``MotionPublisher/start()`` waits for the broker to answer.
    public var connectTimeout: Double = 10
    /// Seconds between reconnection attempts: the first, doubling up to the last.
    public var reconnectDelay: ClosedRange<Double> = 1...30
    /// Seconds of silence after which the broker considers the connection dead (and sends the will).
    public var keepAlive = 10
    /// The MQTT client id; nil: `swift-motion-<hostname>-<machine>-<process id>`.
    public var clientID: String?
    /// With mqtts:// and no ``caFile``: the directory of the system's CA certificates under their
    /// hashed names (`update-ca-certificates` writes Debian's).
    package var systemCADirectory = "/etc/ssl/certs"

    /// A broker from its URL, `mqtt://host[:port]` or `mqtts://host[:port]` (IPv6 in brackets);
    /// user and password are not taken from the URL (they would end up in the process list).
    public init(url: String, topicPrefix: String = BrokerConfiguration.defaultTopicPrefix) throws(PublishError) {
        let fix = "write it as mqtt://HOST[:PORT] or mqtts://HOST[:PORT], e.g. mqtt://localhost or mqtts://broker.lan:8883"
        guard let components = URLComponents(string: url), let schemeName = components.scheme?.lowercased() else {
            throw .invalidURL(url, problem: "is not a URL", fix: fix)
        }
        guard let scheme = Scheme(rawValue: schemeName) else {
            throw .invalidURL(url, problem: "has the scheme \"\(schemeName)\", not mqtt or mqtts", fix: fix)
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL(url, problem: "names no host", fix: fix) }
        if components.user != nil || components.password != nil {
            throw .invalidURL(url, problem: "carries a user or password",
                              fix: "pass the user with --username and the password through SWIFT_MOTION_MQTT_PASSWORD or --password-file")
        }
        if !components.path.isEmpty && components.path != "/" || components.query != nil || components.fragment != nil {
            throw .invalidURL(url, problem: "has a path, query or fragment", fix: fix)
        }
        // A NUL would cut the name libmosquitto resolves; no host name holds a control character.
        if host.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw .invalidURL(url, problem: "has a NUL or control character in its host", fix: fix)
        }
        // The port as written: URLComponents reads a port beyond Int's range as none at all.
        let written = Self.writtenPort(url)
        if let written, written.isEmpty || !written.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
            throw .invalidURL(url, problem: "has the port \"\(written)\", not a number", fix: fix)
        }
        let port = components.port ?? (written.map { Int($0) ?? Int.max } ?? (scheme == .mqtt ? 1883 : 8883))
        guard (1...65_535).contains(port) else {
            throw .invalidURL(url, problem: "has the port \(written ?? String(port)), outside 1...65535", fix: fix)
        }
        self.scheme = scheme
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.topicPrefix = topicPrefix
    }

    /// The text after the host's `:` in `scheme://[user@]host[:port]…`; nil without a `:`.
    static func writtenPort(_ url: String) -> String? {
        guard let start = url.range(of: "://")?.upperBound else { return nil }
        var authority = url[start...].prefix { !"/?#".contains($0) }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") { authority = authority[authority.index(after: close)...] }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return String(authority[authority.index(after: colon)...])
    }

    /// `swift-motion/<hostname>-<machine>`: the hostname (characters MQTT reserves in a topic level
    /// replaced by `_`) and what tells this machine from another of that name (``MachineIdentity``:
    /// the device tree's serial number or systemd's machine id), so that two boards both called
    /// `raspberrypi` do not share topics; the hostname alone where neither exists.
    public static var defaultTopicPrefix: String {
        "swift-motion/" + machineName
    }

    /// `<hostname>-<machine identity>`, or the hostname alone.
    static var machineName: String {
        let host = topicLevel(ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "board")
        return MachineIdentity.identifier().map { "\(host)-\($0)" } ?? host
    }

    /// `name` as one topic level: `/`, `+`, `#` and control characters replaced by `_`.
    static func topicLevel(_ name: String) -> String {
        let level = String(name.unicodeScalars.map { "/+#".unicodeScalars.contains($0) || $0.value < 0x20 ? "_" : Character($0) })
        return level.isEmpty ? "board" : level
    }

    /// ``clientID``, else `swift-motion-<hostname>-<machine>-<process id>`; 200 characters at most.
    var effectiveClientID: String {
        let id = clientID ?? "swift-motion-\(Self.machineName)-\(ProcessInfo.processInfo.processIdentifier)"
        return String(id.prefix(200))
    }

    /// Checks everything that can be checked before connecting; the error names the setting and the fix.
    public func validate() throws(PublishError) {
        try Self.validateTopicPrefix(topicPrefix, option: "topic prefix")
        try Self.validateTopicPrefix(discoveryPrefix, option: "discovery prefix")
        guard rate.isFinite, rate >= 1.0 / 86_400, rate <= 100 else {
            throw .invalidSetting("rate", problem: "is \(rate) messages per second", fix: "choose a rate from 1/86400 to 100 per second")
        }
        guard countersInterval.isFinite, countersInterval >= 0.1, countersInterval <= 86_400 else {
            throw .invalidSetting("counters interval", problem: "is \(countersInterval) s", fix: "choose 0.1 to 86400 seconds")
        }
        guard (1...1_000_000).contains(queueCapacity), (1...1_000_000).contains(inFlightLimit) else {
            throw .invalidSetting("queue capacity", problem: "is \(queueCapacity) (in flight \(inFlightLimit))", fix: "choose 1 to 1000000")
        }
        guard connectTimeout.isFinite, connectTimeout > 0, connectTimeout <= 3600 else {
            throw .invalidSetting("connect timeout", problem: "is \(connectTimeout) s", fix: "choose up to 3600 seconds")
        }
        guard reconnectDelay.lowerBound >= 1, reconnectDelay.upperBound <= 86_400 else {
            throw .invalidSetting("reconnect delay", problem: "is \(reconnectDelay) s", fix: "choose whole seconds from 1 to 86400")
        }
        guard (5...65_535).contains(keepAlive) else {
            throw .invalidSetting("keep-alive", problem: "is \(keepAlive) s", fix: "choose 5 to 65535 seconds (libmosquitto's range)")
        }
        if password != nil, username == nil {
            throw .invalidSetting("password", problem: "is set without a user name", fix: "pass the user name too (--username)")
        }
        if (clientCertificate == nil) != (clientKey == nil) {
            throw .invalidSetting("client certificate", problem: "needs both a certificate and its key", fix: "pass --cert FILE and --key FILE together")
        }
        if scheme == .mqtt, caFile != nil || clientCertificate != nil {
            throw .invalidSetting("TLS files", problem: "are given for a plain mqtt:// broker", fix: "use mqtts://HOST[:PORT] (TLS) or drop the certificate options")
        }
        for (setting, path) in [("CA file", caFile), ("client certificate", clientCertificate), ("client key", clientKey)] {
            guard let path else { continue }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw .invalidSetting(setting, problem: "\(path) cannot be read", fix: "give the path of a readable PEM file")
            }
        }
    }

    /// A prefix must be a valid topic to publish to: not empty, no wildcard, no empty level, no
    /// leading `$` (the broker's own topics), no NUL (MQTT 3.1.1, section 4.7).
    static func validateTopicPrefix(_ prefix: String, option: String) throws(PublishError) {
        let fix = "use levels of letters, digits, '-' and '_' separated by single '/', e.g. swift-motion/kitchen"
        if prefix.isEmpty { throw .invalidTopicPrefix(prefix, setting: option, problem: "is empty", fix: fix) }
        if prefix.contains("+") || prefix.contains("#") {
            throw .invalidTopicPrefix(prefix, setting: option, problem: "contains the wildcard '+' or '#', which only subscriptions may use", fix: fix)
        }
        if prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            throw .invalidTopicPrefix(prefix, setting: option, problem: "has an empty level (a leading, trailing or double '/')", fix: fix)
        }
        if prefix.hasPrefix("$") {
            throw .invalidTopicPrefix(prefix, setting: option, problem: "starts with '$', which brokers keep for their own topics", fix: fix)
        }
        if prefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) || prefix.utf8.count > 60_000 {
            throw .invalidTopicPrefix(prefix, setting: option, problem: "contains control characters or is too long", fix: fix)
        }
    }

    /// The topic of one kind of message under the prefix.
    public func topic(_ kind: PublishTopic) -> String { topicPrefix + "/" + kind.rawValue }
}

/// The topics a ``MotionPublisher`` publishes under its prefix.
public enum PublishTopic: String, Sendable, CaseIterable {
    case motion, orientation, moving, availability, counters, device
    /// The barometer's update once a second: pressure, altitude, temperature (with a barometer).
    case altitude
    /// The step count, cadence, floors and activity, when they change.
    case steps

    /// QoS 0 for the stream, 1 for state.
    public var qos: Int32 { self == .motion ? 0 : 1 }
    /// State is retained; the stream is not.
    public var retained: Bool { self != .motion }
}
