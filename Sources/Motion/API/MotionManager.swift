import Locking
import Dispatch
import Foundation
import Fusion
import Logging

/// The entry point, modelled on Core Motion's `CMMotionManager`: availability, update intervals,
/// push updates to a handler on your queue, pull updates through the latest-value properties,
/// and `AsyncSequence` updates.
///
/// Managers that use the same device share one sampler (one bus reader per device); each
/// manager's updates run at their own interval. Handlers never run on the main queue unless you
/// pass it, and never on the sampler's queue. Releasing a manager stops its updates.
public final class MotionManager: Sendable {
    let hub: SensorHub
    static let logger = Logger(label: "swift-motion")

    /// This library's version (`motionctl --version` prints it).
    public static let version = "0.2.0"

    /// The fastest update the timer path delivers: 100 Hz. Shorter intervals (up to the chip's
    /// output data rate) are served from the chip's FIFO, timed by the chip's own clock.
    public static let minimumUpdateInterval = 0.01
    /// The longest update interval accepted: one day (seconds). Longer ones are refused as
    /// ``MotionError/invalidInterval(_:)`` (the sampler's timer cannot represent them).
    public static let maximumUpdateInterval = 86_400.0

    let accelerometerChannel: UpdateChannel<AccelerometerData>
    let gyroChannel: UpdateChannel<GyroData>
    let magnetometerChannel: UpdateChannel<MagnetometerData>
    let deviceMotionChannel: UpdateChannel<DeviceMotion>
    let sensorChannel: UpdateChannel<SensorData>
    let orientationNotifier: OrientationNotifier

    private struct Settings {
        var frame = AttitudeReferenceFrame.xArbitraryZVertical
        var location: GeographicLocation?
        var date: Double = MotionManager.decimalYear(of: Date())
        var attitudeSource = AttitudeSource.library
    }
    private let settings = Locked(Settings())
    /// The accuracy of the stored magnetometer calibration; nil when there is none.
    let magnetometerCalibrationAccuracy: MagneticFieldCalibrationAccuracy?

    let resolvedSimulation: SimulatedHardware?

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
        accelerometerChannel = UpdateChannel(interval: defaultInterval) { sample, _ in
            AccelerometerData(acceleration: sample.acceleration, timestamp: sample.timestamp)
        }
        let hasGyroscope = hub.device.hasGyroscope
        gyroChannel = UpdateChannel(interval: defaultInterval) { sample, _ in
            hasGyroscope ? GyroData(rotationRate: sample.rotationRate, timestamp: sample.timestamp) : nil
        }
        magnetometerChannel = UpdateChannel(interval: defaultInterval) { sample, _ in
            sample.magneticField.map { MagnetometerData(magneticField: $0, timestamp: sample.timestamp) }
        }
        sensorChannel = UpdateChannel(interval: defaultInterval) { sample, _ in
            SensorData(
                acceleration: sample.acceleration, rotationRate: sample.rotationRate, magneticField: sample.magneticField,
                timestamp: sample.timestamp, imuRegisters: sample.imuRegisters, magnetometerRegisters: sample.magnetometerRegisters,
                temperature: sample.temperature)
        }
        let settings = self.settings
        let hasMagnetometer = hub.device.hasMagnetometer
        deviceMotionChannel = UpdateChannel(interval: defaultInterval, needsFusion: true) { [settings] in
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
        accelerometerChannel.stop(on: hub)
        gyroChannel.stop(on: hub)
        magnetometerChannel.stop(on: hub)
        deviceMotionChannel.stop(on: hub)
        sensorChannel.stop(on: hub)
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
        get { accelerometerChannel.usesFIFO }
        set {
            accelerometerChannel.usesFIFO = newValue
            gyroChannel.usesFIFO = newValue
            magnetometerChannel.usesFIFO = newValue
            deviceMotionChannel.usesFIFO = newValue
            sensorChannel.usesFIFO = newValue
        }
    }

