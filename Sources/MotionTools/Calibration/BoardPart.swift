import Motion
import Fusion

/// A part of the board a person can point somewhere: its four edges and two faces, each the end of
/// one device axis (x to the right edge, y to the top edge, z out of the front face; docs/ARCHITECTURE.md, Conventions).
/// Calibration guidance speaks in these terms instead of axis names.
package enum BoardPart: String, Sendable, CaseIterable {
    case rightEdge, leftEdge, topEdge, bottomEdge, frontFace, backFace

    /// The device-frame unit vector that points out of this part.
    package var deviceAxis: SIMD3<Double> {
        switch self {
        case .rightEdge: SIMD3(1, 0, 0)
        case .leftEdge: SIMD3(-1, 0, 0)
        case .topEdge: SIMD3(0, 1, 0)
        case .bottomEdge: SIMD3(0, -1, 0)
        case .frontFace: SIMD3(0, 0, 1)
        case .backFace: SIMD3(0, 0, -1)
        }
    }

    /// "the top edge (+y)", "the front face (+z, components side)".
    package var phrase: String {
        switch self {
        case .rightEdge: "the right edge (+x)"
        case .leftEdge: "the left edge (-x)"
        case .topEdge: "the top edge (+y)"
        case .bottomEdge: "the bottom edge (-y)"
        case .frontFace: "the front face (+z, components side)"
        case .backFace: "the back face (-z)"
        }
    }

    /// The part a device-frame direction points out of most, and the angle between them (degrees).
    package static func nearest(to direction: SIMD3<Double>) -> (part: BoardPart, degrees: Double)? {
        let length = (direction * direction).sum().squareRoot()
        guard length > 0, length.isFinite else { return nil }
        let unit = direction / length
        let best = allCases.max { ($0.deviceAxis * unit).sum() < ($1.deviceAxis * unit).sum() } ?? .frontFace
        let cosine = min(1, max(-1, (best.deviceAxis * unit).sum()))
        return (best, Foundation.acos(cosine) * 180 / .pi)
    }
}

import Foundation

extension MagnetometerSession.Progress {
    /// What to do next, in the hand's terms: which part of the board points along the Earth's field
    /// now, and which parts still have to (each missing axis direction of the coverage map, turned
    /// from the magnetometer's chip axes into the board's with `magnetometerToDevice`).
    ///
    /// The map fills where the field, seen from the board, points: pointing the board's top edge
    /// along the field covers the +y direction of the device.
    package func guidance(magnetometerToDevice: Matrix3) -> [String] {
        var lines: [String] = []
        if let now = currentDirection.flatMap({ BoardPart.nearest(to: magnetometerToDevice * $0) }) {
            lines.append("Now \(now.part.phrase) points along the Earth's field (\(Int(now.degrees.rounded()))° off).")
        }
        let missing = coverage.missingAxisDirections.compactMap { BoardPart.nearest(to: magnetometerToDevice * $0)?.part }
        if missing.isEmpty {
            lines.append("Every edge and face has pointed along the field: keep turning slowly through the gaps in the map.")
        } else {
            lines.append("Still to do: point each of these along the Earth's field (downward and to the north in the")
            lines.append("northern hemisphere, upward and to the north in the southern), turning the board slowly around it:")
            lines += missing.map { "  - \($0.phrase)" }
        }
        return lines
    }
}
