@testable import FieldCalibration
import Fusion
import Testing
import TestSupport

/// The offset's covariance under the true model (``OffsetState/offsetErrorCovariance``): the
/// stretches leave the soft iron out, and the error it causes is carried beside the filter's own.
@Suite struct OffsetStateTests {
    /// The Earth's field in the world (north, east, down; µT): Berlin's strength and dip.
    static let earth = SIMD3<Double>(18.5, 0, 46.4)

    /// A board turning about the vertical with a few degrees of lean (a vehicle): 24 stretches of
    /// 30° each way and back, the lean ±3° changing from one to the next; each device attitude
    /// (world to device) in turn.
    static let attitudes: [Matrix3] = (0...24).map { k in
        let yaw = Double(k % 12 < 6 ? k % 12 : 12 - k % 12) * 30 * .pi / 180
        let lean = 3 * .pi / 180 * (k % 3 == 0 ? 1.0 : k % 3 == 1 ? -1.0 : 0.0)
        return Quaternion(roll: lean, pitch: 0.5 * lean, yaw: yaw).rotationMatrix.transposed
    }

    /// A soft iron drawn from ``OffsetState``'s prior: symmetric, trace-free, of expected squared
    /// Frobenius norm a² (the off-diagonal entries of variance a²/10, the diagonal's 2a²/10 less
    /// their mean).
    static func softIron(_ a: Double, _ noise: inout FixedSeedNoise) -> Matrix3 {
        let v = a * a / 10, d = SIMD3(noise.gaussian(), noise.gaussian(), noise.gaussian()) * (2 * v).squareRoot()
        let diagonal = d - SIMD3(repeating: d.sum() / 3)
        let xy = noise.gaussian() * v.squareRoot(), xz = noise.gaussian() * v.squareRoot(), yz = noise.gaussian() * v.squareRoot()
        return Matrix3(rows: SIMD3(diagonal.x, xy, xz), SIMD3(xy, diagonal.y, yz), SIMD3(xz, yz, diagonal.z))
    }

    struct Run {
        var error: SIMD3<Double>
        var model, withSoftIron: Matrix3
        /// The field's error along east at the end (the offset's and the soft iron's own term),
        /// its variance with the two taken as independent, and the covariance term between them.
        var east, eastApart, eastCross: Double
    }

    /// One run: the offset's error at the end and the two covariances there. `strength`: each
    /// reading also taken into the field-strength constraint (which models the soft iron: the
    /// offset's error is then correlated with it, and the covariance's cross terms count).
    static func play(seed: UInt64, allowance: Double, strength: Bool = false) -> Run {
        var noise = FixedSeedNoise(seed: seed)
        let offset = SIMD3<Double>(25, -10, 40), start = 1.0, readingNoise = 0.4
        let e = softIron(allowance, &noise)
        var state = OffsetState(offset: offset + noise.gaussianVector(start), sigma: start, fieldStrength: 50, softIronAllowance: allowance)
        func reading(_ attitude: Matrix3) -> SIMD3<Double> {
            let h = attitude * earth
            return offset + h + e * h + noise.gaussianVector(readingNoise)
        }
        // |m − b|²'s noise: 2|h| times a reading's.
        let strengthNoise = (2 * 50 * readingNoise) * (2 * 50 * readingNoise)
        if strength { state.startStrength((earth * earth).sum().squareRoot(), sigma: 0.5) }
        var earlier = reading(attitudes[0])
        for k in 1..<attitudes.count {
            let later = reading(attitudes[k])
            if strength { _ = state.constrainStrength(earlier, strengthNoise, unchecked: 0, gate: .infinity) }
            let phi = attitudes[k] * attitudes[k - 1].transposed   // a world-fixed vector from the earlier axes to the later
            _ = state.update(Matrix3.identity - phi, later - phi * earlier, 2 * readingNoise * readingNoise, gate: .infinity, apply: true,
                             leftOut: HardIronEstimator.softIronTerm(phi, earlier - state.offset))
            earlier = later
        }
        // The heading's error along east at the last reading: the offset's, and the soft iron's own
        // term E h there, which shares its E with the offset's error.
        let u = attitudes[attitudes.count - 1] * SIMD3<Double>(0, 1, 0), h = attitudes[attitudes.count - 1] * earth
        let a = OffsetState.softIronCoefficients(u, h)
        let east = ((state.offset - offset) * u).sum() + (u * (e * h)).sum()
        let direct = (a * state.priorTimes(a)).sum()
        let eastVariance = (u * (state.offsetErrorCovariance * u)).sum() + direct
        return Run(error: state.offset - offset, model: state.offsetCovariance, withSoftIron: state.offsetErrorCovariance, east: east,
                   eastApart: eastVariance, eastCross: 2 * state.offsetCovariance(along: u, withSoftIron: a))
    }

