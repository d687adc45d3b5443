import Dispatch
import Foundation
import Motion
import MotionSimulation
import MotionPublish
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// CPU of publishing to MQTT: the simulated board sampled at 100 Hz (device motion to a handler)
/// for `seconds`, then the same with a `MotionPublisher` at 10 Hz on a second manager of the same
/// device (one sampler: the shared sampler keeps its 100 Hz), publishing to a Mosquitto started
/// here on a free loopback port. Both in this run, one after the other; the ratio compares them.
func runPublishBenchmark(seconds: Double) {
    print("== Publish: CPU at 100 Hz sampling, with publishing to MQTT at 10 Hz against without, \(Int(seconds)) s each")
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin"]
    guard let mosquitto = path.map({ $0 + "/mosquitto" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
        print("skipped: mosquitto is not installed (apt-get install mosquitto)")
        return
    }
    do {
        let broker = try BenchmarkBroker(executable: mosquitto)
        defer { broker.stop() }
        let source = MotionSource.simulated(Simulation(scenario: "tumble"))
        let sampling = try MotionManager(source: source, calibrationStore: nil)
        let delivered = Atomic(0)
        sampling.deviceMotionUpdateInterval = 0.01
        sampling.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: DispatchQueue(label: "bench.publish.handler")) { motion, _ in
            if motion != nil { delivered.add(1, ordering: .relaxed) }
        }
        defer { sampling.stopDeviceMotionUpdates() }
        while delivered.load(ordering: .relaxed) < 10 { Thread.sleep(forTimeInterval: 0.01) }   // past the one-off first read

        func measure() -> (cpu: Double, wall: Double, samples: Int) {
            let cpuBefore = processCPUSeconds(), wallBefore = Date(), before = delivered.load(ordering: .relaxed)
            Thread.sleep(forTimeInterval: seconds)
            return (processCPUSeconds() - cpuBefore, Date().timeIntervalSince(wallBefore), delivered.load(ordering: .relaxed) - before)
        }
        let without = measure()

        let publishing = try MotionManager(source: source, calibrationStore: nil)
        var configuration = try BrokerConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", topicPrefix: "swift-motion/bench")
        configuration.rate = 10
        let publisher = try MotionPublisher(manager: publishing, configuration: configuration)
        try publisher.start()
        Thread.sleep(forTimeInterval: 0.5)
        let published = publisher.counters.published
        let brokerBefore = broker.cpuSeconds()
        let with = measure()
        let brokerCPU = broker.cpuSeconds().flatMap { after in brokerBefore.map { after - $0 } }
        let messages = publisher.counters.published - published
        publisher.stop()

        func line(_ label: String, _ run: (cpu: Double, wall: Double, samples: Int)) -> String {
            String(format: "%@ %6.2f %% of one core (%d samples at %.1f Hz)", label, 100 * run.cpu / run.wall, run.samples, Double(run.samples) / run.wall)
        }
        print(line("sampling at 100 Hz, no publishing:       ", without))
        print(line("the same, publishing at 10 Hz to MQTT:   ", with) + String(format: ", %d messages published (%.1f per second)", messages, Double(messages) / with.wall))
        print(String(format: "ratio with/without: %.2f; publishing adds %.2f %% of one core to this process (%.0f µs per stream message; "
                     + "it includes the orientation classifier at 100 Hz the publisher turns on, the second manager's channel, the "
                     + "publishing thread and libmosquitto's)", (with.cpu / with.wall) / (without.cpu / without.wall),
                     100 * (with.cpu / with.wall - without.cpu / without.wall),
                     1e6 * (with.cpu - without.cpu * with.wall / without.wall) / Double(max(1, messages))))
        print("the broker (mosquitto, another process, not in the figures above): "
              + (brokerCPU.map { String(format: "%.2f %% of one core", 100 * $0 / with.wall) } ?? "not measured (no /proc)"))
        print("publisher: \(publisher.counters)")
    } catch {
        print("publish benchmark failed: \(error)")
    }
}

/// Mosquitto on a free loopback port, its configuration in a temporary directory.
private final class BenchmarkBroker {
    let port: Int
    private let process = Process()
    private let directory: URL

    init(executable: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("motion-bench-broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        let configuration = directory.appendingPathComponent("mosquitto.conf")
        try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n".write(to: configuration, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", configuration.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 0.5)
        guard process.isRunning else { throw BenchmarkFailure(message: "mosquitto exited at once (port \(port))") }
    }

    /// The broker's CPU seconds (user + system) from /proc/PID/stat; nil where unreadable.
    func cpuSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // After the command name: state is field 3, utime 14, stime 15 (proc(5)).
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkFailure(message: "socket: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw BenchmarkFailure(message: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
