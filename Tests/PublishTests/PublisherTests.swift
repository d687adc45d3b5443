import Dispatch
import Foundation
import Motion
import MotionSimulation
import Testing
@testable import MotionPublish

/// `MotionPublisher` against a real Mosquitto on a free loopback port (the simulated board in
/// virtual time, so the samples are the same every run: counts and order, not timing).
@Suite(.serialized, .enabled(if: Broker.isInstalled, Broker.skipMessage))
struct PublisherTests {
    /// A broker, and a publisher of the simulated board in virtual time on it, started.
    struct Run {
        let broker: Broker
        let clock = VirtualClock()
        let manager: MotionManager
        let publisher: MotionPublisher

        /// `barometer`: the simulated board's BMP280 through an altimeter on the same clock.
        init(prefix: String, homeAssistant: Bool = false, barometer: Bool = false, scenario: String = "six-faces") throws {
            broker = try Broker()
            try broker.start()
            manager = try MotionManager(source: .simulated(Simulation(scenario: scenario)), clock: clock, calibrationStore: nil)
            let altimeter = barometer ? try Altimeter(source: .simulated(Simulation(scenario: scenario)), clock: clock) : nil
            var configuration = try BrokerConfiguration(url: broker.url, topicPrefix: prefix)
            configuration.homeAssistantDiscovery = homeAssistant
            configuration.discoveryPrefix = "homeassistant-\(prefix.split(separator: "/").last ?? "")"
            configuration.countersInterval = 0.5
            publisher = try MotionPublisher(manager: manager, configuration: configuration, boardName: "simulated board", altimeter: altimeter)
            try publisher.start()
        }

        func advance(_ seconds: Double) throws { try PublisherTests.advance(clock, seconds, publisher) }
        func subscribe(_ pattern: String) throws -> Subscriber { try Subscriber(try BrokerConfiguration(url: broker.url), pattern: pattern) }
    }

    /// Advances `clock` by `seconds` in 0.1 s steps (one sample each at 10 Hz), each time waiting
    /// until the step's sample has reached the publisher (delivery hops queues: it lags the clock).
    static func advance(_ clock: VirtualClock, _ seconds: Double, _ publisher: MotionPublisher) throws {
        for _ in 0..<Int((seconds * 10).rounded()) {
            clock.advance(by: 0.1)
            let now = clock.now
            try wait("the sample at \(now) s handed to the publisher") { (publisher.latestSampleTimestamp ?? -1) > now - 0.1 + 1e-6 }
        }
    }

