import Dispatch
import Foundation

/// Whether the person carrying the board is still, walking or running, with a confidence; live
/// and over the past. Core Motion's `CMMotionActivityManager`.
///
/// A manager classifies from its creation until it is released (its sampler runs meanwhile, as a
/// ``Pedometer``'s does) and keeps the last 10,000 changes for
/// ``queryActivityStarting(from:to:to:withHandler:)``; nothing is kept across runs. Dates map the
/// monotonic clock to the wall clock as ``Pedometer``'s do. Activity changes are reported about
/// 3 s after they happen (docs/steps.md).
public final class MotionActivityManager: Sendable {
    let tracker: StepTracker
    package let dates: MonotonicDates

    /// Always true: the classifier needs only the accelerometer.
    public static func isActivityAvailable() -> Bool { true }

    /// A manager on the default device (the one ``MotionManager/init()`` opens; they share its sampler).
    public convenience init() {
        self.init(hub: MotionManager().hub)
    }

    /// A manager on `source` (see ``MotionManager/init(source:calibrationStore:attitudeEstimator:)``).
    public convenience init(source: MotionSource, calibrationStore: CalibrationStore? = .userDefault()) throws(MotionError) {
        self.init(hub: try MotionManager(source: source, calibrationStore: calibrationStore).hub)
    }

    /// A manager on the device (and sampler) of `manager`.
    package convenience init(sharing manager: MotionManager) {
        self.init(hub: manager.hub)
    }

    init(hub: SensorHub) {
        tracker = StepTracker(hub: hub)
        dates = MonotonicDates(clock: hub.clock)
    }

    /// Starts updates: `handler` runs on `queue` with the current activity (once there is one),
    /// then at each change of activity or confidence. Replaces a running start.
    public func startActivityUpdates(to queue: OperationQueue, withHandler handler: @escaping MotionActivityHandler) {
        let handler = ActivityHandler(handler)
        let dates = dates
        let delivery = Delivery<ActivityRecord>(target: .operation(queue)) { record, _ in
            if let record { handler.call(MotionActivity(record, dates: dates)) }
        }
        tracker.startActivityUpdates(delivery)
    }

    /// Stops updates: no handler starts after it returns (one running may finish). Never waits.
    public func stopActivityUpdates() { tracker.stopActivityUpdates() }

    /// The activities between `start` and `end`: the one going on at `start`, then each that
    /// began before `end`, oldest first; `handler` runs once on `queue`. An end before the start
    /// is refused with ``MotionError/sensor(_:)``.
    public func queryActivityStarting(
        from start: Date, to end: Date, to queue: OperationQueue, withHandler handler: @escaping MotionActivityQueryHandler
    ) {
        let handler = ActivityQueryHandler(handler)
        guard end >= start else {
            let error = MotionError.sensor("the query's end \(end) is before its start \(start): ask for an interval that ends after it starts")
            queue.addOperation { handler.call(nil, error) }
            return
        }
        let dates = dates
        let activities = tracker.activities(from: dates.monotonic(start), to: dates.monotonic(end)).map { MotionActivity($0, dates: dates) }
        queue.addOperation { handler.call(activities, nil) }
    }

    /// The activity now, nil before the first (our addition: Core Motion has no pull).
    package var currentActivity: MotionActivity? { tracker.currentActivity.map { MotionActivity($0, dates: dates) } }

    /// Waits until every sample taken so far has been classified and its update handed to the
    /// handler's queue (tests in virtual time).
    package func flush() { tracker.flush() }
}

/// A handler as Core Motion takes it, carried to the queue its caller named (see ``CallerHandler``).
private struct ActivityHandler: @unchecked Sendable {
    let call: (MotionActivity?) -> Void
    init(_ call: @escaping (MotionActivity?) -> Void) { self.call = call }
}

private struct ActivityQueryHandler: @unchecked Sendable {
    let call: ([MotionActivity]?, MotionError?) -> Void
    init(_ call: @escaping ([MotionActivity]?, MotionError?) -> Void) { self.call = call }
}
