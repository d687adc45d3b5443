import Foundation
import Fusion
@testable import Motion
import Testing

@Suite struct CalibrationPlotTests {
    static let calibration = MagnetometerCalibration(
        hardIronOffset: SIMD3(30, -45, 12),
        softIron: Matrix3(rows: SIMD3(0.9, 0.08, -0.05), SIMD3(0.08, 1.15, 0.1), SIMD3(-0.05, 0.1, 0.97)),
        fieldStrength: 48)

    /// Points of the fitted ellipsoid: raw = offset + F·S⁻¹·u for unit vectors u (a fixed spiral).
    static func ellipsoidPoints() throws -> [SIMD3<Double>] {
        let inverse = try #require(calibration.softIron.inverse)
        return (0..<4000).map { k in
            let z = 1 - 2 * (Double(k) + 0.5) / 4000
            let angle = Double(k) * 2.399963
            let u = SIMD3((1 - z * z).squareRoot() * cos(angle), (1 - z * z).squareRoot() * sin(angle), z)
            return calibration.hardIronOffset + calibration.fieldStrength * (inverse * u)
        }
    }

    @Test func theOutlineIsTheShadowOfTheFittedEllipsoid() throws {
        let points = try Self.ellipsoidPoints()
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            let outline = CalibrationPlot.ellipseOutline(a, b, Self.calibration)
            #expect(outline.count == 97)
            // Same extent in every direction of the plane (support function).
            for step in 0..<12 {
                let angle = Double(step) * .pi / 6
                let direction = SIMD2(cos(angle), sin(angle))
                let ofPoints = points.map { (SIMD2($0[a], $0[b]) * direction).sum() }.max() ?? 0
                let ofOutline = outline.map { ($0 * direction).sum() }.max() ?? 0
                #expect(abs(ofPoints - ofOutline) < 0.01 * Self.calibration.fieldStrength, "\(a)\(b) at \(angle): \(ofPoints) vs \(ofOutline)")
            }
        }
    }

    @Test func theSVGHasThreeProjectionsWithPointsEllipseAndCircle() throws {
        let points = try Self.ellipsoidPoints()
        let svg = CalibrationPlot.svg(raw: points, calibration: Self.calibration, title: "a <test> & more", maximumPoints: 500)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.components(separatedBy: "<g>").count - 1 == 3)
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 6)
        #expect(svg.components(separatedBy: "<circle").count - 1 == 3 * 2 * 500)
        #expect(svg.contains("a &lt;test&gt; &amp; more"))
    }

    /// Never more than `maximumPoints` per set (2999 points at most 1500 used to draw all 2999).
    @Test func atMostMaximumPointsAreDrawn() throws {
        let points = (0..<2999).map { index in
            let angle = Double(index) * 0.01
            return SIMD3(50 * cos(angle), 50 * sin(angle), 0.0)
        }
        let svg = CalibrationPlot.svg(raw: points, calibration: Self.calibration, title: "limit", maximumPoints: 1500)
        let circles = svg.components(separatedBy: "<circle").count - 1
        #expect(circles <= 3 * 2 * 1500)
        #expect(circles >= 3 * 2 * 1000)
    }
}
