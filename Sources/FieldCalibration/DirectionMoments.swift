#if canImport(Glibc)
import Glibc
#endif

import Fusion

/// The moments of the corrected readings h = m − b that the field-strength constraint used (up to
/// the third), for the bias unmodelled soft iron puts into a sphere's centre.
///
/// With m = (I + E)·h + b and |h| = F, |m − b|² = F² + 2 hᵀE h to first order: the sphere fit
/// |m|² = 2 mᵀb + k (linear least squares in b and k) regresses the extra 2 hᵀE h on 2m and 1,
/// which moves its centre by δb = C⁻¹·cov(h, hᵀE h), C = cov(h). Over the whole sphere of
/// directions the odd moments vanish and so does δb; over a cap (ordinary handling: the board is
/// tilted, never turned upside down) it does not, and a few per cent of soft iron move the centre
/// by µT — the offset then looks known (σ small) while it is not. (A first-order analysis of the
/// least-squares sphere fit, this estimator's own.) Computed for the directions actually seen: the
/// largest |δb| over symmetric E of unit Frobenius norm, i.e. the largest singular value of the
/// map E ↦ C⁻¹·cov(h, hᵀE h). The gyroscope's stretches, which the bound leaves out, only make the
/// true bias smaller: the bound errs on the safe side.
///
/// Cost: 16 products and sums per reading used; the bound (a few hundred operations) every 50th.
struct DirectionMoments: Sendable, Equatable {
    var count: Double = 0
    var first = SIMD3<Double>.zero
    /// xx, yy, zz, xy, xz, yz.
    var second = SIMD8<Double>.zero
    /// xxx, xxy, xxz, xyy, xyz, xzz, yyy, yyz, yzz, zzz.
    var third = SIMD16<Double>.zero

    mutating func add(_ h: SIMD3<Double>) {
        let q = SIMD8(h.x * h.x, h.y * h.y, h.z * h.z, h.x * h.y, h.x * h.z, h.y * h.z, 0, 0)
        count += 1
        first += h
        second += q
        third += SIMD16(
            q[0] * h.x, q[0] * h.y, q[0] * h.z, q[1] * h.x, q[3] * h.z, q[2] * h.x, q[1] * h.y, q[1] * h.z,
            q[2] * h.y, q[2] * h.z, 0, 0, 0, 0, 0, 0)
    }

    /// E[h_i h_j h_k] from the stored third moments (i, j, k in 0..<3).
    private func third(_ i: Int, _ j: Int, _ k: Int) -> Double {
        // Sorted indices i ≤ j ≤ k name the stored entry.
        var a = i, b = j, c = k
        if a > b { swap(&a, &b) }
        if b > c { swap(&b, &c) }
        if a > b { swap(&a, &b) }
        let index: Int
        switch (a, b, c) {
        case (0, 0, 0): index = 0
        case (0, 0, 1): index = 1
        case (0, 0, 2): index = 2
        case (0, 1, 1): index = 3
        case (0, 1, 2): index = 4
        case (0, 2, 2): index = 5
        case (1, 1, 1): index = 6
        case (1, 1, 2): index = 7
        case (1, 2, 2): index = 8
        default: index = 9
        }
        return third[index] / count
    }

    /// E[h_j h_k].
    private func second(_ j: Int, _ k: Int) -> Double {
        let index = j == k ? j : j + k + 2   // (0,1) → 3, (0,2) → 4, (1,2) → 5
        return second[index] / count
    }

    /// The largest |δb| (µT) that soft iron E with ‖E‖_F = 1 causes, given the readings used;
    /// infinity with fewer than 50 readings or directions in a plane.
    var softIronSensitivity: Double {
        guard count >= 50 else { return .infinity }
        let mean = first / count
        func covariance(_ i: Int, _ j: Int) -> Double { second(i, j) - mean[i] * mean[j] }
        let c = Matrix3(
            rows: SIMD3(covariance(0, 0), covariance(0, 1), covariance(0, 2)),
            SIMD3(covariance(1, 0), covariance(1, 1), covariance(1, 2)),
            SIMD3(covariance(2, 0), covariance(2, 1), covariance(2, 2)))
        guard let inverse = c.inverse, c.determinant > 1e-9 * pow(c.m11 + c.m22 + c.m33, 3) else { return .infinity }
        // cov(h_i, h_j h_k) for the six basis matrices of unit Frobenius norm (off-diagonal ones
        // with 1/√2 in both places: hᵀE h = √2 h_j h_k), each through C⁻¹, summed as L Lᵀ.
        var product = Matrix3.zero
        for element in 0..<6 {
            let (j, k, weight) = element < 3 ? (element, element, 1.0) : element == 3 ? (0, 1, 2.0.squareRoot())
                : element == 4 ? (0, 2, 2.0.squareRoot()) : (1, 2, 2.0.squareRoot())
            let t = SIMD3(third(0, j, k) - mean.x * second(j, k), third(1, j, k) - mean.y * second(j, k),
                          third(2, j, k) - mean.z * second(j, k)) * weight
            let column = inverse * t
            product = product + Matrix3(rows: column.x * column, column.y * column, column.z * column)
        }
        return HardIronEstimator.largestEigenvalue(product).squareRoot()
    }
}
