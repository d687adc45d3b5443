import Dispatch
import Foundation
import Fusion
import Locking
import MotionSimulator

/// Altitude from the board's barometer, modelled on Core Motion's `CMAltimeter`: relative altitude
/// since the start of updates, and absolute altitude from a reference the application gives.
///
/// An update comes once a second (``updateInterval``): the mean of the readings the barometer took
/// in that second (26 at a BMP280's indoor-navigation rate), whether the altitude changed or not.
/// Handlers run on the queue given, one update at a time, never on the sampler's queue; a stop
/// returns without waiting for a running handler, and no handler starts after it (as
/// ``MotionManager``'s). Releasing an altimeter stops its updates. The source is chosen as for
/// ``MotionManager``: ``MotionSource`` (the simulated board's BMP280 when the machine is not a
/// known board).
public final class Altimeter: Sendable {
    /// Seconds between updates: one a second, the cadence Core Motion's altimeter keeps.
    public static let updateInterval = 1.0

    let hub: BarometerHub
    /// Why there is no barometer (nil: there is one); every start reports it.
    private let missing: MotionError?
    let relative: BarometerUpdates<AltitudeData>
    let absolute: BarometerUpdates<AbsoluteAltitudeData>
    /// Every reading as the barometer took it (no Core Motion equivalent): for the tools that
    /// publish pressure and temperature at the chip's rate (`motionctl ros2`).
    let readings: BarometerUpdates<BarometerSample>
    /// The reference and how many times it was set (an absolute run takes a new datum when it changes).
    private let reference: Locked<(reference: AltitudeReference, generation: Int)>

    /// The simulated hardware behind this altimeter, nil on a real board (`MotionSimulation`'s
    /// `simulatedHardware`).
    package let resolvedSimulation: SimulatedHardware?

    init(resolved: ResolvedBarometer) {
        hub = resolved.hub
        missing = resolved.missing
        resolvedSimulation = resolved.simulated
        let reference = Locked((reference: AltitudeReference.none, generation: 0))
        self.reference = reference
        relative = BarometerUpdates(hub: resolved.hub) {
            let run = ExtractState((window: BarometerWindow(interval: Altimeter.updateInterval), start: Double?.none))
            return { sample in
                guard let summary = run.value.window.add(sample) else { return nil }
                let first = run.value.start ?? summary.pressure
                run.value.start = first
                return AltitudeData(
                    relativeAltitude: AltitudeEstimates.relativeAltitude(pressure: summary.pressure, reference: first),
                    pressure: summary.pressure, timestamp: summary.timestamp)
            }
        }
        readings = BarometerUpdates(hub: resolved.hub) { { $0 } }
        absolute = BarometerUpdates(hub: resolved.hub) {
            let run = ExtractState((
                window: BarometerWindow(interval: Altimeter.updateInterval), datum: (datum: AltitudeEstimates.Datum, generation: Int)?.none))
            return { sample in
                guard let summary = run.value.window.add(sample) else { return nil }
                let current = reference.withLock { $0 }
                if run.value.datum?.generation != current.generation {
                    run.value.datum = (AltitudeEstimates.datum(current.reference, summary: summary), current.generation)
                }
                guard let datum = run.value.datum else { return nil }
                let estimate = AltitudeEstimates.absolute(summary, datum: datum.datum)
                return AbsoluteAltitudeData(
                    altitude: estimate.altitude, accuracy: estimate.accuracy, precision: estimate.precision, timestamp: summary.timestamp)
            }
        }
    }

    deinit {
        relative.stop()
        absolute.stop()
        readings.stop()
    }

    /// The barometer's sampler, nil without a barometer (a pedometer counts floors on it).
    var barometerHub: BarometerHub? { missing == nil ? hub : nil }

    /// The barometer's rate, readings per second (nil without a barometer).
    package var readingRate: Double? { missing == nil ? hub.device.rate : nil }

    /// Starts delivering every reading (pressure Pa, die temperature °C, its time) to `handler`
    /// on `queue`, with the same lifecycle as the altitude updates.
    package func startReadings(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (BarometerSample?, MotionError?) -> Void) {
        start(readings, .dispatch(queue), handler)
    }

    /// Stops the readings: no handler starts after it returns.
    package func stopReadings() { readings.stop() }

    // MARK: - Availability

    /// True when the default source (``MotionSource/automatic``) has a barometer. Core Motion's
    /// class method: asked before any altimeter exists, the default source is opened once for the
    /// question and let go; the answer is kept.
    public static func isRelativeAltitudeAvailable() -> Bool { defaultSourceHasBarometer() }

