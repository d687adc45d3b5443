import ArgumentParser

/// The ranges of every numeric option, checked in `validate()` before any value reaches an integer
/// conversion or the library: out of range (NaN, ±infinity, 0, negative, tiny or huge) is a usage
/// error that names the option and its range. Numeric options are parsed `.unconditional`, so a
/// negative number is read as the value it is (and refused here) rather than as an unknown flag.
enum OptionRange {
    /// Seconds a command may run or measure: up to a year.
    static let seconds: ClosedRange<Double> = 1e-3...31_536_000
    /// Samples a command may be asked for: up to a trillion (a year at 1 kHz is 3·10¹⁰).
    static let count: ClosedRange<Int> = 1...1_000_000_000_000
    /// The slowest rate any command samples at: one sample a day (`MotionManager.maximumUpdateInterval`).
    static let slowestRate = 1.0 / 86_400

    static func check(_ value: Double, _ option: String, in range: ClosedRange<Double>, unit: String) throws {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError("\(option) must be a number from \(describe(range.lowerBound)) to \(describe(range.upperBound)) \(unit), not \(value)")
        }
    }

    static func check(_ value: Double?, _ option: String, in range: ClosedRange<Double>, unit: String) throws {
        if let value { try check(value, option, in: range, unit: unit) }
    }

    static func check(_ value: Int?, _ option: String, in range: ClosedRange<Int>) throws {
        guard let value else { return }
        guard range.contains(value) else {
            throw ValidationError("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
    }

    /// "0.001", "31536000", "1/86400": short and exact enough for a message.
    static func describe(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        if value > 0, value < 1, (1 / value).rounded() < 1e15, abs(1 / value - (1 / value).rounded()) < 1e-6 {
            return "1/\(Int64((1 / value).rounded()))"
        }
        return "\(value)"
    }
}
