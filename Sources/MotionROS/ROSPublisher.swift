import Dispatch
import Foundation
import Locking
import Motion

/// Publishes a ``MotionManager``'s device motion to ROS 2 over DDS (Eclipse Cyclone DDS), as a
/// ROS 2 node with `rmw_cyclonedds_cpp` would: `sensor_msgs/Imu` on `imu/data` (fused orientation)
/// and `imu/data_raw` (none), `sensor_msgs/MagneticField` on `imu/mag` where the board has a
/// magnetometer, and with an ``Altimeter`` its barometer's readings as `sensor_msgs/FluidPressure`
/// on `pressure` and `sensor_msgs/Temperature` on `temperature`; frames and units in
/// ``ROSImuValues`` (REP-103, REP-145), docs/ros2.md.
///
/// ```swift
/// let manager = MotionManager()
/// var ros = ROSConfiguration()
/// ros.namespace = "/robot1"
/// let publisher = try ROSPublisher(manager: manager, configuration: ros)
/// try publisher.start()
/// …
/// publisher.stop()
/// ```
///
/// The publisher drives the manager's device-motion updates: give it a manager of its own. The
/// handler only puts the sample in a bounded queue; a thread of the publisher's own converts and
/// writes it. A sample that cannot be published is counted with its reason (``ROSCounters``).
public final class ROSPublisher: Sendable {
    public let configuration: ROSConfiguration
    /// The covariances every message carries, as given; nil (the default): measured — the
    /// orientation's from the library's accuracy (tilt 1°, the heading's accuracy level), the
    /// sensors' from their noise while the board lay still (all zeros, "unknown", until it has
    /// lain still for a second). docs/ros2.md, "Covariances".
    public let covariances: ROSCovariances?
    private let manager: MotionManager
    /// The barometer whose readings go to `pressure` and `temperature`; nil: those topics are not published.
    private let altimeter: Altimeter?

    private struct Pending {
        var samples: [DeviceMotion] = []
        var readings: [BarometerSample] = []
        var counters = ROSCounters()
        var started = false
        /// `stop()` was called (it runs once).
        var stopRequested = false
        /// The updates have stopped and their handlers have run: the publishing thread writes what
        /// is queued and ends.
        var stopping = false
    }
    private let pending = Locked(Pending())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let handlerQueue = DispatchQueue(label: "swift-motion.ros2.handler")
    /// Called on the publishing thread with each sample once its messages are written.
    private let onPublished: (@Sendable (DeviceMotion) -> Void)?

    /// A publisher of `manager`'s device motion; checks the configuration (``ROSConfiguration/validate()``).
    /// `covariances`: fixed ones for every message; nil measures them (``covariances``).
    /// `altimeter`: its barometer's readings are published too, on `pressure` and `temperature`.
    public convenience init(
        manager: MotionManager, altimeter: Altimeter? = nil, configuration: ROSConfiguration, covariances: ROSCovariances? = nil
    ) throws(ROSError) {
        try self.init(manager: manager, altimeter: altimeter, configuration: configuration, covariances: covariances, published: nil)
    }

    /// With `published`, called on the publishing thread with each sample after its messages were
    /// written (`motionctl ros2 --echo`).
    package init(
        manager: MotionManager, altimeter: Altimeter?, configuration: ROSConfiguration, covariances: ROSCovariances?,
        published: (@Sendable (DeviceMotion) -> Void)?
    ) throws(ROSError) {
        try configuration.validate()
        self.manager = manager
        self.altimeter = altimeter?.readingRate == nil ? nil : altimeter
        self.configuration = configuration
        self.covariances = covariances
        self.onPublished = published
    }

    deinit { stop() }

    /// What has been published and dropped so far.
    public var counters: ROSCounters { pending.withLock { $0.counters } }

    /// Joins the DDS domain, creates the topics and writers (or throws why Cyclone cannot), then
    /// starts the device-motion updates at ``ROSConfiguration/rate``.
    public func start() throws(ROSError) {
        guard pending.withLock({ state in
            defer { state.started = true }
            return !state.started
        }) else { throw .alreadyStarted }
        let writers: DDSWriters
        do throws(ROSError) {
            writers = try DDSWriters(configuration, magnetometer: manager.isMagnetometerAvailable, barometer: altimeter != nil)
        } catch {
            pending.withLock { $0.started = false }
            throw error
        }
        let clock = ROSStampClock.measured()
        let thread = Thread { [self] in publishLoop(writers, clock: clock) }
        thread.name = "swift-motion.ros2"
        thread.start()
        manager.deviceMotionUpdateInterval = 1 / configuration.rate
        let frame: AttitudeReferenceFrame = manager.isMagnetometerAvailable ? .xMagneticNorthZVertical : .xArbitraryZVertical
        manager.startDeviceMotionUpdates(using: frame, to: handlerQueue) { [weak self] motion, _ in
            guard let self, let motion else { return }
            enqueue(motion)
        }
        altimeter?.startReadings(to: handlerQueue) { [weak self] reading, _ in
            guard let self, let reading else { return }
            enqueue(reading)
        }
    }

