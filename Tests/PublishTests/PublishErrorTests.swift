import Foundation
import Motion
import MotionSimulation
import Testing
import TestSupport
@testable import MotionPublish

#if canImport(Glibc)
import Glibc
#endif

/// Settings that cannot work: a clear error naming the setting and the fix, before anything is sent.
@Suite struct BrokerConfigurationTests {
    @Test("bad broker URLs are refused with what is wrong and the form to use", arguments: [
        ("localhost:1883", "scheme"), ("http://localhost", "not mqtt or mqtts"), ("mqtt://", "names no host"),
        ("mqtt://user:secret@localhost", "user or password"), ("mqtt://localhost/topic", "path"), ("mqtt://localhost:70000", "port"),
        ("", "not a URL"), ("mqtt://localhost:65536", "port 65536"), ("mqtt://localhost:0", "port 0"),
        ("mqtt://localhost:99999999999999999999", "port 99999999999999999999"), ("mqtts://localhost:18446744073709551617", "outside 1...65535"),
        ("mqtt://[::1]:70000", "port 70000"), ("mqtt://localhost:", "not a number"), ("mqtt://localhost%00.evil.example", "NUL"),
        ("mqtt://local%00host:1883", "NUL"), ("mqtt://local%0Ahost", "control character"),
    ])
    func badURL(url: String, problem: String) {
        #expect {
            _ = try BrokerConfiguration(url: url)
        } throws: { error in
            let text = "\(error)"
            return text.contains(problem) && text.contains("mqtt://HOST[:PORT]") || text.contains("--username")
        }
    }

    @Test("URLs: default ports, explicit ports, IPv6")
    func goodURL() throws {
        #expect(try BrokerConfiguration(url: "mqtt://pi.local").port == 1883)
        #expect(try BrokerConfiguration(url: "mqtts://pi.local").port == 8883)
        #expect(try BrokerConfiguration(url: "MQTT://pi.local:1884").port == 1884)
        #expect(try BrokerConfiguration(url: "mqtt://[::1]:1884").host == "::1")
        #expect(try BrokerConfiguration(url: "mqtt://[::1]").port == 1883)
        #expect(try BrokerConfiguration(url: "mqtt://pi.local:65535").port == 65535)
        #expect(try BrokerConfiguration(url: "mqtts://pi.local:08883").port == 8883)
    }

    @Test("topic prefixes with wildcards, empty levels or a leading $ are refused", arguments: [
        "a/+/b", "a/#", "#", "", "a//b", "/a", "a/", "$SYS/a",
    ])
    func badPrefix(prefix: String) throws {
        let configuration = try BrokerConfiguration(url: "mqtt://localhost", topicPrefix: prefix)
        #expect {
            try configuration.validate()
        } throws: { error in
            guard case .invalidTopicPrefix(let named, _, _, let fix) = error as? PublishError else { return false }
            return named == prefix && fix.contains("swift-motion/kitchen")
        }
    }

    @Test("the default prefix is swift-motion/<hostname>-<machine> and valid")
    func defaultPrefix() throws {
        let configuration = try BrokerConfiguration(url: "mqtt://localhost")
        #expect(configuration.topicPrefix.hasPrefix("swift-motion/"))
        if let machine = MachineIdentity.identifier() { #expect(configuration.topicPrefix.hasSuffix("-" + machine)) }
        try configuration.validate()
    }

    /// Two boards of one hostname differ by the device tree's serial (its leading zeros and the
    /// NUL after it dropped), else by systemd's machine id (its first 12 digits); with neither, nil.
    @Test func machineIdentityFromTheSerialOrTheMachineID() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("identity-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let serial = folder.appendingPathComponent("serial-number").path, machineID = folder.appendingPathComponent("machine-id").path
        let missing = folder.appendingPathComponent("missing").path
        try Data("10000000abcd1234\0".utf8).write(to: URL(fileURLWithPath: serial))
        try "3d1219c7c4c5404aaa1f6d2a48adfda4\n".write(toFile: machineID, atomically: true, encoding: .utf8)
        #expect(MachineIdentity.identifier(deviceTreeSerial: serial, machineID: machineID) == "10000000abcd1234".drop { $0 == "0" }.description)
        #expect(MachineIdentity.identifier(deviceTreeSerial: missing, machineID: machineID) == "3d1219c7c4c5")
        try Data("0000000000000000\0".utf8).write(to: URL(fileURLWithPath: serial))
        #expect(MachineIdentity.identifier(deviceTreeSerial: serial, machineID: machineID) == "3d1219c7c4c5")
        #expect(MachineIdentity.identifier(deviceTreeSerial: missing, machineID: missing) == nil)
    }
}

/// Brokers that refuse, hosts that do not answer, TLS: the error of `start()`.
@Suite(.serialized, .enabled(if: Broker.isInstalled, Broker.skipMessage))
struct PublishConnectionTests {
    static func start(_ configuration: BrokerConfiguration) throws -> PublishError? {
        let manager = try MotionManager(source: .simulated(Simulation()), clock: VirtualClock(), calibrationStore: nil)
        let publisher = try MotionPublisher(manager: manager, configuration: configuration)
        do {
            try publisher.start()
            publisher.stop()
            return nil
        } catch {
            return error
        }
    }

