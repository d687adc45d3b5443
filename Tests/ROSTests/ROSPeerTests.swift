import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `motionctl ros2 --simulated` against a subscriber that is not ours: ros2_peer.py, a Cyclone DDS
/// participant from PyPI's `cyclonedds` with the ROS 2 type names, each message decoded by
/// `rosbags`' CDR deserializer. The python comes from $SWIFT_MOTION_ROS2_PYTHON (`.ci/run` makes
/// the virtual environment); without it the suite skips.
@Suite(.serialized, .enabled(if: ROSPeer.python != nil, ROSPeer.skipMessage))
struct ROSPeerTests {
    /// A domain of this test process's own, so that runs side by side do not hear each other.
    static let domain = 100 + Int(getpid() % 60)

    @Test("a peer on the domain decodes Imu on imu/data: face up at rest +9.81 m/s² on z, level, stamps increasing; data_raw has no orientation; another domain hears nothing")
    func peerReceives() throws {
        let peer = try ROSPeer(domain: Self.domain, namespace: "/swift_motion_test")
        let elsewhere = try ROSPeer(domain: Self.domain + 1, namespace: "/swift_motion_test")
        defer { peer.end(); elsewhere.end() }
        try peer.waitUntilReady()
        try elsewhere.waitUntilReady()

        let result = try runToEnd(
            try builtExecutable("motionctl"),
            ["ros2", "--simulated", "--duration", "2", "--rate", "20", "--domain-id", "\(Self.domain)",
             "--namespace", "/swift_motion_test", "--frame-id", "test_imu"], timeout: 60)
        #expect(result.status == 0, "\(result.error)")
        // "ros2: 40 samples, 40 published, dropped: none; sampler: …"
        let published = result.output.split(separator: " ").firstIndex(of: "published,").flatMap { index in
            Int(result.output.split(separator: " ")[index - 1])
        }
        let messages = try peer.messages()
        let imu = messages.filter { $0["topic"] as? String == "imu/data" }
        let raw = messages.filter { $0["topic"] as? String == "imu/data_raw" }
        // 2 s at 20 Hz: 40 samples; the first few may go out before discovery matched the peer.
        #expect(published.map { $0 >= 30 && $0 <= 42 } == true, "\(result.output)")
        #expect(imu.count >= 20 && imu.count <= (published ?? 0), "\(imu.count) of \(published ?? -1)")
        #expect(raw.count >= 20)

        for message in imu {
            #expect(message["frame_id"] as? String == "test_imu")
            #expect(message["encapsulation"] as? [Int] == [0, 1])   // CDR_LE: XCDR1, little-endian
            let a = try #require(message["linear_acceleration"] as? [Double])
            #expect(abs(a[2] - 9.80665) < 0.3 && abs(a[0]) < 0.3 && abs(a[1]) < 0.3, "\(a)")
            let q = try #require(message["orientation"] as? [Double])
            // Level: the body's z axis within 3° of up (its tilt is 2·asin(√(x² + y²))).
            #expect(2 * asin((q[0] * q[0] + q[1] * q[1]).squareRoot()) < 3 * Double.pi / 180, "\(q)")
            #expect((message["orientation_covariance"] as? [Double])?.first != -1)
        }
        let stamps = imu.compactMap { $0["stamp"] as? [Int] }.map { $0[0] * 1_000_000_000 + $0[1] }
        #expect(stamps.count == imu.count)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(raw.allSatisfy { ($0["orientation_covariance"] as? [Double])?.first == -1 })

        // Heard by then if at all: the peer on the domain heard its last message 1.5 s before.
        #expect(try elsewhere.messages(now: true).isEmpty)
    }

