import Fusion
import Testing

/// NOAA's published WMM2025 test values (WMM2025 test-value table): declination in degrees,
/// printed to 0.01°.
@Suite struct WorldMagneticModelTests {
    @Test(arguments: [
        (2025.0, 0.0, 80.0, 0.0, 1.28),
        (2025.0, 0.0, 0.0, 120.0, -0.16),
        (2025.0, 0.0, -80.0, 240.0, 68.78),
        (2025.0, 100.0, 80.0, 0.0, 0.85),
        (2025.0, 100.0, -80.0, 240.0, 68.21),
        (2027.5, 0.0, 80.0, 0.0, 2.59),
        (2025.0, 65.0, 43.0, 93.0, 0.50),
    ])
    func declinationMatchesNOAA(_ point: (Double, Double, Double, Double, Double)) {
        let (year, altitude, latitude, longitude, expected) = point
        let declination = WorldMagneticModel.declination(
            latitude: latitude, longitude: longitude, altitudeKm: altitude, date: year) * 180 / Double.pi
        #expect(abs(declination - expected) <= 0.006, "\(point): \(declination)")
    }

    @Test func fieldComponentsMatchNOAA() {
        // 2025.0, 0 km, 80° N, 0° E: X 6521.6, Y 145.9, Z 54791.5 nT.
        let field = WorldMagneticModel.field(latitude: 80, longitude: 0, altitudeKm: 0, date: 2025.0)
        #expect(abs(field.x - 6521.6) < 0.5 && abs(field.y - 145.9) < 0.5 && abs(field.z - 54791.5) < 0.5, "\(field)")
    }
}
