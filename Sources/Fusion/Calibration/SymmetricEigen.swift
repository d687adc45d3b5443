/// Eigenvalues and eigenvectors of a real symmetric n×n matrix by cyclic Jacobi rotations.
///
/// Small and exact enough for the 3×3 shape matrices and the ≤ 9×9 normal matrices of the
/// calibration fits. `values` are sorted in descending order; `vectors[k]` is the unit
/// eigenvector of `values[k]`.
struct SymmetricEigen {
    let values: [Double]
    let vectors: [[Double]]

    /// `matrix` holds n×n values in row-major order and must be symmetric.
    init(symmetric matrix: [Double], size n: Int) {
        var a = matrix
        var v = [Double](repeating: 0, count: n * n)
        for i in 0..<n { v[i * n + i] = 1 }
        for _ in 0..<100 {
            var offDiagonal = 0.0
            var diagonal = 0.0
            for p in 0..<n {
                diagonal += a[p * n + p] * a[p * n + p]
                for q in (p + 1)..<max(p + 1, n) { offDiagonal += a[p * n + q] * a[p * n + q] }
            }
            if offDiagonal <= 1e-30 * max(diagonal, 1e-300) { break }
            for p in 0..<n {
                for q in (p + 1)..<max(p + 1, n) where a[p * n + q] != 0 {
                    // Rotation angle that zeroes a[p][q] (Golub & Van Loan, symmetric Schur).
                    let theta = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q])
                    let t = (theta >= 0 ? 1 : -1) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot()
                    let s = t * c
                    for k in 0..<n {
                        let akp = a[k * n + p], akq = a[k * n + q]
                        a[k * n + p] = c * akp - s * akq
                        a[k * n + q] = s * akp + c * akq
                    }
                    for k in 0..<n {
                        let apk = a[p * n + k], aqk = a[q * n + k]
                        a[p * n + k] = c * apk - s * aqk
                        a[q * n + k] = s * apk + c * aqk
                    }
                    for k in 0..<n {
                        let vkp = v[k * n + p], vkq = v[k * n + q]
                        v[k * n + p] = c * vkp - s * vkq
                        v[k * n + q] = s * vkp + c * vkq
                    }
                }
            }
        }
        let order = (0..<n).sorted { a[$0 * n + $0] > a[$1 * n + $1] }
        values = order.map { a[$0 * n + $0] }
        vectors = order.map { column in (0..<n).map { v[$0 * n + column] } }
    }
}

extension Matrix3 {
    /// Eigen-decomposition of a symmetric matrix: eigenvalues in descending order and the
    /// matching unit eigenvectors as the columns of `vectors` (a rotation or reflection).
    package var symmetricEigen: (values: SIMD3<Double>, vectors: Matrix3) {
        let eigen = SymmetricEigen(symmetric: rowMajor, size: 3)
        let columns = eigen.vectors.map { SIMD3($0[0], $0[1], $0[2]) }
        let vectors = Matrix3(rows: columns[0], columns[1], columns[2]).transposed
        return (SIMD3(eigen.values[0], eigen.values[1], eigen.values[2]), vectors)
    }

    /// The symmetric positive square root of a symmetric positive-definite matrix, or `nil` when
    /// an eigenvalue is not positive.
    package var symmetricSquareRoot: Matrix3? {
        let (values, vectors) = symmetricEigen
        guard values.min() > 0 else { return nil }
        return vectors * Matrix3(diagonal: values.squareRoot()) * vectors.transposed
    }

    /// The outer product a·bᵀ.
    static func outer(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Matrix3 {
        Matrix3(rows: a.x * b, a.y * b, a.z * b)
    }
}
