import Foundation

/// The one convention of every machine-readable output (`stream` CSV and JSON lines, `record` CSV,
/// `calibrate --non-interactive` JSON, `publish`'s MQTT payloads):
/// - ASCII only (JSON escapes anything else as `\uXXXX`); units in the column or key names
///   (`acc_x_g`, `rot_x_rad_s`, `mag_x_uT`, `time_s`), SI or Core Motion units;
/// - numbers in plain decimal with a fixed count of decimals: 6 (well below every sensor's
///   resolution in the units used), timestamps 9 (nanoseconds); raw register counts as integers;
/// - enumerations by name (`uncalibrated`, `faceUp`), never by number;
/// - a value that does not exist (no magnetometer, not a number) is empty in CSV and `null` in JSON.
package enum MachineOutput {
    /// Decimals of every measured value.
    package static let decimals = 6
    /// Decimals of timestamps (seconds): nanoseconds.
    package static let timeDecimals = 9

    /// A cell or JSON value.
    package enum Value: Sendable {
        case number(Double)
        /// A count or sequence number, printed as a whole number.
        case integer(Int)
        case time(Double)
        case name(String)
        case missing

        package var csv: String {
            switch self {
            case .number(let value): MachineOutput.fixed(value, MachineOutput.decimals) ?? ""
            case .integer(let value): String(value)
            case .time(let value): MachineOutput.fixed(value, MachineOutput.timeDecimals) ?? ""
            case .name(let name): MachineOutput.ascii(name)
            case .missing: ""
            }
        }

        package var json: String {
            switch self {
            case .number(let value): MachineOutput.fixed(value, MachineOutput.decimals) ?? "null"
            case .integer(let value): String(value)
            case .time(let value): MachineOutput.fixed(value, MachineOutput.timeDecimals) ?? "null"
            case .name(let name): "\"" + MachineOutput.ascii(name) + "\""
            case .missing: "null"
            }
        }
    }

    /// "12.345600"; nil for NaN and infinities.
    package static func fixed(_ value: Double, _ decimals: Int) -> String? {
        value.isFinite ? String(format: "%.\(decimals)f", value) : nil
    }

    package static func csvLine(_ values: [Value]) -> String { values.map(\.csv).joined(separator: ",") }

    package static func jsonLine(_ keys: [String], _ values: [Value]) -> String {
        "{" + zip(keys, values).map { "\"\($0)\":\($1.json)" }.joined(separator: ",") + "}"
    }

    /// Text made ASCII (comment lines, names): the characters this project prints spelled out in
    /// ASCII, any other dropped.
    package static func ascii(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{2212}", "\u{2013}", "\u{2014}": result += "-"
            case "\u{B5}", "\u{3BC}": result += "u"
            case "\u{B0}": result += "deg"
            case "\u{B1}": result += "+/-"
            case "\u{B2}": result += "^2"
            case "\u{2192}": result += "->"
            case "\u{2026}": result += "..."
            case "\u{D7}": result += "x"
            default: if scalar.isASCII { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    /// JSON text with every non-ASCII character escaped (`\u00b5`), so the output is ASCII.
    package static func asciiJSON(_ text: String) -> String {
        var result = ""
        for unit in text.utf16 {
            if unit < 0x80 {
                result.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            } else {
                result += String(format: "\\u%04x", unit)
            }
        }
        return result
    }
}
