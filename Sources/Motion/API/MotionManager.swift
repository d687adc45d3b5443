import Locking
import Dispatch
import Foundation
import FieldCalibration
import Fusion
import Logging
import MotionSimulator

/// The entry point, modelled on Core Motion's `CMMotionManager`: availability, update intervals,
/// push updates to a handler on your queue, pull updates through the latest-value properties,
/// and `AsyncSequence` updates.
///
/// Managers that use the same device share one sampler (one bus reader per device); each
/// manager's updates run at their own interval. Handlers never run on the main queue unless you
/// pass it, and never on the sampler's queue. Releasing a manager stops its updates.
public final class MotionManager: Sendable {
    let hub: SensorHub

    /// Where this library logs (which board it chose and why, an update interval it refused):
    /// nowhere until the application sets it. The library never writes to standard output or
    /// standard error on its own; to see its lines, hand it a logger of your logging system:
    /// `MotionManager.logger = Logger(label: "swift-motion")` (after `LoggingSystem.bootstrap(…)`,
    /// or with swift-log's default handler, which prints `.info` and above on standard error).
    public static var logger: Logger {
        get { Library.logger }
        set { Library.logger = newValue }
    }

    /// This library's version (`motionctl --version` prints it).
    public static let version = "0.2.0"

    /// The fastest update the timer path delivers: 100 Hz. Shorter intervals (up to the chip's
    /// output data rate) are served from the chip's FIFO, timed by the chip's own clock.
    public static let minimumUpdateInterval = Library.minimumUpdateInterval
    /// The longest update interval accepted: one day (seconds). Longer ones are refused as
    /// ``MotionError/invalidInterval(_:)`` (the sampler's timer cannot represent them).
    public static let maximumUpdateInterval = Library.maximumUpdateInterval

    let accelerometer: SensorUpdates<AccelerometerData>
    let gyro: SensorUpdates<GyroData>
    let magnetometer: SensorUpdates<MagnetometerData>
    let deviceMotionUpdates: SensorUpdates<DeviceMotionValue>
    let sensors: SensorUpdates<SensorData>
    let orientationNotifier: OrientationNotifier

    private struct Settings {
        var frame = AttitudeReferenceFrame.xArbitraryZVertical
        var location: GeographicLocation?
        var date: Double = MotionManager.decimalYear(of: Date())
        var attitudeSource = AttitudeSource.library
        var showsDeviceMovementDisplay = false
    }
    private let settings = Locked(Settings())
    /// The latest error any of this manager's updates met (``lastError``).
    private let errors = Locked<MotionError?>(nil)
    /// The accuracy of the stored magnetometer calibration; nil when there is none.
    let magnetometerCalibrationAccuracy: MagneticFieldCalibrationAccuracy?

    /// The simulated hardware behind this manager, nil on a real board (`MotionSimulation`'s
    /// `simulatedHardware`).
    package let resolvedSimulation: SimulatedHardware?

    convenience init(resolved: ResolvedSource) {
        self.init(hub: resolved.hub, magnetometerCalibrationAccuracy: resolved.magnetometerAccuracy, simulated: resolved.simulated)
    }

