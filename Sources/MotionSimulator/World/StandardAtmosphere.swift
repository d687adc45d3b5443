import Foundation

/// The ICAO standard atmosphere's troposphere (ICAO Doc 7488/3, 1993; the same as the ISO 2533
/// ISA): sea level 101325 Pa and 288.15 K, lapse rate 0.0065 K/m, valid below 11 km.
package enum StandardAtmosphere {
    /// Sea-level pressure, Pa (ICAO Doc 7488).
    package static let seaLevelPressure = 101_325.0
    /// Sea-level temperature, K.
    static let seaLevelTemperature = 288.15
    /// Temperature lapse rate, K/m.
    static let lapseRate = 0.0065
    /// g₀ M / (R L): 9.80665 × 0.0289644 / (8.31432 × 0.0065) = 5.25588 (Doc 7488's constants).
    static let exponent = 5.25588

    /// Pressure at a geopotential altitude (m) above the level where it is `seaLevel` Pa.
    package static func pressure(altitude: Double, seaLevel: Double = seaLevelPressure) -> Double {
        seaLevel * pow(1 - lapseRate * altitude / seaLevelTemperature, exponent)
    }

    /// The inverse: the altitude (m) where the pressure is `pressure` Pa.
    package static func altitude(pressure: Double, seaLevel: Double = seaLevelPressure) -> Double {
        seaLevelTemperature / lapseRate * (1 - pow(pressure / seaLevel, 1 / exponent))
    }
}
