import Foundation
import Fusion

/// What the person carrying the board is doing. Core Motion's `CMMotionActivity`: one of its
/// flags is true (``unknown`` when none of the others can be said), with a confidence.
///
/// ``automotive`` and ``cycling`` are always false: telling a vehicle or a bicycle from other
/// motion needs more than the accelerometer's steps and stillness (Core Motion also uses
/// location and the phone's radios), and we have no recordings to measure such a classifier
/// against (docs/porting-from-core-motion.md).
public struct MotionActivity: Sendable, Equatable {
    /// When this activity began.
    public var startDate: Date
    public var confidence: MotionActivityConfidence
    /// Still: lying still or held still (the acceleration's magnitude quiet for 2 s).
    public var stationary: Bool
    /// Walking: steps at a walking rhythm.
    public var walking: Bool
    /// Running: steps at 2.5 a second or faster, or with a runner's impacts.
    public var running: Bool
    /// Always false (see the type's description).
    public var automotive: Bool
    /// Always false (see the type's description).
    public var cycling: Bool
    /// None of the above can be said: handled, shaken, carried in a vehicle, the first steps of a walk.
    public var unknown: Bool

    init(_ record: ActivityRecord, dates: MonotonicDates) {
        startDate = dates.date(record.start)
        confidence = MotionActivityConfidence(rawValue: record.confidence.rawValue) ?? .low
        stationary = record.kind == .stationary
        walking = record.kind == .walking
        running = record.kind == .running
        automotive = false
        cycling = false
        unknown = record.kind == .unknown
    }
}

/// Core Motion's `CMMotionActivityConfidence`, same raw values. It grows with the time an activity
/// has held: `low` at first, `medium` after 5 s, `high` after 15 s (docs/steps.md gives the
/// precision of each on the simulated scenarios).
public enum MotionActivityConfidence: Int, Sendable, Comparable {
    case low = 0
    case medium = 1
    case high = 2

    public static func < (a: MotionActivityConfidence, b: MotionActivityConfidence) -> Bool { a.rawValue < b.rawValue }
}

/// Core Motion's activity handler types: plain closures, as there.
public typealias MotionActivityHandler = (MotionActivity?) -> Void
public typealias MotionActivityQueryHandler = ([MotionActivity]?, MotionError?) -> Void
