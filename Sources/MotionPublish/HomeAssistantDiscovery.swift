import Motion

/// Home Assistant MQTT discovery: one retained configuration per entity, so that orientation,
/// roll, pitch, heading, "moving" and the publisher's diagnostics appear in Home Assistant by
/// themselves.
///
/// From Home Assistant's documentation of MQTT discovery
/// (https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery): the configuration topic is
/// `<discovery_prefix>/<component>/[<node_id>/]<object_id>/config`, node and object ids of
/// `[a-zA-Z0-9_-]` only; a `device` block needs a `unique_id` and at least one of `identifiers`
/// or `connections`; `default_entity_id` (the entity id to create, domain included:
/// `sensor.<id>`) replaces the payload's `object_id`, deprecated since Home Assistant 2025.10 and
/// ignored from 2026.4. The sensor (https://www.home-assistant.io/integrations/sensor.mqtt/) and
/// binary sensor (https://www.home-assistant.io/integrations/binary_sensor.mqtt/) require
/// `state_topic`; the keys used here (`name`, `value_template`, `availability_topic`,
/// `payload_available`, `payload_not_available`, `unit_of_measurement`, `state_class`,
/// `device_class`, `options`, `entity_category`, `payload_on`, `payload_off`, `icon`) are their
/// documented options. Sensor state classes and device classes
/// (https://developers.home-assistant.io/docs/core/entity/sensor/): `measurement_angle` for an
/// angle in degrees that wraps at 360 (the heading), `device_class: enum` with `options` listing
/// every state a text sensor can take, `total_increasing` for a counter that only grows until it
/// restarts from zero; `entity_category: diagnostic` for what describes the device rather than
/// what it measures. The barometer's entities use the device classes `atmospheric_pressure`
/// (one of the pressure units, kPa here), `temperature` (°C) and `distance` (m) with the state
/// class `measurement`; the step count has no device class, the unit `steps` and
/// `total_increasing` (it restarts from zero with the publisher); the activity is an `enum`.
enum HomeAssistantDiscovery {
    struct Device: Encodable {
        var identifiers: [String]
        var name, model, manufacturer, sw_version: String
    }

    /// The keys of one entity (names as Home Assistant spells them); nil ones are left out.
    struct Entity: Encodable {
        var name, unique_id, default_entity_id, state_topic, value_template, availability_topic: String
        var payload_available = "online", payload_not_available = "offline"
        var unit_of_measurement, state_class, device_class, entity_category, payload_on, payload_off, icon: String?
        var options: [String]?
        var device: Device
    }

    /// The node id: the topic prefix with every character outside `[a-zA-Z0-9_-]` made `_`; a
    /// prefix that this changed gets `_` and the 8 hex digits of ``fnv1a(_:)`` of the exact prefix
    /// after it, so that `kitchen/imu`, `kitchen.imu` and `kitchen_imu` (kept as it is) are three
    /// nodes, and `küche` and `k€che` two.
    static func nodeID(_ prefix: String) -> String {
        let clean = String(prefix.unicodeScalars.map { scalar in isIDCharacter(scalar) ? Character(scalar) : "_" })
        guard clean != prefix else { return clean }
        let hash = String(fnv1a(prefix), radix: 16)
        return clean + "_" + String(repeating: "0", count: 8 - hash.count) + hash
    }

    /// 32-bit FNV-1a over the UTF-8 bytes (offset basis 2166136261, prime 16777619: the FNV
    /// reference, http://www.isthe.com/chongo/tech/comp/fnv/).
    static func fnv1a(_ text: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash
    }

