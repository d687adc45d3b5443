import Dispatch
import Foundation
import Locking
import Timing

/// Steps, distance, pace and cadence, and the pauses and resumptions of a walk, from the board's
/// accelerometer. Core Motion's `CMPedometer`.
///
/// A pedometer counts from its creation until it is released (its sampler runs meanwhile, at
/// 50 Hz or the rate another user of the device asks), keeping the last
/// 100,000 steps of the last 7 days for ``queryPedometerData(from:to:withHandler:)``; nothing is
/// kept across runs. Handlers run on a private serial queue, one at a time, as Core Motion's do;
/// a stop never waits for a running handler (``waitUntilHandlersFinish()`` does). Dates are the
/// wall clock at the pedometer's creation plus the monotonic time since (a later change of the
/// system clock does not move them). Floors come from the device's barometer, where it has one
/// (``isFloorCountingAvailable()``): a storey is 3 m of altitude, counted with hysteresis (docs/altimeter.md).
public final class Pedometer: Sendable {
    /// Who counts the steps. Our addition: Core Motion's pedometer always uses the phone's motion
    /// coprocessor.
    public enum StepCounter: Sendable {
        /// This library's step detector on the accelerometer's samples (docs/steps.md): any board.
        case library
        /// The IMU's own step counter, where its chip has one (the LSM6DSO, LSM6DSOX and
        /// LSM6DSO32): the chip counts at its own rate whatever the host samples, holds back the
        /// first steps of a walk (its debounce) and says how many, not when (docs/steps.md).
        case chip
    }

    /// Who counts this pedometer's steps.
    public let stepCounter: StepCounter
    let tracker: StepTracker
    /// Floors from the barometer; nil on a device without one.
    let floors: FloorTracker?
    /// Monotonic seconds → `Date`: the wall clock minus the monotonic clock, read once at creation.
    package let dates: MonotonicDates
    private let handlerQueue = OperationQueue.serial(named: "swift-motion.pedometer")
    private let settings = Locked(StepLength.height(1.70))

    /// Step counting is always available: every board has an accelerometer.
    public static func isStepCountingAvailable() -> Bool { true }
    /// Distance is available, from ``stepLength``.
    public static func isDistanceAvailable() -> Bool { true }
    /// True when the default source has a barometer (``Altimeter/isRelativeAltitudeAvailable()``).
    public static func isFloorCountingAvailable() -> Bool { Altimeter.isRelativeAltitudeAvailable() }
    /// Pace is available, from the cadence and ``stepLength``.
    public static func isPaceAvailable() -> Bool { true }
    /// Cadence is available.
    public static func isCadenceAvailable() -> Bool { true }
    /// Pause and resume events are available.
    public static func isPedometerEventTrackingAvailable() -> Bool { true }

    /// A pedometer on the default device (this machine's board, else the simulated board), the
    /// same device ``MotionManager/init()`` opens (they share its sampler).
    public convenience init() {
        self.init(hub: MotionManager().hub, barometer: Altimeter().barometerHub)
    }

    /// A pedometer on `source` (see ``MotionManager/init(source:calibrationStore:attitudeEstimator:)``),
    /// counting floors with its barometer if it has one, and steps with `stepCounter`: `.chip`
    /// on a source whose IMU has no step counter of its own is refused with ``MotionError/sensor(_:)``.
    public convenience init(
        source: MotionSource, calibrationStore: CalibrationStore? = .userDefault(), stepCounter: StepCounter = .library
    ) throws(MotionError) {
        let manager = try MotionManager(source: source, calibrationStore: calibrationStore)
        try self.init(sharing: manager, altimeter: Self.floorAltimeter { () throws(MotionError) in try Altimeter(source: source) },
                      stepCounter: stepCounter)
    }

    /// The altimeter floors are counted with; nil when the source has no barometer (floors are then
    /// nil, as on a phone without one) or it cannot be read (logged).
    package static func floorAltimeter(_ open: () throws(MotionError) -> Altimeter) -> Altimeter? {
        do {
            return try open()
        } catch {
            Library.logger.info("the pedometer counts no floors: \(error)")
            return nil
        }
    }

    /// A pedometer on the device (and sampler) of `manager`; floors from `altimeter`'s barometer.
    package convenience init(sharing manager: MotionManager, altimeter: Altimeter? = nil) {
        self.init(hub: manager.hub, barometer: altimeter?.barometerHub)
    }

    /// The same, counting with `stepCounter`; `.chip` on a device without one is refused.
    package convenience init(sharing manager: MotionManager, altimeter: Altimeter? = nil, stepCounter: StepCounter) throws(MotionError) {
        if stepCounter == .chip, manager.hub.device.stepCounter == nil {
            throw .sensor("\(manager.hub.device.name) has no step counter of its own: count with Pedometer.StepCounter.library, or use an IMU that has one (LSM6DSO, LSM6DSOX, LSM6DSO32)")
        }
        self.init(hub: manager.hub, barometer: altimeter?.barometerHub, stepCounter: stepCounter)
    }

    init(hub: SensorHub, barometer: BarometerHub?, stepCounter: StepCounter = .library) {
        self.stepCounter = stepCounter
        tracker = StepTracker(hub: hub, countsOnChip: stepCounter == .chip)
        dates = MonotonicDates(clock: hub.clock)
        floors = barometer.map(FloorTracker.init(hub:))
    }

