import FileAccess
import Sensors
import Foundation
import Fusion
import I2C

/// A JSON document as a tree, so that the board parser sees every key (JSONDecoder's keyed
/// containers silently ignore unknown ones).
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
            return
        }
        // Try each JSON type in turn; only "not this type" moves on, any other error is thrown.
        do { self = .bool(try container.decode(Bool.self)); return } catch DecodingError.typeMismatch {}
        do { self = .number(try container.decode(Double.self)); return } catch DecodingError.typeMismatch {}
        do { self = .string(try container.decode(String.self)); return } catch DecodingError.typeMismatch {}
        do { self = .array(try container.decode([JSONValue].self)); return } catch DecodingError.typeMismatch {}
        self = .object(try container.decode([String: JSONValue].self))
    }

    /// "a string", "a number", … for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Reads and validates one board file. Every error names the file, the key path and the fix.
struct BoardFileParser {
    static let devicePrefix = "/dev/i2c-"
    static let boardKeys = Board.CodingKeys.allCases.map(\.rawValue)
    static let busKeys = ["device", "sdaPin", "sclPin", "defaultSpeedHz", "maxSpeedHz", "isDefault"]
    static let pinKeys = ["header", "soc"]
    static let imuKeys = ["i2cBus", "address", "spi", "chip"]
    static let spiPrefix = "/dev/spidev"
    static let barometerKeys = ["chip", "address"]
    /// The 7-bit addresses a device may use; the rest are reserved by the I2C specification.
    static let addressRange: ClosedRange<UInt8> = 0x08...0x77

    let file: String

