import Fusion

/// What an altimeter makes of one update's readings: the relative altitude since the first
/// update, and an absolute altitude with its error budget from a reference.
enum AltitudeEstimates {
    /// The chip's absolute pressure error, 1σ, Pa: the BMP280's typical ±1 hPa (BST-BMP280-DS001
    /// §1 Table 1, 950–1050 hPa, 0–40 °C), taken as the supported barometers' bound.
    static let chipAbsoluteError = 100.0
    /// The chip's relative pressure error between two times, 1σ, Pa: the BMP280's ±0.12 hPa
    /// (§1 Table 1, "relative accuracy", 950–1050 hPa at 25 °C).
    static let chipRelativeError = 12.0
    /// How far the real sea-level pressure is from the standard one, 1σ, Pa: mid-latitude
    /// mean-sea-level pressure varies by about ±10 hPa about 1013 hPa.
    static let seaLevelPressureSpread = 1000.0
    /// How fast the weather moves the pressure, 1σ, Pa per hour: half a hectopascal an hour
    /// (1.5 hPa in 3 h; the WMO's synoptic code calls a 3-hour tendency under 1 hPa steady, and
    /// a front moving through brings 1–3 hPa in 3 h). A faster front is a 2σ or 3σ error.
    static let weatherDrift = 50.0

    /// The relative altitude of `pressure` from the first update's (`reference`), m.
    static func relativeAltitude(pressure: Double, reference: Double) -> Double {
        BarometricFormula.altitude(pressure: pressure) - BarometricFormula.altitude(pressure: reference)
    }

    /// The sea-level pressure a reference gives and its 1σ error (Pa), and when it was given;
    /// for `.knownAltitude`, from `summary`'s pressure (its own error then the chip's relative one).
    struct Datum: Sendable, Equatable {
        var seaLevelPressure: Double
        var error: Double
        var time: Double?
    }

    static func datum(_ reference: AltitudeReference, summary: BarometerWindow.Summary) -> Datum {
        switch reference {
        case .none:
            return Datum(
                seaLevelPressure: BarometricFormula.standardSeaLevelPressure,
                error: (seaLevelPressureSpread * seaLevelPressureSpread + chipAbsoluteError * chipAbsoluteError).squareRoot(), time: nil)
        case .seaLevelPressure(let hectopascals):
            return Datum(seaLevelPressure: hectopascals * 100, error: chipAbsoluteError, time: summary.timestamp)
        case .knownAltitude(let metres):
            return Datum(
                seaLevelPressure: BarometricFormula.seaLevelPressure(pressure: summary.pressure, altitude: metres),
                error: chipRelativeError, time: summary.timestamp)
        }
    }

    /// The absolute altitude of `summary` from `datum`: altitude, accuracy, precision (m).
    static func absolute(_ summary: BarometerWindow.Summary, datum: Datum) -> (altitude: Double, accuracy: Double, precision: Double) {
        let slope = BarometricFormula.metresPerPascal(pressure: summary.pressure, seaLevelPressure: datum.seaLevelPressure)
        let hours = datum.time.map { max(0, summary.timestamp - $0) / 3600 } ?? 0
        let drift = weatherDrift * hours
        let error = (datum.error * datum.error + drift * drift).squareRoot()
        // The readings' own scatter, not divided by √n: a chip's IIR filter (a BMP280's at
        // coefficient 16) correlates them over about a second, so their mean is hardly less noisy.
        let precision = summary.pressureDeviation
        return (BarometricFormula.altitude(pressure: summary.pressure, seaLevelPressure: datum.seaLevelPressure),
                error * slope, precision * slope)
    }
}