    static func sequenceNumbers(_ messages: [MosquittoConnection.Message], topic: String) throws -> [Int] {
        try messages.filter { $0.topic == topic }.map { try #require(try object($0.payload)["seq"] as? Int) }
    }

    @Test("the stream at 10 Hz: consecutive sequence numbers, stream's keys and units, samples 0.1 s apart")
    func stream() throws {
        let run = try Run(prefix: "test/stream")
        let (publisher, manager) = (run.publisher, run.manager)
        let subscriber = try run.subscribe("test/stream/#")
        defer { subscriber.close() }
        try run.advance(5)
        try wait("every sample published") { publisher.counters.published == publisher.counters.samples }
        let samples = publisher.counters.samples
        #expect((49...51).contains(samples), "5 s at 10 Hz")
        try wait("\(samples) stream messages at the subscriber") {
            subscriber.received.count { $0.topic == "test/stream/motion" } >= samples
        }
        publisher.stop()
        try wait("offline after the clean stop") { subscriber.last("test/stream/availability")?.payload == "offline" }
        // A DISCONNECT, not a dropped connection (whose will would say offline too).
        let publisherLines = { run.broker.log.split(separator: "\n").filter { $0.contains("Client swift-motion-") } }
        try wait("the broker's log of the publisher's DISCONNECT: \(run.broker.log)") { publisherLines().contains { $0.hasSuffix(" disconnected.") } }
        #expect(!publisherLines().contains { $0.contains("closed its connection") }, "\(run.broker.log)")
        let stream = subscriber.received.filter { $0.topic == "test/stream/motion" }
        #expect(try Self.sequenceNumbers(stream, topic: "test/stream/motion") == Array(1...samples))
        #expect(publisher.counters.totalDropped == 0)
        let first = try object(try #require(stream.first).payload)
        #expect(Set(first.keys) == Set(["seq"] + ["timestamp_s", "roll_rad", "pitch_rad", "yaw_rad", "qw", "qx", "qy", "qz",
            "gravity_x_g", "gravity_y_g", "gravity_z_g", "user_acc_x_g", "user_acc_y_g", "user_acc_z_g",
            "rot_x_rad_s", "rot_y_rad_s", "rot_z_rad_s", "heading_deg", "mag_x_uT", "mag_y_uT", "mag_z_uT", "mag_accuracy"]))
        // Lying face up (six-faces' first 5 s): gravity (0, 0, -1) g.
        let atOneSecond = try object(stream[10].payload)
        let gravityZ = try #require(atOneSecond["gravity_z_g"] as? Double)
        #expect(abs(gravityZ + 1) < 0.05)
        let times = try stream.map { try #require(try object($0.payload)["timestamp_s"] as? Double) }
        for (earlier, later) in zip(times, times.dropFirst()) { #expect(abs(later - earlier - 0.1) < 1e-6) }
        #expect(manager.counters.totalDropped == 0)
    }

    @Test("a subscriber that joins late gets the retained state: availability, device, orientation, moving, counters")
    func retainedState() throws {
        let run = try Run(prefix: "test/retained")
        let (publisher, manager) = (run.publisher, run.manager)
        defer { publisher.stop() }
        try run.advance(2)   // six-faces: face up from 0.31 s
        manager.waitForOrientationNotifications()
        try wait("the orientation published") { publisher.counters.published >= 20 }
        usleep(300_000)   // the orientation change's QoS 1 round trip; the subscriber below waits anyway
        let late = try run.subscribe("test/retained/#")
        defer { late.close() }
        let topics = ["availability", "device", "orientation", "moving", "counters"].map { "test/retained/" + $0 }
        try wait("every retained topic") { topics.allSatisfy { topic in late.received.contains { $0.topic == topic && $0.retained } } }
        #expect(late.last("test/retained/availability")?.payload == "online")
        #expect(try object(try #require(late.last("test/retained/orientation")).payload)["orientation"] as? String == "faceUp")
        let device = try object(try #require(late.last("test/retained/device")).payload)
        #expect(device["board"] as? String == "simulated board")
        #expect((device["device"] as? String)?.contains("LSM6DSOX") == true, "\(device)")
        // Counters every 0.5 s (of real time): soon with the samples of the 2 s above.
        try wait("counters with samples") {
            guard let payload = late.last("test/retained/counters")?.payload, let counters = try? object(payload) else { return false }
            return (counters["sampler"] as? [String: Any])?["sampled"] as? Int ?? 0 > 0
        }
        #expect(late.received.contains { $0.topic == "test/retained/motion" && $0.retained } == false, "the stream is not retained")
    }

    @Test("the broker killed and started again: the publisher reconnects by itself, the samples lost meanwhile are counted, the sampler lost none")
    func brokerRestart() throws {
        let run = try Run(prefix: "test/restart")
        let (broker, publisher, manager) = (run.broker, run.publisher, run.manager)
        defer { publisher.stop() }
        let subscriber = try run.subscribe("test/restart/motion")
        defer { subscriber.close() }
        try run.advance(1)
        try wait("the first second published") { publisher.counters.published == publisher.counters.samples }

        broker.stop()
        try wait("the publisher to notice the broker gone") { !publisher.counters.isConnected }
        let beforeDown = publisher.counters.samples
        try run.advance(2)   // 20 samples while the broker is down
        try wait("the samples while down counted") { publisher.counters.samples - beforeDown >= 19 && publisher.counters.totalDropped >= 19 }

        try broker.start()
        try wait("the publisher's reconnection", seconds: 60) { publisher.counters.connections >= 2 && publisher.counters.isConnected }
        try wait("the subscriber's subscription again", seconds: 60) { subscriber.subscriptionCount >= 2 }
        let afterUp = publisher.counters.samples
        try run.advance(1)
        let last = publisher.counters.samples
        try wait("every sample published or dropped") { publisher.counters.published + publisher.counters.totalDropped == last }
        let seenSoFar = { (try? Self.sequenceNumbers(subscriber.received, topic: "test/restart/motion").suffix(15)) ?? [] }
        try wait("the samples after the restart at the subscriber (publisher: \(publisher.counters), up again after \(afterUp), subscriber saw \(seenSoFar()))", seconds: 10) {
            (try? Self.sequenceNumbers(subscriber.received, topic: "test/restart/motion"))?.last == last
        }
        let counters = publisher.counters
        // Every sample is published or dropped with its reason; the ones while down are drops.
        #expect(counters.published + counters.totalDropped == counters.samples, "\(counters)")
        let whileDown: Int = (counters.dropped[.disconnected] ?? 0) + (counters.dropped[.connectionLost] ?? 0)
        #expect(whileDown >= 19, "\(counters)")
        let seen = try Self.sequenceNumbers(subscriber.received, topic: "test/restart/motion")
        #expect(Array(seen.drop { $0 <= afterUp }) == Array((afterUp + 1)...last), "consecutive again after the restart")
        #expect(manager.counters.totalDropped == 0, "the sampler lost nothing: \(manager.counters)")
    }

    @Test("stop while the broker is away: returns (bounded), the queued samples counted")
    func stopWhileDisconnected() throws {
        let run = try Run(prefix: "test/away")
        try run.advance(1)
        run.broker.stop()
        try wait("the publisher to notice the broker gone") { !run.publisher.counters.isConnected }
        try run.advance(1)
        let (publisher, stopped) = (run.publisher, DispatchSemaphore(value: 0))
        Thread { publisher.stop(); stopped.signal() }.start()
        #expect(stopped.wait(timeout: .now() + 60) == .success, "stop() did not return within 60 s")
        let counters = run.publisher.counters
        #expect(counters.published + counters.totalDropped == counters.samples, "\(counters)")
    }

    @Test("stop while a reconnection hangs in connect() (the broker's host drops packets): returns, not after connect's two minutes")
    func stopWhileReconnectionHangs() throws {
        let run = try Run(prefix: "test/blackhole")
        try run.advance(1)
        run.broker.stop()
        let hole = try Blackhole(port: run.broker.port)
        try wait("the publisher to notice the broker gone") { !run.publisher.counters.isConnected }
        // The first reconnection comes after 1 s (`reconnectDelay`) and then waits in connect().
        Thread.sleep(forTimeInterval: 3)
        let (publisher, stopped) = (run.publisher, DispatchSemaphore(value: 0))
        Thread { publisher.stop(); stopped.signal() }.start()
        #expect(stopped.wait(timeout: .now() + 30) == .success, "stop() did not return within 30 s")
        withExtendedLifetime(hole) {}
    }

    @Test("Home Assistant discovery: each entity's configuration on its documented topic with the keys Home Assistant requires")
    func homeAssistantDiscovery() throws {
        let run = try Run(prefix: "test/ha", homeAssistant: true)
        defer { run.publisher.stop() }
        try run.advance(1)
        let late = try run.subscribe("homeassistant-ha/#")
        defer { late.close() }
        // "test/ha" is not a node id as it is: "test_ha" and the FNV-1a hash of "test/ha".
        let node = "test_ha_191c0d79"
        let expected: Set<String> = Set(
            ["orientation", "roll", "pitch", "heading", "magnetometer_accuracy", "rate", "samples_sampled", "bus_retries", "bus_incidents",
             "bus_recoveries", "messages_published", "steps", "activity"].map { "homeassistant-ha/sensor/\(node)/\($0)/config" }
                + ["homeassistant-ha/binary_sensor/\(node)/moving/config"])
        try wait("\(expected.count) discovery configurations") { Set(late.received.map(\.topic)).count >= expected.count }
        let configurations = Dictionary(late.received.map { ($0.topic, $0.payload) }, uniquingKeysWith: { $1 })
        #expect(Set(configurations.keys) == expected)
        for (topic, payload) in configurations {
            let problems = HomeAssistantSchema.problems(topic: topic, payload: try object(payload), discoveryPrefix: "homeassistant-ha")
            #expect(problems.isEmpty, "\(topic): \(problems)")
            let configuration = try object(payload)
            #expect((configuration["state_topic"] as? String)?.hasPrefix("test/ha/") == true)
            #expect(configuration["availability_topic"] as? String == "test/ha/availability")
            let device = try #require(configuration["device"] as? [String: Any])
            #expect(device["name"] as? String == "simulated board test/ha")
            #expect(device["identifiers"] as? [String] == [node])
        }
        let heading = try object(try #require(configurations["homeassistant-ha/sensor/\(node)/heading/config"]))
        #expect(heading["state_class"] as? String == "measurement_angle")
        #expect(heading["default_entity_id"] as? String == "sensor.test_ha_191c0d79_heading")
        let orientation = try object(try #require(configurations["homeassistant-ha/sensor/\(node)/orientation/config"]))
        #expect(orientation["device_class"] as? String == "enum")
        // Every value the orientation message carries, "unknown" included.
        #expect(orientation["options"] as? [String] == DeviceOrientation.allCases.map(\.name))
        #expect(orientation["entity_category"] == nil)
        let diagnostics = configurations.filter { (try? object($0.value))?["entity_category"] as? String == "diagnostic" }.keys
        #expect(Set(diagnostics.map { $0.split(separator: "/")[3] }) == [
            "magnetometer_accuracy", "rate", "samples_sampled", "bus_retries", "bus_incidents", "bus_recoveries", "messages_published",
        ])
    }

    @Test("a discovery configuration libmosquitto refuses is the publisher's discoveryFailure; sent ones are not")
    func discoveryFailure() throws {
        let broker = try Broker()
        try broker.start()
        for (discoveryPrefix, fails) in [("homeassistant", false), (String(repeating: "d", count: 60_000), true)] {
            let manager = try MotionManager(source: .simulated(Simulation(scenario: "six-faces")), clock: VirtualClock(), calibrationStore: nil)
            var configuration = try BrokerConfiguration(url: broker.url, topicPrefix: String(repeating: "p", count: 6_000))
            configuration.homeAssistantDiscovery = true
            configuration.discoveryPrefix = discoveryPrefix
            let publisher = try MotionPublisher(manager: manager, configuration: configuration)
            try publisher.start()
            defer { publisher.stop() }
            if fails {
                try wait("the discovery failure") { publisher.discoveryFailure != nil }
                #expect("\(publisher.discoveryFailure.map { "\($0)" } ?? "")".contains("cannot be sent"))
            } else {
                Thread.sleep(forTimeInterval: 1)
                #expect(publisher.discoveryFailure == nil)
            }
        }
    }

    /// Ctrl-C while start() waits for the broker: cancelStart() decides under the publisher's
    /// lock, so either nothing is published (start throws .cancelled) or publishing has begun
    /// (cancelStart says false) — never "nothing published" with `online` already out.
    @Test("cancelStart before the connection: start connects, publishes nothing, throws cancelled; after start: false, stop as usual")
    func cancelStart() throws {
        let broker = try Broker()
        try broker.start()
        let subscriber = try Subscriber(try BrokerConfiguration(url: broker.url), pattern: "test/cancel/#")
        defer { subscriber.close() }
        let configuration = try BrokerConfiguration(url: broker.url, topicPrefix: "test/cancel")
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "six-faces")), clock: VirtualClock(), calibrationStore: nil)
        let cancelled = try MotionPublisher(manager: manager, configuration: configuration)
        #expect(cancelled.cancelStart())
        #expect(throws: PublishError.cancelled) { try cancelled.start() }
        cancelled.stop()   // does nothing: it never published
        #expect(!manager.isDeviceMotionActive)

