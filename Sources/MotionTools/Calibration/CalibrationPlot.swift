import FileAccess
import Motion
import Foundation
import Fusion

/// A picture of a magnetometer fit for a person to look at, stating its own quality: the raw and
/// the corrected readings in three projections (x–y, y–z, z–x, chip axes, µT), with the outline of
/// the fitted ellipsoid around the raw readings and the circle of the field strength around the
/// corrected ones; tick values on every panel, the origin marked (so the hard-iron offset can be
/// read off as the distance from it to the centre of the raw readings, also marked), and a banner
/// with coverage, fit error, field strength and accuracy. The colours are the Okabe–Ito palette
/// (told apart with any colour vision), and raw/fit are also told apart by line style. Plain SVG.
package enum CalibrationPlot {
    static let panel = 340.0
    static let margin = 48.0
    static let bannerHeight = 52.0

    /// What the banner says about the fit.
    package struct Quality: Sendable {
        /// Percentage of the sphere of directions covered.
        package var coveragePercent: Double
        /// RMS fit error, percent.
        package var fitErrorPercent: Double
        /// µT.
        package var fieldStrength: Double
        /// `uncalibrated`, `low`, `medium` or `high`.
        package var accuracy: String
    }

    /// Okabe–Ito colours (B. Wong, "Points of view: Color blindness", Nature Methods 8, 441, 2011).
    enum Palette {
        static let raw = "#E69F00"         // orange
        static let outline = "#D55E00"     // vermillion, dashed
        static let corrected = "#0072B2"   // blue
        static let circle = "#009E73"      // bluish green, solid
        static let ink = "#000000"
        static let grid = "#DDDDDD"
    }

    /// The SVG document. At most `maximumPoints` of each set are drawn (evenly spaced).
    package static func svg(
        raw: [SIMD3<Double>], calibration: MagnetometerCalibration, title: String, quality: Quality? = nil, maximumPoints: Int = 1500
    ) -> String {
        let limit = max(1, maximumPoints)
        let step = max(1, (raw.count + limit - 1) / limit)   // rounded up: never more than `limit`
        let shown = stride(from: 0, to: raw.count, by: step).map { raw[$0] }
        let corrected = shown.map(calibration.apply)
        let width = 3 * panel + 4 * margin
        let top = bannerHeight + margin
        let height = top + panel + margin + 34
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(number(width))" height="\(number(height))" \
            viewBox="0 0 \(number(width)) \(number(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(number(margin))" y="18" font-size="14">\(escaped(title))</text>

            """
        svg += banner(quality, left: margin, top: 26, width: width - 2 * margin)
        for (index, (a, b, name)) in [(0, 1, "x–y"), (1, 2, "y–z"), (2, 0, "z–x")].enumerated() {
            let left = margin + Double(index) * (panel + margin)
            svg += projection(a, b, name: name, left: left, top: top, raw: shown, corrected: corrected, calibration: calibration)
        }
        svg += legend(left: margin, y: height - 12, fieldStrength: calibration.fieldStrength)
        return svg + "</svg>\n"
    }

    /// Writes the plot the one way output files are written (``OutputFile``): a file is replaced
    /// atomically, a device or FIFO written into, a directory refused.
    package static func write(_ svg: String, to path: String) throws(OutputFile.Failure) {
        try OutputFile.write(Array(svg.utf8), to: path, what: "the plot (an SVG file)")
    }

    /// Coverage as a bar, fit error, field strength, accuracy; "quality not given" without them.
    private static func banner(_ quality: Quality?, left: Double, top: Double, width: Double) -> String {
        guard let quality else {
            return "<text x=\"\(number(left))\" y=\"\(number(top + 14))\">fit quality not given</text>\n"
        }
        let bar = 160.0
        let filled = bar * min(1, max(0, quality.coveragePercent / 100))
        let verdict = quality.accuracy == "high" || quality.accuracy == "medium"
            ? "usable for heading" : "NOT good enough for heading: turn the board through more orientations and calibrate again"
        return """
            <g>
            <text x="\(number(left))" y="\(number(top + 14))" font-weight="bold">accuracy: \(escaped(quality.accuracy))</text>
            <text x="\(number(left))" y="\(number(top + 32))">\(verdict)</text>
            <text x="\(number(left + 200))" y="\(number(top + 14))">coverage</text>
            <rect x="\(number(left + 260))" y="\(number(top + 4))" width="\(number(bar))" height="12" fill="white" stroke="\(Palette.ink)"/>
            <rect x="\(number(left + 260))" y="\(number(top + 4))" width="\(number(filled))" height="12" fill="\(Palette.corrected)"/>
            <text x="\(number(left + 266 + bar))" y="\(number(top + 14))">\(number(quality.coveragePercent)) % of directions</text>
            <text x="\(number(left + 600))" y="\(number(top + 14))">fit error \(String(format: "%.2f", quality.fitErrorPercent)) %</text>
            <text x="\(number(left + 740))" y="\(number(top + 14))">field \(String(format: "%.1f", quality.fieldStrength)) µT</text>
            </g>

            """
    }

    private static func legend(left: Double, y: Double, fieldStrength: Double) -> String {
        """
        <g>
        <circle cx="\(number(left + 4))" cy="\(number(y - 4))" r="3" fill="\(Palette.raw)"/>
        <text x="\(number(left + 12))" y="\(number(y))">raw readings</text>
        <line x1="\(number(left + 110))" y1="\(number(y - 4))" x2="\(number(left + 140))" y2="\(number(y - 4))" stroke="\(Palette.outline)" stroke-width="2" stroke-dasharray="6 3"/>
        <text x="\(number(left + 146))" y="\(number(y))">fitted ellipsoid (dashed)</text>
        <circle cx="\(number(left + 310))" cy="\(number(y - 4))" r="3" fill="\(Palette.corrected)"/>
        <text x="\(number(left + 318))" y="\(number(y))">corrected readings</text>
        <line x1="\(number(left + 450))" y1="\(number(y - 4))" x2="\(number(left + 480))" y2="\(number(y - 4))" stroke="\(Palette.circle)" stroke-width="2"/>
        <text x="\(number(left + 486))" y="\(number(y))">field strength \(String(format: "%.1f", fieldStrength)) µT (solid)</text>
        <text x="\(number(left + 730))" y="\(number(y))">+ origin (0, 0)   × centre of the raw readings (hard-iron offset)</text>
        </g>

        """
    }

    /// A round step for about five ticks over `span`: 1, 2 or 5 × 10ⁿ.
    static func tickStep(span: Double) -> Double {
        guard span.isFinite, span > 0 else { return 1 }
        let rough = span / 5
        let power = Foundation.pow(10, Foundation.floor(Foundation.log10(rough)))
        for multiple in [1.0, 2, 5, 10] where multiple * power >= rough { return multiple * power }
        return 10 * power
    }

    private static func projection(
        _ a: Int, _ b: Int, name: String, left: Double, top: Double,
        raw: [SIMD3<Double>], corrected: [SIMD3<Double>], calibration: MagnetometerCalibration
    ) -> String {
        let outline = ellipseOutline(a, b, calibration)
        let circle = (0..<97).map { k -> SIMD2<Double> in
            let t = Double(k) * 2 * .pi / 96
            return calibration.fieldStrength * SIMD2(cos(t), sin(t))
        }
        let offset = SIMD2(calibration.hardIronOffset[a], calibration.hardIronOffset[b])
        let flat = raw.map { SIMD2($0[a], $0[b]) } + corrected.map { SIMD2($0[a], $0[b]) } + outline + circle + [.zero, offset]
        var low = flat.first ?? .zero, high = low
        for p in flat where p.x.isFinite && p.y.isFinite { low = pointwiseMin(low, p); high = pointwiseMax(high, p) }
        let span = max(high.x - low.x, high.y - low.y, 1e-9)
        let middle = (low + high) / 2
        let scale = (panel - 20) / span
        func place(_ p: SIMD2<Double>) -> SIMD2<Double> {
            SIMD2(left + panel / 2 + (p.x - middle.x) * scale, top + panel / 2 - (p.y - middle.y) * scale)
        }
        func dots(_ points: [SIMD3<Double>], _ color: String) -> String {
            points.map { point in
                let p = place(SIMD2(point[a], point[b]))
                return "<circle cx=\"\(number(p.x))\" cy=\"\(number(p.y))\" r=\"1.2\" fill=\"\(color)\"/>"
            }.joined(separator: "\n")
        }
        func line(_ points: [SIMD2<Double>], _ color: String, dashed: Bool) -> String {
            let coordinates = points.map(place).map { "\(number($0.x)),\(number($0.y))" }.joined(separator: " ")
            return "<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.8\"" + (dashed ? " stroke-dasharray=\"6 3\"" : "") + "/>"
        }
        // Ticks: values every `step` µT inside the panel, on the left and bottom edges, with a light grid.
        let step = tickStep(span: span)
        let half = (panel / 2) / scale
        var ticks = ""
        for axis in 0..<2 {
            let centre = axis == 0 ? middle.x : middle.y
            var value = Foundation.ceil((centre - half) / step) * step
            while value <= centre + half + 1e-9 {
                let p = place(axis == 0 ? SIMD2(value, middle.y) : SIMD2(middle.x, value))
                let label = number(abs(value) < step * 1e-6 ? 0 : value)
                if axis == 0 {
                    ticks += "<line x1=\"\(number(p.x))\" y1=\"\(number(top))\" x2=\"\(number(p.x))\" y2=\"\(number(top + panel))\" stroke=\"\(Palette.grid)\"/>"
                        + "<text x=\"\(number(p.x))\" y=\"\(number(top + panel + 14))\" text-anchor=\"middle\" font-size=\"10\">\(label)</text>\n"
                } else {
                    ticks += "<line x1=\"\(number(left))\" y1=\"\(number(p.y))\" x2=\"\(number(left + panel))\" y2=\"\(number(p.y))\" stroke=\"\(Palette.grid)\"/>"
                        + "<text x=\"\(number(left - 4))\" y=\"\(number(p.y + 3))\" text-anchor=\"end\" font-size=\"10\">\(label)</text>\n"
                }
                value += step
            }
        }
        let origin = place(.zero)
        let centre = place(offset)
        let axes = ["x", "y", "z"]
        return """
            <g class="projection">
            \(ticks)<rect x="\(number(left))" y="\(number(top))" width="\(number(panel))" height="\(number(panel))" fill="none" stroke="#999"/>
            <text x="\(number(left))" y="\(number(top - 8))">\(name): horizontal \(axes[a]), vertical \(axes[b]) (µT, chip axes)</text>
            \(dots(raw, Palette.raw))
            \(dots(corrected, Palette.corrected))
            \(line(outline, Palette.outline, dashed: true))
            \(line(circle, Palette.circle, dashed: false))
            <path d="M \(number(origin.x - 7)) \(number(origin.y)) H \(number(origin.x + 7)) M \(number(origin.x)) \(number(origin.y - 7)) V \(number(origin.y + 7))" stroke="\(Palette.ink)" stroke-width="1.5"/>
            <text x="\(number(origin.x + 5))" y="\(number(origin.y + 14))" font-size="10" paint-order="stroke" stroke="white" stroke-width="3">0</text>
            <path d="M \(number(centre.x - 5)) \(number(centre.y - 5)) L \(number(centre.x + 5)) \(number(centre.y + 5)) M \(number(centre.x - 5)) \(number(centre.y + 5)) L \(number(centre.x + 5)) \(number(centre.y - 5))" stroke="\(Palette.ink)" stroke-width="1.5"/>
            <text x="\(number(centre.x + 7))" y="\(number(centre.y - 6))" font-size="10" paint-order="stroke" stroke="white" stroke-width="3">offset (\(number(offset.x)), \(number(offset.y)))</text>
            </g>

            """
    }

    /// The outline of the fitted ellipsoid's shadow on the plane of axes `a`, `b`: raw = offset +
    /// F·S⁻¹·u for unit u, projected; its 2×2 shape matrix factored by Cholesky.
    static func ellipseOutline(_ a: Int, _ b: Int, _ calibration: MagnetometerCalibration) -> [SIMD2<Double>] {
        guard let inverse = calibration.softIron.inverse else { return [] }
        let shape = calibration.fieldStrength * inverse
        let rowA = shape.row(a), rowB = shape.row(b)
        let l11 = (rowA * rowA).sum().squareRoot()
        guard l11 > 0 else { return [] }
        let l21 = (rowA * rowB).sum() / l11
        let l22 = max(0, (rowB * rowB).sum() - l21 * l21).squareRoot()
        let center = SIMD2(calibration.hardIronOffset[a], calibration.hardIronOffset[b])
        return (0..<97).map { k in
            let t = Double(k) * 2 * .pi / 96
            return center + SIMD2(l11 * cos(t), l21 * cos(t) + l22 * sin(t))
        }
    }

    private static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

// In an extension, so that Swift still writes the memberwise initialiser.
extension CalibrationPlot.Quality {
    package init(_ report: EllipsoidFit.Report) {
        self.init(
            coveragePercent: report.coveragePercent, fitErrorPercent: report.fitErrorPercent,
            fieldStrength: report.fieldStrength, accuracy: report.accuracy.storedName)
    }
}

extension Matrix3 {
    fileprivate func row(_ index: Int) -> SIMD3<Double> {
        switch index {
        case 0: rows.0
        case 1: rows.1
        default: rows.2
        }
    }
}
