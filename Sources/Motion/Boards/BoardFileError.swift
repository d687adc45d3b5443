/// A board file that cannot be used, naming the file, the key and the fix.
///
/// Printed as `boards/my-board.json: i2cBuses[0].device: "/dev/i2c1" is not of the form
/// /dev/i2c-N. Fix: write the bus as /dev/i2c-<number>, e.g. /dev/i2c-1`.
public struct BoardFileError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The file could not be read.
        case unreadable = "unreadable"
        /// The file is not JSON.
        case invalidJSON = "invalid JSON"
        /// A key the schema does not know (often a typo).
        case unknownKey = "unknown key"
        /// A key the schema requires is absent.
        case missingKey = "missing key"
        /// A value of the wrong JSON type (a string where a number belongs, …).
        case wrongType = "wrong type"
        /// A value of the right type that is not allowed (empty bus list, address out of range, …).
        case invalidValue = "invalid value"
    }

    package var kind: Kind
    /// The file as the caller named it (a path, or the built-in file's name).
    public var file: String
    /// Where in the file, e.g. `i2cBuses[0].maxSpeedHz`; empty for the whole file.
    public var keyPath: String
    /// What is wrong.
    public var problem: String
    /// What to change.
    public var fix: String

    public var description: String {
        let location = keyPath.isEmpty ? file : "\(file): \(keyPath)"
        return "\(location): \(problem). Fix: \(fix)"
    }
}
