/// A 3×3 matrix of `Double`, stored by rows. Used for rotation matrices, mount matrices and the
/// magnetometer's soft-iron correction.
public struct Matrix3: Sendable, Equatable, CustomStringConvertible {
    @usableFromInline package var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    @usableFromInline package init(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        rows = (r0, r1, r2)
    }

    /// From nine values in row-major order; `nil` unless exactly nine are given.
    package init?(rowMajor values: [Double]) {
        guard values.count == 9 else { return nil }
        self.init(rows: SIMD3(values[0], values[1], values[2]), SIMD3(values[3], values[4], values[5]), SIMD3(values[6], values[7], values[8]))
    }

    /// Element by element, row by row (Core Motion's `CMRotationMatrix(m11:m12:…:m33:)`).
    public init(m11: Double, m12: Double, m13: Double, m21: Double, m22: Double, m23: Double, m31: Double, m32: Double, m33: Double) {
        self.init(rows: SIMD3(m11, m12, m13), SIMD3(m21, m22, m23), SIMD3(m31, m32, m33))
    }

    /// All zeros (Core Motion's `CMRotationMatrix()`).
    public init() {
        self.init(rows: .zero, .zero, .zero)
    }

    package static let identity = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))
    package static let zero = Matrix3(rows: .zero, .zero, .zero)

    /// A diagonal matrix.
    package init(diagonal d: SIMD3<Double>) {
        self.init(rows: SIMD3(d.x, 0, 0), SIMD3(0, d.y, 0), SIMD3(0, 0, d.z))
    }

    package var rowMajor: [Double] {
        [rows.0.x, rows.0.y, rows.0.z, rows.1.x, rows.1.y, rows.1.z, rows.2.x, rows.2.y, rows.2.z]
    }

    package subscript(row: Int, column: Int) -> Double {
        switch row {
        case 0: rows.0[column]
        case 1: rows.1[column]
        default: rows.2[column]
        }
    }

    // Row i, column j, as Core Motion's `CMRotationMatrix` names them (m11 … m33).
    public var m11: Double { get { rows.0.x } set { rows.0.x = newValue } }
    public var m12: Double { get { rows.0.y } set { rows.0.y = newValue } }
    public var m13: Double { get { rows.0.z } set { rows.0.z = newValue } }
    public var m21: Double { get { rows.1.x } set { rows.1.x = newValue } }
    public var m22: Double { get { rows.1.y } set { rows.1.y = newValue } }
    public var m23: Double { get { rows.1.z } set { rows.1.z = newValue } }
    public var m31: Double { get { rows.2.x } set { rows.2.x = newValue } }
    public var m32: Double { get { rows.2.y } set { rows.2.y = newValue } }
    public var m33: Double { get { rows.2.z } set { rows.2.z = newValue } }

    package var columns: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        (SIMD3(rows.0.x, rows.1.x, rows.2.x), SIMD3(rows.0.y, rows.1.y, rows.2.y), SIMD3(rows.0.z, rows.1.z, rows.2.z))
    }

    package var transposed: Matrix3 {
        let c = columns
        return Matrix3(rows: c.0, c.1, c.2)
    }

    package var determinant: Double {
        let (a, b, c) = rows
        return a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)
    }

    /// The inverse, or `nil` when the matrix is singular (|det| < 1e-15).
    package var inverse: Matrix3? {
        let det = determinant
        guard abs(det) > 1e-15 else { return nil }
        let (a, b, c) = rows
        // Rows of the inverse are the cross products of the columns' complements (adjugate / det).
        let r0 = SIMD3(b.y * c.z - b.z * c.y, a.z * c.y - a.y * c.z, a.y * b.z - a.z * b.y)
        let r1 = SIMD3(b.z * c.x - b.x * c.z, a.x * c.z - a.z * c.x, a.z * b.x - a.x * b.z)
        let r2 = SIMD3(b.x * c.y - b.y * c.x, a.y * c.x - a.x * c.y, a.x * b.y - a.y * b.x)
        return Matrix3(rows: r0 / det, r1 / det, r2 / det)
    }

    /// The same matrix with its diagonal set to zero (e.g. the cross-axis part of a sensitivity
    /// matrix).
    package var offDiagonal: Matrix3 {
        let (a, b, c) = rows
        return Matrix3(rows: SIMD3(0, a.y, a.z), SIMD3(b.x, 0, b.z), SIMD3(c.x, c.y, 0))
    }

    /// Frobenius norm.
    package var frobeniusNorm: Double {
        let (a, b, c) = rows
        return ((a * a).sum() + (b * b).sum() + (c * c).sum()).squareRoot()
    }

    /// True when the matrix is orthonormal with determinant +1 (a proper rotation), to `tolerance`.
    package func isProperRotation(tolerance: Double = 1e-6) -> Bool {
        let product = self * transposed
        for i in 0..<3 {
            for j in 0..<3 where abs(product[i, j] - (i == j ? 1 : 0)) > tolerance { return false }
        }
        return abs(determinant - 1) <= tolerance
    }

    @inlinable
    package static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((m.rows.0 * v).sum(), (m.rows.1 * v).sum(), (m.rows.2 * v).sum())
    }

    package static func * (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
        Matrix3(rows: rhs.transposed * lhs.rows.0, rhs.transposed * lhs.rows.1, rhs.transposed * lhs.rows.2)
    }

    package static func + (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
        Matrix3(rows: lhs.rows.0 + rhs.rows.0, lhs.rows.1 + rhs.rows.1, lhs.rows.2 + rhs.rows.2)
    }

    package static func - (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
        Matrix3(rows: lhs.rows.0 - rhs.rows.0, lhs.rows.1 - rhs.rows.1, lhs.rows.2 - rhs.rows.2)
    }

    package static func * (s: Double, m: Matrix3) -> Matrix3 {
        Matrix3(rows: s * m.rows.0, s * m.rows.1, s * m.rows.2)
    }

    public static func == (lhs: Matrix3, rhs: Matrix3) -> Bool {
        lhs.rows.0 == rhs.rows.0 && lhs.rows.1 == rhs.rows.1 && lhs.rows.2 == rhs.rows.2
    }

    public var description: String {
        "[" + [rows.0, rows.1, rows.2].map { "[\($0.x), \($0.y), \($0.z)]" }.joined(separator: ", ") + "]"
    }
}