    /// The shortest interval this device can deliver: one sample period of the chip's FIFO, or
    /// ``minimumUpdateInterval`` for a chip without one.
    public var shortestUpdateInterval: Double { hub.minimumInterval }

    /// Clamps an interval the way every `…UpdateInterval` setter does: at least
    /// ``shortestUpdateInterval``; a value that is not a positive number of seconds up to
    /// ``maximumUpdateInterval`` is refused with a log line and the old value kept.
    func clamped(_ interval: Double, keeping old: Double) -> Double {
        guard Self.isValidInterval(interval) else {
            Self.logger.warning("ignoring update interval \(interval) s: \(MotionError.invalidInterval(interval))")
            return old
        }
        return max(interval, hub.minimumInterval)
    }

    func validatedStreamInterval(_ interval: Double) throws(MotionError) -> Double {
        guard Self.isValidInterval(interval) else { throw .invalidInterval(interval) }
        return max(interval, hub.minimumInterval)
    }

    static func isValidInterval(_ interval: Double) -> Bool {
        interval > 0 && interval <= maximumUpdateInterval   // false for NaN too
    }

    // MARK: - Accelerometer

    /// Always true: every supported device has an accelerometer.
    public var isAccelerometerAvailable: Bool { true }
    /// True between a start and the matching stop of accelerometer updates.
    public var isAccelerometerActive: Bool { accelerometerChannel.isActive }
    /// Seconds between updates; takes effect at the next start. Clamped to the device's limits.
    public var accelerometerUpdateInterval: Double {
        get { accelerometerChannel.interval }
        set { accelerometerChannel.interval = clamped(newValue, keeping: accelerometerChannel.interval) }
    }
    /// The latest reading (pull); nil until the first sample after a start.
    public var accelerometerData: AccelerometerData? { accelerometerChannel.latest }
    /// Starts pull updates: read ``accelerometerData`` when you need it.
    public func startAccelerometerUpdates() { accelerometerChannel.start(on: hub, target: nil, handler: nil) }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startAccelerometerUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (AccelerometerData?, MotionError?) -> Void) {
        accelerometerChannel.start(on: hub, target: .dispatch(queue), handler: handler)
    }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startAccelerometerUpdates(to queue: OperationQueue, withHandler handler: @escaping @Sendable (AccelerometerData?, MotionError?) -> Void) {
        accelerometerChannel.start(on: hub, target: .operation(queue), handler: handler)
    }
    /// Stops accelerometer updates; no handler runs after it returns.
    public func stopAccelerometerUpdates() { accelerometerChannel.stop(on: hub) }
    /// Readings every `interval` seconds until the consumer stops iterating.
    public func accelerometerUpdates(interval: Double = 0.01) throws(MotionError) -> AsyncStream<AccelerometerData> {
        accelerometerChannel.stream(on: hub, interval: try validatedStreamInterval(interval))
    }

    // MARK: - Gyroscope

    /// Always true: every supported device has a gyroscope.
    public var isGyroAvailable: Bool { hub.device.hasGyroscope }
    /// True between a start and the matching stop of gyroscope updates.
    public var isGyroActive: Bool { gyroChannel.isActive }
    /// Seconds between updates; takes effect at the next start. Clamped to the device's limits.
    public var gyroUpdateInterval: Double {
        get { gyroChannel.interval }
        set { gyroChannel.interval = clamped(newValue, keeping: gyroChannel.interval) }
    }
    /// The latest reading (pull, rad/s); nil until the first sample after a start.
    public var gyroData: GyroData? { gyroChannel.latest }
    /// Starts pull updates: read ``gyroData`` when you need it.
    public func startGyroUpdates() { gyroChannel.start(on: hub, target: nil, handler: nil) }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startGyroUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (GyroData?, MotionError?) -> Void) {
        gyroChannel.start(on: hub, target: .dispatch(queue), handler: handler)
    }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startGyroUpdates(to queue: OperationQueue, withHandler handler: @escaping @Sendable (GyroData?, MotionError?) -> Void) {
        gyroChannel.start(on: hub, target: .operation(queue), handler: handler)
    }
    /// Stops gyroscope updates; no handler runs after it returns.
    public func stopGyroUpdates() { gyroChannel.stop(on: hub) }
    /// Readings every `interval` seconds until the consumer stops iterating.
    public func gyroUpdates(interval: Double = 0.01) throws(MotionError) -> AsyncStream<GyroData> {
        gyroChannel.stream(on: hub, interval: try validatedStreamInterval(interval))
    }

    // MARK: - Magnetometer

    /// True when the board has a magnetometer.
    public var isMagnetometerAvailable: Bool { hub.device.hasMagnetometer }
    /// True between a start and the matching stop of magnetometer updates.
    public var isMagnetometerActive: Bool { magnetometerChannel.isActive }
    /// Seconds between updates; takes effect at the next start. Clamped to the device's limits.
    public var magnetometerUpdateInterval: Double {
        get { magnetometerChannel.interval }
        set { magnetometerChannel.interval = clamped(newValue, keeping: magnetometerChannel.interval) }
    }
    /// The latest reading (pull, µT, uncalibrated); nil until the first sample after a start, and
    /// always nil without a magnetometer.
    public var magnetometerData: MagnetometerData? { magnetometerChannel.latest }
    /// Starts pull updates: read ``magnetometerData`` when you need it.
    public func startMagnetometerUpdates() { magnetometerChannel.start(on: hub, target: nil, handler: nil) }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startMagnetometerUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (MagnetometerData?, MotionError?) -> Void) {
        magnetometerChannel.start(on: hub, target: .dispatch(queue), handler: handler)
    }
    /// Starts push updates: `handler` runs on `queue` with a reading or an error.
    public func startMagnetometerUpdates(to queue: OperationQueue, withHandler handler: @escaping @Sendable (MagnetometerData?, MotionError?) -> Void) {
        magnetometerChannel.start(on: hub, target: .operation(queue), handler: handler)
    }
    /// Stops magnetometer updates; no handler runs after it returns.
    public func stopMagnetometerUpdates() { magnetometerChannel.stop(on: hub) }
    /// Readings every `interval` seconds until the consumer stops iterating.
    public func magnetometerUpdates(interval: Double = 0.01) throws(MotionError) -> AsyncStream<MagnetometerData> {
        magnetometerChannel.stream(on: hub, interval: try validatedStreamInterval(interval))
    }
}