    @Test("a subscriber that joins late hears the run from then on; one that leaves costs the publisher nothing")
    func lateAndLeaving() throws {
        let namespace = "/swift_motion_late"
        let early = try ROSPeer(domain: Self.domain, namespace: namespace)
        defer { early.end() }
        try early.waitUntilReady()
        let motionctl = Process()
        motionctl.executableURL = try builtExecutable("motionctl")
        motionctl.arguments = ["ros2", "--simulated", "--duration", "5", "--rate", "20", "--domain-id", "\(Self.domain)", "--namespace", namespace]
        let output = Pipe()
        motionctl.standardOutput = output
        motionctl.standardError = FileHandle.nullDevice
        try motionctl.run()
        defer { if motionctl.isRunning { kill(motionctl.processIdentifier, SIGKILL) } }

        try early.waitForLines(10)
        let late = try ROSPeer(domain: Self.domain, namespace: namespace)
        defer { late.end() }
        try late.waitUntilReady()
        let beforeLeaving = try early.messages(now: true).filter { $0["topic"] as? String == "imu/data" }
        let summary = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        motionctl.waitUntilExit()
        let heardLate = try late.messages().filter { $0["topic"] as? String == "imu/data" }

        #expect(motionctl.terminationStatus == 0, "\(summary)")
        #expect(summary.contains("100 samples, 100 published, dropped: none"), "\(summary)")
        #expect(!beforeLeaving.isEmpty)
        #expect(heardLate.count >= 10, "\(heardLate.count)")
        let first = { (messages: [[String: Any]]) in (messages.first?["stamp"] as? [Int]).map { $0[0] * 1_000_000_000 + $0[1] } ?? 0 }
        #expect(first(heardLate) > first(beforeLeaving))
    }
}

/// ros2_peer.py running in the background: its standard output in a temporary file.
final class ROSPeer {
    static let python: String? = {
        guard let path = ProcessInfo.processInfo.environment["SWIFT_MOTION_ROS2_PYTHON"], FileManager.default.isExecutableFile(atPath: path) else {
            return nil
        }
        return path
    }()
    static let skipMessage: Comment = """
        SWIFT_MOTION_ROS2_PYTHON does not name a python: python3 -m venv /tmp/ros2-venv && /tmp/ros2-venv/bin/pip install \
        cyclonedds rosbags, then SWIFT_MOTION_ROS2_PYTHON=/tmp/ros2-venv/bin/python (.ci/run does this)
        """
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ros2_peer.py")

    private let process = Process()
    private let output: URL

    init(domain: Int, namespace: String) throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("ros2-peer-\(getpid())-\(domain)-\(UUID().uuidString).jsonl")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw PeerFailure(description: "cannot create \(output.path)")
        }
        process.executableURL = URL(fileURLWithPath: Self.python ?? "/nonexistent")
        process.arguments = [Self.script.path, "--domain", "\(domain)", "--namespace", namespace, "--seconds", "30", "--idle", "1.5"]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.standardError
        try process.run()
    }

    /// Waits (at most 30 s) for the peer's readers to exist.
    func waitUntilReady() throws {
        for _ in 0..<3000 {
            if (try? String(contentsOf: output, encoding: .utf8))?.contains("\"ready\"") == true { return }
            guard process.isRunning else { break }
            usleep(10_000)
        }
        throw PeerFailure(description: "ros2_peer.py did not get ready (status \(process.isRunning ? "running" : "\(process.terminationStatus)"))")
    }

    /// Waits (at most 30 s) until the peer has printed `count` messages.
    func waitForLines(_ count: Int) throws {
        for _ in 0..<3000 {
            let lines = (try? String(contentsOf: output, encoding: .utf8))?.split(separator: "\n").count ?? 0
            if lines > count { return }
            usleep(10_000)
        }
        throw PeerFailure(description: "ros2_peer.py heard fewer than \(count) messages in 30 s")
    }

    /// Everything the peer decoded: after it ended by itself (1.5 s after its last message, 30 s
    /// at most), or `now`, ending it.
    func messages(now: Bool = false) throws -> [[String: Any]] {
        if now, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let text = try String(contentsOf: output, encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["ready"] == nil ? object : nil
        }
    }

    /// SIGKILL: the test runner's threads may ignore SIGTERM, and a child inherits that.
    func end() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: output)
    }

    struct PeerFailure: Error, CustomStringConvertible { var description: String }
}
