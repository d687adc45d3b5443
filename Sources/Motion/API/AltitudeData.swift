import Foundation

/// A change in altitude since relative-altitude updates started, and the pressure. Core Motion's
/// `CMAltitudeData`, with its `NSNumber` properties, so that iOS code reading
/// `data.relativeAltitude.doubleValue` builds unchanged.
///
/// The values are kept as `Double` and boxed when read, so that making an update allocates nothing.
public struct AltitudeData: Sendable, Equatable {
    /// Metres gained (negative: lost) since the first update after the start.
    package var relativeAltitudeMetres: Double
    /// Pa.
    package var pressurePascals: Double
    /// When the update's last reading was taken: seconds since boot on the monotonic clock.
    public var timestamp: Double

    package init(relativeAltitude metres: Double, pressure pascals: Double, timestamp: Double) {
        relativeAltitudeMetres = metres
        pressurePascals = pascals
        self.timestamp = timestamp
    }

    /// Metres gained (negative: lost) since the first update after the start: the standard
    /// atmosphere's height of the mean pressure, less that of the first update's.
    public var relativeAltitude: NSNumber { NSNumber(value: relativeAltitudeMetres) }
    /// The mean air pressure over the update's readings, kPa (Core Motion's unit).
    public var pressure: NSNumber { NSNumber(value: pressurePascals / 1000) }
}

/// An altitude above sea level, with how far to trust it. Core Motion's `CMAbsoluteAltitudeData`.
public struct AbsoluteAltitudeData: Sendable, Equatable {
    /// Metres above mean sea level: the standard atmosphere's height of the pressure below the
    /// reference's sea-level pressure (``Altimeter/altitudeReference``).
    public var altitude: Double
    /// One standard deviation of ``altitude``'s error, m: the reference's uncertainty, the
    /// chip's, and the weather's drift since the reference was given (a few metres an hour).
    public var accuracy: Double
    /// One standard deviation of the update's noise, m: how far two updates at the same height
    /// may differ.
    public var precision: Double
    /// When the update's last reading was taken: seconds since boot on the monotonic clock.
    public var timestamp: Double
}

/// Core Motion's `CMAltitudeHandler` and `CMAbsoluteAltitudeHandler`: plain closures, called on
/// the queue given, one update at a time.
public typealias AltitudeHandler = (AltitudeData?, MotionError?) -> Void
public typealias AbsoluteAltitudeHandler = (AbsoluteAltitudeData?, MotionError?) -> Void

/// Where an absolute altitude is measured from (no Core Motion equivalent: an iPhone takes it
/// from GPS; a board takes it from the application).
public enum AltitudeReference: Sendable, Equatable {
    /// None: the standard sea-level pressure, 1013.25 hPa. The weather moves the real one by
    /// ±10 hPa and more, so the altitude's accuracy is about 85 m.
    case none
    /// The local sea-level pressure (QNH, from a weather service or an airfield's METAR), hPa.
    case seaLevelPressure(hectopascals: Double)
    /// The altitude of where the board is now, m above sea level (a survey point, a map): the
    /// sea-level pressure is taken from the next update's pressure.
    case knownAltitude(metres: Double)
}

/// Core Motion's `CMAuthorizationStatus`. A board asks no one: ``Altimeter/authorizationStatus()``
/// is `.authorized` (a bus the process may not open is an error of the start instead).
public enum AuthorizationStatus: Int, Sendable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorized = 3
}
