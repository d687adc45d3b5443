import Motion

/// Home Assistant MQTT discovery: one retained configuration per entity, so that orientation,
/// roll, pitch, heading and "moving" appear in Home Assistant by themselves.
///
/// From Home Assistant's documentation of MQTT discovery
/// (https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery): the configuration topic is
/// `<discovery_prefix>/<component>/[<node_id>/]<object_id>/config`, node and object ids of
/// `[a-zA-Z0-9_-]` only; a `device` block needs a `unique_id` and at least one of `identifiers`
/// or `connections`. The sensor (https://www.home-assistant.io/integrations/sensor.mqtt/) and
/// binary sensor (https://www.home-assistant.io/integrations/binary_sensor.mqtt/) require
/// `state_topic`; the keys used here (`name`, `value_template`, `availability_topic`,
/// `payload_available`, `payload_not_available`, `unit_of_measurement`, `state_class`,
/// `device_class`, `payload_on`, `payload_off`) are their documented options.
enum HomeAssistantDiscovery {
    struct Device: Encodable {
        var identifiers: [String]
        var name, model, manufacturer, sw_version: String
    }

    /// The keys of one entity (names as Home Assistant spells them); nil ones are left out.
    struct Entity: Encodable {
        var name, unique_id, object_id, state_topic, value_template, availability_topic: String
        var payload_available = "online", payload_not_available = "offline"
        var unit_of_measurement, state_class, device_class, payload_on, payload_off, icon: String?
        var device: Device
    }

    /// The node id: the topic prefix with every character outside `[a-zA-Z0-9_-]` made `_`.
    static func nodeID(_ prefix: String) -> String {
        String(prefix.unicodeScalars.map { scalar in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
                ? Character(scalar) : "_"
        })
    }

    /// Every configuration: (topic, retained JSON payload).
    static func configurations(_ configuration: BrokerConfiguration, deviceName: String) -> [(topic: String, payload: String)] {
        let node = nodeID(configuration.topicPrefix)
        let device = Device(
            identifiers: [node], name: "swift-motion " + configuration.topicPrefix, model: deviceName, manufacturer: "swift-motion",
            sw_version: MotionManager.version)
        func entity(_ object: String, _ name: String, topic: PublishTopic, template: String) -> Entity {
            Entity(
                name: name, unique_id: "\(node)_\(object)", object_id: "\(node)_\(object)", state_topic: configuration.topic(topic),
                value_template: template, availability_topic: configuration.topic(.availability), device: device)
        }
        // Radians in the stream, degrees in Home Assistant (57.29578 = 180/π).
        func degrees(_ key: String) -> String { "{{ (value_json.\(key) * 57.29578) | round(1) }}" }
        func angle(_ object: String, _ name: String, template: String, icon: String) -> Entity {
            var angle = entity(object, name, topic: .motion, template: template)
            angle.unit_of_measurement = "°"
            angle.state_class = "measurement"
            angle.icon = icon
            return angle
        }
        let roll = angle("roll", "Roll", template: degrees("roll_rad"), icon: "mdi:axis-arrow")
        let pitch = angle("pitch", "Pitch", template: degrees("pitch_rad"), icon: "mdi:axis-arrow")
        // The heading is null without a magnetometer: Home Assistant shows "unknown" for None.
        let heading = angle(
            "heading", "Heading", template: "{{ value_json.heading_deg | round(1) if value_json.heading_deg is number else None }}",
            icon: "mdi:compass")
        var orientation = entity("orientation", "Orientation", topic: .orientation, template: "{{ value_json.orientation }}")
        orientation.icon = "mdi:phone-rotate-landscape"
        var moving = entity("moving", "Moving", topic: .moving, template: "{{ 'ON' if value_json.moving else 'OFF' }}")
        moving.device_class = "moving"
        moving.payload_on = "ON"
        moving.payload_off = "OFF"
        let sensors = [("orientation", orientation), ("roll", roll), ("pitch", pitch), ("heading", heading)]
            .map { (component: "sensor", object: $0.0, entity: $0.1) }
        return (sensors + [(component: "binary_sensor", object: "moving", entity: moving)]).map { item in
            ("\(configuration.discoveryPrefix)/\(item.component)/\(node)/\(item.object)/config", Payloads.encode(item.entity))
        }
    }
}
