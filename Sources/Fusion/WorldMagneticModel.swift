#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The World Magnetic Model 2025 (NOAA NCEI / British Geological Survey; epoch 2025.0, valid
/// 2025.0–2030.0), full degree 12: the main field from the Gauss coefficients with linear secular
/// variation, evaluated by spherical-harmonic synthesis as described in the WMM2025 technical
/// report (geodetic → geocentric, Schmidt semi-normalised associated Legendre functions, field
/// rotated back to the geodetic vertical). Used for `xTrueNorthZVertical`.
package enum WorldMagneticModel {
    /// Epoch of the coefficients (decimal year).
    package static let epoch = 2025.0
    /// Last date the model is valid for (decimal year).
    package static let validUntil = 2030.0

    /// Magnetic declination (angle from true north to magnetic north, positive east), radians.
    /// - Parameters:
    ///   - latitude: geodetic (WGS84) latitude, degrees, −90…90.
    ///   - longitude: degrees, east positive.
    ///   - altitudeKm: height above the WGS84 ellipsoid, km.
    ///   - date: decimal year (e.g. 2026.5); outside 2025–2030 the model extrapolates (less accurate).
    package static func declination(latitude: Double, longitude: Double, altitudeKm: Double = 0, date: Double) -> Double {
        let field = self.field(latitude: latitude, longitude: longitude, altitudeKm: altitudeKm, date: date)
        return atan2(field.y, field.x)
    }

    /// The field's strength (µT) and dip (radians below the horizontal, positive down: the
    /// inclination), what the background magnetometer calibration checks the field against
    /// (``HardIronEstimator/Parameters/expectedField``).
    package static func strengthAndDip(latitude: Double, longitude: Double, altitudeKm: Double = 0, date: Double) -> SIMD2<Double> {
        let field = self.field(latitude: latitude, longitude: longitude, altitudeKm: altitudeKm, date: date) / 1000
        let horizontal = (field.x * field.x + field.y * field.y).squareRoot()
        return SIMD2((field * field).sum().squareRoot(), atan2(field.z, horizontal))
    }

    /// Main field in nT: x north, y east, z down (geodetic frame).
    package static func field(latitude: Double, longitude: Double, altitudeKm: Double = 0, date: Double) -> SIMD3<Double> {
        let degree = Double.pi / 180
        let phi = latitude * degree
        let lambda = longitude * degree
        // WGS84 geodetic → geocentric spherical.
        let a = 6378.137, f = 1 / 298.257223563
        let e2 = f * (2 - f)
        let sinPhi = sin(phi), cosPhi = cos(phi)
        let rc = a / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let p = (rc + altitudeKm) * cosPhi
        let zc = (rc * (1 - e2) + altitudeKm) * sinPhi
        let r = (p * p + zc * zc).squareRoot()
        let phiC = asin(zc / r)
        let x = sin(phiC)                       // cos(colatitude)
        let s = max(cos(phiC), 1e-12)           // sin(colatitude)

        // Schmidt semi-normalised P[n][m](cos θ) and dP/dθ.
        let nMax = 12
        var pnm = [[Double]](repeating: [Double](repeating: 0, count: nMax + 1), count: nMax + 1)
        var dpnm = pnm
        pnm[0][0] = 1
        for n in 1...nMax {
            for m in 0...n {
                if m == n {
                    let k = n == 1 ? 1 : ((2 * Double(n) - 1) / (2 * Double(n))).squareRoot()
                    pnm[n][n] = k * s * pnm[n - 1][n - 1]
                    dpnm[n][n] = k * (x * pnm[n - 1][n - 1] + s * dpnm[n - 1][n - 1])
                } else {
                    let nd = Double(n), md = Double(m)
                    let back = n >= 2 ? ((nd - 1) * (nd - 1) - md * md).squareRoot() : 0
                    let older = n >= 2 ? pnm[n - 2][m] : 0
                    let olderD = n >= 2 ? dpnm[n - 2][m] : 0
                    let norm = (nd * nd - md * md).squareRoot()
                    pnm[n][m] = ((2 * nd - 1) * x * pnm[n - 1][m] - back * older) / norm
                    dpnm[n][m] = ((2 * nd - 1) * (x * dpnm[n - 1][m] - s * pnm[n - 1][m]) - back * olderD) / norm
                }
            }
        }

        let referenceRadius = 6371.2
        let dt = date - epoch
        var north = 0.0, east = 0.0, down = 0.0
        for c in coefficients {
            let n = c.n, m = c.m
            let g = c.g + dt * c.gDot, h = c.h + dt * c.hDot
            let ratio = pow(referenceRadius / r, Double(n + 2))
            let cosM = cos(Double(m) * lambda), sinM = sin(Double(m) * lambda)
            north += ratio * (g * cosM + h * sinM) * dpnm[n][m]
            east += ratio * Double(m) * (g * sinM - h * cosM) * pnm[n][m] / s
            down -= ratio * Double(n + 1) * (g * cosM + h * sinM) * pnm[n][m]
        }
        // Rotate from the geocentric to the geodetic vertical.
        let psi = phiC - phi
        return SIMD3(north * cos(psi) - down * sin(psi), east, north * sin(psi) + down * cos(psi))
    }

    /// WMM2025 Gauss coefficients: degree n, order m, g and h (nT), their yearly change (nT/yr).
    /// Source: NOAA NCEI, WMM2025 coefficient file (WMM.COF, 11/13/2024), public domain.
    static let coefficients: [(n: Int, m: Int, g: Double, h: Double, gDot: Double, hDot: Double)] = [
        (1, 0, -29351.8, 0.0, 12.0, 0.0), (1, 1, -1410.8, 4545.4, 9.7, -21.5),
        (2, 0, -2556.6, 0.0, -11.6, 0.0), (2, 1, 2951.1, -3133.6, -5.2, -27.7), (2, 2, 1649.3, -815.1, -8.0, -12.1),
        (3, 0, 1361.0, 0.0, -1.3, 0.0), (3, 1, -2404.1, -56.6, -4.2, 4.0), (3, 2, 1243.8, 237.5, 0.4, -0.3),
        (3, 3, 453.6, -549.5, -15.6, -4.1),
        (4, 0, 895.0, 0.0, -1.6, 0.0), (4, 1, 799.5, 278.6, -2.4, -1.1), (4, 2, 55.7, -133.9, -6.0, 4.1),
        (4, 3, -281.1, 212.0, 5.6, 1.6), (4, 4, 12.1, -375.6, -7.0, -4.4),
        (5, 0, -233.2, 0.0, 0.6, 0.0), (5, 1, 368.9, 45.4, 1.4, -0.5), (5, 2, 187.2, 220.2, 0.0, 2.2),
        (5, 3, -138.7, -122.9, 0.6, 0.4), (5, 4, -142.0, 43.0, 2.2, 1.7), (5, 5, 20.9, 106.1, 0.9, 1.9),
        (6, 0, 64.4, 0.0, -0.2, 0.0), (6, 1, 63.8, -18.4, -0.4, 0.3), (6, 2, 76.9, 16.8, 0.9, -1.6),
        (6, 3, -115.7, 48.8, 1.2, -0.4), (6, 4, -40.9, -59.8, -0.9, 0.9), (6, 5, 14.9, 10.9, 0.3, 0.7),
        (6, 6, -60.7, 72.7, 0.9, 0.9),
        (7, 0, 79.5, 0.0, -0.0, 0.0), (7, 1, -77.0, -48.9, -0.1, 0.6), (7, 2, -8.8, -14.4, -0.1, 0.5),
        (7, 3, 59.3, -1.0, 0.5, -0.8), (7, 4, 15.8, 23.4, -0.1, 0.0), (7, 5, 2.5, -7.4, -0.8, -1.0),
        (7, 6, -11.1, -25.1, -0.8, 0.6), (7, 7, 14.2, -2.3, 0.8, -0.2),
        (8, 0, 23.2, 0.0, -0.1, 0.0), (8, 1, 10.8, 7.1, 0.2, -0.2), (8, 2, -17.5, -12.6, 0.0, 0.5),
        (8, 3, 2.0, 11.4, 0.5, -0.4), (8, 4, -21.7, -9.7, -0.1, 0.4), (8, 5, 16.9, 12.7, 0.3, -0.5),
        (8, 6, 15.0, 0.7, 0.2, -0.6), (8, 7, -16.8, -5.2, -0.0, 0.3), (8, 8, 0.9, 3.9, 0.2, 0.2),
        (9, 0, 4.6, 0.0, -0.0, 0.0), (9, 1, 7.8, -24.8, -0.1, -0.3), (9, 2, 3.0, 12.2, 0.1, 0.3),
        (9, 3, -0.2, 8.3, 0.3, -0.3), (9, 4, -2.5, -3.3, -0.3, 0.3), (9, 5, -13.1, -5.2, 0.0, 0.2),
        (9, 6, 2.4, 7.2, 0.3, -0.1), (9, 7, 8.6, -0.6, -0.1, -0.2), (9, 8, -8.7, 0.8, 0.1, 0.4),
        (9, 9, -12.9, 10.0, -0.1, 0.1),
        (10, 0, -1.3, 0.0, 0.1, 0.0), (10, 1, -6.4, 3.3, 0.0, 0.0), (10, 2, 0.2, 0.0, 0.1, -0.0),
        (10, 3, 2.0, 2.4, 0.1, -0.2), (10, 4, -1.0, 5.3, -0.0, 0.1), (10, 5, -0.6, -9.1, -0.3, -0.1),
        (10, 6, -0.9, 0.4, 0.0, 0.1), (10, 7, 1.5, -4.2, -0.1, 0.0), (10, 8, 0.9, -3.8, -0.1, -0.1),
        (10, 9, -2.7, 0.9, -0.0, 0.2), (10, 10, -3.9, -9.1, -0.0, -0.0),
        (11, 0, 2.9, 0.0, 0.0, 0.0), (11, 1, -1.5, 0.0, -0.0, -0.0), (11, 2, -2.5, 2.9, 0.0, 0.1),
        (11, 3, 2.4, -0.6, 0.0, -0.0), (11, 4, -0.6, 0.2, 0.0, 0.1), (11, 5, -0.1, 0.5, -0.1, -0.0),
        (11, 6, -0.6, -0.3, 0.0, -0.0), (11, 7, -0.1, -1.2, -0.0, 0.1), (11, 8, 1.1, -1.7, -0.1, -0.0),
        (11, 9, -1.0, -2.9, -0.1, 0.0), (11, 10, -0.2, -1.8, -0.1, 0.0), (11, 11, 2.6, -2.3, -0.1, 0.0),
        (12, 0, -2.0, 0.0, 0.0, 0.0), (12, 1, -0.2, -1.3, 0.0, -0.0), (12, 2, 0.3, 0.7, -0.0, 0.0),
        (12, 3, 1.2, 1.0, -0.0, -0.1), (12, 4, -1.3, -1.4, -0.0, 0.1), (12, 5, 0.6, -0.0, -0.0, -0.0),
        (12, 6, 0.6, 0.6, 0.1, -0.0), (12, 7, 0.5, -0.1, -0.0, -0.0), (12, 8, -0.1, 0.8, 0.0, 0.0),
        (12, 9, -0.4, 0.1, 0.0, -0.0), (12, 10, -0.2, -1.0, -0.1, -0.0), (12, 11, -1.3, 0.1, -0.0, 0.0),
        (12, 12, -0.7, 0.2, -0.1, -0.1),
    ]
}