    static func isIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }

    /// An entity id's object part as Home Assistant writes one: lower case, `[a-z0-9_]`, runs of
    /// anything else one `_`, none at either end.
    static func slug(_ text: String) -> String {
        var slug = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII, ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("_") {
                slug += "_"
            }
        }
        while slug.hasSuffix("_") { slug.removeLast() }
        return slug
    }

    /// The device's name in Home Assistant: the board and where it publishes, e.g. "Raspberry Pi
    /// 4 + Sense HAT kitchen" for the prefix `swift-motion/kitchen` (a first level
    /// `swift-motion`, the default prefix's, is left out: every such device would repeat it).
    static func deviceName(board: String, topicPrefix: String) -> String {
        var levels = topicPrefix.split(separator: "/", omittingEmptySubsequences: false)
        if levels.count > 1, levels.first == "swift-motion" { levels.removeFirst() }
        let place = levels.joined(separator: "/")
        return place.isEmpty || place == board ? board : "\(board) \(place)"
    }

    /// A configuration libmosquitto would not send: the error names the topic and the fix.
    static func unsendable(topic: String, reason: String) -> PublishError {
        .invalidSetting(
            "Home Assistant discovery", problem: "configuration \(topic.prefix(120))\(topic.count > 120 ? "…" : "") cannot be sent (\(reason))",
            fix: "shorten --discovery-prefix and --topic-prefix (a topic is at most 65535 bytes), or publish without --home-assistant")
    }

    /// Every configuration: (topic, retained JSON payload). `board` names the device (the
    /// board's name, else the motion device's), `model` is the motion device's name; `barometer`
    /// adds pressure, temperature and altitude, `steps` the step count and activity.
    static func configurations(
        _ configuration: BrokerConfiguration, board: String, model: String, barometer: Bool = false, steps: Bool = false
    ) -> [(topic: String, payload: String)] {
        let node = nodeID(configuration.topicPrefix)
        let device = Device(
            identifiers: [node], name: deviceName(board: board, topicPrefix: configuration.topicPrefix), model: model,
            manufacturer: "swift-motion", sw_version: MotionManager.version)
        func entity(_ component: String, _ object: String, _ name: String, topic: PublishTopic, template: String) -> Entity {
            Entity(
                name: name, unique_id: "\(node)_\(object)", default_entity_id: "\(component).\(slug("\(node)_\(object)"))",
                state_topic: configuration.topic(topic), value_template: template, availability_topic: configuration.topic(.availability),
                device: device)
        }
        // Radians in the stream, degrees in Home Assistant (57.29578 = 180/π).
        func degrees(_ key: String) -> String { "{{ (value_json.\(key) * 57.29578) | round(1) }}" }
        func angle(_ object: String, _ name: String, template: String, icon: String, stateClass: String = "measurement") -> Entity {
            var angle = entity("sensor", object, name, topic: .motion, template: template)
            angle.unit_of_measurement = "°"
            angle.state_class = stateClass
            angle.icon = icon
            return angle
        }
        let roll = angle("roll", "Roll", template: degrees("roll_rad"), icon: "mdi:axis-arrow")
        let pitch = angle("pitch", "Pitch", template: degrees("pitch_rad"), icon: "mdi:axis-arrow")
        // The heading (0–360°) is null without a magnetometer: Home Assistant shows "unknown" for None.
        let heading = angle(
            "heading", "Heading", template: "{{ value_json.heading_deg | round(1) if value_json.heading_deg is number else None }}",
            icon: "mdi:compass", stateClass: "measurement_angle")
        var orientation = entity("sensor", "orientation", "Orientation", topic: .orientation, template: "{{ value_json.orientation }}")
        orientation.device_class = "enum"
        orientation.options = DeviceOrientation.allCases.map(\.name)
        orientation.icon = "mdi:phone-rotate-landscape"
        var moving = entity("binary_sensor", "moving", "Moving", topic: .moving, template: "{{ 'ON' if value_json.moving else 'OFF' }}")
        moving.device_class = "moving"
        moving.payload_on = "ON"
        moving.payload_off = "OFF"

        // Diagnostics: what the motion, counters and device messages carry about the publisher itself.
        func diagnostic(_ object: String, _ name: String, topic: PublishTopic, template: String) -> Entity {
            var diagnostic = entity("sensor", object, name, topic: topic, template: template)
            diagnostic.entity_category = "diagnostic"
            return diagnostic
        }
        var accuracy = diagnostic("magnetometer_accuracy", "Magnetometer accuracy", topic: .motion, template: "{{ value_json.mag_accuracy }}")
        accuracy.device_class = "enum"
        accuracy.options = MagneticFieldCalibrationAccuracy.allCases.map(\.storedName)
        accuracy.icon = "mdi:compass-outline"
        var rate = diagnostic("rate", "Publish rate", topic: .device, template: "{{ value_json.rate_hz }}")
        rate.unit_of_measurement = "Hz"
        rate.device_class = "frequency"
        rate.state_class = "measurement"
        func counter(_ object: String, _ name: String, _ path: String) -> (String, Entity) {
            var counter = diagnostic(object, name, topic: .counters, template: "{{ value_json.\(path) }}")
            counter.state_class = "total_increasing"
            counter.icon = "mdi:counter"
            return (object, counter)
        }
        let counters = [
            counter("samples_sampled", "Samples sampled", "sampler.sampled"), counter("bus_retries", "Bus retries", "sampler.retried"),
            counter("bus_incidents", "Bus incidents", "sampler.incidents"), counter("bus_recoveries", "Bus recoveries", "sampler.recovered"),
            counter("messages_published", "Messages published", "publisher.published"),
        ]

        // The barometer's update (topic `altitude`): what the payload leaves null Home Assistant shows as unknown.
        func measured(_ object: String, _ name: String, key: String, deviceClass: String, unit: String, decimals: Int, icon: String? = nil) -> (String, Entity) {
            var sensor = entity(
                "sensor", object, name, topic: .altitude,
                template: "{{ value_json.\(key) | round(\(decimals)) if value_json.\(key) is number else None }}")
            sensor.device_class = deviceClass
            sensor.unit_of_measurement = unit
            sensor.state_class = "measurement"
            sensor.icon = icon
            return (object, sensor)
        }
        let barometerSensors = barometer ? [
            measured("pressure", "Pressure", key: "pressure_kPa", deviceClass: "atmospheric_pressure", unit: "kPa", decimals: 4),
            measured("barometer_temperature", "Barometer temperature", key: "temperature_C", deviceClass: "temperature", unit: "°C", decimals: 2),
            measured("altitude", "Altitude", key: "altitude_m", deviceClass: "distance", unit: "m", decimals: 2, icon: "mdi:altimeter"),
            measured("relative_altitude", "Altitude change", key: "relative_altitude_m", deviceClass: "distance", unit: "m", decimals: 2,
                     icon: "mdi:elevation-rise"),
        ] : []
        // The pedometer and the activity (topic `steps`).
        var stepCount = entity("sensor", "steps", "Steps", topic: .steps, template: "{{ value_json.steps }}")
        stepCount.unit_of_measurement = "steps"
        stepCount.state_class = "total_increasing"
        stepCount.icon = "mdi:walk"
        var activity = entity("sensor", "activity", "Activity", topic: .steps, template: "{{ value_json.activity }}")
        activity.device_class = "enum"
        activity.options = Payloads.activityNames
        activity.icon = "mdi:run"
        let stepSensors = steps ? [("steps", stepCount), ("activity", activity)] : []

        let sensors = [("orientation", orientation), ("roll", roll), ("pitch", pitch), ("heading", heading), ("magnetometer_accuracy", accuracy),
                       ("rate", rate)] + counters + barometerSensors + stepSensors
        return (sensors.map { (component: "sensor", object: $0.0, entity: $0.1) } + [(component: "binary_sensor", object: "moving", entity: moving)])
            .map { item in ("\(configuration.discoveryPrefix)/\(item.component)/\(node)/\(item.object)/config", Payloads.encode(item.entity)) }
    }
}
