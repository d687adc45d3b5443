import ArgumentParser
import FileAccess
import CommandSupport
import Foundation
import Locking
import Motion
import MotionSimulation
import MotionPublish

/// `motionctl publish`: device motion, orientation and state to an MQTT broker (MotionPublish;
/// topics, payloads and QoS in `BrokerConfiguration`), in real time until `--duration` or Ctrl-C.
struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish device motion, orientation and state to an MQTT broker (Mosquitto, Home Assistant's, any MQTT 3.1.1 broker).",
        discussion: """
            Topics under the prefix (default swift-motion/<hostname>-<machine id>): motion (QoS 0, one JSON sample per message, \
            the keys of `stream --format jsonl --device-motion` and seq), orientation, moving, availability \
            (online/offline, offline also as the will), counters, device, steps (count, cadence, floors, activity) and, \
            with a barometer, altitude (pressure kPa, altitude m, temperature °C, once a second) (QoS 1, retained).
            The password comes from $\(PublishCommand.passwordVariable) or --password-file, never from the command line.
            """)

    static let passwordVariable = "SWIFT_MOTION_MQTT_PASSWORD"

    @Option(help: "The broker: mqtt://HOST[:PORT] (default port 1883) or mqtts://HOST[:PORT] (TLS, default port 8883).") var broker: String
    @Option(help: "Every topic starts with it (default swift-motion/<hostname>-<machine id>); no '+', '#' or empty level.") var topicPrefix: String?
    @Option(parsing: .unconditional, help: "Device-motion messages per second (one a day to 100; the sampler keeps its own rate).", transform: OptionRange.decimal) var rate: Double = 10

    @Option(help: "The user name at the broker; the password comes from $\(PublishCommand.passwordVariable) or --password-file.") var username: String?
    @Option(help: "A file whose first line is the broker password (instead of $\(PublishCommand.passwordVariable)).") var passwordFile: String?

    @Option(help: "With mqtts://: the CA certificate (PEM) that signed the broker's (default: the system's CAs).") var caFile: String?
    @Option(help: "With mqtts://: a client certificate (PEM), for brokers that require one (with --key).") var cert: String?
    @Option(help: "With mqtts://: the client certificate's private key (PEM, not encrypted).") var key: String?

    @Flag(help: "Publish Home Assistant MQTT discovery: sensors orientation, roll, pitch, heading, steps, activity (and with a barometer pressure, temperature, altitude) and a binary sensor moving.") var homeAssistant = false
    @Option(help: "Home Assistant's discovery prefix.") var discoveryPrefix = "homeassistant"
    @Flag(help: "Remove the Home Assistant discovery of --topic-prefix (a retired board's): an empty retained message on each configuration topic, then exit.") var removeDiscovery = false

    @Option(parsing: .unconditional, help: "Seconds between two counters messages.", transform: OptionRange.decimal) var countersInterval: Double = 5
    @Option(parsing: .unconditional, help: "Seconds to wait for the broker to accept the connection.", transform: OptionRange.decimal) var connectTimeout: Double = 10
    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: until Ctrl-C).", transform: OptionRange.decimal) var duration: Double?

    @Flag(help: "Leave the barometer out (no altitude topic).") var noBarometer = false
    @Flag(help: "Leave steps and activity out (no steps topic; the sampler then keeps --rate).") var noSteps = false

    @OptionGroup var source: SourceOptions

    func validate() throws {
        try OptionRange.check(rate, "--rate", in: OptionRange.slowestRate...100, unit: "Hz")
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
        try OptionRange.check(countersInterval, "--counters-interval", in: 0.1...86_400, unit: "seconds")
        try OptionRange.check(connectTimeout, "--connect-timeout", in: 0.1...3600, unit: "seconds")
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting {
            let configuration = try brokerConfiguration()
            if removeDiscovery { return try Self.removeDiscovery(configuration) }
            // Publishing is real time: the simulated board plays on the system clock.
            let opened = try source.open(virtualTime: false)
            let board: String? = switch opened.source {
            case .board(let board, _): board.name
            case .simulated: "simulated board"
            default: nil
            }
            // The source's barometer, if it has one, for the altitude topic.
            let altimeter: Altimeter?
            do {
                altimeter = noBarometer ? nil : try Altimeter(source: opened.source)
            } catch {
                printError("publish: no altitude topic: \(error)")
                altimeter = nil
            }
            try PublishSession(manager: opened.manager, configuration: configuration, board: board, altimeter: altimeter, steps: !noSteps)
                .run(runner: opened.runner(duration: duration))
        }
    }

    /// `--remove-discovery`: the retained configurations cleared, one line saying how many and where.
    static func removeDiscovery(_ configuration: BrokerConfiguration) throws {
        let topics: [String]
        do {
            topics = try MotionPublisher.removeHomeAssistantDiscovery(configuration)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
        let url = "\(configuration.scheme.rawValue)://\(configuration.host):\(configuration.port)"
        print("removed \(topics.count) Home Assistant discovery configurations of \(configuration.topicPrefix) from \(url) "
            + "(empty retained messages under \(configuration.discoveryPrefix)/)")
    }

    /// The options as a broker configuration; a bad URL, prefix or file is a `CommandFailure`.
    func brokerConfiguration() throws -> BrokerConfiguration {
        do {
            var configuration = try BrokerConfiguration(url: broker, topicPrefix: topicPrefix ?? BrokerConfiguration.defaultTopicPrefix)
            configuration.rate = rate
            configuration.username = username
            configuration.password = try password()
            configuration.caFile = caFile
            configuration.clientCertificate = cert
            configuration.clientKey = key
            configuration.homeAssistantDiscovery = homeAssistant
            configuration.discoveryPrefix = discoveryPrefix
            configuration.countersInterval = countersInterval
            configuration.connectTimeout = connectTimeout
            try configuration.validate()
            return configuration
        } catch let error as PublishError {
            throw CommandFailure(message: "\(error)")
        }
    }

    /// The password in a password file's text: its first line without its "\n" or "\r\n", a
    /// leading UTF-8 byte order mark left out (what editors on Windows write). By scalars: to
    /// `Character`, "\r\n" is one character, not "\r" then "\n".
    static func passwordLine(_ text: String) -> String {
        var scalars = Substring(text).unicodeScalars
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        if let newline = scalars.firstIndex(of: "\n") { scalars = scalars[..<newline] }
        if scalars.last == "\r" { scalars.removeLast() }
        return String(Substring(scalars))
    }

    /// --password-file's first line, else $SWIFT_MOTION_MQTT_PASSWORD, else none.
    func password() throws -> String? {
        if let passwordFile {
            let what = "a file holding the broker password on its first line"
            do {
                let text = String(decoding: try FileContents.read(passwordFile, what: what, limit: FileContents.Limit.passwordFile), as: UTF8.self)
                let password = Self.passwordLine(text)
                guard !password.isEmpty else { throw CommandFailure(message: "--password-file \(passwordFile) is empty: write the password on its first line") }
                return password
            } catch let failure as FileContents.Failure {
                throw CommandFailure(message: "--password-file \(passwordFile) \(failure.problem): \(failure.fix)")
            }
        }
        let variable = ProcessInfo.processInfo.environment[Self.passwordVariable]
        return variable?.isEmpty == false ? variable : nil
    }
}

