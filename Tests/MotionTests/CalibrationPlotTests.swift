import Foundation
import Fusion
@testable import Motion
import MotionSimulation
@testable import MotionTools
import TestSupport
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
        #expect(svg.components(separatedBy: "<g class=\"projection\">").count - 1 == 3)
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 6)
        #expect(svg.components(separatedBy: "r=\"1.2\"").count - 1 == 3 * 2 * 500)
        #expect(svg.contains("a &lt;test&gt; &amp; more"))
    }

    /// Never more than `maximumPoints` per set (2999 points at most 1500 draw at most 1500).
    @Test func atMostMaximumPointsAreDrawn() throws {
        let points = (0..<2999).map { index in
            let angle = Double(index) * 0.01
            return SIMD3(50 * cos(angle), 50 * sin(angle), 0.0)
        }
        let svg = CalibrationPlot.svg(raw: points, calibration: Self.calibration, title: "limit", maximumPoints: 1500)
        let circles = svg.components(separatedBy: "r=\"1.2\"").count - 1
        #expect(circles <= 3 * 2 * 1500)
        #expect(circles >= 3 * 2 * 1000)
    }

    /// The picture states its own quality and can be read: tick values, the origin and the
    /// offset marked, coverage, fit error and accuracy in the banner, colour-blind-safe colours;
    /// and it renders (rsvg-convert, as a person's viewer would) to a PNG of the stated size.
    @Test func thePictureStatesItsQualityAndRenders() throws {
        let quality = CalibrationPlot.Quality(coveragePercent: 35, fitErrorPercent: 4.2, fieldStrength: 48, accuracy: "low")
        let svg = CalibrationPlot.svg(raw: try Self.ellipsoidPoints(), calibration: Self.calibration, title: "quality", quality: quality)
        #expect(svg.contains("accuracy: low") && svg.contains("NOT good enough for heading"))
        #expect(svg.contains("35 % of directions") && svg.contains("fit error 4.20 %") && svg.contains("field 48.0 µT"))
        #expect(svg.contains("offset (30, -45)") && svg.contains("offset (-45, 12)") && svg.contains("offset (12, 30)"))
        #expect(svg.contains(">0</text>"), "the origin is labelled")
        for tick in ["-50", "50"] { #expect(svg.contains(">\(tick)</text>"), "tick \(tick)") }
        // Okabe–Ito only; no red/green pair.
        for color in ["#E69F00", "#D55E00", "#0072B2", "#009E73"] { #expect(svg.contains(color)) }
        #expect(!svg.contains("#d62728") && !svg.contains("#2ca02c"))
        #expect(CalibrationPlot.tickStep(span: 130) == 50 && CalibrationPlot.tickStep(span: 9) == 2 && CalibrationPlot.tickStep(span: 0) == 1)

        let converter = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let converter else {
            // CI installs librsvg2-bin: there the render is required.
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "rsvg-convert (librsvg2-bin) is missing")
            return
        }
        let folder = try makeTemporaryDirectory("plot")
        defer { try? FileManager.default.removeItem(at: folder) }
        let svgPath = folder.appendingPathComponent("plot.svg").path
        let pngPath = folder.appendingPathComponent("plot.png").path
        try CalibrationPlot.write(svg, to: svgPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: converter)
        process.arguments = [svgPath, "-o", pngPath]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let png = try Data(contentsOf: URL(fileURLWithPath: pngPath))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // IHDR: width and height, big-endian, at bytes 16…23.
        let bytes = [UInt8](png.prefix(24))
        try #require(bytes.count == 24)
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        let declared = svg.split(separator: "\"")
        #expect("\(width)" == String(declared[3]) && "\(height)" == String(declared[5]), "\(width)×\(height)")
    }
}
