/// Home Assistant's documented schema for MQTT discovery, as far as these tests check it, written
/// from its documentation (not from its code):
/// - https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery — the discovery topic
///   `<discovery_prefix>/<component>/[<node_id>/]<object_id>/config`, node and object ids made of
///   `[a-zA-Z0-9_-]` only; a `device`
///   ties an entity into the device registry only with a `unique_id`, and needs at least one of
///   `identifiers` or `connections`.
/// - https://www.home-assistant.io/integrations/sensor.mqtt/ and
///   https://www.home-assistant.io/integrations/binary_sensor.mqtt/ — `state_topic` is the one
///   required key of each; `availability_topic`, `payload_available`, `payload_not_available`,
///   `value_template`, `unit_of_measurement` (sensor), `payload_on`/`payload_off` (binary sensor)
///   are documented options, with string values; `object_id` in a payload is deprecated since
///   2025.10 (ignored from 2026.4), `default_entity_id` (`<component>.<object id>`) replaces it.
/// - https://developers.home-assistant.io/docs/core/entity/sensor/ — `device_class: enum` takes a
///   list of `options` and no unit or state class; `measurement_angle` is a state class for
///   degrees; `entity_category` is `config` or `diagnostic`.
enum HomeAssistantSchema {
    /// Required keys per component (the documentation's "Required" configuration variables).
    static let required: [String: Set<String>] = [
        "sensor": ["state_topic"],
        "binary_sensor": ["state_topic"],
    ]
    /// What swift-motion promises beyond the required keys (the issue's list): every entity.
    static let promised: Set<String> = [
        "name", "unique_id", "state_topic", "value_template", "device", "availability_topic", "payload_available", "payload_not_available",
    ]
    /// Keys whose value must be a string (documented as such).
    static let strings: Set<String> = [
        "name", "unique_id", "default_entity_id", "state_topic", "value_template", "availability_topic", "payload_available", "payload_not_available",
        "unit_of_measurement", "state_class", "device_class", "payload_on", "payload_off", "icon", "entity_category",
    ]
    /// Keys Home Assistant has deprecated.
    static let deprecated: Set<String> = ["object_id"]

    /// Everything wrong with one discovery message; empty when it conforms.
    static func problems(topic: String, payload: [String: Any], discoveryPrefix: String) -> [String] {
        var problems: [String] = []
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard levels.count == 4 || levels.count == 5, levels.first == discoveryPrefix, levels.last == "config" else {
            return ["the topic is not <discovery_prefix>/<component>/[<node_id>/]<object_id>/config"]
        }
        let component = levels[1]
        guard let required = required[component] else { return ["unknown component \(component)"] }
        let idCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        for id in levels[2..<(levels.count - 1)] where id.isEmpty || !id.allSatisfy(idCharacters.contains) {
            problems.append("node or object id \"\(id)\" is outside [a-zA-Z0-9_-]")
        }
        for key in required.union(promised) where payload[key] == nil { problems.append("\(key) missing") }
        for key in strings where payload[key] != nil && !(payload[key] is String) { problems.append("\(key) is not a string") }
        for key in payload.keys where key.hasSuffix("_topic") {
            if let value = payload[key] as? String, value.isEmpty || value.contains("+") || value.contains("#") {
                problems.append("\(key) \"\(value)\" is not a topic to subscribe to one publisher's messages")
            }
        }
        for key in deprecated where payload[key] != nil { problems.append("\(key) is deprecated") }
        if let id = payload["default_entity_id"] as? String {
            let objectCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789_")
            let parts = id.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count != 2 || parts[0] != component || parts[1].isEmpty || !parts[1].allSatisfy(objectCharacters.contains) {
                problems.append("default_entity_id \"\(id)\" is not \(component).<[a-z0-9_]+>")
            }
        }
        if payload["device_class"] as? String == "enum" {
            if let options = payload["options"] as? [String], !options.isEmpty {} else { problems.append("an enum without options") }
            if payload["unit_of_measurement"] != nil || payload["state_class"] != nil { problems.append("an enum with a unit or state class") }
        } else if payload["options"] != nil {
            problems.append("options without device_class enum")
        }
        if let category = payload["entity_category"], !["config", "diagnostic"].contains(category as? String ?? "") {
            problems.append("entity_category \(category) is neither config nor diagnostic")
        }
        if payload["state_class"] as? String == "measurement_angle", payload["unit_of_measurement"] as? String != "°" {
            problems.append("measurement_angle without the unit °")
        }
        if let device = payload["device"] as? [String: Any] {
            if device["identifiers"] == nil && device["connections"] == nil { problems.append("device has neither identifiers nor connections") }
            if payload["unique_id"] == nil { problems.append("device without unique_id") }
        } else if payload["device"] != nil {
            problems.append("device is not an object")
        }
        if component == "sensor", ["roll", "pitch", "heading"].contains(levels[levels.count - 2]), payload["unit_of_measurement"] == nil {
            problems.append("an angle without unit_of_measurement")
        }
        return problems
    }
}
