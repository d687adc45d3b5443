import Motion
import Foundation
import Fusion

/// The readings of a magnetometer calibration in progress (µT, chip axes) and what they give so
/// far: coverage of the sphere of directions, the current field strength, the fit.
package struct MagnetometerSession: Sendable {
    package let configuration: EllipsoidFit.Configuration
    package private(set) var samples: [SIMD3<Double>] = []

    package init(configuration: EllipsoidFit.Configuration = EllipsoidFit.Configuration()) {
        self.configuration = configuration
    }

    package mutating func add(_ readings: [SIMD3<Double>]) {
        samples.append(contentsOf: readings.filter { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
    }

    /// What a person sees while turning the board.
    package struct Progress: Sendable {
        package var sampleCount: Int
        /// Directions covered, relative to the fitted centre (or, before a fit, the middle of the
        /// readings' range).
        package var coverage: SphereCoverage
        /// |latest reading| after the current fit (µT); nil before a fit that means something (a
        /// full or diagonal ellipsoid over at least a quarter of the directions, with an Earth-like
        /// field): the first seconds' fits swing wildly.
        package var currentFieldStrength: Double?
        /// The latest reading's direction (chip axes, unit vector) relative to the fitted centre or,
        /// before a fit, the middle of the readings' range; nil before the first reading.
        package var currentDirection: SIMD3<Double>?
        /// The fit so far; nil while the readings do not allow one.
        package var report: EllipsoidFit.Report?

        /// Coverage and fit are good enough to stop (``EllipsoidFit/Report/isGoodEnough``).
        package var isGoodEnough: Bool { report?.isGoodEnough ?? false }
    }

    /// Fits the readings so far (a few milliseconds for a minute of readings).
    package func progress() -> Progress {
        let report: EllipsoidFit.Report?
        do {
            report = try EllipsoidFit.fit(samples, configuration: configuration)
        } catch {
            report = nil   // too few or too one-sided readings so far: keep turning
        }
        let calibration = report?.calibration ?? MagnetometerCalibration(hardIronOffset: midrange, softIron: .identity, fieldStrength: 0)
        var coverage = report?.coverage ?? SphereCoverage(minimumSamplesPerCell: configuration.minimumSamplesPerCell)
        if report == nil {
            for sample in samples { coverage.insert(calibration.apply(sample)) }
        }
        let latest = samples.last.map { calibration.apply($0) }
        let length = latest.map { ($0 * $0).sum().squareRoot() }
        let meaningful = report.map {
            [.fullEllipsoid, .diagonalEllipsoid].contains($0.model) && $0.coveragePercent >= 25 && $0.isFieldStrengthPlausible
        } ?? false
        var direction: SIMD3<Double>?
        if let latest, let length, length > 0 { direction = latest / length }
        return Progress(
            sampleCount: samples.count, coverage: coverage, currentFieldStrength: meaningful ? length : nil,
            currentDirection: direction, report: report)
    }

    /// The final fit.
    package func fit() throws(EllipsoidFitError) -> EllipsoidFit.Report {
        try EllipsoidFit.fit(samples, configuration: configuration)
    }

    private var midrange: SIMD3<Double> {
        guard let first = samples.first else { return .zero }
        var low = first, high = first
        for sample in samples {
            low = pointwiseMin(low, sample)
            high = pointwiseMax(high, sample)
        }
        return (low + high) / 2
    }
}