    /// Stops: the updates stop, what is queued is written, the participant leaves the domain.
    /// Waits for the publishing thread (bounded: a write never waits for a reader). Again: nothing.
    public func stop() {
        let wasRunning = pending.withLock { state in
            defer { state.stopRequested = true }
            return state.started && !state.stopRequested
        }
        guard wasRunning else { return }
        manager.stopDeviceMotionUpdates()
        altimeter?.stopReadings()
        // Every sample handed to a handler before the updates stopped is queued (and counted)
        // before the thread is told to end: marked stopping first, a sample the sampler counted
        // sampled could reach the handler after it and be neither published nor counted dropped.
        handlerQueue.sync {}
        pending.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
    }

    // MARK: The handler (on handlerQueue): enqueue, never wait.

    private func enqueue(_ motion: DeviceMotion) {
        enqueue(motion, into: \.samples, counted: \.samples, dropped: \.dropped)
    }

    private func enqueue(_ reading: BarometerSample) {
        enqueue(reading, into: \.readings, counted: \.barometerReadings, dropped: \.droppedBarometerReadings)
    }

    /// Puts `item` in its bounded queue (or counts it dropped when full), counts it, wakes the thread.
    private func enqueue<Item>(
        _ item: Item, into queue: WritableKeyPath<Pending, [Item]>, counted: WritableKeyPath<ROSCounters, Int>,
        dropped: WritableKeyPath<ROSCounters, [ROSDropReason: Int]>
    ) {
        pending.withLock { state in
            state.counters[keyPath: counted] += 1
            if state.stopping {
                // After the updates stopped (not expected): counted, never silently gone.
                state.counters[keyPath: dropped][.stopped, default: 0] += 1
            } else if state[keyPath: queue].count >= configuration.queueCapacity {
                state.counters[keyPath: dropped][.queueFull, default: 0] += 1
            } else {
                state[keyPath: queue].append(item)
            }
        }
        wake.signal()
    }

    // MARK: The publishing thread

    private func publishLoop(_ writers: DDSWriters, clock: ROSStampClock) {
        var batch: [DeviceMotion] = []
        var readings: [BarometerSample] = []
        var current = covariances ?? ROSCovariances()
        var uncertainty = ROSUncertainty(windowLength: Int(configuration.rate.rounded()))
        while true {
            wake.wait()
            let stopping = pending.withLock { state in
                swap(&batch, &state.samples)
                swap(&readings, &state.readings)
                return state.stopping
            }
            var pressures = 0, pressureFailures = 0
            for reading in readings {
                if writers.write(pressure: reading.pressure, temperature: reading.temperature, stamp: clock.stamp(monotonic: reading.timestamp)) {
                    pressures += 1
                } else {
                    pressureFailures += 1
                }
            }
            readings.removeAll(keepingCapacity: true)
            var published = 0, failed = 0
            for motion in batch {
                let values = ROSImuValues(motion, clock: clock)
                if covariances == nil {
                    uncertainty.update(&current, values: values, accuracy: motion.magneticField.accuracy, hasHeading: motion.heading >= 0)
                }
                if writers.write(values, covariances: current) {
                    published += 1
                    onPublished?(motion)
                } else {
                    failed += 1
                }
            }
            batch.removeAll(keepingCapacity: true)
            pending.withLock { state in
                state.counters.published += published
                if failed > 0 { state.counters.dropped[.writeFailed, default: 0] += failed }
                state.counters.publishedBarometerReadings += pressures
                if pressureFailures > 0 { state.counters.droppedBarometerReadings[.writeFailed, default: 0] += pressureFailures }
            }
            if stopping {
                pending.withLock { state in
                    if !state.samples.isEmpty { state.counters.dropped[.stopped, default: 0] += state.samples.count }
                    if !state.readings.isEmpty { state.counters.droppedBarometerReadings[.stopped, default: 0] += state.readings.count }
                    state.samples.removeAll()
                    state.readings.removeAll()
                }
                finished.signal()
                return
            }
        }
    }
}
