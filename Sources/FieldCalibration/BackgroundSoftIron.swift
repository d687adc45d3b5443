#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Fusion

/// Soft iron refined in the background, once the board has been turned through enough of the
/// sphere of directions: the readings the background calibration saw are kept spread over
/// directions, and when they cover what the explicit figure-eight needs
/// (``EllipsoidFit/Report/isGoodEnough``, the same criterion `motionctl calibrate magnetometer`
/// stops on), ``EllipsoidFit`` is solved on them. A good fit gives the soft-iron matrix and the
/// offset of a figure-eight calibration (``MagnetometerCalibration``); ``BackgroundFieldCorrection``
/// then applies it to the field and its ``HardIronEstimator`` continues from there with the
/// residual allowance of a fitted ellipsoid (``residualSoftIronAllowance``).
///
/// Why the whole sphere: a cap of directions (ordinary handling: tilted, never upside down) does
/// not determine the shape of the ellipsoid from the readings' lengths — soft iron and an offset
/// along the cap's axis explain the same readings (see ``DirectionMoments``) — so over a cap
/// nothing is fitted here; the gyroscope's rotation between holds can (``HoldSoftIron``).
///
/// Readings: one slot set per ``SphereCoverage`` cell (``readingsPerCell`` slots each, the oldest
/// replaced: a good recent reading per direction), offered at most every ``offerInterval`` of
/// sample time, only while the estimator's offset is known to a few µT (cells are the directions
/// of the reading with that offset removed) and the field is not disturbed (the estimator's status
/// and, per reading, its strength within ``HardIronEstimator/Parameters/normThreshold`` of the
/// reference). The fit drops the readings it cannot explain (``EllipsoidFit``'s outlier rounds).
///
/// Cost: per offered reading its cell (``cell(of:)``: ``SphereCoverage``'s cells without `asin` or
/// the library's `atan2`) and a store; the slots are allocated once, at the start. The fit (a few
/// hundred readings, allocating its own arrays) runs only when the covered cells have grown by
/// ``refitStep`` since the last try, and not again once one was taken: a few times in a run at
/// most, at the correction's ten-a-second status check.
package struct BackgroundSoftIron: Sendable {
    /// Slots per cell: ``EllipsoidFit/Configuration/minimumSamplesPerCell`` (3) must still hold
    /// after the fit has moved the centre and reshaped the directions a little (the cells here are
    /// the estimator's, whose offset is µT off before the fit); with 4 the fit's coverage falls
    /// short of the slots' by up to 10 cells on the figure-eight, with 6 less often.
    package static let readingsPerCell = 6
    /// Seconds of sample time between two readings offered (20 a second: a turn at 90 °/s crosses
    /// a cell of about 20° in a fifth of a second).
    package static let offerInterval = 0.05
    /// Cells more covered than at the last try before the fit is tried again.
    package static let refitStep = 4
    /// The offset's σ (µT, per axis) below which readings are kept: the cells are the directions
    /// of the reading minus the offset, which must be known to a fraction of the field.
    package static let collectingSigma = 3.0
    /// Largest soft iron accepted from a background fit: ‖S − I‖ (Frobenius) of the fitted matrix.
    /// A board's soft iron and its magnetometer's sensitivity mismatch are a few per cent per
    /// element (the simulated board's: 7.4 %); a fit far beyond has fitted something else (an
    /// uneven field, a magnet nearby the whole time).
    package static let maximumSoftIron = 0.25
    /// The offset's σ (µT per axis) the estimator continues from after a first fit: on the
    /// figure-eight's tuning seeds 101–160 the fits taken were 0.01–0.46 µT from the hard iron
    /// (median 0.19 µT; 57 of 60 seeds fitted), i.e. at most 0.27 µT per axis. Above `high`'s
    /// 0.33 µT, so `high` waits for the estimator's own evidence. (Started at a stored `medium`'s
    /// 0.8 µT instead, the estimator's first stretches pull the offset up to 1.84 µT away
    /// before it settles again; at 0.4 µT at most 0.8 µT.)
    package static let fittedOffsetSigma = 0.4
    /// What a fitted ellipsoid leaves of soft iron: the allowance a stored figure-eight calibration
    /// gives the estimator too (`BackgroundCalibration`), 1 %.
    package static let residualSoftIronAllowance = 0.01

    private static let cellCount = SphereCoverage.cells.count

    /// Raw readings (µT, the field as given to the correction), ``readingsPerCell`` per cell.
    private var slots: [SIMD3<Double>]
    /// Readings held per cell (up to ``readingsPerCell``) and where the next one goes.
    private var held: [UInt8]
    private var nextSlot: [UInt8]
    /// Cells holding `minimumSamplesPerCell` readings.
    package private(set) var coveredCells = 0
    /// ``coveredCells`` at the last fit tried.
    private var triedAt = 0
    private let configuration: EllipsoidFit.Configuration

    /// The fit in use; nil before one was good.
    package private(set) var calibration: MagnetometerCalibration?
    /// Its coverage (percent) and fit error (percent of the field), for a person.
    package private(set) var coveragePercent = 0.0
    package private(set) var fitErrorPercent = 0.0
    /// Fits tried and fits taken.
    package private(set) var fitsTried = 0
    package private(set) var fitsTaken = 0
    /// Why the last fit tried was not taken (for a person); nil when it was, or before any.
    package private(set) var lastRejection: String?

    package init(configuration: EllipsoidFit.Configuration = EllipsoidFit.Configuration()) {
        self.configuration = configuration
        slots = [SIMD3<Double>](repeating: .zero, count: Self.cellCount * Self.readingsPerCell)
        held = [UInt8](repeating: 0, count: Self.cellCount)
        nextSlot = [UInt8](repeating: 0, count: Self.cellCount)
    }

    /// A reading offered (at most every ``offerInterval``, while the estimator's status allows:
    /// offset known, field undisturbed), kept unless its strength departs from the reference:
    /// `raw` is the field as given to the correction (µT), `direction` the field the estimator
    /// sees with its offset removed (µT, its length compared with `strength`, the reference field
    /// strength, within `tolerance` of it).
    package mutating func offer(raw: SIMD3<Double>, direction: SIMD3<Double>, strength: Double, tolerance: Double) {
        let length = (direction * direction).sum().squareRoot()
        guard length > 0, abs(length - strength) <= tolerance * strength else { return }
        let cell = Self.cell(of: direction / length)
        let slot = Int(nextSlot[cell])
        slots[cell * Self.readingsPerCell + slot] = raw
        nextSlot[cell] = UInt8((slot + 1) % Self.readingsPerCell)
        if held[cell] < Self.readingsPerCell {
            held[cell] += 1
            if Int(held[cell]) == configuration.minimumSamplesPerCell { coveredCells += 1 }
        }
    }

    /// Whether enough new cells are covered to try the fit: as many as the figure-eight's
    /// criterion needs, and ``refitStep`` more than at the last try; never once a fit was taken
    /// (the figure-eight stops there too; refits at more coverage, tried, changed the soft iron by
    /// less than the 1 % the estimator allows for, and each cost a solve).
    package var isFitDue: Bool {
        calibration == nil && Double(coveredCells) >= EllipsoidFit.Report.goodEnoughCoveragePercent / 100 * Double(Self.cellCount)
            && coveredCells >= triedAt + Self.refitStep
    }

    /// Tries the fit (see ``isFitDue``): the calibration when it is good (the figure-eight's
    /// criterion, soft iron within ``maximumSoftIron``); nil otherwise.
    package mutating func fit() -> MagnetometerCalibration? {
        triedAt = coveredCells
        fitsTried += 1
        var readings: [SIMD3<Double>] = []
        readings.reserveCapacity(slots.count)
        for cell in 0..<Self.cellCount {
            let start = cell * Self.readingsPerCell
            readings.append(contentsOf: slots[start..<(start + Int(held[cell]))])
        }
        let report: EllipsoidFit.Report
        do {
            report = try EllipsoidFit.fit(readings, configuration: configuration)
        } catch {
            lastRejection = error.description
            return nil
        }
        let softIron = (report.calibration.softIron - .identity).frobeniusNorm
        guard report.isGoodEnough, softIron <= Self.maximumSoftIron else {
            lastRejection = "\(report.model.rawValue), coverage \(fixedDecimals(report.coveragePercent, 0)) %, fit error "
                + "\(fixedDecimals(report.fitErrorPercent, 2)) %, soft iron \(fixedDecimals(softIron * 100, 1)) %, field "
                + "\(fixedDecimals(report.fieldStrength, 1)) µT"
            return nil
        }
        lastRejection = nil
        calibration = report.calibration
        coveragePercent = report.coveragePercent
        fitErrorPercent = report.fitErrorPercent
        fitsTaken += 1
        return report.calibration
    }

    /// The kept readings' strengths with `calibration` applied: their RMS spread about their mean,
    /// relative to the mean; nil while fewer than ``minimumCheckedCells`` cells are covered. A
    /// soft-iron correction learned elsewhere (``HardIronEstimator/learnedSoftIron``) must make the
    /// readings kept here more nearly a sphere than the correction in use before it is applied.
    package func strengthSpread(_ calibration: MagnetometerCalibration) -> Double? {
        guard coveredCells >= Self.minimumCheckedCells else { return nil }
        var count = 0.0, sum = 0.0, sumOfSquares = 0.0
        for cell in 0..<Self.cellCount {
            let start = cell * Self.readingsPerCell
            for index in start..<(start + Int(held[cell])) {
                let corrected = calibration.apply(slots[index])
                let length = (corrected * corrected).sum().squareRoot()
                count += 1
                sum += length
                sumOfSquares += length * length
            }
        }
        guard count > 1, sum > 0 else { return nil }
        let mean = sum / count
        return (max(0, sumOfSquares / count - mean * mean)).squareRoot() / mean
    }

    /// Cells the kept readings must cover before ``strengthSpread(_:)`` judges a correction: an
    /// eighth of the sphere's 98.
    package static let minimumCheckedCells = 12

    /// sin of the upper latitude edge of each ``SphereCoverage`` band but the last (−72°, −54°, …, +72°).
    private static let bandTops: [Double] = (1..<SphereCoverage.cellsPerBand.count).map {
        sin(-Double.pi / 2 + Double($0) * Double.pi / Double(SphereCoverage.cellsPerBand.count))
    }
    private static let bandStarts: [Int] = SphereCoverage.cellsPerBand.indices.map { SphereCoverage.cellsPerBand[..<$0].reduce(0, +) }

    /// The ``SphereCoverage`` cell of the unit vector `u` (its ``SphereCoverage/cellIndex(of:)``,
    /// cheaper: the band by comparing z with the bands' sines instead of `asin`, the longitude by
    /// a polynomial arctangent within 1.2e-5 rad, so only directions within that of a cell's edge
    /// may land in its neighbour).
    static func cell(of u: SIMD3<Double>) -> Int {
        var band = 0
        while band < bandTops.count, u.z >= bandTops[band] { band += 1 }
        let n = SphereCoverage.cellsPerBand[band]
        let index = min(n - 1, max(0, Int((arctangent(u.y, u.x) + .pi) / (2 * .pi) * Double(n))))
        return bandStarts[band] + index
    }

    /// atan2(y, x) in −π…π within 1.2e-5 rad: the arctangent on [−1, 1] by Hastings' polynomial
    /// (Abramowitz & Stegun, Handbook of Mathematical Functions, 4.4.49: |ε| ≤ 1e-5 there; with
    /// its seven-digit coefficients 1.15e-5 measured against `atan2`), the octant folded onto it.
    static func arctangent(_ y: Double, _ x: Double) -> Double {
        let ax = abs(x), ay = abs(y)
        guard ax > 0 || ay > 0 else { return 0 }
        let t = min(ax, ay) / max(ax, ay)
        let t2 = t * t
        var angle = t * (0.9998660 + t2 * (-0.3302995 + t2 * (0.1801410 + t2 * (-0.0851330 + t2 * 0.0208351))))
        if ay > ax { angle = .pi / 2 - angle }
        if x < 0 { angle = .pi - angle }
        return y < 0 ? -angle : angle
    }
}
