import Foundation
import Motion
import MotionSimulation
import Testing
@testable import MotionPublish

/// The barometer's and the pedometer's topics, and their Home Assistant entities.
extension PublisherTests {
    @Test("altitude once a second (pressure kPa, altitude m, temperature °C) and steps with the activity, under their topics")
    func altitudeAndSteps() throws {
        let run = try Run(prefix: "test/baro", barometer: true)
        defer { run.publisher.stop() }
        let subscriber = try run.subscribe("test/baro/#")
        defer { subscriber.close() }
        try run.advance(5)
        try wait("4 altitude messages") { subscriber.received.count { $0.topic == "test/baro/altitude" } >= 4 }
        try wait("a steps message") { subscriber.last("test/baro/steps") != nil }
        let altitude = try subscriber.received.filter { $0.topic == "test/baro/altitude" }.map { try object($0.payload) }
        #expect(Set(try #require(altitude.first).keys) == Set(Payloads.altitudeKeys))
        for message in altitude {
            // The simulated world lies near sea level, still: the standard atmosphere's pressure, no climb.
            let pressure = try #require(message["pressure_kPa"] as? Double)
            #expect((95...105).contains(pressure), "\(pressure) kPa")
            #expect(abs(try #require(message["relative_altitude_m"] as? Double)) < 0.3)
            let temperature = try #require(message["temperature_C"] as? Double)
            #expect((-40...85).contains(temperature))
        }
        // Without a reference the absolute altitude says how far to trust it: tens of metres.
        let last = try #require(altitude.last)
        #expect(try #require(last["altitude_accuracy_m"] as? Double) > 10)
        let times = try altitude.map { try #require($0["timestamp_s"] as? Double) }
        for (earlier, later) in zip(times, times.dropFirst()) { #expect(abs(later - earlier - 1) < 0.1, "\(times)") }
        // six-faces lies still: no steps, and not walking.
        let steps = try object(try #require(subscriber.last("test/baro/steps")).payload)
        #expect(Set(steps.keys) == Set(Payloads.stepsKeys))
        #expect(steps["steps"] as? Int == 0)
        let activity = try #require(steps["activity"] as? String)
        #expect(Payloads.activityNames.contains(activity) && activity != "walking" && activity != "running", "\(activity)")
        // Floors come with the pedometer's updates once the barometer has had a second; at rest it
        // has only its first, at the start: null (not yet known) or none counted.
        for key in ["floors_up", "floors_down"] { #expect(steps[key] is NSNull || steps[key] as? Int == 0, "\(key): \(steps)") }
    }

    @Test("Home Assistant: pressure, temperature and altitude with their device classes and units, steps total_increasing, activity an enum")
    func homeAssistantBarometerAndSteps() throws {
        let run = try Run(prefix: "test/habaro", homeAssistant: true, barometer: true)
        defer { run.publisher.stop() }
        try run.advance(1)
        let late = try run.subscribe("homeassistant-habaro/#")
        defer { late.close() }
        let node = HomeAssistantDiscovery.nodeID("test/habaro")
        let objects = ["pressure", "barometer_temperature", "altitude", "relative_altitude", "steps", "activity"]
        try wait("18 discovery configurations") { Set(late.received.map(\.topic)).count >= 18 }
        let configurations = Dictionary(late.received.map { ($0.topic, $0.payload) }, uniquingKeysWith: { $1 })
        #expect(configurations.count == 18)
        var entities: [String: [String: Any]] = [:]
        for name in objects {
            let topic = "homeassistant-habaro/sensor/\(node)/\(name)/config"
            let payload = try object(try #require(configurations[topic], "\(topic)"))
            let problems = HomeAssistantSchema.problems(topic: topic, payload: payload, discoveryPrefix: "homeassistant-habaro")
            #expect(problems.isEmpty, "\(topic): \(problems)")
            entities[name] = payload
        }
        func expectSensor(_ object: String, deviceClass: String?, unit: String, stateClass: String, topic: String) {
            let entity = entities[object] ?? [:]
            #expect(entity["device_class"] as? String == deviceClass, "\(object)")
            #expect(entity["unit_of_measurement"] as? String == unit, "\(object)")
            #expect(entity["state_class"] as? String == stateClass, "\(object)")
            #expect(entity["state_topic"] as? String == "test/habaro/\(topic)", "\(object)")
        }
        expectSensor("pressure", deviceClass: "atmospheric_pressure", unit: "kPa", stateClass: "measurement", topic: "altitude")
        expectSensor("barometer_temperature", deviceClass: "temperature", unit: "°C", stateClass: "measurement", topic: "altitude")
        expectSensor("altitude", deviceClass: "distance", unit: "m", stateClass: "measurement", topic: "altitude")
        expectSensor("relative_altitude", deviceClass: "distance", unit: "m", stateClass: "measurement", topic: "altitude")
        expectSensor("steps", deviceClass: nil, unit: "steps", stateClass: "total_increasing", topic: "steps")
        let activity = entities["activity"] ?? [:]
        #expect(activity["device_class"] as? String == "enum")
        #expect(activity["options"] as? [String] == ["stationary", "walking", "running", "automotive", "cycling", "unknown"])
        #expect(activity["state_topic"] as? String == "test/habaro/steps")
        // Removal clears every configuration a publisher may have sent, the barometer's and the steps' included.
        var configuration = try BrokerConfiguration(url: run.broker.url, topicPrefix: "test/habaro")
        configuration.discoveryPrefix = "homeassistant-habaro"
        let removed = Set(HomeAssistantDiscovery.configurations(configuration, board: "", model: "", barometer: true, steps: true).map(\.topic))
        #expect(Set(configurations.keys).isSubset(of: removed))
    }
}
