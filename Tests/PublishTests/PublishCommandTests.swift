import Foundation
import Testing
import TestSupport
@testable import MotionPublish

#if canImport(Glibc)
import Glibc
#endif

/// `motionctl publish` as a person runs it: the built binary against a real broker.
@Suite(.serialized, .enabled(if: Broker.isInstalled, Broker.skipMessage))
struct PublishCommandTests {
    static func motionctl() throws -> URL { try builtExecutable("motionctl") }

    /// Runs `motionctl publish ARGUMENTS`; its status and standard error.
    static func publish(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, error: String) {
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        let result = try runToEnd(try motionctl(), ["publish", "--simulated"] + arguments, environment: merged)
        return (result.status, result.error)
    }

    @Test("killed with SIGKILL: the broker publishes the will, offline; Ctrl-C (SIGINT): offline, exit 130, interrupted: …",
          arguments: [SIGKILL, SIGINT])
    func offlineAtTheEnd(signal: Int32) throws {
        let broker = try Broker()
        try broker.start()
        let subscriber = try Subscriber(try BrokerConfiguration(url: broker.url), pattern: "test/end/availability")
        defer { subscriber.close() }
        let process = Process()
        process.executableURL = try Self.motionctl()
        process.arguments = ["publish", "--simulated", "--broker", broker.url, "--topic-prefix", "test/end"]
        let error = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = error
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        try wait("online") { subscriber.last("test/end/availability")?.payload == "online" }
        kill(process.processIdentifier, signal)
        let said = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try wait("offline") { subscriber.last("test/end/availability")?.payload == "offline" }
        if signal == SIGINT {
            #expect(process.terminationStatus == 130, "\(said)")
            #expect(said.contains("interrupted: publisher: samples"), "\(said)")
        } else {
            #expect(process.terminationReason == .uncaughtSignal)
        }
    }

