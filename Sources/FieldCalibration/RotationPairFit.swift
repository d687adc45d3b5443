import Fusion

/// Soft iron and the offset together from pairs of readings and the gyroscope's rotation between
/// them: the gyro-aided model of ``HardIronEstimator`` with a soft-iron matrix in it (least squares).
///
/// Model: the reading m = S·h + b (S the soft iron, b the offset, h the Earth's field in device
/// axes). Its correction C = S⁻¹ and c = C·b give the field back, h = C·m − c, and a field fixed in
/// the world seen from two attitudes that the gyroscope says differ by Φ obeys
/// C·m₁ − c = Φ·(C·m₀ − c): linear in C and c, exactly. C is taken symmetric (the usual
/// soft-iron model; its rotational part would be a misalignment of the magnetometer and the
/// gyroscope) with trace 3 (C = I + D, D traceless: a scale common to all axes changes no
/// direction and rotation cannot see it), so each pair gives three linear equations in eight
/// unknowns (D's five, c's three):
///
///     (m₁ − Φ m₀) + (D m₁ − Φ D m₀) − (I − Φ) c = 0.
///
/// Why this sees soft iron over a cap of directions where a fit of the field's strength does not
/// (``DirectionMoments``, ``BackgroundSoftIron``): rotation compares directions, not only lengths.
/// A rotation about u by θ sends the error D·h to θ (D (u × h) − u × (D h)): D applied to the
/// directions the field turns through, and D h itself across u. Turning about two axes determines
/// all of D but one combination near a single direction h₀ = F·ĥ₀: D = δ (ĥ₀ĥ₀ᵀ − I/3) with
/// c changed by δ·F·ĥ₀ (near h₀ a longer field along ĥ₀ cannot be told from an offset along it);
/// readings away from ĥ₀ by α tell it by δ·F·(1 − cos α), the curvature of the cap. The
/// least-squares covariance says how well the handling determined each part.
///
/// Cost: per pair the eight columns of its equations and their products; no allocation (the
/// normal equations are one `SIMD64`); ``solve()`` is an 8×8 elimination.
package struct RotationPairFit: Sendable, Equatable {
    /// Σ JᵀJ / r (8×8, row-major; J the 3×8 matrix of a pair's equations, r its noise variance
    /// per axis) and Σ Jᵀ y / r, y = m₁ − Φ m₀.
    private var normal = SIMD64<Double>.zero
    private var right = SIMD8<Double>.zero
    /// Pairs added.
    package private(set) var count = 0

    package init() {}

    /// The soft-iron correction, the offset and how well they are known.
    package struct Solution: Sendable, Equatable {
        /// C: the field is C·(m − offset). Symmetric, trace 3.
        package var correction: Matrix3
        /// µT, the frame of the readings.
        package var offset: SIMD3<Double>
        /// Standard deviation of D's worst combination (the largest eigenvalue of its 5×5
        /// covariance, square-rooted): relative, per unit of field.
        package var softIronSigma: Double
        /// Standard deviation of c along its worst direction, µT.
        package var offsetSigma: Double
    }

    /// One pair: `earlier` and `later` readings (µT); `rotation` Φ, which takes a world-fixed
    /// vector from the earlier device axes to the later ones; `variance` the noise of
    /// `later − Φ·earlier` per axis (µT²).
    package mutating func add(earlier m0: SIMD3<Double>, later m1: SIMD3<Double>, rotation phi: Matrix3, variance r: Double) {
        guard r > 0, r.isFinite else { return }
        // D m for the five parameters of D = [[d1, d3, d4], [d3, d2, d5], [d4, d5, −d1 − d2]].
        @inline(__always) func column(_ k: Int, _ m: SIMD3<Double>) -> SIMD3<Double> {
            switch k {
            case 0: SIMD3(m.x, 0, -m.z)
            case 1: SIMD3(0, m.y, -m.z)
            case 2: SIMD3(m.y, m.x, 0)
            case 3: SIMD3(m.z, 0, m.x)
            default: SIMD3(0, m.z, m.y)
            }
        }
        let p = phi.columns
        let c0 = column(0, m1) - phi * column(0, m0), c1 = column(1, m1) - phi * column(1, m0)
        let c2 = column(2, m1) - phi * column(2, m0), c3 = column(3, m1) - phi * column(3, m0)
        let c4 = column(4, m1) - phi * column(4, m0)
        let c5 = p.0 - SIMD3(1, 0, 0), c6 = p.1 - SIMD3(0, 1, 0), c7 = p.2 - SIMD3(0, 0, 1)
        // J's three rows.
        let rx = SIMD8(c0.x, c1.x, c2.x, c3.x, c4.x, c5.x, c6.x, c7.x)
        let ry = SIMD8(c0.y, c1.y, c2.y, c3.y, c4.y, c5.y, c6.y, c7.y)
        let rz = SIMD8(c0.z, c1.z, c2.z, c3.z, c4.z, c5.z, c6.z, c7.z)
        let y = (m1 - phi * m0) / r
        right += rx * y.x + ry * y.y + rz * y.z
        for a in 0..<8 {
            let row = (rx * rx[a] + ry * ry[a] + rz * rz[a]) / r
            for b in 0..<8 { normal[a * 8 + b] += row[b] }
        }
        count += 1
    }

    /// The least-squares solution and its uncertainty; nil while the pairs leave some
    /// combination undetermined (a pivot below 10⁻¹² of the largest diagonal element).
    package func solve() -> Solution? {
        guard let inverse = Self.inverse(normal) else { return nil }
        var theta = SIMD8<Double>.zero
        for a in 0..<8 {
            var sum = 0.0
            for b in 0..<8 { sum -= inverse[a * 8 + b] * right[b] }
            theta[a] = sum
        }
        let d = Matrix3(
            rows: SIMD3(theta[0], theta[2], theta[3]), SIMD3(theta[2], theta[1], theta[4]),
            SIMD3(theta[3], theta[4], -theta[0] - theta[1]))
        let correction = Matrix3.identity + d
        guard let back = correction.inverse else { return nil }
        let c = SIMD3(theta[5], theta[6], theta[7])
        let offsetBlock = Matrix3(
            rows: SIMD3(inverse[45], inverse[46], inverse[47]), SIMD3(inverse[53], inverse[54], inverse[55]),
            SIMD3(inverse[61], inverse[62], inverse[63]))
        return Solution(
            correction: correction, offset: back * c, softIronSigma: Self.largestSoftIronEigenvalue(inverse).squareRoot(),
            offsetSigma: HardIronEstimator.largestEigenvalue(offsetBlock).squareRoot())
    }

    /// The largest eigenvalue of a covariance's leading 5×5 (soft-iron) block (power steps).
    private static func largestSoftIronEigenvalue(_ p: SIMD64<Double>) -> Double {
        var v = SIMD8<Double>(1, 1, 1, 1, 1, 0, 0, 0)
        var value = 0.0
        for _ in 0..<30 {
            var w = SIMD8<Double>.zero
            for a in 0..<5 { for b in 0..<5 { w[a] += p[a * 8 + b] * v[b] } }
            let norm = (w * w).sum().squareRoot()
            guard norm > 0 else { return 0 }
            value = norm / (v * v).sum().squareRoot()
            v = w / norm
        }
        return value
    }

    /// The inverse of a symmetric positive-definite 8×8 matrix (Gauss–Jordan with partial
    /// pivoting); nil when singular to working precision.
    static func inverse(_ matrix: SIMD64<Double>) -> SIMD64<Double>? {
        var a = matrix
        var result = SIMD64<Double>.zero
        var scale = 0.0
        for i in 0..<8 {
            result[i * 8 + i] = 1
            scale = max(scale, abs(a[i * 8 + i]))
        }
        guard scale > 0 else { return nil }
        for column in 0..<8 {
            var pivot = column
            for row in column..<8 where abs(a[row * 8 + column]) > abs(a[pivot * 8 + column]) { pivot = row }
            guard abs(a[pivot * 8 + column]) > 1e-12 * scale else { return nil }
            if pivot != column {
                for k in 0..<8 {
                    (a[pivot * 8 + k], a[column * 8 + k]) = (a[column * 8 + k], a[pivot * 8 + k])
                    (result[pivot * 8 + k], result[column * 8 + k]) = (result[column * 8 + k], result[pivot * 8 + k])
                }
            }
            let p = 1 / a[column * 8 + column]
            for k in 0..<8 {
                a[column * 8 + k] *= p
                result[column * 8 + k] *= p
            }
            for row in 0..<8 where row != column {
                let factor = a[row * 8 + column]
                guard factor != 0 else { continue }
                for k in 0..<8 {
                    a[row * 8 + k] -= factor * a[column * 8 + k]
                    result[row * 8 + k] -= factor * result[column * 8 + k]
                }
            }
        }
        return result
    }
}
