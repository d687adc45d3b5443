import Foundation
import Fusion

/// The geomagnetic field at a place, from a model such as the World Magnetic Model.
package struct EarthField: Sendable, Equatable {
    /// Total intensity in µT.
    package var magnitude: Double
    /// Inclination (dip) in radians, positive when the field points down (northern hemisphere).
    package var inclination: Double
    /// Declination in radians, positive when magnetic north is east of true north.
    package var declination: Double

    /// Berlin, Germany (52.5° N, 13.4° E), rounded World Magnetic Model values for the early 2020s:
    /// F ≈ 49.8 µT, I ≈ 68.3° down, D ≈ +4.3° (east; it grows by about 0.15° a year).
    package static let berlin = EarthField(
        magnitude: 49.8, inclination: 68.3 * .pi / 180, declination: 4.3 * .pi / 180)

    /// The field vector in µT in the world frame (East, North, Up).
    package var vector: SIMD3<Double> {
        let horizontal = magnitude * cos(inclination)
        return SIMD3(horizontal * sin(declination), horizontal * cos(declination), -magnitude * sin(inclination))
    }
}

/// A steel desk (or any large piece of soft iron): near its surface the Earth field is distorted
/// by a constant amount; the distortion fades out smoothly above it.
package struct SteelDesk: Sendable, Equatable {
    /// Height of the desk surface in metres, world frame (z up). Scripts start at height 0.
    package var surfaceHeight: Double
    /// Up to `surfaceHeight + reach` the full distortion applies; it fades to nothing at
    /// `surfaceHeight + 2·reach`. Metres.
    package var reach: Double
    /// Induced part: the desk adds `induced · earthField` (world frame, dimensionless).
    package var induced: Matrix3
    /// Remanent part, µT, world frame.
    package var remanent: SIMD3<Double>

    package init(surfaceHeight: Double = 0, reach: Double = 0.1, induced: Matrix3, remanent: SIMD3<Double>) {
        self.surfaceHeight = surfaceHeight
        self.reach = reach
        self.induced = induced
        self.remanent = remanent
    }

    /// A typical office desk: the vertical field is enhanced by 25 %, the horizontal bent by ~10 %,
    /// plus 6 µT of remanence.
    package static let office = SteelDesk(
        induced: Matrix3(rows: SIMD3(0.08, 0.05, 0), SIMD3(-0.05, 0.1, 0), SIMD3(0, 0, 0.25)),
        remanent: SIMD3(4, -3, 3))

    /// How much of the distortion applies at height `z` (1 near the surface, 0 far above).
    func weight(atHeight z: Double) -> Double {
        1 - smootherstep((z - surfaceHeight - reach) / max(reach, 1e-9)).value
    }
}

/// A local disturbance of the magnetic field.
package enum MagneticDisturbance: Sendable, Equatable {
    /// A permanent magnet fixed in the world: `position` in metres (ENU, relative to the script's
    /// origin), `moment` in A·m² (ENU). A 6 mm neodymium cube is about 0.2 A·m².
    case magnetInWorld(position: SIMD3<Double>, moment: SIMD3<Double>)
    /// A permanent magnet carried with the device (a phone case clasp, a speaker): `position` in
    /// metres and `moment` in A·m², both in the device frame. Acts as an extra hard-iron offset.
    case magnetOnDevice(position: SIMD3<Double>, moment: SIMD3<Double>)
    /// A steel desk distorting the field near its surface.
    case steelDesk(SteelDesk)
    /// A permanent magnet (or a battery, a steel screw) attached to the device `after` seconds
    /// into the script: from then on a ``magnetOnDevice(position:moment:)``, a new hard-iron offset.
    case magnetAttached(position: SIMD3<Double>, moment: SIMD3<Double>, after: Double)
}

/// The magnetic flux density in µT of a point dipole with `moment` (A·m²) at offset `r` (metres)
/// from the dipole: B = μ₀/4π · (3 r̂ (m·r̂) − m) / |r|³, with μ₀/4π = 10⁻⁷ T·m/A = 0.1 µT·m³/(A·m²).
/// Closer than 1 mm the field is evaluated at 1 mm (the point model breaks down there anyway).
func dipoleField(moment: SIMD3<Double>, offset r: SIMD3<Double>) -> SIMD3<Double> {
    let distance = max(length(r), 1e-3)
    let direction = length(r) > 0 ? r / length(r) : SIMD3(0, 0, 1)
    let cube = distance * distance * distance
    return 0.1 * (3 * direction * dot(moment, direction) - moment) / cube
}