    /// Over 600 runs (a soft iron drawn from the prior in each), the offset's error along the
    /// last attitude's vertical and east has the variance the covariance with the soft iron gives
    /// (to within the spread of a variance estimated from 600 draws, ±6 %; ±20 % allowed), while
    /// the filter's own covariance claims a fraction of it: the turns see the vertical offset only
    /// through the lean, and the soft iron's term, the same in every stretch, lands there.
    /// With the field's strength taken in as well, the same. (The offset starts known to 1 µT: the
    /// constraint's coefficients, linearized at the estimate, carry errors of their own when it is
    /// several µT off, which this covariance does not claim to hold; from 5 µT the strength's runs
    /// measure 1.31 times the carried variance along the vertical, the stretches' alone 1.10.)
    /// Measured against carried (µT², vertical / east): stretches 1.96 / 1.71 and 1.49 / 1.63, the
    /// filter's own 0.67 and 0.048; with the strength 1.40 / 1.28 and 1.50 / 1.65, its own 0.48 and 0.047.
    @Test(arguments: [false, true]) func theSoftIronTheStretchesLeaveOutIsInTheErrorCovariance(strength: Bool) {
        let runs = (1...600).map { Self.play(seed: UInt64($0), allowance: 0.08, strength: strength) }
        let last = Self.attitudes[Self.attitudes.count - 1]
        for (name, worldDirection) in [("down", SIMD3<Double>(0, 0, 1)), ("east", SIMD3<Double>(0, 1, 0))] {
            let u = last * worldDirection
            let measured: Double = runs.map { ($0.error * u).sum() * ($0.error * u).sum() }.reduce(0, +) / Double(runs.count)
            let carried: Double = runs.map { (u * ($0.withSoftIron * u)).sum() }.reduce(0, +) / Double(runs.count)
            let model: Double = (u * (runs[0].model * u)).sum()
            #expect(measured / carried > 0.8 && measured / carried < 1.2, "\(name): measured \(measured) µT², carried \(carried) µT²")
            #expect(measured > 2 * model, "\(name): measured \(measured) µT², the filter's \(model) µT²")
        }
    }

    /// The field's east component at the end carries two errors of the same E: the offset's and
    /// the soft iron's own term E h. Their covariance (``OffsetState/offsetCovariance(along:withSoftIron:)``)
    /// belongs in the heading's σ: measured 5.65 µT² over 600 runs, 5.88 with it, 3.23 without.
    @Test func theOffsetsErrorAndTheSoftIronsOwnTermAreCorrelated() {
        let runs = (1...600).map { Self.play(seed: UInt64($0), allowance: 0.08) }
        let measured: Double = runs.map { $0.east * $0.east }.reduce(0, +) / Double(runs.count)
        let apart: Double = runs.map(\.eastApart).reduce(0, +) / Double(runs.count)
        let together: Double = runs.map { $0.eastApart + $0.eastCross }.reduce(0, +) / Double(runs.count)
        #expect(measured / together > 0.8 && measured / together < 1.2, "measured \(measured) µT², with the cross term \(together)")
        #expect(measured / apart > 1.4, "measured \(measured) µT², without the cross term \(apart)")
    }

    /// With no soft iron feared (allowance 0) the two covariances are one.
    @Test func withoutSoftIronTheCovariancesAgree() {
        let result = Self.play(seed: 1, allowance: 0)
        let difference = result.withSoftIron - result.model
        for row in [difference.rows.0, difference.rows.1, difference.rows.2] {
            #expect((row * row).sum() < 1e-18)
        }
    }
}