// MARK: - All sensors together

extension MotionManager {
    /// True between a start and the matching stop of all-sensor updates.
    public var isSensorActive: Bool { sensorChannel.isActive }
    /// Seconds between updates; takes effect at the next start. Clamped to the device's limits.
    public var sensorUpdateInterval: Double {
        get { sensorChannel.interval }
        set { sensorChannel.interval = clamped(newValue, keeping: sensorChannel.interval) }
    }
    /// The latest readings of every sensor (pull); nil until the first sample after a start.
    public var sensorData: SensorData? { sensorChannel.latest }
    /// Starts updates of every sensor read together at each tick; `handler` runs on `queue`.
    public func startSensorUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (SensorData?, MotionError?) -> Void) {
        sensorChannel.start(on: hub, target: .dispatch(queue), handler: handler)
    }
    /// Stops all-sensor updates; no handler runs after it returns.
    public func stopSensorUpdates() { sensorChannel.stop(on: hub) }
    /// Readings of every sensor every `interval` seconds until the consumer stops iterating.
    public func sensorUpdates(interval: Double = 0.01) throws(MotionError) -> AsyncStream<SensorData> {
        sensorChannel.stream(on: hub, interval: try validatedStreamInterval(interval))
    }
}

// MARK: - Device motion

extension MotionManager {
    /// Always true: attitude from the accelerometer and gyroscope needs no magnetometer (the
    /// north and corrected frames do: see ``availableAttitudeReferenceFrames()``).
    public var isDeviceMotionAvailable: Bool { true }
    /// True between a start and the matching stop of device-motion updates.
    public var isDeviceMotionActive: Bool { deviceMotionChannel.isActive }
    /// Seconds between updates; takes effect at the next start. Clamped to the device's limits.
    public var deviceMotionUpdateInterval: Double {
        get { deviceMotionChannel.interval }
        set { deviceMotionChannel.interval = clamped(newValue, keeping: deviceMotionChannel.interval) }
    }
    /// The latest fused motion (pull); nil until the first sample after a start.
    public var deviceMotion: DeviceMotion? { deviceMotionChannel.latest }

