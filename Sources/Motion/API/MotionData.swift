import Fusion
import Sensors

/// One accelerometer reading. Core Motion's `CMAccelerometerData`.
public struct AccelerometerData: Sendable, Equatable {
    /// Acceleration in g, device axes (x right, y toward the top edge, z out of the screen), with
    /// Core Motion's sign: a device lying face up at rest reads `(0, 0, -1)`, standing in portrait
    /// `(0, -1, 0)`. Calibration (offset and scale) already applied when stored.
    public var acceleration: SIMD3<Double>
    /// When the sample was taken: seconds since boot on the monotonic clock.
    public var timestamp: Double
}

/// One gyroscope reading. Core Motion's `CMGyroData`.
public struct GyroData: Sendable, Equatable {
    /// Rotation rate in rad/s about the device axes, right-hand rule. The stored gyro bias
    /// calibration is removed; the filter's running bias estimate is not (see ``DeviceMotion``).
    public var rotationRate: SIMD3<Double>
    /// When the sample was taken: seconds since boot on the monotonic clock.
    public var timestamp: Double
}

/// One magnetometer reading. Core Motion's `CMMagnetometerData`.
public struct MagnetometerData: Sendable, Equatable {
    /// Magnetic flux density in µT, device axes, as the chip measures it (hard and soft iron
    /// included; ``DeviceMotion/magneticField`` is the calibrated one).
    public var magneticField: SIMD3<Double>
    /// When the sample was taken: seconds since boot on the monotonic clock.
    public var timestamp: Double
}

/// A magnetic field with the hard- and soft-iron calibration applied. Core Motion's `CMCalibratedMagneticField`.
public struct CalibratedMagneticField: Sendable, Equatable {
    /// µT, device axes.
    public var field: SIMD3<Double>
    /// How far to trust ``field``: the lower of the stored calibration's quality and the
    /// filter's view of magnetic disturbances; `.uncalibrated` without a stored calibration.
    public var accuracy: MagneticFieldCalibrationAccuracy
}

/// Every sensor read at one tick, together (no Core Motion equivalent): for recording, streaming
/// and calibration, where readings of different sensors must belong to the same instant.
public struct SensorData: Sendable, Equatable {
    /// g, Core Motion sign, device axes (as ``AccelerometerData``).
    public var acceleration: SIMD3<Double>
    /// rad/s, device axes (as ``GyroData``).
    public var rotationRate: SIMD3<Double>
    /// µT, device axes, as measured (as ``MagnetometerData``); nil without a magnetometer.
    public var magneticField: SIMD3<Double>?
    /// When the sample was taken: seconds since boot on the monotonic clock.
    public var timestamp: Double
    /// The IMU's output registers behind this sample, as read: signed counts in the chip's own
    /// axes and sign (not device axes), with the sensitivities to scale them. Nil for a device
    /// not made of chips. For recordings and diagnostics; the values above are what to use.
    package var imuRegisters: RawIMUReading? = nil
    /// The magnetometer's output registers read with this sample (chip axes, counts per µT);
    /// nil without a magnetometer or for a device not made of chips.
    package var magnetometerRegisters: RawMagneticReading? = nil
    /// The IMU's die temperature in °C, when the chip reports it with the sample.
    public var temperature: Double? = nil
}

/// Core Motion's handler types (`CMAccelerometerHandler`, …): what a push update's handler is
/// given — a value, or nil and the error that stopped it. Plain closures, as Core Motion's are: a
/// handler may capture its owner (a view controller, a model) and its main-actor state, or be a
/// method (`withHandler: self.handle`). The manager calls it only on the queue it was given, one
/// event at a time (``CallerHandler``), so what it captures is touched where the caller said.
public typealias AccelerometerHandler = (AccelerometerData?, MotionError?) -> Void
public typealias GyroHandler = (GyroData?, MotionError?) -> Void
public typealias MagnetometerHandler = (MagnetometerData?, MotionError?) -> Void
public typealias DeviceMotionHandler = (DeviceMotion?, MotionError?) -> Void

/// A handler as Core Motion takes it (not `@Sendable`), carried to the queue its caller named.
/// Unchecked: the compiler cannot see that the manager calls it only on that queue and one event
/// at a time (`Delivery`'s runs), which is what makes handing it there safe — the same contract
/// Core Motion's blocks have. A handler formed in a `@MainActor` context is the main actor's:
/// give it `.main` (the main queue), as on iOS.
struct CallerHandler<Value: Sendable>: @unchecked Sendable {
    let call: (Value?, MotionError?) -> Void

    init(_ call: @escaping (Value?, MotionError?) -> Void) { self.call = call }

    /// The handler as the sampler's channels take it.
    var sendable: @Sendable (Value?, MotionError?) -> Void { { [self] value, error in call(value, error) } }
}

// Handed out as they are (see ``ChannelValue``).
extension AccelerometerData: ChannelValue {}
extension GyroData: ChannelValue {}
extension MagnetometerData: ChannelValue {}
extension SensorData: ChannelValue {}