    /// Parses `data` (the file's bytes). `expectedID` is the file stem the `id` must equal.
    func board(from data: Data, expectedID: String?) throws(BoardFileError) -> Board {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw BoardFileError(
                kind: .invalidJSON, file: file, keyPath: "", problem: "not valid JSON (\(Self.syntaxProblem(in: data)))",
                fix: "correct the JSON syntax; boards/README.md shows a complete example")
        }
        if let key = JSONDuplicateKeys.first(in: data) {
            throw BoardFileError(
                kind: .invalidJSON, file: file, keyPath: "", problem: "the key \"\(key.prefix(60))\" appears twice in one object",
                fix: "keep one of them: another reader would take the other")
        }
        return try board(from: value, expectedID: expectedID)
    }

    func board(from value: JSONValue, expectedID: String?) throws(BoardFileError) -> Board {
        let fields = try object(value, at: "", keys: Self.boardKeys, required: Board.CodingKeys.required.map(\.rawValue))
        let id = try nonEmptyString(fields["id"], at: "id")
        if id.contains(where: { !($0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-")) }) {
            throw invalid("id", "\"\(id)\" may contain only a-z, 0-9 and -", fix: "use a lower-case name such as raspberry-pi-4b")
        }
        if let expectedID, id != expectedID {
            throw invalid(
                "id", "\"\(id)\" differs from the file name \"\(expectedID).json\"",
                fix: "set id to \"\(expectedID)\" or rename the file to \(id).json")
        }
        let name = try nonEmptyString(fields["name"], at: "name")
        let match = try array(fields["match"], at: "match").enumerated().map { (index, entry) throws(BoardFileError) -> String in
            let path = "match[\(index)]"
            let text = try nonEmptyString(entry, at: path)
            if text.dropLast().contains("*") || text == "*" {
                throw invalid(path, "\"\(text)\" has a * that is not a final wildcard after some text",
                              fix: "write the exact model string, or a prefix followed by a single final *")
            }
            return text
        }
        let buses = try buses(fields["i2cBuses"])
        // Optional narrowings of the registry's scan, for a board whose chips sit at known addresses.
        let imu = try fields["imuAddresses"].map { (value) throws(BoardFileError) in
            try addresses(value, at: "imuAddresses", allowEmpty: false)
        }
        let magnetometer = try fields["magnetometerAddresses"].map { (value) throws(BoardFileError) in
            try addresses(value, at: "magnetometerAddresses", allowEmpty: true)
        }
        let mountMatrix = try mountMatrix(fields["mountMatrix"])
        let setup = try nonEmptyString(fields["setup"], at: "setup")
        let imuChip = try fields["imuChip"].map { (value) throws(BoardFileError) in
            try knownChip(try nonEmptyString(value, at: "imuChip"), at: "imuChip", among: ChipRegistry.imus)
        }
        let magnetometerChip = try fields["magnetometerChip"].map { (value) throws(BoardFileError) in
            // A separate magnetometer, or an IMU with one inside (the LSM9DS1's die, the MPU-9250's AK8963).
            try knownChip(try nonEmptyString(value, at: "magnetometerChip"), at: "magnetometerChip", among: ChipRegistry.magnetometers + ChipRegistry.imus)
        }
        let imus = try fields["imus"].map { (value) throws(BoardFileError) in try placements(value, buses: buses) } ?? []
        let barometer = try fields["barometer"].map { (value) throws(BoardFileError) in try self.barometer(value) }
        return Board(
            name: name, id: id, match: match, i2cBuses: buses, imuAddresses: imu,
            magnetometerAddresses: magnetometer, mountMatrix: mountMatrix, setup: setup,
            imuChip: imuChip, magnetometerChip: magnetometerChip, imus: imus, barometer: barometer)
    }

    /// `"imus"`: each `{"address": "0x6A"}` (on `"i2cBus"`, else the default bus) or
    /// `{"spi": "/dev/spidev0.0"}`, with an optional `"chip"`; no place listed twice.
    private func placements(_ value: JSONValue?, buses: [Board.I2CBus]) throws(BoardFileError) -> [IMUPlacement] {
        let items = try array(value, at: "imus")
        if items.isEmpty {
            throw invalid("imus", "the IMU list is empty", fix: "list each IMU, e.g. [{\"address\": \"0x6A\"}, {\"spi\": \"/dev/spidev0.0\"}], or leave imus out")
        }
        var placements: [IMUPlacement] = []
        for (index, item) in items.enumerated() {
            let path = "imus[\(index)]"
            let fields = try object(item, at: path, keys: Self.imuKeys, required: [])
            let location: IMULocation
            switch (fields["address"], fields["spi"]) {
            case (let address?, nil):
                let bus = try fields["i2cBus"].map { (value) throws(BoardFileError) in try nonEmptyString(value, at: "\(path).i2cBus") }
                    ?? buses.first(where: \.isDefault)?.device ?? ""
                guard buses.contains(where: { $0.device == bus }) else {
                    throw invalid("\(path).i2cBus", "\(bus) is not one of the board's i2cBuses", fix: "name a bus listed in i2cBuses, e.g. \(buses[0].device)")
                }
                location = .i2c(bus: bus, address: try self.address(address, at: "\(path).address").rawValue)
            case (nil, let spi?):
                if fields["i2cBus"] != nil {
                    throw invalid("\(path).i2cBus", "an IMU on SPI has no I2C bus", fix: "remove i2cBus, or give an address instead of spi")
                }
                let device = try nonEmptyString(spi, at: "\(path).spi")
                let numbers = device.dropFirst(Self.spiPrefix.count).split(separator: ".", omittingEmptySubsequences: false)
                guard device.hasPrefix(Self.spiPrefix), numbers.count == 2,
                      numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
                    throw invalid("\(path).spi", "\"\(device)\" is not of the form /dev/spidevB.C", fix: "write the SPI device as /dev/spidev<bus>.<chip select>, e.g. /dev/spidev0.0")
                }
                location = .spi(device: device)
            default:
                throw invalid(path, "gives \(fields["address"] == nil ? "neither" : "both") address and spi",
                              fix: "give exactly one: \"address\" (I2C, e.g. \"0x6A\") or \"spi\" (e.g. \"/dev/spidev0.0\")")
            }
            if placements.contains(where: { $0.location == location }) {
                throw invalid(path, "\(location) is listed twice", fix: "list each IMU once")
            }
            let chip = try fields["chip"].map { (value) throws(BoardFileError) in
                try knownChip(try nonEmptyString(value, at: "\(path).chip"), at: "\(path).chip", among: ChipRegistry.imus)
            }
            placements.append(IMUPlacement(location, chip: chip))
        }
        return placements
    }

    /// `barometer`: `{"chip": "LPS25H", "address": "0x5C"}`, a chip of the barometer registry at
    /// one address.
    private func barometer(_ value: JSONValue) throws(BoardFileError) -> Board.Barometer {
        let fields = try object(value, at: "barometer", keys: Self.barometerKeys, required: Self.barometerKeys)
        let chip = try knownChip(try nonEmptyString(fields["chip"], at: "barometer.chip"), at: "barometer.chip", among: ChipRegistry.barometers)
        let address = try address(fields["address"], at: "barometer.address")
        return Board.Barometer(chip: chip, address: address)
    }

    // MARK: Sections

    private func buses(_ value: JSONValue?) throws(BoardFileError) -> [Board.I2CBus] {
        let items = try array(value, at: "i2cBuses")
        if items.isEmpty {
            throw invalid("i2cBuses", "the bus list is empty", fix: "list at least one bus, e.g. {\"device\": \"/dev/i2c-1\", …, \"isDefault\": true}")
        }
        var buses: [Board.I2CBus] = []
        for (index, item) in items.enumerated() {
            let path = "i2cBuses[\(index)]"
            let fields = try object(item, at: path, keys: Self.busKeys, required: Self.busKeys)
            let device = try nonEmptyString(fields["device"], at: "\(path).device")
            let number = device.dropFirst(Self.devicePrefix.count)
            guard device.hasPrefix(Self.devicePrefix), !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) else {
                throw invalid("\(path).device", "\"\(device)\" is not of the form /dev/i2c-N", fix: "write the bus as /dev/i2c-<number>, e.g. /dev/i2c-1")
            }
            if buses.contains(where: { $0.device == device }) {
                throw invalid("\(path).device", "\(device) is listed twice", fix: "list each bus once")
            }
            let defaultSpeed = try positiveInteger(fields["defaultSpeedHz"], at: "\(path).defaultSpeedHz")
            let maxSpeed = try positiveInteger(fields["maxSpeedHz"], at: "\(path).maxSpeedHz")
            if defaultSpeed > maxSpeed {
                throw invalid("\(path).defaultSpeedHz", "the default speed \(defaultSpeed) Hz is above the maximum \(maxSpeed) Hz",
                              fix: "make defaultSpeedHz at most maxSpeedHz (both in Hz, e.g. 100000 and 400000)")
            }
            buses.append(Board.I2CBus(
                device: device, sdaPin: try pin(fields["sdaPin"], at: "\(path).sdaPin"),
                sclPin: try pin(fields["sclPin"], at: "\(path).sclPin"), defaultSpeedHz: defaultSpeed,
                maxSpeedHz: maxSpeed, isDefault: try bool(fields["isDefault"], at: "\(path).isDefault")))
        }
        let defaults = buses.filter(\.isDefault).count
        if defaults != 1 {
            throw invalid("i2cBuses", "\(defaults) buses are marked isDefault", fix: "mark exactly one bus \"isDefault\": true and the others false")
        }
        return buses
    }

    private func pin(_ value: JSONValue?, at path: String) throws(BoardFileError) -> Board.Pin {
        let fields = try object(value, at: path, keys: Self.pinKeys, required: Self.pinKeys)
        return Board.Pin(
            header: try nonEmptyString(fields["header"], at: "\(path).header"),
            soc: try nonEmptyString(fields["soc"], at: "\(path).soc"))
    }

    private func addresses(_ value: JSONValue?, at path: String, allowEmpty: Bool) throws(BoardFileError) -> [I2CAddress] {
        let items = try array(value, at: path)
        if items.isEmpty && !allowEmpty {
            throw invalid(path, "the address list is empty", fix: "list the usual addresses as strings, e.g. [\"0x68\", \"0x69\"]")
        }
        return try items.enumerated().map { (index, item) throws(BoardFileError) -> I2CAddress in
            try address(item, at: "\(path)[\(index)]")
        }
    }

    /// One 7-bit address written as a hex string.
    private func address(_ item: JSONValue?, at path: String) throws(BoardFileError) -> I2CAddress {
        let fix = "write a 7-bit address between 0x08 and 0x77 as a hex string, e.g. \"0x68\""
        let text = try nonEmptyString(item, at: path)
        guard text.lowercased().hasPrefix("0x"), let value = UInt8(text.dropFirst(2), radix: 16) else {
            throw invalid(path, "\"\(text)\" is not a hex address", fix: fix)
        }
        guard Self.addressRange.contains(value) else {
            throw invalid(path, "\(text) is outside 0x08–0x77 (the rest are reserved by the I2C specification)", fix: fix)
        }
        return I2CAddress(value)
    }

    private func mountMatrix(_ value: JSONValue?) throws(BoardFileError) -> Matrix3 {
        let path = "mountMatrix"
        let fix = "give nine numbers, row-major, of a rotation (rows orthonormal, determinant +1), e.g. [1,0,0, 0,1,0, 0,0,1]"
        let items = try array(value, at: path)
        var numbers: [Double] = []
        for (index, item) in items.enumerated() {
            guard case .number(let number) = item else {
                throw BoardFileError(kind: .wrongType, file: file, keyPath: "\(path)[\(index)]", problem: "expected a number, found \(item.typeName)", fix: fix)
            }
            numbers.append(number)
        }
        guard let matrix = Matrix3(rowMajor: numbers) else {
            throw invalid(path, "has \(numbers.count) numbers instead of 9", fix: fix)
        }
        guard matrix.isProperRotation() else {
            let reason = abs(abs(matrix.determinant) - 1) < 1e-6 && matrix.determinant < 0
                ? "is a reflection (determinant \(matrix.determinant)), not a rotation"
                : "is not a proper rotation (rows not orthonormal or determinant \(matrix.determinant) ≠ +1)"
            throw invalid(path, "\(matrix) \(reason)", fix: fix)
        }
        return matrix
    }

    // MARK: Typed access

    /// Checks that `value` is an object with no unknown and no missing keys.
    private func object(_ value: JSONValue?, at path: String, keys allowed: [String], required: [String]) throws(BoardFileError) -> [String: JSONValue] {
        guard case .object(let fields) = value else {
            throw BoardFileError(
                kind: .wrongType, file: file, keyPath: path,
                problem: "expected an object, found \(value?.typeName ?? "nothing")", fix: "write a JSON object {…} with the keys \(allowed.joined(separator: ", "))")
        }
        for key in fields.keys.sorted() where !allowed.contains(key) {
            let suggestion = Self.closest(to: key, in: allowed).map { "did you mean \"\($0)\"? " } ?? ""
            throw BoardFileError(
                kind: .unknownKey, file: file, keyPath: Self.join(path, key), problem: "unknown key \"\(key)\"",
                fix: "\(suggestion)remove or rename it; allowed keys here: \(allowed.joined(separator: ", "))")
        }
        for key in required where fields[key] == nil {
            throw BoardFileError(
                kind: .missingKey, file: file, keyPath: Self.join(path, key), problem: "missing key \"\(key)\"",
                fix: "add \"\(key)\"; boards/README.md describes every key")
        }
        return fields
    }

    private func array(_ value: JSONValue?, at path: String) throws(BoardFileError) -> [JSONValue] {
        guard case .array(let items) = value else { throw wrongType(path, "an array", value) }
        return items
    }

    /// `name` when it names one of `chips` (its name or a CLI name, case, `-` and spaces ignored:
    /// `MPU-9150`, `lsm6dsox`); otherwise an error listing them.
    private func knownChip(_ name: String, at path: String, among chips: [ChipDescriptor]) throws(BoardFileError) -> String {
        let key = ChipRegistry.key(name)
        guard chips.contains(where: { ChipRegistry.key($0.name) == key || $0.cliNames.contains(key) }) else {
            throw invalid(
                path, "\"\(name)\" is not a chip swift-motion knows",
                fix: "name one of: \(chips.map(\.name).joined(separator: ", ")), or leave \(path) out for a board without chips of its own")
        }
        return name
    }

    private func nonEmptyString(_ value: JSONValue?, at path: String) throws(BoardFileError) -> String {
        guard case .string(let text) = value else { throw wrongType(path, "a string", value) }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw invalid(path, "is empty", fix: "write a non-empty string")
        }
        // Printed to terminals as it is: an escape sequence or a bell in it would act there.
        if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = "U+" + String(control.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw invalid(path, "holds a control character (\(code))", fix: "write plain text on one line, without escape sequences, tabs or line breaks")
        }
        return text
    }

    private func bool(_ value: JSONValue?, at path: String) throws(BoardFileError) -> Bool {
        guard case .bool(let flag) = value else { throw wrongType(path, "true or false", value) }
        return flag
    }

    private func positiveInteger(_ value: JSONValue?, at path: String) throws(BoardFileError) -> Int {
        guard case .number(let number) = value else { throw wrongType(path, "a number (Hz)", value) }
        guard number > 0, number.rounded() == number, number <= Double(Int32.max) else {
            throw invalid(path, "\(number) is not a positive whole number of Hz", fix: "write the speed in Hz as a whole number above 0, e.g. 400000")
        }
        return Int(number)
    }

    private func wrongType(_ path: String, _ expected: String, _ found: JSONValue?) -> BoardFileError {
        BoardFileError(kind: .wrongType, file: file, keyPath: path, problem: "expected \(expected), found \(found?.typeName ?? "nothing")",
                       fix: "write \(expected); boards/README.md describes every key")
    }

    private func invalid(_ path: String, _ problem: String, fix: String) -> BoardFileError {
        BoardFileError(kind: .invalidValue, file: file, keyPath: path, problem: problem, fix: fix)
    }

    private static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// The allowed key within edit distance 2 of `key` (ignoring case), for "did you mean".
    static func closest(to key: String, in candidates: [String]) -> String? {
        let target = Array(key.lowercased())
        return candidates
            .map { ($0, editDistance(target, Array($0.lowercased()))) }
            .filter { $0.1 <= 2 }
            .min { $0.1 < $1.1 }?.0
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Where the JSON syntax breaks, as "line L, column C: …". JSONDecoder only says "not valid
    /// JSON"; JSONSerialization names the character offset.
    private static func syntaxProblem(in data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "the document is not a JSON object"
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
            guard let range = detail.range(of: "character "), let offset = Int(detail[range.upperBound...].prefix { $0.isNumber }) else {
                return detail
            }
            let before = data.prefix(offset)
            let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            return "line \(line), column \(column): \(detail)"
        }
    }
}

extension String {
    /// Zeros in front, up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