    /// A broker that wants user `motion` with password `right-password`; TLS with certificates made now when `tls`.
    static func passwordBroker(tls: Bool) throws -> Broker {
        let broker = try Broker(anonymous: false) { directory in
            ["password_file \(directory)/passwords"]
                + (tls ? ["cafile \(directory)/ca.crt", "certfile \(directory)/server.crt", "keyfile \(directory)/server.key"] : [])
        }
        try broker.shell("mosquitto_passwd -b -c passwords motion right-password")
        if tls {
            try broker.shell("""
                openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=swift-motion-test-ca -keyout ca.key -out ca.crt 2>/dev/null \\
                && openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr 2>/dev/null \\
                && printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > san.ext \\
                && openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile san.ext -out server.crt 2>/dev/null
                """)
        }
        // Debian's mosquitto started as root runs as the user mosquitto: it must read these.
        try broker.shell("chmod 755 . && chmod 644 *")
        try broker.start()
        return broker
    }

    @Test("a wrong password: refused, not authorized, with the fix")
    func wrongPassword() throws {
        let broker = try Self.passwordBroker(tls: false)
        var configuration = try BrokerConfiguration(url: broker.url, topicPrefix: "test/password")
        configuration.username = "motion"
        configuration.password = "wrong-password"
        let error = try #require(try Self.start(configuration))
        guard case .refused(_, _, let code, _) = error else { Issue.record("not a refusal: \(error)"); return }
        #expect(code == 5)
        #expect("\(error)".contains("not authorised") || "\(error)".contains("not authorized"), "\(error)")
        #expect("\(error)".contains("SWIFT_MOTION_MQTT_PASSWORD"))
        configuration.password = "right-password"
        #expect(try Self.start(configuration) == nil)
    }

    @Test("nobody listening on the port, a host name that does not resolve: unreachable, naming host and port")
    func unreachable() throws {
        let port = try Broker.freePort()
        let refused = try #require(try Self.start(try BrokerConfiguration(url: "mqtt://127.0.0.1:\(port)", topicPrefix: "test/x")))
        #expect("\(refused)".contains("127.0.0.1:\(port)") && "\(refused)".contains("refused"), "\(refused)")
        let unknown = try #require(try Self.start(try BrokerConfiguration(url: "mqtt://no-such-host.invalid", topicPrefix: "test/x")))
        guard case .unreachable = unknown else { Issue.record("\(unknown)"); return }
    }

    @Test("mqtts:// without --ca-file: the system's CA directory (capath) trusts the broker's CA; the arguments of mosquitto_tls_set")
    func tlsSystemCAs() throws {
        var configuration = try BrokerConfiguration(url: "mqtts://127.0.0.1:8883", topicPrefix: "test/tls-system")
        let system = MosquittoConnection.tlsArguments(configuration)
        #expect(system.caFile == nil && system.caPath == "/etc/ssl/certs" && system.certificate == nil && system.key == nil)
        configuration.caFile = "/tmp/ca.crt"
        let given = MosquittoConnection.tlsArguments(configuration)
        #expect(given.caFile == "/tmp/ca.crt" && given.caPath == nil)

        // A "system" directory holding the test broker's CA under its hashed name, as update-ca-certificates writes it.
        let broker = try Self.passwordBroker(tls: true)
        let directory = broker.directory.path
        try broker.shell("mkdir -p system-cas && cp ca.crt system-cas/test-ca.pem && openssl rehash system-cas")
        configuration = try BrokerConfiguration(url: "mqtts://127.0.0.1:\(broker.port)", topicPrefix: "test/tls-system")
        configuration.username = "motion"
        configuration.password = "right-password"
        configuration.systemCADirectory = "\(directory)/system-cas"
        #expect(try Self.start(configuration) == nil, "a CA in the system directory is trusted")
        configuration.systemCADirectory = "\(directory)/no-such-directory"
        let error = try #require(try Self.start(configuration))
        guard case .tls = error else { Issue.record("not a TLS error: \(error)"); return }
    }

    @Test("TLS with a password: the right CA connects and publishes; another CA fails the handshake")
    func tls() throws {
        let broker = try Self.passwordBroker(tls: true)
        let directory = broker.directory.path
        var configuration = try BrokerConfiguration(url: "mqtts://127.0.0.1:\(broker.port)", topicPrefix: "test/tls")
        configuration.username = "motion"
        configuration.password = "right-password"
        configuration.caFile = "\(directory)/ca.crt"
        let subscriber = try Subscriber(configuration, pattern: "test/tls/#")
        defer { subscriber.close() }
        let clock = VirtualClock()
        let manager = try MotionManager(source: .simulated(Simulation()), clock: clock, calibrationStore: nil)
        let publisher = try MotionPublisher(manager: manager, configuration: configuration)
        try publisher.start()
        try PublisherTests.advance(clock, 1, publisher)
        try wait("the stream over TLS") { subscriber.received.contains { $0.topic == "test/tls/motion" } }
        publisher.stop()

        try broker.shell("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other-ca -keyout other.key -out other.crt 2>/dev/null")
        configuration.caFile = "\(directory)/other.crt"
        let error = try #require(try Self.start(configuration))
        guard case .tls = error else { Issue.record("not a TLS error: \(error)"); return }
    }
}
