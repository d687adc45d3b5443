import Foundation
import Fusion

/// A picture of a magnetometer fit for a person to look at: the raw and the corrected readings in
/// three projections (x–y, y–z, z–x, chip axes), with the outline of the fitted ellipsoid around
/// the raw readings and the circle of the field strength around the corrected ones. Plain SVG.
public enum CalibrationPlot {
    static let panel = 340.0
    static let margin = 24.0

    /// The SVG document. At most `maximumPoints` of each set are drawn (evenly spaced).
    public static func svg(raw: [SIMD3<Double>], calibration: MagnetometerCalibration, title: String, maximumPoints: Int = 1500) -> String {
        let limit = max(1, maximumPoints)
        let step = max(1, (raw.count + limit - 1) / limit)   // rounded up: never more than `limit`
        let shown = stride(from: 0, to: raw.count, by: step).map { raw[$0] }
        let corrected = shown.map(calibration.apply)
        let width = 3 * panel + 4 * margin
        let height = panel + 3 * margin + 20
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(number(width))" height="\(number(height))" \
            viewBox="0 0 \(number(width)) \(number(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(number(margin))" y="16" font-size="14">\(escaped(title))</text>
            <text x="\(number(margin))" y="\(number(height - 8))">grey: raw readings, red: fitted ellipsoid outline; \
            blue: corrected readings, green: circle of the field strength (\(number(calibration.fieldStrength)) µT)</text>

            """
        for (index, (a, b, name)) in [(0, 1, "x–y"), (1, 2, "y–z"), (2, 0, "z–x")].enumerated() {
            let left = margin + Double(index) * (panel + margin)
            svg += projection(a, b, name: name, left: left, top: 2 * margin, raw: shown, corrected: corrected, calibration: calibration)
        }
        return svg + "</svg>\n"
    }

    /// Writes the plot atomically (temporary file, then rename).
    public static func write(_ svg: String, to path: String) throws {
        try Data(svg.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
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
        let flat = raw.map { SIMD2($0[a], $0[b]) } + corrected.map { SIMD2($0[a], $0[b]) } + outline + circle
        var low = flat.first ?? .zero, high = low
        for p in flat { low = pointwiseMin(low, p); high = pointwiseMax(high, p) }
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
        func line(_ points: [SIMD2<Double>], _ color: String) -> String {
            let coordinates = points.map(place).map { "\(number($0.x)),\(number($0.y))" }.joined(separator: " ")
            return "<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
        }
        let axes = ["x", "y", "z"]
        return """
            <g>
            <rect x="\(number(left))" y="\(number(top))" width="\(number(panel))" height="\(number(panel))" fill="none" stroke="#999"/>
            <text x="\(number(left + 4))" y="\(number(top - 6))">\(name) (horizontal \(axes[a]), vertical \(axes[b]), µT)</text>
            \(dots(raw, "#999"))
            \(dots(corrected, "#1f5fbf"))
            \(line(outline, "#d62728"))
            \(line(circle, "#2ca02c"))
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
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
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
