/// Grades ordered by their raw values (the accuracies: `uncalibrated` < `low` < `medium` < `high`).
/// The order is package-internal: Core Motion's accuracy enumerations are not `Comparable`, so
/// neither are ours (a ported `switch` or `rawValue` comparison works unchanged).
package protocol RankedByRawValue: RawRepresentable where RawValue == Int {}

extension RankedByRawValue {
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    package static func <= (lhs: Self, rhs: Self) -> Bool { lhs.rawValue <= rhs.rawValue }
    package static func > (lhs: Self, rhs: Self) -> Bool { lhs.rawValue > rhs.rawValue }
    package static func >= (lhs: Self, rhs: Self) -> Bool { lhs.rawValue >= rhs.rawValue }
}

/// The lower of two grades.
package func min<Grade: RankedByRawValue>(_ a: Grade, _ b: Grade) -> Grade { b < a ? b : a }
/// The higher of two grades.
package func max<Grade: RankedByRawValue>(_ a: Grade, _ b: Grade) -> Grade { a < b ? b : a }
