import Fusion

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
/// well within 1 µT, where the readings' strength alone leaves 3–6 µT (`motion-lab
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
