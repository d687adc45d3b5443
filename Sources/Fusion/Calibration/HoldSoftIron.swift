/// Soft iron and the offset from the moments a person holds the board still between turns: the
/// field averaged over each hold, and the gyroscope's rotation from one hold to the next few
/// (``RotationPairFit``).
///
/// Why holds: a pair of readings tells soft iron by how the field's direction changed against
/// the gyroscope's rotation, and the longer the rotation between them the more (the error D·h
/// turns by the whole angle; the noise of the pair does not grow with it). ``HardIronEstimator``'s
/// stretches are short (20–60°), end while the board still turns (where the magnetometer's lag
/// behind the gyroscope costs rate × lag) and share their ends; over ordinary handling they leave
/// soft iron known to about 3 % per element, no better than the 8 % allowance. A person who picks
/// a board up and turns it holds it still between turns for a moment; there the magnetometer's
/// lag costs nothing, its noise averages away over the hold, and any two holds a few seconds
/// apart make a pair, rotated by up to 180°. On the simulated board's ordinary handling (a
/// second's hold after each of six turns) this leaves about 1 % of the soft iron and the offset
/// well within 1 µT, where the readings' strength alone leaves 3–6 µT (`motionctl calibration
/// background-check`).
///
/// The gyroscope's bias matters here as nowhere else (0.4 °/s over the 10 s between two holds turns
/// a 50 µT field by 3.5 µT), and the sampler's running estimate of it moves by tenths of a degree
/// per second while the board turns; so the rotation is integrated from the rate as measured less
/// the bias the last full hold measured (its mean rate while still).
///
/// A hold: the rotation rate below ``quietRate`` for at least ``shortestHold``, turning less
/// than ``largestHoldTurn`` over it. One during which the estimator's guard called the field
/// disturbed (once a fit is applied: before, soft iron makes the guard itself unreliable) is kept
/// but not used for soft iron: a change of hard iron looks disturbed until it is confirmed, and
/// the holds after it are what ``BackgroundFieldCorrection`` shows the estimator to confirm it
/// (``forEachPairOfLatest(startedAfter:_:)``). Each
/// closed hold is paired with the earlier ones of the same gyroscope chain from the last
/// ``pairWindow`` seconds (the gyroscope's bias left after its own calibration drifts the
/// rotation between them); ``holdsKept`` are kept. A pair that the solution so far cannot explain
/// (χ²₃ beyond ``gate``, once soft iron is known to ``gatingSigma``) is left out: a magnet nearby
/// at one of its holds.
///
/// Cost: per sample one quaternion step of the gyroscope and a comparison, and sums while still;
/// per hold closed its pairs (≤ 7) and one 8×8 solve; no allocation (the holds' slots are
/// allocated once, at the start).
package struct HoldSoftIron: Sendable {
    /// Rotation rate (the bias removed) below which the board counts as held still, rad/s
    /// (1 °/s). A turn eased in and out spends a moment below any threshold at each end; below
    /// 5 °/s that moment carried up to 0.45 °/s of mean rate into a hold's measured bias on the
    /// simulated handling.
    package static let quietRate = 1 * Double.pi / 180
    /// Shortest hold, s: averages the magnetometer's noise over 20-odd readings at 80 Hz.
    package static let shortestHold = 0.3
    /// Longest hold averaged, s: a hold is paired once it has lasted this long (a board put down
    /// is not picked up again to close it), and the rest of it is not used.
    package static let longestHold = 1.0
    /// Largest spread of the rate over a hold for it to measure the bias, rad/s (the RMS over the
    /// three axes, 0.15 °/s): a still board's rate is its bias and noise (LSM6DSOX 3.8 mdps/√Hz,
    /// 0.07 dps quantization at ±2000 dps), a board turning slowly through a reversal sweeps it.
    package static let stillSpread = 0.15 * Double.pi / 180
    /// Largest turn over a hold, radians (2°): beyond, the mean reading is not one direction.
    package static let largestHoldTurn = 2 * Double.pi / 180
    /// Longest time between the two holds of a pair, s: what is left of the gyroscope's bias
    /// (``biasUncertainty``) turns the rotation between them by up to 0.45° in 15 s.
    package static let pairWindow = 15.0
    /// Holds kept for pairing.
    package static let holdsKept = 8
    /// How far the gyroscope's bias may be from what the last full hold measured, rad/s (0.03 °/s:
    /// its drift between holds and what a turn's ease leaves in the hold's mean), for the pairs'
    /// noise.
    package static let biasUncertainty = 0.03 * Double.pi / 180
    /// Relative error of the gyroscope's rotation angle (scale and cross-axis: 0.5 %, as the estimator's).
    package static let rotationScaleError = 0.005
    /// Noise of one reading, µT per axis (the estimator's ``HardIronEstimator/Parameters/fieldNoise``).
    package static let fieldNoise = 0.4
    /// Soft iron's σ (worst combination) below which pairs are checked against the solution.
    package static let gatingSigma = 0.03
    /// χ²₃ 99.9 % quantile.
    package static let gate = 16.3

    private struct Hold {
        var reading: SIMD3<Double>
        var samples: Double
        var attitude: Quaternion
        var time: Double
        var chain: Int
        /// Whether the estimator's guard called the field disturbed during it: kept (a change of
        /// hard iron looks like that until it is confirmed) but not used for soft iron.
        var disturbed: Bool
    }

    /// The holds kept (a ring of ``holdsKept``) and where the next goes.
    private var holds: [Hold]
    private var next = 0
    /// The gyroscope's attitude (device now → device at the chain's start), integrated with
    /// ``bias`` removed, and the chain's number (a gap starts a new one: attitudes of different
    /// chains are not compared).
    private var attitude = Quaternion.identity
    private var chain = 0
    /// The gyroscope's bias (rad/s): its rate while the board was last held still for
    /// ``longestHold``, removed before integrating; the sampler's estimate until then.
    private var bias = SIMD3<Double>.zero
    private var biasMeasured = false
    /// The gyroscope's bias as the last full hold measured it (rad/s); nil before one.
    package var measuredBias: SIMD3<Double>? { biasMeasured ? bias : nil }
    /// The hold under way: its readings' and rates' sums and count, its start, and whether it was
    /// disturbed or has been paired already (it lasted ``longestHold``).
    private var sum = SIMD3<Double>.zero
    private var rateSum = SIMD3<Double>.zero
    private var rateSquares = SIMD3<Double>.zero
    private var samples = 0.0
    private var start = (attitude: Quaternion.identity, time: 0.0)
    private var disturbedDuringHold = false
    private var holdClosed = false
    /// Sample time, s (the sum of the intervals given).
    package private(set) var time = 0.0
    /// Holds kept so far.
    package private(set) var holdsClosed = 0
    /// The field strength the last hold's pairs were weighted with, µT.
    private var lastStrength = 50.0
    private var pairs = RotationPairFit()
    /// The current solution (recomputed at each hold paired).
    package private(set) var solution: RotationPairFit.Solution?
    /// Pairs used and left out.
    package private(set) var pairsUsed = 0
    package private(set) var pairsRejected = 0

    package init() {
        holds = [Hold](repeating: Hold(reading: .zero, samples: 0, attitude: .identity, time: -.infinity, chain: -1, disturbed: false),
                       count: Self.holdsKept)
    }

    /// Starts again (the readings' offset changed: a magnet attached).
    package mutating func reset() {
        for i in holds.indices { holds[i].chain = -1 }
        pairs = RotationPairFit()
        solution = nil
        pairsUsed = 0
        pairsRejected = 0
        restartAttitude()
    }

    /// The samples stop following one another (a gap): the rotation since the holds kept is unknown.
    package mutating func restartAttitude() {
        chain &+= 1
        attitude = .identity
        samples = 0
        holdClosed = false
    }

    /// One sample: `field` (µT, the frame the fit is in), `rotationRate` (rad/s) with the
    /// sampler's `gyroBias` estimate removed (rad/s; the holds' own measurement replaces it once
    /// they have one),
    /// `interval` (s), whether the field is `disturbed` (the estimator's guard), and the field
    /// strength to scale the rotation's error with (µT; 0: unknown, 50 taken).
    package mutating func add(
        _ field: SIMD3<Double>, rotationRate: SIMD3<Double>, gyroBias: SIMD3<Double>, interval: Double, disturbed: Bool,
        fieldStrength: Double
    ) {
        guard field * 0 == .zero, rotationRate * 0 == .zero, gyroBias * 0 == .zero, interval.isFinite, interval > 0, interval < 1 else {
            restartAttitude()
            return
        }
        time += interval
        let rate = biasMeasured ? rotationRate + (gyroBias - bias) : rotationRate
        // One small-angle quaternion step (series to the θ³ term), as the estimator's.
        let half = rate * (0.5 * interval)
        let halfSquared = (half * half).sum()
        let v = half * (1 - halfSquared / 6)
        attitude = attitude * Quaternion(w: 1 - halfSquared / 2, x: v.x, y: v.y, z: v.z)
        if halfSquared < Self.quietRate * Self.quietRate * (0.25 * interval * interval) {
            guard !holdClosed else { return }
            if samples == 0 {
                attitude = attitude.normalized
                start = (attitude, time)
                disturbedDuringHold = false
                sum = .zero
                rateSum = .zero
                rateSquares = .zero
            }
            let measured = rotationRate + gyroBias
            sum += field
            rateSum += measured
            rateSquares += measured * measured
            samples += 1
            if disturbed { disturbedDuringHold = true }
            if time - start.time >= Self.longestHold {
                close(fieldStrength: fieldStrength)
                holdClosed = true
            }
        } else if samples > 0 {
            if !holdClosed { close(fieldStrength: fieldStrength) }
            samples = 0
            holdClosed = false
        }
    }

    /// Φ (from the earlier hold's device axes to the later's) and the noise of
    /// `later − Φ·earlier` per axis (µT²): the readings' noise averaged over the holds, the
    /// rotation's error (scale, and the bias left over the time between) on a field of `strength`.
    private static func pair(_ earlier: Hold, _ later: Hold, strength: Double) -> (phi: Matrix3, variance: Double) {
        let turn = earlier.attitude.conjugate * later.attitude   // device at the later hold → at the earlier
        let angleError = rotationScaleError * turn.angle + biasUncertainty * (later.time - earlier.time)
        let noise = fieldNoise * fieldNoise
        return (turn.conjugate.rotationMatrix,
                noise / later.samples + noise / earlier.samples + (angleError * strength) * (angleError * strength))
    }

    /// The pairs of the latest hold kept with the earlier ones of its chain that started at or
    /// after `time` (s, ``time``'s clock) and lie within ``pairWindow``: `body(earlier, later, Φ,
    /// variance)`, the readings as given to ``add(_:rotationRate:gyroBias:interval:disturbed:fieldStrength:)``.
    package func forEachPairOfLatest(startedAfter time: Double, _ body: (SIMD3<Double>, SIMD3<Double>, Matrix3, Double) -> Void) {
        guard holdsClosed > 0 else { return }
        let latest = holds[(next + Self.holdsKept - 1) % Self.holdsKept]
        for earlier in holds where earlier.chain == latest.chain && earlier.time >= time && earlier.time < latest.time
            && latest.time - earlier.time <= Self.pairWindow {
            let (phi, r) = Self.pair(earlier, latest, strength: lastStrength)
            body(earlier.reading, latest.reading, phi, r)
        }
    }

    private mutating func close(fieldStrength: Double) {
        guard time - start.time >= Self.shortestHold, (attitude.conjugate * start.attitude).angle <= Self.largestHoldTurn else { return }
        // A full hold whose rate stayed put: that rate is the bias.
        let meanRate = rateSum / samples
        let spread = (rateSquares / samples - meanRate * meanRate).sum()
        if time - start.time >= Self.longestHold, spread <= Self.stillSpread * Self.stillSpread {
            bias = meanRate
            biasMeasured = true
        }
        let hold = Hold(
            reading: sum / samples, samples: samples, attitude: start.attitude, time: start.time, chain: chain, disturbed: disturbedDuringHold)
        lastStrength = fieldStrength > 0 ? fieldStrength : 50
        var added = false
        for earlier in holds where !hold.disturbed && !earlier.disturbed && earlier.chain == hold.chain
            && hold.time - earlier.time <= Self.pairWindow {
            let (phi, r) = Self.pair(earlier, hold, strength: lastStrength)
            if let s = solution, s.softIronSigma <= Self.gatingSigma {
                let residual = (s.correction * (hold.reading - s.offset)) - phi * (s.correction * (earlier.reading - s.offset))
                if (residual * residual).sum() / r > Self.gate {
                    pairsRejected += 1
                    continue
                }
            }
            pairs.add(earlier: earlier.reading, later: hold.reading, rotation: phi, variance: r)
            pairsUsed += 1
            added = true
        }
        holds[next] = hold
        next = (next + 1) % Self.holdsKept
        holdsClosed += 1
        if added { solution = pairs.solve() }
    }
}
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
