#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How much of the sphere of directions a set of vectors covers, counted over 98 cells of
/// nearly equal area, incrementally (for a live progress display during a magnetometer
/// figure-eight) or over a finished data set.
///
/// Cells: ten latitude bands of 18° (latitude measured from the device's x–y plane toward +z,
/// the screen normal), each split in longitude (measured from +x toward +y) into a number of
/// cells proportional to the band's area (cos-weighted): 2, 7, 11, 14, 15, 15, 14, 11, 7, 2 from
/// −z to +z. Every cell covers 1/98 of the sphere to within 20% (the two polar caps are the largest).
package struct SphereCoverage: Sendable, Equatable {
    /// One region of directions.
    package struct Cell: Sendable, Equatable, CustomStringConvertible {
        /// Latitude band, 0 (around −z) … 9 (around +z).
        package var band: Int
        /// Index within the band, counted in longitude from −180°.
        package var index: Int
        /// Latitude range (radians) from the x–y plane toward +z.
        package var latitude: ClosedRange<Double>
        /// Longitude range (radians) from +x toward +y, within −π…π.
        package var longitude: ClosedRange<Double>

        /// Unit direction (device frame) of the cell's centre.
        package var center: SIMD3<Double> {
            let lat = (latitude.lowerBound + latitude.upperBound) / 2
            let lon = (longitude.lowerBound + longitude.upperBound) / 2
            return SIMD3(cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
        }

        /// E.g. "latitude +54°…+72°, longitude +90°…+135°".
        package var description: String {
            func degrees(_ r: Double) -> String {
                let d = Int((r * 180 / .pi).rounded())
                return d > 0 ? "+\(d)°" : "\(d)°"
            }
            return "latitude \(degrees(latitude.lowerBound))…\(degrees(latitude.upperBound)), "
                + "longitude \(degrees(longitude.lowerBound))…\(degrees(longitude.upperBound))"
        }
    }

    /// Cells per latitude band, from −z to +z.
    package static let cellsPerBand = [2, 7, 11, 14, 15, 15, 14, 11, 7, 2]
    static let bandHeight = Double.pi / Double(cellsPerBand.count)
    static let bandStart = cellsPerBand.indices.map { cellsPerBand[..<$0].reduce(0, +) }

    /// All cells, band by band from −z to +z.
    package static let cells: [Cell] = cellsPerBand.indices.flatMap { band in
        let n = cellsPerBand[band]
        let low = -Double.pi / 2 + Double(band) * bandHeight
        return (0..<n).map { index in
            let width = 2 * Double.pi / Double(n)
            return Cell(
                band: band, index: index, latitude: low...(low + bandHeight),
                longitude: (-Double.pi + Double(index) * width)...(-Double.pi + Double(index + 1) * width))
        }
    }

    /// Samples a cell needs before it counts as covered.
    package let minimumSamplesPerCell: Int
    /// Samples seen per cell, in the order of `cells`.
    package private(set) var counts: [Int]

    package init(minimumSamplesPerCell: Int = 3) {
        self.minimumSamplesPerCell = max(1, minimumSamplesPerCell)
        counts = [Int](repeating: 0, count: Self.cells.count)
    }

    /// Counts the direction of `vector` (any length but zero; device frame). Zero or non-finite
    /// vectors are ignored.
    package mutating func insert(_ vector: SIMD3<Double>) {
        guard let cell = Self.cellIndex(of: vector) else { return }
        counts[cell] += 1
    }

    /// Index in `cells` of the cell containing the direction of `vector`, `nil` for a zero or
    /// non-finite vector.
    package static func cellIndex(of vector: SIMD3<Double>) -> Int? {
        let length = (vector * vector).sum().squareRoot()
        guard length > 0, length.isFinite else { return nil }
        let latitude = asin(min(1, max(-1, vector.z / length)))
        let band = min(cellsPerBand.count - 1, Int((latitude + .pi / 2) / bandHeight))
        let n = cellsPerBand[band]
        let longitude = atan2(vector.y, vector.x)
        let index = min(n - 1, Int((longitude + .pi) / (2 * .pi) * Double(n)))
        return bandStart[band] + index
    }

    package var coveredCellCount: Int { counts.count { $0 >= minimumSamplesPerCell } }

    /// Fraction (0…1) of cells covered.
    package var coverage: Double { Double(coveredCellCount) / Double(counts.count) }

    /// The cells not yet covered.
    package var missingCells: [Cell] {
        zip(Self.cells, counts).filter { $0.1 < minimumSamplesPerCell }.map(\.0)
    }

    /// Which of the six axis directions (+x, −x, +y, −y, +z, −z) lie in missing cells, e.g.
    /// ["+z", "−x"]: a short hint of where to turn the board.
    package var missingAxes: [String] {
        zip(Self.axisNames, Self.axisDirections).filter { isMissing($0.1) }.map(\.0)
    }

    /// The six axis directions that lie in missing cells, as unit vectors (order of ``missingAxes``).
    package var missingAxisDirections: [SIMD3<Double>] { Self.axisDirections.filter(isMissing) }

    private static let axisNames = ["+x", "-x", "+y", "-y", "+z", "-z"]
    private static let axisDirections: [SIMD3<Double>] = [
        SIMD3(1, 0, 0), SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, -1, 0), SIMD3(0, 0, 1), SIMD3(0, 0, -1),
    ]

    private func isMissing(_ axis: SIMD3<Double>) -> Bool {
        Self.cellIndex(of: axis).map { counts[$0] < minimumSamplesPerCell } ?? false
    }

    /// A compact text map, one row per latitude band from +z (top) to −z (bottom), one character
    /// per cell in longitude order from −180° to +180°: `#` covered, `.` missing. Rows are
    /// centred, so the map reads like a flattened globe.
    package var map: String {
        let width = Self.cellsPerBand.max() ?? 0
        return Self.cellsPerBand.indices.reversed().map { band in
            let start = Self.bandStart[band]
            let n = Self.cellsPerBand[band]
            let row = String(counts[start..<(start + n)].map { $0 >= minimumSamplesPerCell ? "#" : "." })
            return String(repeating: " ", count: (width - n) / 2) + row
        }.joined(separator: "\n")
    }
}
