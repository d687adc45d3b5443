import Foundation

/// What a pedometer counted between two dates. Core Motion's `CMPedometerData`, with its
/// `NSNumber` members (Foundation on Linux has `NSNumber`, and it is `Sendable`: ported code
/// reads `numberOfSteps.intValue` and `distance?.doubleValue` unchanged).
public struct PedometerData: Sendable, Equatable {
    /// The start of the interval counted.
    public var startDate: Date
    /// The end of the interval counted (the time of the last sample taken, for live updates).
    public var endDate: Date
    /// Steps taken in the interval.
    public var numberOfSteps: NSNumber
    /// Metres walked in the interval: the steps times the step length of ``Pedometer/stepLength``.
    public var distance: NSNumber?
    /// Floors climbed (3 m storeys, from the barometer); nil on a device without one.
    public var floorsAscended: NSNumber?
    /// Floors descended; nil on a device without a barometer.
    public var floorsDescended: NSNumber?
    /// Seconds per metre now (live updates only; nil while not walking or in a query).
    public var currentPace: NSNumber?
    /// Steps per second now (live updates only; nil while not walking or in a query).
    public var currentCadence: NSNumber?
    /// Seconds per metre over the interval's walking time (pauses left out); nil before any step.
    public var averageActivePace: NSNumber?

    public init(
        startDate: Date, endDate: Date, numberOfSteps: NSNumber, distance: NSNumber? = nil, floorsAscended: NSNumber? = nil,
        floorsDescended: NSNumber? = nil, currentPace: NSNumber? = nil, currentCadence: NSNumber? = nil, averageActivePace: NSNumber? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.numberOfSteps = numberOfSteps
        self.distance = distance
        self.floorsAscended = floorsAscended
        self.floorsDescended = floorsDescended
        self.currentPace = currentPace
        self.currentCadence = currentCadence
        self.averageActivePace = averageActivePace
    }
}

/// A walk paused or resumed. Core Motion's `CMPedometerEvent`.
public struct PedometerEvent: Sendable, Equatable {
    /// When: the walk's last step (a pause) or its first (a resume).
    public var date: Date
    public var type: PedometerEventType
}

/// Core Motion's `CMPedometerEventType`, same raw values.
public enum PedometerEventType: Int, Sendable {
    case pause = 0
    case resume = 1
}

/// How long a step is, for ``PedometerData/distance`` and the paces. The application gives it:
/// a person's height, or a walk it measured. Our addition: Core Motion learns it from GPS.
public enum StepLength: Sendable, Equatable {
    /// 0.415 × the walker's height in metres: the common rule of thumb for a walking step (a
    /// population's average; one person's step differs from it by their build and speed).
    case height(Double)
    /// A calibration walk: `distance` metres measured (a track, a tape) in `steps` steps counted
    /// by this pedometer (``PedometerData/numberOfSteps`` of that walk).
    case calibrationWalk(distance: Double, steps: Int)
    /// Metres a step, as given.
    case metres(Double)

    /// Metres a step; nil when the input is not a positive number.
    public var metres: Double? {
        let value: Double = switch self {
        case .height(let height): 0.415 * height
        case .calibrationWalk(let distance, let steps): steps > 0 ? distance / Double(steps) : .nan
        case .metres(let metres): metres
        }
        return value.isFinite && value > 0 ? value : nil
    }
}

/// Core Motion's pedometer handler types: plain closures, as there (see ``AccelerometerHandler``).
public typealias PedometerHandler = (PedometerData?, MotionError?) -> Void
public typealias PedometerEventHandler = (PedometerEvent?, MotionError?) -> Void
