/// Linear least squares through the normal equations, for the small calibration fits.
///
/// Accumulates DᵀD and Dᵀy row by row (no design matrix kept), then solves by Gaussian
/// elimination with partial pivoting. Callers centre and scale their data first so that the
/// normal matrix is well conditioned; `conditionRatio` tells how well the data determine the
/// parameters (smallest over largest eigenvalue of DᵀD/n: 0 when some combination of
/// parameters is not determined at all).
struct LeastSquares {
    let size: Int
    private(set) var normal: [Double]
    private(set) var rightSide: [Double]
    private(set) var count = 0

    init(parameters: Int) {
        size = parameters
        normal = [Double](repeating: 0, count: parameters * parameters)
        rightSide = [Double](repeating: 0, count: parameters)
    }

    mutating func add(row: [Double], target: Double) {
        for i in 0..<size {
            rightSide[i] += row[i] * target
            for j in 0..<size { normal[i * size + j] += row[i] * row[j] }
        }
        count += 1
    }

    var conditionRatio: Double {
        let values = SymmetricEigen(symmetric: normal, size: size).values
        guard let largest = values.first, let smallest = values.last, largest > 0 else { return 0 }
        return max(0, smallest / largest)
    }

    /// The parameters, or `nil` when the normal matrix is singular.
    func solve() -> [Double]? {
        let n = size
        var a = normal
        var b = rightSide
        let scale = (0..<n).map { abs(a[$0 * n + $0]) }.max() ?? 0
        guard scale > 0 else { return nil }
        for column in 0..<n {
            let pivot = (column..<n).max { abs(a[$0 * n + column]) < abs(a[$1 * n + column]) } ?? column
            guard abs(a[pivot * n + column]) > 1e-13 * scale else { return nil }
            if pivot != column {
                for k in 0..<n { a.swapAt(pivot * n + k, column * n + k) }
                b.swapAt(pivot, column)
            }
            for row in (column + 1)..<max(column + 1, n) {
                let factor = a[row * n + column] / a[column * n + column]
                guard factor != 0 else { continue }
                for k in column..<n { a[row * n + k] -= factor * a[column * n + k] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<max(row + 1, n) { sum -= a[row * n + k] * x[k] }
            x[row] = sum / a[row * n + row]
        }
        return x
    }
}