    /// While it waits for a broker whose host drops packets (``Blackhole``; --connect-timeout an
    /// hour), --duration ends the run as a failure and SIGTERM or Ctrl-C as an interruption, each
    /// saying that nothing was published.
    @Test("waiting to connect: --duration, SIGTERM and Ctrl-C end it", arguments: [0, SIGTERM, SIGINT])
    func theWaitForTheBrokerEnds(signal: Int32) throws {
        let port = 20_000 + Int(getpid() % 5_000) + Int(signal)
        let hole = try Blackhole(port: port)
        defer { withExtendedLifetime(hole) {} }
        let process = Process()
        process.executableURL = try Self.motionctl()
        process.arguments = ["publish", "--simulated", "--broker", "mqtt://127.0.0.1:\(port)", "--connect-timeout", "3600"]
            + (signal == 0 ? ["--duration", "2"] : [])
        let error = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = error
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var said = Data()
        while !String(decoding: said, as: UTF8.self).contains("connecting to"), process.isRunning {
            said += error.fileHandleForReading.availableData
        }
        if signal != 0 { kill(process.processIdentifier, signal) }
        said += error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: said, as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == (signal == 0 ? 1 : 128 + signal), "\(text)")
        #expect(text.contains("not connected to mqtt://127.0.0.1:\(port): nothing published"), "\(text)")
    }

    @Test("--duration: publishes, says offline, exits 0 with the counters; the password from the environment")
    func duration() throws {
        let broker = try PublishConnectionTests.passwordBroker(tls: false)
        let subscriber = try Subscriber(
            { var c = try BrokerConfiguration(url: broker.url); c.username = "motion"; c.password = "right-password"; return c }(),
            pattern: "test/cli/#")
        defer { subscriber.close() }
        let result = try Self.publish(
            ["--broker", broker.url, "--topic-prefix", "test/cli", "--username", "motion", "--duration", "2", "--rate", "5"],
            environment: ["SWIFT_MOTION_MQTT_PASSWORD": "right-password"])
        #expect(result.status == 0, "\(result.error)")
        try wait("offline after the clean end") { subscriber.last("test/cli/availability")?.payload == "offline" }
        let seqs = subscriber.received.filter { $0.topic == "test/cli/motion" }.compactMap { try? object($0.payload)["seq"] as? Int }
        #expect(!seqs.isEmpty && seqs == Array(1...seqs.count), "\(seqs)")
    }

    @Test("--remove-discovery: a retired board's retained discovery configurations are gone, another board's stay")
    func removeDiscovery() throws {
        let broker = try Broker()
        try broker.start()
        for prefix in ["test/retired", "test/kept"] {
            let result = try Self.publish(["--broker", broker.url, "--topic-prefix", prefix, "--home-assistant", "--duration", "1"])
            #expect(result.status == 0, "\(result.error)")
        }
        let (retired, kept) = (HomeAssistantDiscovery.nodeID("test/retired"), HomeAssistantDiscovery.nodeID("test/kept"))
        func configurations() throws -> Set<String> {
            let late = try Subscriber(try BrokerConfiguration(url: broker.url), pattern: "homeassistant/#")
            defer { late.close() }
            // Retained messages arrive right after the subscription; a moment for all of them.
            Thread.sleep(forTimeInterval: 0.5)
            return Set(late.received.filter { $0.retained && !$0.payload.isEmpty }.map(\.topic))
        }
        // 12 for device motion and the publisher, 2 for steps and activity, 4 for the simulated BMP280.
        let before = try configurations()
        #expect(before.count { $0.contains("/\(retired)/") } == 18, "\(before)")
        #expect(before.count { $0.contains("/\(kept)/") } == 18, "\(before)")

        let result = try runToEnd(try Self.motionctl(), ["publish", "--broker", broker.url, "--topic-prefix", "test/retired", "--remove-discovery"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("removed 18 Home Assistant discovery configurations of test/retired"), "\(result.output)")
        let after = try configurations()
        #expect(after.filter { $0.contains("/\(retired)/") }.isEmpty, "\(after)")
        #expect(after.count { $0.contains("/\(kept)/") } == 18, "\(after)")
    }

    @Test("a discovery configuration libmosquitto cannot send (its topic over 65535 bytes): exit 1 with the fix, not 0")
    func unsendableDiscovery() throws {
        let broker = try Broker()
        try broker.start()
        let prefix = String(repeating: "p", count: 6_000), discovery = String(repeating: "d", count: 60_000)
        let result = try Self.publish(
            ["--broker", broker.url, "--topic-prefix", prefix, "--home-assistant", "--discovery-prefix", discovery, "--duration", "3"])
        let said = result.error.suffix(600)
        #expect(result.status == 1, "\(said)")
        #expect(said.contains("\nerror: the Home Assistant discovery configuration dddd"), "\(said)")
        #expect(said.contains("cannot be sent"), "\(said)")
        #expect(said.contains("shorten --discovery-prefix and --topic-prefix"), "\(said)")
        // Without discovery the same prefix publishes.
        let plain = try Self.publish(["--broker", broker.url, "--topic-prefix", prefix, "--duration", "1"])
        #expect(plain.status == 0, "\(plain.error.suffix(600))")
    }

    @Test("--remove-discovery with no broker: exit 1 naming it")
    func removeDiscoveryUnreachable() throws {
        let result = try runToEnd(try Self.motionctl(), ["publish", "--broker", "mqtt://127.0.0.1:1", "--remove-discovery", "--connect-timeout", "2"])
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.contains("error: cannot reach the MQTT broker at 127.0.0.1:1"), "\(result.error)")
    }

    @Test("errors: a clear message naming the thing and the fix, exit 1, no crash", arguments: [
        (["--broker", "http://localhost"], "not mqtt or mqtts"),
        (["--broker", "mqtt://127.0.0.1:1", "--topic-prefix", "a/+/b"], "wildcard"),
        (["--broker", "mqtt://127.0.0.1:1", "--topic-prefix", "a//b"], "empty level"),
        (["--broker", "mqtt://127.0.0.1:1", "--password-file", "/nonexistent/password"], "--password-file /nonexistent/password"),
        (["--broker", "mqtt://no-such-host.invalid"], "cannot reach the MQTT broker at no-such-host.invalid:1883"),
        (["--broker", "mqtt://127.0.0.1:99999999999999999999"], "has the port 99999999999999999999, outside 1...65535"),
        (["--broker", "mqtt://127.0.0.1%00.example"], "NUL or control character in its host"),
    ])
    func errors(arguments: [String], message: String) throws {
        let result = try Self.publish(arguments + ["--duration", "1"])
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("--password-file: the first line is the password, with LF, CRLF, a UTF-8 byte order mark or nothing after it")
    func passwordFile() throws {
        let broker = try PublishConnectionTests.passwordBroker(tls: false)
        let files: [[UInt8]] = [
            Array("right-password".utf8), Array("right-password\n".utf8), Array("right-password\r\n".utf8),
            [0xEF, 0xBB, 0xBF] + Array("right-password\n".utf8), [0xEF, 0xBB, 0xBF] + Array("right-password\r\nsecond line\r\n".utf8),
        ]
        for (index, bytes) in files.enumerated() {
            let path = broker.directory.appendingPathComponent("password-\(index)").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let result = try Self.publish(["--broker", broker.url, "--username", "motion", "--password-file", path, "--duration", "0.5"])
            #expect(result.status == 0, "\(bytes): \(result.error)")
        }
        // A password that only differs by what a line ending would strip is still wrong.
        let path = broker.directory.appendingPathComponent("password-wrong").path
        try Data("right-password \r\n".utf8).write(to: URL(fileURLWithPath: path))
        let wrong = try Self.publish(["--broker", broker.url, "--username", "motion", "--password-file", path, "--duration", "0.5"])
        #expect(wrong.status == 1 && wrong.error.contains("refused the connection"), "\(wrong.error)")
    }

    @Test("a wrong password and a port nobody listens on: exit 1 with the reason")
    func refused() throws {
        let broker = try PublishConnectionTests.passwordBroker(tls: false)
        let wrong = try Self.publish(["--broker", broker.url, "--username", "motion", "--duration", "1"],
                                     environment: ["SWIFT_MOTION_MQTT_PASSWORD": "wrong"])
        #expect(wrong.status == 1 && wrong.error.contains("refused the connection") && wrong.error.contains("password"), "\(wrong.error)")
        let port = try Broker.freePort()
        let closed = try Self.publish(["--broker", "mqtt://127.0.0.1:\(port)", "--duration", "1"])
        #expect(closed.status == 1 && closed.error.contains("127.0.0.1:\(port)") && closed.error.contains("refused"), "\(closed.error)")
    }
}
