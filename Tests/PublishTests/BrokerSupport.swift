import Foundation
import Locking
import Testing
import TestSupport
@testable import MotionPublish

#if canImport(Glibc)
import Glibc
#endif

/// A real Mosquitto broker for one test: its own config file in a temporary directory, a free
/// loopback port, killed (and removed) at the end. Tests skip when `mosquitto` is not installed.
final class Broker: @unchecked Sendable {
    /// The `mosquitto` executable (Debian puts it in /usr/sbin, outside a user's PATH).
    static let executable: URL? = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin"]
        return path.map { URL(fileURLWithPath: $0).appendingPathComponent("mosquitto") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()
    static let isInstalled = executable != nil
    static let skipMessage: Comment = "mosquitto is not installed: apt-get install mosquitto mosquitto-clients (as root) to run the broker tests"

    let directory: URL
    let port: Int
    private let configuration: URL
    private var process: Process?

    /// `extra` lines (given the broker's directory) are added to the listener's configuration (TLS, password file).
    init(anonymous: Bool = true, extra: (String) -> [String] = { _ in [] }) throws {
        directory = try makeTemporaryDirectory("swift-motion-broker")
        port = try Self.freePort()
        configuration = directory.appendingPathComponent("mosquitto.conf")
        let lines = ["listener \(port) 127.0.0.1", "allow_anonymous \(anonymous)", "persistence false", "log_dest stderr"] + extra(directory.path)
        try (lines.joined(separator: "\n") + "\n").write(to: configuration, atomically: true, encoding: .utf8)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Starts the broker and waits (at most 20 s) until it accepts connections.
    func start() throws {
        let process = Process()
        guard let executable = Self.executable else { throw BrokerMissing() }
        process.executableURL = executable
        process.arguments = ["-c", configuration.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: logFile())
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(20)
        while !Self.accepts(port: port) {
            try #require(process.isRunning, "mosquitto exited: \(log)")
            try #require(Date() < deadline, "mosquitto did not listen on \(port) within 20 s: \(log)")
            usleep(50_000)
        }
    }

    /// Kills the broker (SIGKILL: no goodbye to its clients) and waits for it to end.
    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    private func logFile() throws -> URL {
        let file = directory.appendingPathComponent("broker.log")
        if !FileManager.default.fileExists(atPath: file.path) { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        return file
    }

    var log: String { (try? String(contentsOf: directory.appendingPathComponent("broker.log"), encoding: .utf8)) ?? "" }

    /// A port nobody listens on now (bound to 0, read back, closed).
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        try #require(bound, "no free loopback port")
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Runs `command` with /bin/sh in the broker's directory; fails the test on a non-zero status.
    func shell(_ command: String) throws {
        let result = try runToEnd(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(directory.path)' && \(command)"])
        try #require(result.status == 0, "\(command): \(result.error)")
    }
}

struct BrokerMissing: Error, CustomStringConvertible {
    var description: String { "mosquitto is not installed: apt-get install mosquitto mosquitto-clients" }
}

/// A subscriber through libmosquitto (the same bridge the publisher uses): every message received,
/// in order; subscribes again after a reconnection.
final class Subscriber: Sendable {
    private let messages = Locked<[MosquittoConnection.Message]>([])
    private let subscriptions = Locked(0)
    private let connection: Locked<MosquittoConnection?> = Locked(nil)
    let pattern: String

    init(_ configuration: BrokerConfiguration, pattern: String) throws {
        self.pattern = pattern
        let client = try MosquittoConnection(
            configuration: configuration, clientID: "test-subscriber-\(UUID().uuidString.prefix(8))", will: nil
        ) { [messages, subscriptions, connection] event in
            switch event {
            case .message(let message): messages.withLock { $0.append(message) }
            case .subscribed: subscriptions.withLock { $0 += 1 }
            // After a reconnection (clean session) the subscription is gone: again.
            case .connected(code: 0): _ = try? connection.withLock { $0 }?.subscribe(pattern)
            default: break
            }
        }
        connection.withLock { $0 = client }
        try client.connect(keepAlive: 10, timeout: 20)
        try wait("the subscription to \(pattern)") { subscriptions.withLock { $0 } > 0 }
    }

    var received: [MosquittoConnection.Message] { messages.withLock { $0 } }
    var subscriptionCount: Int { subscriptions.withLock { $0 } }

    /// The last message on `topic`.
    func last(_ topic: String) -> MosquittoConnection.Message? { received.last { $0.topic == topic } }

    func close() { connection.withLock { $0 }?.disconnect() }
}

/// Polls `condition` every 20 ms for at most `seconds` (generous: CI runs five test processes on
/// two cores); fails the test naming `what` when it never holds.
func wait(_ what: String, seconds: Double = 30, _ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        try #require(Date() < deadline, "waited \(Int(seconds)) s for \(what)")
        usleep(20_000)
    }
}

/// A JSON object's keys and values.
func object(_ payload: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any], "not a JSON object: \(payload)")
}

/// A loopback port where connecting hangs, as on a host whose firewall drops packets: a listener
/// that never accepts, its queue filled (Linux then drops further SYNs, and `connect` waits through
/// its retransmissions, about two minutes).
final class Blackhole: Sendable {
    private let sockets: [Int32]

    init(port: Int) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let listening = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, size) == 0 && listen(listener, 0) == 0 }
        }
        try #require(listening, "cannot listen on 127.0.0.1:\(port): errno \(errno)")
        var sockets = [listener]
        // Fill the accept queue (a backlog of 0 holds one): the third SYN finds it full.
        for _ in 0..<2 {
            let filler = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            try #require(filler >= 0)
            _ = withUnsafePointer(to: &address) { pointer in pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, size) } }
            sockets.append(filler)
        }
        usleep(200_000)
        self.sockets = sockets
    }

    deinit { for socket in sockets { close(socket) } }
}