/// The publishing itself, outside the command (handlers must not be main-actor isolated).
struct PublishSession: Sendable {
    let manager: MotionManager
    let configuration: BrokerConfiguration
    let board: String?
    var altimeter: Altimeter? = nil
    var steps = true

    func run(runner: UpdateRunner) throws {
        let publisher: MotionPublisher
        do {
            publisher = try MotionPublisher(manager: manager, configuration: configuration, boardName: board, altimeter: altimeter, steps: steps)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
        let url = "\(configuration.scheme.rawValue)://\(configuration.host):\(configuration.port)"
        // The connection is made on a thread of its own, so that Ctrl-C, SIGTERM and --duration
        // end the wait for the broker (up to --connect-timeout) as they end the run.
        let connected = Locked<Result<Void, PublishError>?>(nil)
        let connectingEnded = DispatchSemaphore(value: 0)
        let connecting = Thread {
            defer { connectingEnded.signal() }
            do throws(PublishError) {
                try publisher.start()
                connected.withLock { $0 = .success(()) }
                printError("publishing \(manager.deviceName) to \(url) under \(configuration.topicPrefix)/… at \(OptionRange.describe(configuration.rate)) Hz (Ctrl-C ends)")
            } catch {
                connected.withLock { $0 = .failure(error) }
            }
        }
        connecting.name = "motionctl.publish.connect"
        printError("connecting to \(url) (at most \(OptionRange.describe(configuration.connectTimeout)) s; Ctrl-C ends)")
        connecting.start()
        // A connection that fails, or a discovery configuration that cannot be sent, ends the run as an error.
        let interrupted = runner.run(isDone: {
            switch connected.withLock({ $0 }) {
            case .failure: true
            case .success: publisher.discoveryFailure != nil
            case nil: false
            }
        }, drain: {})
        if case nil = connected.withLock({ $0 }) {
            if publisher.cancelStart() {
                // Still waiting for the broker: nothing was published; the connecting thread ends with the process.
                let outcome = "not connected to \(url): nothing published"
                if interrupted { throw Interruption.exit(outcome) }
                throw CommandFailure(message: "--duration ended before the broker accepted: \(outcome)")
            }
            // Connected just now, and publishing has begun: let start() finish, then stop as usual.
            connectingEnded.wait()
        }
        if case .failure(let error) = connected.withLock({ $0 }) { throw CommandFailure(message: "\(error)") }
        publisher.stop()
        let summary = "publisher: \(publisher.counters); sampler: \(manager.counters)"
        manager.reportBackgroundSaveFailure()
        if let failure = publisher.discoveryFailure { throw CommandFailure(message: "\(failure) (\(summary))") }
        if interrupted { throw Interruption.exit(summary) }
        print(summary)
    }
}
