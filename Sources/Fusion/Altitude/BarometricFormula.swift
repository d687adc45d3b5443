#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Height from air pressure by the ICAO standard atmosphere's troposphere (ICAO Doc 7488/3; the
/// same as ISO 2533): p = p₀ (1 − L h / T₀)^(g₀ M / (R L)), with T₀ 288.15 K, L 0.0065 K/m and
/// exponent 5.25588, valid below 11 km. `p₀` is the sea-level pressure: the standard 101325 Pa,
/// or the local QNH for a height above the sea. A difference of heights hardly depends on p₀
/// (0.1 % per hPa), so relative altitude needs none.
package enum BarometricFormula {
    /// The standard sea-level pressure, Pa.
    package static let standardSeaLevelPressure = 101_325.0
    static let seaLevelTemperature = 288.15
    static let lapseRate = 0.0065
    static let exponent = 5.25588

    /// Metres above the level where the pressure is `seaLevelPressure`, for a pressure in Pa.
    package static func altitude(pressure: Double, seaLevelPressure: Double = standardSeaLevelPressure) -> Double {
        seaLevelTemperature / lapseRate * (1 - pow(pressure / seaLevelPressure, 1 / exponent))
    }

    /// The pressure, Pa, `altitude` metres above the level where it is `seaLevelPressure`.
    package static func pressure(altitude: Double, seaLevelPressure: Double = standardSeaLevelPressure) -> Double {
        seaLevelPressure * pow(1 - lapseRate * altitude / seaLevelTemperature, exponent)
    }

    /// The sea-level pressure (QNH) that puts `pressure` at `altitude` metres, Pa.
    package static func seaLevelPressure(pressure: Double, altitude: Double) -> Double {
        pressure / pow(1 - lapseRate * altitude / seaLevelTemperature, exponent)
    }

    /// Metres of height per pascal near `pressure` (positive: the height falls as the pressure
    /// rises): 8.3 m per hPa at sea level, 9.3 at 1 km.
    package static func metresPerPascal(pressure: Double, seaLevelPressure: Double = standardSeaLevelPressure) -> Double {
        let ratio = pressure / seaLevelPressure
        return seaLevelTemperature / lapseRate / exponent * pow(ratio, 1 / exponent) / pressure
    }
}