    /// How long a step is, for distance and pace (default: the step of someone 1.70 m tall).
    /// An input that is not a positive length is ignored (the old one kept, a log line says why).
    /// Our addition (Core Motion learns it from GPS).
    public var stepLength: StepLength {
        get { settings.withLock { $0 } }
        set {
            guard newValue.metres != nil else {
                Library.logger.warning("ignoring step length \(newValue): give a positive height, distance and step count")
                return
            }
            settings.withLock { $0 = newValue }
        }
    }

    /// Starts live updates: `handler` runs with what was counted since `start` (cumulative: the
    /// steps already counted since then first, then at each new step). Replaces a running start.
    public func startUpdates(from start: Date, withHandler handler: @escaping PedometerHandler) {
        let handler = CallerHandler(handler)
        let dates = dates, settings = settings, floors = floors
        let delivery = Delivery<StepProgress>(target: .operation(handlerQueue)) { progress, error in
            handler.call(progress.map { Self.data($0, dates: dates, stepLength: settings.withLock { $0 }.metres, live: true, floors: floors) }, error)
        }
        tracker.startUpdates(from: dates.monotonic(start), delivery: delivery)
    }

    /// Stops live updates: no handler starts after it returns (one running may finish). Never waits.
    public func stopUpdates() { tracker.stopUpdates() }

    /// Asks what was counted in `[start, end)`: `handler` runs once on the pedometer's queue.
    /// Answers for the steps this pedometer counted (since its creation), of the last 7 days.
    /// An end before the start is refused with ``MotionError/sensor(_:)`` (Core Motion's
    /// `CMErrorInvalidParameter` there).
    public func queryPedometerData(from start: Date, to end: Date, withHandler handler: @escaping PedometerHandler) {
        let handler = CallerHandler(handler)
        guard end >= start else {
            let error = MotionError.sensor("the query's end \(end) is before its start \(start): ask for an interval that ends after it starts")
            handlerQueue.addOperation { handler.call(nil, error) }
            return
        }
        let from = dates.monotonic(start), to = dates.monotonic(end)
        let (steps, activeTime, _) = tracker.query(from: from, to: to)
        let progress = StepProgress(from: from, to: to, steps: steps, activeTime: activeTime, cadence: nil)
        let data = Self.data(progress, dates: dates, stepLength: stepLength.metres, live: false, floors: floors)
        handlerQueue.addOperation { handler.call(data, nil) }
    }

    /// Starts pause and resume events. Replaces a running start.
    public func startEventUpdates(handler: @escaping PedometerEventHandler) {
        let handler = CallerHandler(handler)
        let dates = dates
        let delivery = Delivery<WalkEvent>(target: .operation(handlerQueue)) { event, error in
            handler.call(event.map { PedometerEvent(date: dates.date($0.time), type: $0.resumed ? .resume : .pause) }, error)
        }
        tracker.startEvents(delivery)
    }

    /// Stops pause and resume events: no handler starts after it returns. Never waits.
    public func stopEventUpdates() { tracker.stopEvents() }

    /// Blocks until none of this pedometer's handlers is running (see
    /// ``MotionManager/waitUntilHandlersFinish()`` for where not to call it).
    public func waitUntilHandlersFinish() {
        tracker.waitUntilHandlersFinish()
    }

    /// Waits until every sample taken so far has been counted and its updates handed to the
    /// handlers' queue (tests in virtual time).
    package func flush() {
        tracker.flush()
        handlerQueue.waitUntilAllOperationsAreFinished()
    }

    static func data(_ progress: StepProgress, dates: MonotonicDates, stepLength: Double?, live: Bool, floors: FloorTracker?) -> PedometerData {
        let distance = stepLength.map { Double(progress.steps) * $0 }
        let cadence = live ? progress.cadence : nil
        let floorCounts = floors?.floors(from: progress.from, to: progress.to)
        return PedometerData(
            startDate: dates.date(progress.from), endDate: dates.date(progress.to), numberOfSteps: NSNumber(value: progress.steps),
            distance: distance.map { NSNumber(value: $0) },
            floorsAscended: floorCounts.map { NSNumber(value: $0.ascended) }, floorsDescended: floorCounts.map { NSNumber(value: $0.descended) },
            currentPace: cadence.flatMap { cadence in stepLength.map { NSNumber(value: 1 / (cadence * $0)) } },
            currentCadence: cadence.map { NSNumber(value: $0) },
            averageActivePace: distance.flatMap { $0 > 0 && progress.activeTime > 0 ? NSNumber(value: progress.activeTime / $0) : nil })
    }
}

/// Monotonic timestamps ↔ wall-clock dates: the wall clock minus the monotonic clock, read once.
package struct MonotonicDates: Sendable {
    /// `Date`'s reference-date seconds at monotonic time 0.
    package let offset: Double

    init(clock: any MotionClock) {
        offset = Date().timeIntervalSinceReferenceDate - clock.now
    }

    package func date(_ timestamp: Double) -> Date { Date(timeIntervalSinceReferenceDate: timestamp + offset) }
    package func monotonic(_ date: Date) -> Double { date.timeIntervalSinceReferenceDate - offset }
}

extension OperationQueue {
    /// A serial queue of its own, for a class's handlers (Core Motion's private queues).
    static func serial(named name: String) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = 1
        return queue
    }
}
