/// The weather over a simulated world, as a barometer feels it: the sea-level pressure (QNH) at
/// the start and a steady drift. A front moves sea-level pressure by 1–2 hPa in a few hours, which
/// a barometer reads as 8–16 m of altitude (docs/altimeter.md, Limits).
package struct Weather: Sendable, Equatable {
    /// Sea-level pressure when the script starts, Pa.
    package var seaLevelPressure: Double
    /// How fast the sea-level pressure changes, Pa per hour (negative: falling, bad weather coming).
    package var drift: Double

    package init(seaLevelPressure: Double = StandardAtmosphere.seaLevelPressure, drift: Double = 0) {
        self.seaLevelPressure = seaLevelPressure
        self.drift = drift
    }

    /// The ICAO standard sea-level pressure, not moving.
    package static let still = Weather()

    /// Sea-level pressure `scriptTime` seconds into the script, Pa.
    package func seaLevelPressure(at scriptTime: Double) -> Double {
        seaLevelPressure + drift * scriptTime / 3600
    }
}
