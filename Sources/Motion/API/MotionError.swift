import Foundation
import I2C
import IIO

/// What can go wrong for a motion consumer; delivered to handlers, kept in
/// ``MotionManager/lastError`` and thrown by the few calls that throw. Each case keeps its cause
/// and says what a person can do: `print(error.localizedDescription)` gives both (it is a
/// `LocalizedError`), and ``code`` is Core Motion's `CMError` code for the case
/// (`(error as NSError).code` too, in Core Motion's domain name ``errorDomain``).
public enum MotionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No supported IMU answered where the board says it sits. Core Motion: `notAvailable`.
    case deviceNotFound(String)
    /// A transfer failed (after retries within the sample period). The bus error is kept.
    /// Core Motion: `unknown` (`notAuthorized` when the bus may not be opened).
    case bus(I2CError)
    /// The chip lost its configuration (power glitch, brown-out) and was initialised again.
    /// Core Motion: `unknown`.
    case deviceReset(String)
    /// The device stopped answering; updates resume by themselves when it answers again.
    /// Core Motion: `notAvailable`.
    case deviceUnavailable(I2CError)
    /// A chip-level failure (identity, unsupported setting, self-test). Core Motion: `unknown`.
    case sensor(String)
    /// A stored calibration could not be used (a damaged file, or one from a newer version): the
    /// detail names the file and what to do (clear it and calibrate that sensor again).
    /// Core Motion: `invalidParameter`.
    case calibrationNeeded(String)
    /// `xTrueNorthZVertical` needs a location for the declination (``MotionManager/location``).
    /// Core Motion: `trueNorthNotAvailable`.
    case trueNorthNotAvailable
    /// The magnetometer's calibration is below medium, so heading and the north frames cannot be
    /// trusted until the device has been turned a few times (the background calibration learns
    /// from that) or calibrated; reported when the application asks
    /// (``MotionManager/showsDeviceMovementDisplay``), the updates go on.
    /// Core Motion: `deviceRequiresMovement`.
    case deviceRequiresMovement
    /// An update interval that is not a positive number of seconds up to a day
    /// (``MotionManager/maximumUpdateInterval``). Core Motion: `invalidParameter`.
    case invalidInterval(Double)
    /// The board has no such sensor (e.g. no magnetometer). Core Motion: `notAvailable`.
    case sensorNotAvailable(String)
    /// Reading a Linux IIO device failed; the IIO error is kept. A removed device
    /// (`IIOError.Kind.deviceRemoved`) is read again by itself when it returns.
    /// Core Motion: `unknown` (`notAuthorized` when the device may not be read).
    case iio(IIOError)

    /// Core Motion's error codes (`CMError`, in `CMErrorDomain`), with its numbers: what a
    /// program ported from Core Motion compares with. Several of this library's cases share one.
    public enum Code: Int, Sendable, CaseIterable {
        /// `CMErrorNULL`: no error (never a ``MotionError``'s code).
        case null = 100
        case deviceRequiresMovement = 101
        case trueNorthNotAvailable = 102
        case unknown = 103
        /// Motion activity (`CMMotionActivityManager`) has no counterpart here: never used.
        case motionActivityNotAvailable = 104
        case motionActivityNotAuthorized = 105
        case motionActivityNotEntitled = 106
        case invalidParameter = 107
        /// Not used: every action this library accepts is valid in every state.
        case invalidAction = 108
        case notAvailable = 109
        /// Not used: Linux has no entitlements.
        case notEntitled = 110
        case notAuthorized = 111
        /// Not used: a start that gives no data says why (``MotionManager/lastError``).
        case nilData = 112
        /// Not used.
        case size = 113
    }

    /// Core Motion's code for this error.
    public var code: Code {
        switch self {
        case .deviceNotFound, .deviceUnavailable, .sensorNotAvailable: .notAvailable
        case .bus(let error): error.kind == .permissionDenied ? .notAuthorized : .unknown
        case .iio(let error): error.kind == .permissionDenied ? .notAuthorized : .unknown
        case .deviceReset, .sensor: .unknown
        case .calibrationNeeded, .invalidInterval: .invalidParameter
        case .trueNorthNotAvailable: .trueNorthNotAvailable
        case .deviceRequiresMovement: .deviceRequiresMovement
        }
    }

    /// What happened and what to do, in one line.
    public var description: String {
        switch self {
        case .deviceNotFound(let detail): "device not found: \(detail)"
        case .bus(let error):
            "bus error: \(error)" + (error.hint == nil ? "; check the wiring, the pull-ups and the bus speed (`motionctl doctor`); the sampler retries by itself" : "")
        case .deviceReset(let detail): "device reset: \(detail); it was configured again and the updates go on (if it keeps happening, check the power supply)"
        case .deviceUnavailable(let error):
            "device unavailable: \(error); updates resume when it answers again" + (error.hint == nil ? " (check its connection and power)" : "")
        case .sensor(let detail): "sensor error: \(detail) (`motionctl selftest` checks the chip, `motionctl doctor` the setup)"
        case .calibrationNeeded(let detail): "calibration needed: \(detail)"
        case .trueNorthNotAvailable:
            "true north is not available without a location: set MotionManager.location (latitude, longitude) first, or use xMagneticNorthZVertical"
        case .deviceRequiresMovement:
            "the device requires movement: the magnetometer is not calibrated, so heading is not yet to be trusted; turn the device slowly through a figure-eight, or calibrate once with `motionctl calibrate magnetometer` (stored and applied from then on)"
        case .invalidInterval(let value): "invalid update interval \(value) s: give a positive number of seconds up to 86400 (a day), e.g. 0.01 for 100 Hz"
        case .sensorNotAvailable(let name):
            "no \(name) on this board: ask the manager (isMagnetometerAvailable, isGyroAvailable, isDeviceMotionAvailable, availableAttitudeReferenceFrames()) before starting; "
                + (name == "gyroscope"
                    ? "device motion needs one (an accelerometer alone gives accelerometer updates; tilt is their direction)"
                    : "device motion in xArbitraryZVertical needs no magnetometer")
        case .iio(let error): "IIO device error: \(error)" + (error.hint == nil ? " (`motionctl probe` lists the IIO devices and what holds them)" : "")
        }
    }
}

extension MotionError: LocalizedError {
    /// The whole ``description``: what happened and what to do (`localizedDescription` shows it,
    /// where it would otherwise be "The operation could not be completed").
    public var errorDescription: String? { description }
}

extension MotionError: CustomNSError {
    /// Core Motion's domain name, so `(error as NSError).domain` and `.code` read as they would there.
    public static var errorDomain: String { "CMErrorDomain" }
    /// ``code``'s number (Core Motion's `CMError` value).
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
}