    /// True when the default source has a barometer: absolute altitude needs nothing more (its
    /// accuracy says how far to trust it without a reference, ``AltitudeReference``).
    public static func isAbsoluteAltitudeAvailable() -> Bool { defaultSourceHasBarometer() }

    /// Always `.authorized`: a board asks no one for permission (a bus the process may not open
    /// is reported as an error of the start).
    public static func authorizationStatus() -> AuthorizationStatus { .authorized }

    /// The barometer this altimeter reads ("BMP280 at 0x76 on /dev/i2c-1"), nil when it has none.
    public var barometerName: String? { missing == nil ? hub.device.name : nil }

    /// What the barometer's sampler has done so far (shared with other altimeters of the same barometer).
    public var counters: SamplerCounters { hub.counters }

    // MARK: - Relative altitude

    /// True between a start and the matching stop of relative-altitude updates.
    public var isRelativeAltitudeActive: Bool { relative.isActive }

    /// Starts relative-altitude updates: `handler` runs on `queue` once a second with the
    /// altitude gained since the first update, or with an error. A second start replaces the first.
    public func startRelativeAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping AltitudeHandler) {
        start(relative, .operation(queue), CallerHandler(handler).sendable)
    }

    /// The same on a `DispatchQueue`. (Disfavoured against the `OperationQueue` form, Core
    /// Motion's, so that `to: .main` means `OperationQueue.main`.)
    @_disfavoredOverload
    public func startRelativeAltitudeUpdates(to queue: DispatchQueue, withHandler handler: @escaping AltitudeHandler) {
        start(relative, .dispatch(queue), CallerHandler(handler).sendable)
    }

    /// Stops relative-altitude updates: no handler starts after it returns (one running may finish;
    /// see ``waitUntilHandlersFinish()``). Never waits, so it is safe from any thread.
    public func stopRelativeAltitudeUpdates() { relative.stop() }

    /// Relative-altitude updates until the consumer stops iterating, each from its own start (its
    /// first update is 0 m).
    /// - Throws: ``MotionError/sensorNotAvailable(_:)`` without a barometer.
    public func relativeAltitudeUpdates() throws(MotionError) -> AsyncStream<AltitudeData> {
        if let missing { throw missing }
        return relative.stream()
    }

    // MARK: - Absolute altitude

    /// Where absolute altitude is measured from (no Core Motion equivalent): `.none` until the
    /// application gives a sea-level pressure or a known altitude. A change applies from the next
    /// update of running updates.
    public var altitudeReference: AltitudeReference {
        get { reference.withLock { $0.reference } }
        set { reference.withLock { $0 = (newValue, $0.generation + 1) } }
    }

    /// True between a start and the matching stop of absolute-altitude updates.
    public var isAbsoluteAltitudeActive: Bool { absolute.isActive }

    /// Starts absolute-altitude updates: `handler` runs on `queue` once a second with the
    /// altitude above sea level, its accuracy and precision, or with an error.
    public func startAbsoluteAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping AbsoluteAltitudeHandler) {
        start(absolute, .operation(queue), CallerHandler(handler).sendable)
    }

    /// The same on a `DispatchQueue`.
    @_disfavoredOverload
    public func startAbsoluteAltitudeUpdates(to queue: DispatchQueue, withHandler handler: @escaping AbsoluteAltitudeHandler) {
        start(absolute, .dispatch(queue), CallerHandler(handler).sendable)
    }

    /// Stops absolute-altitude updates, as ``stopRelativeAltitudeUpdates()`` does.
    public func stopAbsoluteAltitudeUpdates() { absolute.stop() }

    /// Absolute-altitude updates until the consumer stops iterating.
    /// - Throws: ``MotionError/sensorNotAvailable(_:)`` without a barometer.
    public func absoluteAltitudeUpdates() throws(MotionError) -> AsyncStream<AbsoluteAltitudeData> {
        if let missing { throw missing }
        return absolute.stream()
    }

    /// Waits until no handler of this altimeter is running (for shutdown and tests). Returns at
    /// once inside a handler; must not run on a thread a handler waits for.
    public func waitUntilHandlersFinish() {
        relative.waitUntilHandlersFinish()
        absolute.waitUntilHandlersFinish()
    }

    private func start<Value>(_ updates: BarometerUpdates<Value>, _ target: DeliveryTarget, _ handler: @escaping BarometerUpdates<Value>.Handler) {
        if let missing {
            updates.refuse(target, handler, missing)
        } else {
            updates.start(target, handler)
        }
    }
}
