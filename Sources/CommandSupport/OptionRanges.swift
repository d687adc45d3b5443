import FileAccess
import ArgumentParser
import Foundation

/// The ranges of every numeric option, checked in `validate()` before any value reaches an integer
/// conversion or the library: out of range (NaN, ±infinity, 0, negative, tiny or huge) is a usage
/// error that names the option and its range. Numeric options are parsed `.unconditional`, so a
/// negative number is read as the value it is (and refused here) rather than as an unknown flag.
package enum OptionRange {
    /// Seconds a command may run or measure: up to a year.
    package static let seconds: ClosedRange<Double> = 1e-3...31_536_000
    /// Samples a command may be asked for: up to a trillion (a year at 1 kHz is 3·10¹⁰).
    package static let count: ClosedRange<Int> = 1...1_000_000_000_000
    /// The slowest rate any command samples at: one sample a day (`MotionManager.maximumUpdateInterval`).
    package static let slowestRate = 1.0 / 86_400

    package static func check(_ value: Double, _ option: String, in range: ClosedRange<Double>, unit: String) throws {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError("\(option) must be a number from \(describe(range.lowerBound)) to \(describe(range.upperBound)) \(unit), not \(value)")
        }
    }

    package static func check(_ value: Double?, _ option: String, in range: ClosedRange<Double>, unit: String) throws {
        if let value { try check(value, option, in: range, unit: unit) }
    }

    package static func check(_ value: Int?, _ option: String, in range: ClosedRange<Int>) throws {
        guard let value else { return }
        guard range.contains(value) else {
            throw ValidationError("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
    }

    /// A number option's text read as plain decimal only (`--rate 0x10` is refused, not read as
    /// 16; `nan` and `inf` too): the transform of every `Double` option.
    package static func decimal(_ text: String) throws -> Double {
        guard let value = DecimalNumber.parse(text) else {
            throw ValidationError("\"\(text)\" is not a decimal number (write e.g. 100, 0.5 or 1e-3)")
        }
        return value
    }

    /// `--seed`: a whole number from 0 to 2⁶⁴ − 1, in decimal.
    package static func seed(_ text: String) throws -> UInt64 {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = UInt64(text) else {
            throw ValidationError("a seed is a whole number from 0 to \(UInt64.max)")
        }
        return value
    }

    /// The largest I2C bus number: the kernel's minor numbers have 20 bits (MINORBITS, include/linux/kdev_t.h).
    package static let largestBus = (1 << 20) - 1

    /// `--bus`: a device node, or a bus number from 0 to ``largestBus`` (not `-1`, not `0x1`).
    package static func checkBus(_ bus: String?) throws {
        guard let bus, !bus.hasPrefix("/") else { return }
        guard !bus.isEmpty, bus.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(bus), number <= largestBus else {
            throw ValidationError("--bus \(bus) is not a bus: pass a bus number from 0 to \(largestBus) (1 is /dev/i2c-1) or a device node such as /dev/i2c-1")
        }
    }

    /// `--iio-root`: an existing directory (a missing path or a file is said, not listed as "0 devices").
    package static func checkIIORoot(_ root: String?) throws {
        guard let root else { return }
        var status = stat()
        guard stat(root, &status) == 0 else {
            throw ValidationError("--iio-root \(root) does not exist: pass the IIO devices directory, /sys/bus/iio/devices (or a copy of it)")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw ValidationError("--iio-root \(root) is not a directory: pass the IIO devices directory, /sys/bus/iio/devices (or a copy of it)")
        }
    }

    /// "0.001", "31536000", "1/86400": short and exact enough for a message.
    package static func describe(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        if value > 0, value < 1, (1 / value).rounded() < 1e15, abs(1 / value - (1 / value).rounded()) < 1e-6 {
            return "1/\(Int64((1 / value).rounded()))"
        }
        return "\(value)"
    }
}
