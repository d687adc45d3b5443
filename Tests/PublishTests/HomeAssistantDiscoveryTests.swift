import Motion
import Testing
@testable import MotionPublish

/// The discovery configurations themselves, without a broker: node ids, names, schema.
@Suite struct HomeAssistantDiscoveryTests {
    @Test("node ids: a clean prefix as it is; one that sanitising changed with the FNV-1a hash of the exact prefix")
    func nodeIDs() {
        #expect(HomeAssistantDiscovery.nodeID("kitchen_imu") == "kitchen_imu")
        #expect(HomeAssistantDiscovery.nodeID("Pi-4") == "Pi-4")
        // FNV-1a 32-bit reference values (computed independently of this code).
        #expect(HomeAssistantDiscovery.fnv1a("") == 0x811c_9dc5)
        #expect(HomeAssistantDiscovery.fnv1a("a") == 0xe40c_292c)
        #expect(HomeAssistantDiscovery.nodeID("kitchen/imu") == "kitchen_imu_38f85be5")
        #expect(HomeAssistantDiscovery.nodeID("kitchen.imu") == "kitchen_imu_26858744")
        #expect(HomeAssistantDiscovery.nodeID("küche") == "k_che_e34b7ca1")
        #expect(HomeAssistantDiscovery.nodeID("k€che") == "k_che_bfbe05d0")
        #expect(HomeAssistantDiscovery.nodeID("swift-motion/vm") == "swift-motion_vm_e15a587f")   // docs/publish-mqtt.md
        let prefixes = ["kitchen/imu", "kitchen_imu", "kitchen.imu", "küche", "k€che", "k_che", "swift-motion/pi", "swift-motion_pi"]
        #expect(Set(prefixes.map(HomeAssistantDiscovery.nodeID)).count == prefixes.count, "node ids collide")
    }

    @Test("the device is named by its board and where it publishes, without repeating swift-motion")
    func deviceNames() {
        let cases: [(board: String, prefix: String, name: String)] = [
            ("Raspberry Pi 4 + Sense HAT", "swift-motion/kitchen", "Raspberry Pi 4 + Sense HAT kitchen"),
            ("simulated board", "test/ha", "simulated board test/ha"),
            ("simulated board", "swift-motion", "simulated board swift-motion"),
            ("BNO085", "swift-motion/garage/door", "BNO085 garage/door"),
        ]
        for item in cases {
            #expect(HomeAssistantDiscovery.deviceName(board: item.board, topicPrefix: item.prefix) == item.name, "\(item)")
        }
    }

    @Test("entity ids: Home Assistant's slugs, domain first")
    func slugs() {
        #expect(HomeAssistantDiscovery.slug("Pi-4_roll") == "pi_4_roll")
        #expect(HomeAssistantDiscovery.slug("k_che_e34b7ca1_heading") == "k_che_e34b7ca1_heading")
        #expect(HomeAssistantDiscovery.slug("--A--b--") == "a_b")
    }

    @Test("every configuration conforms to the current schema: no object_id, default_entity_id, enum options, angle state class")
    func schema() throws {
        let configuration = try BrokerConfiguration(url: "mqtt://localhost", topicPrefix: "swift-motion/Pi-4")
        let configurations = HomeAssistantDiscovery.configurations(configuration, board: "Raspberry Pi 4 + Sense HAT", model: "LSM9DS1")
        #expect(configurations.count == 12)
        #expect(Set(configurations.map(\.topic)).count == configurations.count)
        var entityIDs: Set<String> = []
        for (topic, payload) in configurations {
            let json = try object(payload)
            let problems = HomeAssistantSchema.problems(topic: topic, payload: json, discoveryPrefix: "homeassistant")
            #expect(problems.isEmpty, "\(topic): \(problems)")
            let id = try #require(json["default_entity_id"] as? String)
            #expect(id.hasPrefix(topic.hasPrefix("homeassistant/binary_sensor/") ? "binary_sensor.swift_motion_pi_4_" : "sensor.swift_motion_pi_4_"))
            entityIDs.insert(id)
            #expect((json["device"] as? [String: Any])?["name"] as? String == "Raspberry Pi 4 + Sense HAT Pi-4")
        }
        #expect(entityIDs.count == configurations.count)
        let byTopic = Dictionary(uniqueKeysWithValues: configurations.map { ($0.topic, $0.payload) })
        let node = "swift-motion_Pi-4_" + String(HomeAssistantDiscovery.fnv1a("swift-motion/Pi-4"), radix: 16)
        let accuracy = try object(try #require(byTopic["homeassistant/sensor/\(node)/magnetometer_accuracy/config"]))
        #expect(accuracy["options"] as? [String] == ["uncalibrated", "low", "medium", "high"])
        #expect(accuracy["entity_category"] as? String == "diagnostic")
        let rate = try object(try #require(byTopic["homeassistant/sensor/\(node)/rate/config"]))
        #expect(rate["state_topic"] as? String == "swift-motion/Pi-4/device")
        #expect(rate["unit_of_measurement"] as? String == "Hz")
        let roll = try object(try #require(byTopic["homeassistant/sensor/\(node)/roll/config"]))
        #expect(roll["state_class"] as? String == "measurement")
    }
}