        let publisher = try MotionPublisher(manager: manager, configuration: configuration)
        try publisher.start()
        #expect(!publisher.cancelStart())
        try wait("online") { subscriber.last("test/cancel/availability")?.payload == "online" }
        publisher.stop()
        try wait("offline") { subscriber.last("test/cancel/availability")?.payload == "offline" }
        #expect(subscriber.received.first?.topic == "test/cancel/availability", "the cancelled start published nothing before the second one's online")
    }

    @Test("a still board is not moving; a tumbling one is")
    func moving() throws {
        for (scenario, expected) in [("six-faces", false), ("tumble", true)] {
            let clock = VirtualClock()
            let manager = try MotionManager(source: .simulated(Simulation(scenario: scenario)), clock: clock, calibrationStore: nil)
            var detector = MovingDetector()
            var states: [Bool] = []
            manager.deviceMotionUpdateInterval = 0.1
            manager.startDeviceMotionUpdates(using: .xArbitraryZVertical)
            for _ in 0..<30 {
                clock.advance(by: 0.1)
                if let motion = manager.deviceMotion { _ = detector.update(motion); states.append(detector.isMoving) }
            }
            manager.stopDeviceMotionUpdates()
            // six-faces lies still for its first 5 s; tumble turns from its second second on.
            #expect(states.suffix(15).allSatisfy { $0 == expected }, "\(scenario): \(states)")
        }
    }
}