    init(
        hub: SensorHub, magnetometerCalibrationAccuracy: MagneticFieldCalibrationAccuracy? = nil,
        orientation: OrientationClassifier.Configuration = OrientationClassifier.Configuration(),
        simulated: SimulatedHardware? = nil
    ) {
        self.hub = hub
        self.resolvedSimulation = simulated
        self.orientationNotifier = OrientationNotifier(configuration: orientation)
        self.magnetometerCalibrationAccuracy = magnetometerCalibrationAccuracy
        let defaultInterval = max(Self.minimumUpdateInterval, hub.minimumInterval)
        let errors = self.errors
        accelerometer = SensorUpdates(hub: hub, interval: defaultInterval, sensors: .imu, errors: errors) { sample, _ in
            AccelerometerData(acceleration: sample.acceleration, timestamp: sample.timestamp)
        }
        let hasGyroscope = hub.device.hasGyroscope
        gyro = SensorUpdates(hub: hub, interval: defaultInterval, sensors: .imu, errors: errors) { sample, _ in
            hasGyroscope ? GyroData(rotationRate: sample.rotationRate, timestamp: sample.timestamp) : nil
        }
        magnetometer = SensorUpdates(hub: hub, interval: defaultInterval, sensors: [.imu, .magnetometer], errors: errors) { sample, _ in
            sample.magneticField.map { MagnetometerData(magneticField: $0, timestamp: sample.timestamp) }
        }
        sensors = SensorUpdates(hub: hub, interval: defaultInterval, sensors: [.imu, .magnetometer], errors: errors) { sample, _ in
            SensorData(
                acceleration: sample.acceleration, rotationRate: sample.rotationRate, magneticField: sample.magneticField,
                timestamp: sample.timestamp, imuRegisters: sample.imuRegisters, magnetometerRegisters: sample.magnetometerRegisters,
                temperature: sample.temperature)
        }
        let settings = self.settings
        let hasMagnetometer = hub.device.hasMagnetometer
        deviceMotionUpdates = SensorUpdates(
            hub: hub, interval: defaultInterval, sensors: [.imu, .magnetometer], needsFusion: true, errors: errors) { [settings] in
            let current = settings.withLock { $0 }
            let declination = current.location.map {
                WorldMagneticModel.declination(latitude: $0.latitude, longitude: $0.longitude, altitudeKm: $0.altitudeKm, date: current.date)
            } ?? 0
            let extractor = DeviceMotionExtractor(
                frame: current.frame, declination: declination, hasMagnetometer: hasMagnetometer,
                calibrationAccuracy: magnetometerCalibrationAccuracy, attitudeSource: current.attitudeSource)
            return { sample, fused in extractor(sample, fused) }
        }
    }

    deinit {
        for updates in allUpdates { updates.stop() }
        while orientationNotifier.isGenerating { orientationNotifier.end(hub: hub) }
    }

    /// A date as a decimal year (2026.5 is about July 2026), for the World Magnetic Model.
    static func decimalYear(of date: Date) -> Double {
        2001 + date.timeIntervalSinceReferenceDate / (365.2425 * 86400)
    }

    /// What the sampler of this manager's device has done so far (shared with other managers of
    /// the same device).
    public var counters: SamplerCounters { hub.counters }

    /// The device this manager reads, e.g. "LSM6DSOX at 0x6A + LIS3MDL at 0x1C on /dev/i2c-1".
    public var deviceName: String { hub.device.name }

    /// Read the chip's FIFO even at intervals the timer could serve (from the next start on):
    /// samples are then timed by the chip's own clock, immune to scheduling delays, at the cost
    /// of arriving in small batches. Ignored for a chip without a FIFO.
    public var usesChipFIFO: Bool {
        get { accelerometer.usesFIFO }
        set { for updates in allUpdates { updates.usesFIFO = newValue } }
    }

    /// Every kind of update this manager has, for what applies to all of them.
    private var allUpdates: [any SensorUpdatesControl] { [accelerometer, gyro, magnetometer, deviceMotionUpdates, sensors] }

    /// Blocks until none of this manager's handlers is running. A `stop…Updates()` never waits
    /// for a handler that is running (so that it cannot deadlock with one); call this after it
    /// where you must know that the last handler has ended: before releasing what the handlers
    /// use, at shutdown, in tests. Handlers of updates still active may start again afterwards.
    ///
    /// Never call it where a running handler may wait for you: from the main thread when a
    /// handler hands its result over with `DispatchQueue.main.sync` (wait on another thread, then
    /// come back to the main queue), or from a serial queue a handler `sync`s onto — that waits
    /// for ever. From inside a handler it does not wait for that handler (it cannot wait for
    /// itself); it does wait for handlers of the manager's other updates.
    public func waitUntilHandlersFinish() {
        for updates in allUpdates { updates.waitUntilHandlersFinish() }
    }

    /// The latest error reported to any of this manager's updates, pushed or pulled: a start
    /// that could not be honoured (``MotionError/trueNorthNotAvailable``, a reference frame
    /// without a magnetometer) or a fault met while sampling (bus errors, a device that reset or
    /// vanished: updates resume by themselves). Nil until the first. Pull updates have no
    /// handler to tell: when ``deviceMotion`` stays nil, this says why.
    public var lastError: MotionError? { errors.withLock { $0 } }

    /// The shortest interval this device can deliver: one sample period of the chip's FIFO, or
    /// ``minimumUpdateInterval`` for a chip without one.
    public var shortestUpdateInterval: Double { hub.minimumInterval }

    // MARK: - Accelerometer (each sensor's members forward to its `SensorUpdates`)