    /// Where the device is, for ``AttitudeReferenceFrame/xTrueNorthZVertical``; the magnetic
    /// declination there comes from the World Magnetic Model 2025 at today's date.
    public var location: GeographicLocation? {
        get { settings.withLock { $0.location } }
        set { settings.withLock { $0.location = newValue } }
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

    /// The frames this device can give attitudes in: the two arbitrary ones always, the north
    /// ones with a magnetometer (true north also needs ``location``).
    public func availableAttitudeReferenceFrames() -> [AttitudeReferenceFrame] {
        guard isMagnetometerAvailable else { return [.xArbitraryZVertical] }
        return [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical, .xTrueNorthZVertical]
    }

    /// Checks that `frame` can be given, and remembers it for the next start.
    private func prepare(_ frame: AttitudeReferenceFrame) throws(MotionError) {
        if frame != .xArbitraryZVertical, !isMagnetometerAvailable { throw .sensorNotAvailable("magnetometer") }
        if frame == .xTrueNorthZVertical, location == nil { throw .trueNorthNotAvailable }
        settings.withLock { $0.frame = frame }
    }

    /// Starts pull updates in `frame`: read ``deviceMotion`` when you need it.
    public func startDeviceMotionUpdates(using frame: AttitudeReferenceFrame = .xArbitraryZVertical) throws(MotionError) {
        try prepare(frame)
        deviceMotionChannel.start(on: hub, target: nil, handler: nil)
    }

    /// Starts push updates in `frame`: `handler` runs on `queue`. A frame this device cannot give
    /// (no magnetometer; true north without ``location``) is reported to the handler, once.
    public func startDeviceMotionUpdates(
        using frame: AttitudeReferenceFrame = .xArbitraryZVertical, to queue: DispatchQueue,
        withHandler handler: @escaping @Sendable (DeviceMotion?, MotionError?) -> Void
    ) {
        startDeviceMotion(frame, .dispatch(queue), handler)
    }

    /// Starts push updates in `frame`: `handler` runs on `queue` (see the `DispatchQueue` form).
    public func startDeviceMotionUpdates(
        using frame: AttitudeReferenceFrame = .xArbitraryZVertical, to queue: OperationQueue,
        withHandler handler: @escaping @Sendable (DeviceMotion?, MotionError?) -> Void
    ) {
        startDeviceMotion(frame, .operation(queue), handler)
    }

    private func startDeviceMotion(
        _ frame: AttitudeReferenceFrame, _ target: DeliveryTarget, _ handler: @escaping @Sendable (DeviceMotion?, MotionError?) -> Void
    ) {
        do {
            try prepare(frame)
        } catch {
            target.async { handler(nil, error) }
            return
        }
        deviceMotionChannel.start(on: hub, target: target, handler: handler)
    }

    /// Stops device-motion updates; no handler runs after it returns.
    public func stopDeviceMotionUpdates() { deviceMotionChannel.stop(on: hub) }

    /// Fused motion every `interval` seconds in `frame` until the consumer stops iterating.
    public func deviceMotionUpdates(
        using frame: AttitudeReferenceFrame = .xArbitraryZVertical, interval: Double = 0.01
    ) throws(MotionError) -> AsyncStream<DeviceMotion> {
        let interval = try validatedStreamInterval(interval)
        try prepare(frame)
        return deviceMotionChannel.stream(on: hub, interval: interval)
    }
}
