import I2C
import IIO

/// What can go wrong for a motion consumer; delivered to handlers and thrown by start calls.
/// Each case keeps its cause and says what a person can do.
public enum MotionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No supported IMU answered where the board says it sits.
    case deviceNotFound(String)
    /// A transfer failed (after retries within the sample period). The bus error is kept.
    case bus(I2CError)
    /// The chip lost its configuration (power glitch, brown-out) and was initialised again.
    case deviceReset(String)
    /// The device stopped answering; updates resume by themselves when it answers again.
    case deviceUnavailable(I2CError)
    /// A chip-level failure (identity, unsupported setting, self-test).
    case sensor(String)
    /// A stored calibration could not be used (a damaged file, or one from a newer version): the
    /// detail names the file and what to do (clear it and calibrate that sensor again).
    case calibrationNeeded(String)
    /// `xTrueNorthZVertical` needs a location for the declination.
    case trueNorthNotAvailable
    /// An update interval that is not a positive number of seconds up to a day
    /// (``MotionManager/maximumUpdateInterval``).
    case invalidInterval(Double)
    /// The board has no such sensor (e.g. no magnetometer).
    case sensorNotAvailable(String)
    /// Reading a Linux IIO device failed; the IIO error is kept. A removed device
    /// (`IIOError.Kind.deviceRemoved`) is read again by itself when it returns.
    case iio(IIOError)

    public var description: String {
        switch self {
        case .deviceNotFound(let detail): "device not found: \(detail)"
        case .bus(let error): "bus error: \(error)"
        case .deviceReset(let detail): "device reset: \(detail); it was configured again"
        case .deviceUnavailable(let error): "device unavailable: \(error); updates resume when it answers again"
        case .sensor(let detail): "sensor error: \(detail)"
        case .calibrationNeeded(let detail): "calibration needed: \(detail)"
        case .trueNorthNotAvailable:
            "true north is not available without a location: set MotionManager.location (latitude, longitude) first"
        case .invalidInterval(let value): "invalid update interval \(value) s: give a positive number of seconds up to 86400 (a day), e.g. 0.01 for 100 Hz"
        case .sensorNotAvailable(let name): "no \(name) on this board"
        case .iio(let error): "IIO device error: \(error)"
        }
    }
}