    /// Always true: every supported device has an accelerometer.
    public var isAccelerometerAvailable: Bool { true }
    /// True between a start and the matching stop of accelerometer updates.
    public var isAccelerometerActive: Bool { accelerometer.isActive }
    /// Seconds between updates, from the next start: at least ``shortestUpdateInterval``; an invalid one is ignored.
    public var accelerometerUpdateInterval: Double { get { accelerometer.interval } set { accelerometer.interval = newValue } }
    /// The latest reading (pull); nil until the first sample after a start.
    public var accelerometerData: AccelerometerData? { accelerometer.latest }
    /// Starts pull updates: read ``accelerometerData`` when you need it.
    public func startAccelerometerUpdates() { accelerometer.start(nil, nil) }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error. (Disfavoured
    /// against the `OperationQueue` form, Core Motion's, so that `to: .main` means `OperationQueue.main`.)
    @_disfavoredOverload
    public func startAccelerometerUpdates(to queue: DispatchQueue, withHandler handler: @escaping AccelerometerHandler) {
        accelerometer.start(.dispatch(queue), CallerHandler(handler).sendable)
    }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startAccelerometerUpdates(to queue: OperationQueue, withHandler handler: @escaping AccelerometerHandler) {
        accelerometer.start(.operation(queue), CallerHandler(handler).sendable)
    }
    /// Stops accelerometer updates: no handler starts after it returns (one running may finish;
    /// see ``waitUntilHandlersFinish()``). Never waits, so it is safe from any thread.
    public func stopAccelerometerUpdates() { accelerometer.stop() }
    /// Readings every `interval` seconds until the consumer stops iterating.
    public func accelerometerUpdates(interval: Double = 0.01) throws(MotionError) -> AsyncStream<AccelerometerData> {
        try accelerometer.stream(interval: interval)
    }

    // MARK: - Gyroscope

    /// True when the IMU has a gyroscope (every supported IMU does; an IIO accelerometer alone does not).
    public var isGyroAvailable: Bool { hub.device.hasGyroscope }
    /// True between a start and the matching stop of gyroscope updates.
    public var isGyroActive: Bool { gyro.isActive }
    /// Seconds between updates, from the next start: at least ``shortestUpdateInterval``; an invalid one is ignored.
    public var gyroUpdateInterval: Double { get { gyro.interval } set { gyro.interval = newValue } }
    /// The latest reading (pull, rad/s); nil until the first sample after a start.
    public var gyroData: GyroData? { gyro.latest }
    /// Starts pull updates: read ``gyroData`` when you need it.
    public func startGyroUpdates() { gyro.start(nil, nil) }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error. (Disfavoured
    /// against the `OperationQueue` form, Core Motion's, so that `to: .main` means `OperationQueue.main`.)
    @_disfavoredOverload
    public func startGyroUpdates(to queue: DispatchQueue, withHandler handler: @escaping GyroHandler) {
        gyro.start(.dispatch(queue), CallerHandler(handler).sendable)
    }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startGyroUpdates(to queue: OperationQueue, withHandler handler: @escaping GyroHandler) {
        gyro.start(.operation(queue), CallerHandler(handler).sendable)
    }
    /// Stops gyroscope updates: no handler starts after it returns (one running may finish;
    /// see ``waitUntilHandlersFinish()``). Never waits, so it is safe from any thread.
    public func stopGyroUpdates() { gyro.stop() }
    /// Readings every `interval` seconds until the consumer stops iterating.
    public func gyroUpdates(interval: Double = 0.01) throws(MotionError) -> AsyncStream<GyroData> {
        try gyro.stream(interval: interval)
    }

    // MARK: - Magnetometer

    /// True when the board has a magnetometer.
    public var isMagnetometerAvailable: Bool { hub.device.hasMagnetometer }
    /// True between a start and the matching stop of magnetometer updates.
    public var isMagnetometerActive: Bool { magnetometer.isActive }
    /// Seconds between updates, from the next start: at least ``shortestUpdateInterval``; an invalid one is ignored.
    public var magnetometerUpdateInterval: Double { get { magnetometer.interval } set { magnetometer.interval = newValue } }
    /// The latest reading (pull, µT, uncalibrated); nil until the first sample after a start, and
    /// always nil without a magnetometer.
    public var magnetometerData: MagnetometerData? { magnetometer.latest }
    /// Starts pull updates: read ``magnetometerData`` when you need it.
    public func startMagnetometerUpdates() { magnetometer.start(nil, nil) }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error. (Disfavoured
    /// against the `OperationQueue` form, Core Motion's, so that `to: .main` means `OperationQueue.main`.)
    @_disfavoredOverload
    public func startMagnetometerUpdates(to queue: DispatchQueue, withHandler handler: @escaping MagnetometerHandler) {
        magnetometer.start(.dispatch(queue), CallerHandler(handler).sendable)
    }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startMagnetometerUpdates(to queue: OperationQueue, withHandler handler: @escaping MagnetometerHandler) {
        magnetometer.start(.operation(queue), CallerHandler(handler).sendable)
    }
    /// Stops magnetometer updates: no handler starts after it returns (one running may finish;
    /// see ``waitUntilHandlersFinish()``). Never waits, so it is safe from any thread.
    public func stopMagnetometerUpdates() { magnetometer.stop() }
    /// Readings every `interval` seconds until the consumer stops iterating.
    public func magnetometerUpdates(interval: Double = 0.01) throws(MotionError) -> AsyncStream<MagnetometerData> {
        try magnetometer.stream(interval: interval)
    }
}

// MARK: - All sensors together

extension MotionManager {
    /// True between a start and the matching stop of all-sensor updates.
    public var isSensorActive: Bool { sensors.isActive }
    /// Seconds between updates, from the next start: at least ``shortestUpdateInterval``; an invalid one is ignored.
    public var sensorUpdateInterval: Double { get { sensors.interval } set { sensors.interval = newValue } }
    /// The latest readings of every sensor (pull); nil until the first sample after a start.
    public var sensorData: SensorData? { sensors.latest }
    /// Starts updates of every sensor read together at each tick; `handler` runs on `queue`.
    public func startSensorUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (SensorData?, MotionError?) -> Void) {
        sensors.start(.dispatch(queue), handler)
    }
    /// Stops all-sensor updates: no handler starts after it returns (one running may finish;
    /// see ``waitUntilHandlersFinish()``). Never waits, so it is safe from any thread.
    public func stopSensorUpdates() { sensors.stop() }
    /// Readings of every sensor every `interval` seconds until the consumer stops iterating.
    public func sensorUpdates(interval: Double = 0.01) throws(MotionError) -> AsyncStream<SensorData> {
        try sensors.stream(interval: interval)
    }
}

// MARK: - Device motion

extension MotionManager {
    /// True when the IMU has a gyroscope: attitude from the accelerometer and gyroscope needs no
    /// magnetometer (the north and corrected frames do: see ``availableAttitudeReferenceFrames()``).
    /// False for an accelerometer alone (an ADXL345, a laptop's HID accelerometer), as Core Motion
    /// answers on a device without a gyroscope: a start of device motion there is refused with
    /// ``MotionError/sensorNotAvailable(_:)`` (Core Motion's `notAvailable`).
    public var isDeviceMotionAvailable: Bool { hub.device.hasGyroscope }
    /// True between a start and the matching stop of device-motion updates.
    public var isDeviceMotionActive: Bool { deviceMotionUpdates.isActive }
    /// Seconds between updates, from the next start: at least ``shortestUpdateInterval``; an invalid one is ignored.
    public var deviceMotionUpdateInterval: Double {
        get { deviceMotionUpdates.interval }
        set { deviceMotionUpdates.interval = newValue }
    }
    /// The latest fused motion (pull); nil until the first sample after a start.
    public var deviceMotion: DeviceMotion? { deviceMotionUpdates.latest }

    /// Where the device is, for ``AttitudeReferenceFrame/xTrueNorthZVertical``; the magnetic
    /// declination there comes from the World Magnetic Model 2025 at today's date. The model's
    /// field strength and dip there become the reference of the magnetometer's background
    /// calibration (what its disturbance guards compare the field with; nil: learned from the
    /// readings).
    public var location: GeographicLocation? {
        get { settings.withLock { $0.location } }
        set {
            let date = settings.withLock { settings in
                settings.location = newValue
                return settings.date
            }
            hub.background.expect(field: newValue.map {
                WorldMagneticModel.strengthAndDip(latitude: $0.latitude, longitude: $0.longitude, altitudeKm: $0.altitudeKm, date: date)
            })
        }
    }

    /// True when the IMU chip runs its own sensor fusion: device motion then carries
    /// ``DeviceMotion/chipAttitude`` and ``attitudeSource`` can choose it.
    public var isChipAttitudeAvailable: Bool { hub.device.hasChipAttitude }

    /// Which fusion fills ``DeviceMotion/attitude`` (from the next start of device-motion
    /// updates): this library's filter (the default) or, where the IMU chip has one, the chip's
    /// own fusion. ``DeviceMotion/chipAttitude`` carries the chip's either way, for comparison.
    public var attitudeSource: AttitudeSource {
        get { settings.withLock { $0.attitudeSource } }
        set { settings.withLock { $0.attitudeSource = newValue } }
    }

    /// The frames this manager can give attitudes in now: `xArbitraryZVertical` always; with a
    /// magnetometer `xArbitraryCorrectedZVertical` and `xMagneticNorthZVertical`, and
    /// `xTrueNorthZVertical` once ``location`` is set (the declination needs it). An option set,
    /// as in Core Motion: `.contains(.xTrueNorthZVertical)` and `rawValue` read the same.
    public func availableAttitudeReferenceFrames() -> AttitudeReferenceFrame {
        guard isDeviceMotionAvailable else { return [] }
        return Self.frames(magnetometer: isMagnetometerAvailable, location: location != nil)
    }

    /// The frames the default device (the one ``init()`` opens: this machine's board, else the
    /// simulated board) can give, as Core Motion's class method answers for its device. No
    /// manager has a ``location`` here, so true north is never among them: set ``location`` on a
    /// manager and ask it (``availableAttitudeReferenceFrames()``) for that. A manager made with
    /// an explicit source: ask the manager.
    public static func availableAttitudeReferenceFrames() -> AttitudeReferenceFrame {
        frames(magnetometer: defaultDeviceHasMagnetometer(), location: false)
    }

    private static func frames(magnetometer: Bool, location: Bool) -> AttitudeReferenceFrame {
        guard magnetometer else { return [.xArbitraryZVertical] }
        return location
            ? [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical, .xTrueNorthZVertical]
            : [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical]
    }

    /// The frame of the running device-motion updates, else of the last ones, else the default
    /// `xArbitraryZVertical` (Core Motion's `attitudeReferenceFrame`). A start that was refused
    /// leaves it unchanged.
    public var attitudeReferenceFrame: AttitudeReferenceFrame { settings.withLock { $0.frame } }

    /// Core Motion shows the system's compass-calibration display when this is true. Linux has no
    /// such display: here it asks to be *told* instead — a start of device motion in a frame that
    /// uses the magnetometer while its calibration is below ``MagneticFieldCalibrationAccuracy/medium``
    /// (nothing stored, and the background calibration has not learned the offset yet) reports
    /// ``MotionError/deviceRequiresMovement`` to the handler (and ``lastError``) once, and the
    /// updates go on. Show your own prompt ("turn the board a few times"); take it down when
    /// ``isDeviceMovementNeeded`` turns false (the accuracy of ``DeviceMotion/magneticField`` has
    /// reached medium), as Core Motion takes its display down. False by default (nothing reported).
    public var showsDeviceMovementDisplay: Bool {
        get { settings.withLock { $0.showsDeviceMovementDisplay } }
        set { settings.withLock { $0.showsDeviceMovementDisplay = newValue } }
    }

    /// Whether the magnetometer still needs the device to be turned: its calibration (stored, or
    /// learned in the background during device-motion updates from ordinary handling) is below
    /// ``MagneticFieldCalibrationAccuracy/medium``. False without a magnetometer. No Core Motion
    /// equivalent (there the system's display goes away by itself).
    public var isDeviceMovementNeeded: Bool {
        guard hub.device.hasMagnetometer else { return false }
        return magnetometerAccuracy < .medium
    }

    /// The better of the stored calibration's accuracy and the background estimate's.
    private var magnetometerAccuracy: MagneticFieldCalibrationAccuracy {
        max(magnetometerCalibrationAccuracy ?? .uncalibrated, hub.background.accuracy)
    }

    /// The magnetometer's background calibration now (offset, σ, accuracy, why); nil before
    /// device motion first ran or without a magnetometer.
    package var backgroundCalibrationStatus: HardIronEstimator.Status? { hub.background.status }

    /// The background calibration's last save that failed (a full disk, a store that cannot be
    /// written), naming the file and the fix; nil while every save worked.
    package var backgroundCalibrationSaveError: CalibrationStoreError? { hub.background.saveError }

    /// The soft iron the background calibration fitted once the board was turned through enough
    /// directions (applied before its estimator); nil before.
    package var backgroundSoftIronFit: MagnetometerCalibration? { hub.background.softIronFit }

    /// Waits until the background calibration's saves handed over so far are written.
    package func waitForBackgroundCalibrationSaves() { hub.background.waitForSaves() }

    /// Checks that `frame` can be given, and remembers it for the next start.
    private func prepare(_ frame: AttitudeReferenceFrame) throws(MotionError) {
        guard AttitudeReferenceFrame.allCases.contains(frame) else {
            throw .sensor("the attitude reference frame \(frame) is not one frame: start device motion in one of \(AttitudeReferenceFrame.allCases.map(\.description).joined(separator: ", "))")
        }
        if !isDeviceMotionAvailable { throw .sensorNotAvailable("gyroscope") }
        if frame != .xArbitraryZVertical, !isMagnetometerAvailable { throw .sensorNotAvailable("magnetometer") }
        if frame == .xTrueNorthZVertical, location == nil { throw .trueNorthNotAvailable }
        settings.withLock { $0.frame = frame }
    }

    /// Starts pull updates in `frame`: read ``deviceMotion`` when you need it. As in Core Motion
    /// it does not throw: a frame this device cannot give (no magnetometer; true north without
    /// ``location``) leaves ``deviceMotion`` nil and says why in ``lastError``.
    public func startDeviceMotionUpdates(using frame: AttitudeReferenceFrame = .xArbitraryZVertical) {
        startDeviceMotion(frame, nil, nil)
    }

    /// Starts push updates in `frame`: `handler` runs on `queue`. A frame this device cannot give
    /// (no magnetometer; true north without ``location``) is reported to the handler, once, and
    /// kept in ``lastError``. (Disfavoured against the `OperationQueue` form, Core Motion's, so
    /// that `to: .main` means `OperationQueue.main`.)
    @_disfavoredOverload
    public func startDeviceMotionUpdates(
        using frame: AttitudeReferenceFrame = .xArbitraryZVertical, to queue: DispatchQueue,
        withHandler handler: @escaping DeviceMotionHandler
    ) {
        startDeviceMotion(frame, .dispatch(queue), CallerHandler(handler).sendable)
    }

    /// Starts push updates in `frame`: `handler` runs on `queue` (see the `DispatchQueue` form).
    public func startDeviceMotionUpdates(
        using frame: AttitudeReferenceFrame = .xArbitraryZVertical, to queue: OperationQueue,
        withHandler handler: @escaping DeviceMotionHandler
    ) {
        startDeviceMotion(frame, .operation(queue), CallerHandler(handler).sendable)
    }

    /// A start of device motion (push with a target and handler, else pull): a frame this device
    /// cannot give replaces the running updates with none, the error delivered like a sample's
    /// (so a stop right after still keeps it from the handler) and kept in ``lastError``.
    private func startDeviceMotion(
        _ frame: AttitudeReferenceFrame, _ target: DeliveryTarget?, _ handler: SensorUpdates<DeviceMotionValue>.Handler?
    ) {
        do {
            try prepare(frame)
        } catch {
            deviceMotionUpdates.refuse(target, handler, error)
            return
        }
        deviceMotionUpdates.start(target, handler)
        if frame != .xArbitraryZVertical, showsDeviceMovementDisplay, magnetometerAccuracy < .medium {
            deviceMotionUpdates.report(.deviceRequiresMovement)
        }
    }

    /// Stops device-motion updates: no handler starts after it returns (one running may finish;
    /// see ``waitUntilHandlersFinish()``). Never waits, so it is safe from any thread — the main
    /// thread while a handler waits for it (`DispatchQueue.main.sync`), inside a handler, another
    /// handler's queue.
    public func stopDeviceMotionUpdates() { deviceMotionUpdates.stop() }

    /// Fused motion every `interval` seconds in `frame` until the consumer stops iterating.
    public func deviceMotionUpdates(
        using frame: AttitudeReferenceFrame = .xArbitraryZVertical, interval: Double = 0.01
    ) throws(MotionError) -> AsyncStream<DeviceMotion> {
        let interval = try deviceMotionUpdates.validatedStreamInterval(interval)
        try prepare(frame)
        return deviceMotionUpdates.stream(validInterval: interval)
    }
}
