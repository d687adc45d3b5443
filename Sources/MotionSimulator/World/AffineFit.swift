import Fusion

/// The affine part of a sensor's errors as its readings show it: the least-squares fit of
/// `measured ≈ matrix · truth + offset` over pairs of true and measured vectors. For an error model
/// the matrix is its sensitivity (scale factor and cross-axis) or soft iron, the offset its bias
/// or hard iron; a test fits readings taken through an emulator and a driver to check that the
/// configured errors come out again.
package struct AffineFit: Sendable {
    package var matrix: Matrix3
    package var offset: SIMD3<Double>

    /// Fits one row of the matrix (and one offset component) at a time through the normal
    /// equations, solved by Gauss–Jordan elimination with partial pivoting. Pairs beyond the
    /// shorter array are ignored; too few or degenerate pairs give non-finite values.
    package init(truth: [SIMD3<Double>], measured: [SIMD3<Double>]) {
        var rows: [SIMD3<Double>] = []
        var offset = SIMD3<Double>.zero
        for axis in 0..<3 {
            var a = [[Double]](repeating: [Double](repeating: 0, count: 5), count: 4)
            for (t, m) in zip(truth, measured) {
                let x = [t.x, t.y, t.z, 1]
                for i in 0..<4 {
                    for j in 0..<4 { a[i][j] += x[i] * x[j] }
                    a[i][4] += x[i] * m[axis]
                }
            }
            for column in 0..<4 {
                let pivot = (column..<4).max { abs(a[$0][column]) < abs(a[$1][column]) } ?? column
                a.swapAt(column, pivot)
                for row in 0..<4 where row != column {
                    let factor = a[row][column] / a[column][column]
                    for k in column..<5 { a[row][k] -= factor * a[column][k] }
                }
            }
            let solution = (0..<4).map { a[$0][4] / a[$0][$0] }
            rows.append(SIMD3(solution[0], solution[1], solution[2]))
            offset[axis] = solution[3]
        }
        matrix = Matrix3(rows: rows[0], rows[1], rows[2])
        self.offset = offset
    }
}
