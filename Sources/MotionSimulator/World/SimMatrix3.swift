/// A 3×3 matrix stored by rows, acting on vectors in a sensor's axes: a chip mount, a soft-iron
/// distortion, a sensitivity (scale factor and cross-axis) matrix.
///
/// The simulator's own small type (it cannot depend on `Fusion`); `rowMajor` converts to
/// `Fusion.Matrix3(rowMajor:)`.
public struct SimMatrix3: Sendable, Equatable, Hashable {
    public var row0: SIMD3<Double>
    public var row1: SIMD3<Double>
    public var row2: SIMD3<Double>

    public init(rows row0: SIMD3<Double>, _ row1: SIMD3<Double>, _ row2: SIMD3<Double>) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    /// From nine values in row-major order; `nil` unless exactly nine are given.
    public init?(rowMajor v: [Double]) {
        guard v.count == 9 else { return nil }
        self.init(rows: SIMD3(v[0], v[1], v[2]), SIMD3(v[3], v[4], v[5]), SIMD3(v[6], v[7], v[8]))
    }

    public init(diagonal d: SIMD3<Double>) {
        self.init(rows: SIMD3(d.x, 0, 0), SIMD3(0, d.y, 0), SIMD3(0, 0, d.z))
    }

    public static let identity = SimMatrix3(diagonal: SIMD3(1, 1, 1))
    public static let zero = SimMatrix3(diagonal: .zero)

    public var rowMajor: [Double] {
        [row0.x, row0.y, row0.z, row1.x, row1.y, row1.z, row2.x, row2.y, row2.z]
    }

    public subscript(row: Int, column: Int) -> Double {
        switch row {
        case 0: row0[column]
        case 1: row1[column]
        default: row2[column]
        }
    }

    public var diagonal: SIMD3<Double> { SIMD3(row0.x, row1.y, row2.z) }

    /// The same matrix with its diagonal set to zero (the off-diagonal, cross-axis part).
    public var offDiagonal: SimMatrix3 {
        SimMatrix3(rows: SIMD3(0, row0.y, row0.z), SIMD3(row1.x, 0, row1.z), SIMD3(row2.x, row2.y, 0))
    }

    public static func * (m: SimMatrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((m.row0 * v).sum(), (m.row1 * v).sum(), (m.row2 * v).sum())
    }

    public static func + (a: SimMatrix3, b: SimMatrix3) -> SimMatrix3 {
        SimMatrix3(rows: a.row0 + b.row0, a.row1 + b.row1, a.row2 + b.row2)
    }
}
