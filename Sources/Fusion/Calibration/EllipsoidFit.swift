#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Magnetometer hard- and soft-iron calibration from readings taken while the board is turned
/// through many orientations (a figure-eight), with a quality report.
///
/// Models, tried in order, the first whose parameters the data determine is used:
/// 1. `fullEllipsoid`: general quadric (9 parameters) by algebraic least squares on centred and
///    scaled data, with the constant term fixed at −1 (the data's centroid is inside the
///    ellipsoid, so the constraint is never degenerate). Centre = hard-iron offset; the
///    symmetric square root of the shape matrix (Jacobi eigen-decomposition), scaled to
///    determinant 1, is the soft-iron matrix; the geometric-mean radius is the field strength.
///    Needs `fullEllipsoidMinimumCoverage`.
/// 2. `diagonalEllipsoid`: axis-aligned ellipsoid (6 parameters): offset and per-axis scale.
///    Needs `diagonalMinimumCoverage`.
/// 3. `offsetOnly`: sphere (4 parameters): offset and field strength.
/// 4. `planarOffset`: when the readings lie in one plane (the board was turned about one axis
///    only), a circle in that plane: the offset within the plane. The offset along the plane's
///    normal cannot be observed and is left at 0 (`unobservedAxis`).
/// A model is skipped when the data do not determine its parameters: the smallest over the
/// largest eigenvalue of its normal matrix (on centred data scaled to unit RMS radius) is below
/// `minimumEllipsoidConditionRatio` or `minimumSphereConditionRatio`, or its shape is not an
/// ellipsoid.
///
/// Outliers: readings far from the median distance to the median reading are dropped first;
/// then each model is fitted, readings whose residual (|corrected| − radius) is more than
/// `outlierMADMultiple` median absolute deviations from the median residual are dropped, and
/// the model is refitted, until the set of inliers no longer changes.
package enum EllipsoidFit {
    package enum Model: String, Sendable, CaseIterable {
        case fullEllipsoid, diagonalEllipsoid, offsetOnly, planarOffset

        var parameterCount: Int {
            switch self {
            case .fullEllipsoid: 9
            case .diagonalEllipsoid: 6
            case .offsetOnly: 4
            case .planarOffset: 3
            }
        }
    }

    package struct Configuration: Sendable, Equatable {
        /// Fewest readings (after outlier rejection) a fit accepts.
        package var minimumSamples: Int
        /// Coverage (fraction of `SphereCoverage` cells, 0…1) the full ellipsoid needs.
        package var fullEllipsoidMinimumCoverage: Double
        /// Coverage the diagonal ellipsoid needs.
        package var diagonalMinimumCoverage: Double
        /// Smallest accepted ratio of the smallest to the largest eigenvalue of the full and the
        /// diagonal ellipsoid's normal matrix (0 when some parameter is not determined at all).
        /// Measured on the synthetic data of `CalibrationEllipsoidFitTests` (0.4 µT noise):
        /// full model on 60 s figure-eights 3.8e-3…8.6e-3; full model on a quarter-sphere cap
        /// 4.3e-4; diagonal model on one plane of rotation 1.1e-4.
        package var minimumEllipsoidConditionRatio: Double
        /// The same for the offset-only sphere (and the circle of `planarOffset`). Measured: a
        /// quarter-sphere cap 1.3e-1; one plane of rotation 3.4e-4.
        package var minimumSphereConditionRatio: Double
        /// Residuals beyond this many median absolute deviations from the median are outliers.
        package var outlierMADMultiple: Double
        /// Samples a coverage cell needs to count as covered.
        package var minimumSamplesPerCell: Int
        /// Field strengths (µT) plausible for the Earth's field at the surface.
        package var plausibleFieldStrength: ClosedRange<Double>

        package init(
            minimumSamples: Int = 50,
            fullEllipsoidMinimumCoverage: Double = 0.5,
            diagonalMinimumCoverage: Double = 0.3,
            minimumEllipsoidConditionRatio: Double = 1e-3,
            minimumSphereConditionRatio: Double = 1e-2,
            outlierMADMultiple: Double = 5,
            minimumSamplesPerCell: Int = 3,
            plausibleFieldStrength: ClosedRange<Double> = 22...67
        ) {
            self.minimumSamples = minimumSamples
            self.fullEllipsoidMinimumCoverage = fullEllipsoidMinimumCoverage
            self.diagonalMinimumCoverage = diagonalMinimumCoverage
            self.minimumEllipsoidConditionRatio = minimumEllipsoidConditionRatio
            self.minimumSphereConditionRatio = minimumSphereConditionRatio
            self.outlierMADMultiple = outlierMADMultiple
            self.minimumSamplesPerCell = minimumSamplesPerCell
            self.plausibleFieldStrength = plausibleFieldStrength
        }
    }

    /// The fit and how good it is.
    package struct Report: Sendable {
        package var calibration: MagnetometerCalibration
        package var model: Model
        /// Why this model was used (and why larger ones were not), for a person.
        package var reason: String
        /// Field strength (µT) = `calibration.fieldStrength`.
        package var fieldStrength: Double
        /// Whether `fieldStrength` lies in the Earth's range (22–67 µT by default).
        package var isFieldStrengthPlausible: Bool
        /// RMS of (|corrected| − field strength) / field strength over the inliers, in percent.
        package var fitErrorPercent: Double
        /// Directions of the corrected inliers over the sphere.
        package var coverage: SphereCoverage
        /// Percentage (0…100) of the sphere of directions covered.
        package var coveragePercent: Double { coverage.coverage * 100 }
        /// Regions of directions with no (or too few) readings.
        package var missingRegions: [SphereCoverage.Cell] { coverage.missingCells }
        /// For `planarOffset`: the unit axis along which the offset could not be determined.
        package var unobservedAxis: SIMD3<Double>?
        package var inlierCount: Int
        package var outlierCount: Int
        /// Core Motion-style accuracy: high needs a full or diagonal ellipsoid, coverage ≥ 80 %,
        /// fit error ≤ 2 % and a plausible field; medium needs a 3-D model, coverage ≥ 50 % and
        /// fit error ≤ 5 %; low needs fit error ≤ 10 %; otherwise uncalibrated.
        package var accuracy: MagneticFieldCalibrationAccuracy

        /// The least coverage (percent of the sphere of directions) ``isGoodEnough`` needs: a 60 s
        /// simulated figure-eight covers 73 %.
        package static let goodEnoughCoveragePercent = 70.0

        /// Coverage and fit are good enough to stop turning: a full ellipsoid over at least
        /// ``goodEnoughCoveragePercent`` of the directions, fit error at most 2 %, an Earth-like
        /// field. The figure-eight (`motionctl calibrate magnetometer`) stops on it, and the
        /// background calibration (``BackgroundSoftIron``) takes its soft iron on it.
        package var isGoodEnough: Bool {
            model == .fullEllipsoid && coveragePercent >= Self.goodEnoughCoveragePercent
                && fitErrorPercent <= MagneticFieldCalibrationAccuracy.high.maximumFitErrorPercent && isFieldStrengthPlausible
        }
    }

    /// Fits `samples` (raw magnetometer readings, µT, device frame). Non-finite readings are
    /// ignored.
    package static func fit(_ samples: [SIMD3<Double>], configuration: Configuration = Configuration()) throws(EllipsoidFitError) -> Report {
        let points = samples.filter { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
        guard points.count >= configuration.minimumSamples else {
            throw .tooFewSamples(count: points.count, required: configuration.minimumSamples)
        }
        let screened = screenGrossOutliers(points, multiple: configuration.outlierMADMultiple)
        var rejected: [String] = []
        for model in [Model.fullEllipsoid, .diagonalEllipsoid, .offsetOnly] {
            guard let (candidate, inliers) = robustFit(model, points, initialInliers: screened, configuration: configuration) else {
                rejected.append("\(model.name) does not fit (singular or not an ellipsoid)")
                continue
            }
            let minimumRatio = model == .offsetOnly ? configuration.minimumSphereConditionRatio : configuration.minimumEllipsoidConditionRatio
            guard candidate.conditionRatio >= minimumRatio else {
                rejected.append("the readings do not determine the \(model.parameterCount) parameters of \(model.name) (condition ratio \(scientific(candidate.conditionRatio)) < \(scientific(minimumRatio)))")
                continue
            }
            let coverage = coverageOf(candidate.calibration, points, inliers, configuration)
            let required = model == .fullEllipsoid ? configuration.fullEllipsoidMinimumCoverage
                : model == .diagonalEllipsoid ? configuration.diagonalMinimumCoverage : 0
            guard coverage.coverage >= required else {
                rejected.append("coverage \(fixedDecimals(coverage.coverage * 100, 0)) % is below the \(fixedDecimals(required * 100, 0)) % \(model.name) needs")
                continue
            }
            let chosen = "\(model.name) (coverage \(fixedDecimals(coverage.coverage * 100, 0)) %, condition ratio \(scientific(candidate.conditionRatio)))"
            return report(candidate.calibration, model, reason: explain(chosen, rejected, coverage), unobservedAxis: nil,
                          points, inliers, coverage, configuration)
        }
        guard let (calibration, axis, inliers) = planarFit(points, screened, configuration) else {
            throw .degenerate(reason: "no model fits: " + rejected.joined(separator: "; ") + "; the readings do not even span a plane")
        }
        let coverage = coverageOf(calibration, points, inliers, configuration)
        let note = ". The readings lie in one plane: the offset along \(fixedDecimals(axis, 2)) cannot be observed from turns "
            + "about that axis alone, so it is left at 0 and the field strength assumes it is 0; turn the board about another axis"
        return report(calibration, .planarOffset, reason: explain("the in-plane offset", rejected, coverage) + note, unobservedAxis: axis,
                      points, inliers, coverage, configuration)
    }

    // MARK: - Fits

    struct Candidate {
        var calibration: MagnetometerCalibration
        var conditionRatio: Double
    }

    /// Fits a 3-D `model` (not `planarOffset`) to the readings selected by `mask`, in coordinates centred on their mean and
    /// scaled to unit RMS radius.
    static func fitModel(_ model: Model, _ points: [SIMD3<Double>], _ mask: [Bool]) -> Candidate? {
        guard model != .planarOffset, let (mean, scale) = normalization(points, mask) else { return nil }
        var system = LeastSquares(parameters: model.parameterCount)
        for (point, use) in zip(points, mask) where use {
            let y = (point - mean) / scale
            switch model {
            case .fullEllipsoid:
                system.add(row: [y.x * y.x, y.y * y.y, y.z * y.z, 2 * y.y * y.z, 2 * y.x * y.z, 2 * y.x * y.y, 2 * y.x, 2 * y.y, 2 * y.z], target: 1)
            case .diagonalEllipsoid:
                system.add(row: [y.x * y.x, y.y * y.y, y.z * y.z, 2 * y.x, 2 * y.y, 2 * y.z], target: 1)
            case .offsetOnly, .planarOffset:
                system.add(row: [2 * y.x, 2 * y.y, 2 * y.z, 1], target: (y * y).sum())
            }
        }
        guard let p = system.solve() else { return nil }
        let ratio = system.conditionRatio
        let shape: Matrix3
        let linear: SIMD3<Double>
        switch model {
        case .fullEllipsoid:
            shape = Matrix3(rows: SIMD3(p[0], p[5], p[4]), SIMD3(p[5], p[1], p[3]), SIMD3(p[4], p[3], p[2]))
            linear = SIMD3(p[6], p[7], p[8])
        case .diagonalEllipsoid:
            shape = Matrix3(diagonal: SIMD3(p[0], p[1], p[2]))
            linear = SIMD3(p[3], p[4], p[5])
        case .offsetOnly, .planarOffset:
            // |y − c|² = r²  ⇔  |y|² = 2c·y + (r² − |c|²)
            let center = SIMD3(p[0], p[1], p[2])
            let radiusSquared = p[3] + (center * center).sum()
            guard radiusSquared > 0 else { return nil }
            let calibration = MagnetometerCalibration(
                hardIronOffset: mean + scale * center, softIron: .identity, fieldStrength: scale * radiusSquared.squareRoot())
            return Candidate(calibration: calibration, conditionRatio: ratio)
        }
        // yᵀ S y + 2 lᵀ y = 1  ⇔  (y − c)ᵀ S (y − c) = 1 + cᵀ S c  with  c = −S⁻¹ l.
        guard let inverse = shape.inverse else { return nil }
        let center = -(inverse * linear)
        let level = 1 + (center * (shape * center)).sum()
        guard level > 0 else { return nil }
        // In raw units: (x − b)ᵀ A (x − b) = 1 with b = mean + scale·c, A = S / (level·scale²).
        let a = (1 / (level * scale * scale)) * shape
        let (values, vectors) = a.symmetricEigen
        guard values.min() > 0 else { return nil }
        let root = values.squareRoot()
        let fieldStrength = 1 / cbrt(root.x * root.y * root.z)
        let softIron = fieldStrength * (vectors * Matrix3(diagonal: root) * vectors.transposed)
        let calibration = MagnetometerCalibration(hardIronOffset: mean + scale * center, softIron: softIron, fieldStrength: fieldStrength)
        return Candidate(calibration: calibration, conditionRatio: ratio)
    }

    /// Fit, drop outliers by the median absolute deviation of the residuals, refit, until the
    /// inliers stop changing (at most ten rounds).
    static func robustFit(_ model: Model, _ points: [SIMD3<Double>], initialInliers: [Bool], configuration: Configuration) -> (Candidate, [Bool])? {
        var mask = initialInliers
        var candidate: Candidate?
        for _ in 0..<10 {
            guard mask.count(where: { $0 }) >= configuration.minimumSamples,
                  let fitted = fitModel(model, points, mask) else { return nil }
            candidate = fitted
            let calibration = fitted.calibration
            let residuals = points.map { (calibration.apply($0) * calibration.apply($0)).sum().squareRoot() - calibration.fieldStrength }
            let next = inlierMask(residuals, multiple: configuration.outlierMADMultiple, floor: 1e-3 * calibration.fieldStrength)
            if next == mask { break }
            mask = next
        }
        return candidate.map { ($0, mask) }
    }

    /// Circle fit in the plane of the readings, for readings that lie in one plane.
    static func planarFit(_ points: [SIMD3<Double>], _ screened: [Bool], _ configuration: Configuration)
        -> (MagnetometerCalibration, SIMD3<Double>, [Bool])?
    {
        guard let (mean, scale) = normalization(points, screened) else { return nil }
        var scatter = Matrix3(rows: .zero, .zero, .zero)
        for (point, use) in zip(points, screened) where use { scatter = scatter + Matrix3.outer(point - mean, point - mean) }
        let (u, v, normal) = scatter.symmetricEigen.vectors.columns
        // Plane coordinates, centred and scaled; circle |p − c|² = r²  ⇔  |p|² = 2c·p + (r² − |c|²).
        let planar = points.map { SIMD2((($0 - mean) * u).sum(), (($0 - mean) * v).sum()) / scale }
        var mask = screened
        var circle: (center: SIMD3<Double>, radius: Double)?
        for _ in 0..<10 {
            guard mask.count(where: { $0 }) >= configuration.minimumSamples else { return nil }
            var system = LeastSquares(parameters: 3)
            for (p, use) in zip(planar, mask) where use { system.add(row: [2 * p.x, 2 * p.y, 1], target: (p * p).sum()) }
            guard let solution = system.solve(), system.conditionRatio >= configuration.minimumSphereConditionRatio else { return nil }
            let center = SIMD2(solution[0], solution[1])
            let radiusSquared = solution[2] + (center * center).sum()
            guard radiusSquared > 0 else { return nil }
            let radius = radiusSquared.squareRoot()
            circle = (mean + scale * (center.x * u + center.y * v), scale * radius)
            let residuals = planar.map { scale * ((($0 - center) * ($0 - center)).sum().squareRoot() - radius) }
            let next = inlierMask(residuals, multiple: configuration.outlierMADMultiple, floor: 1e-3 * scale * radius)
            if next == mask { break }
            mask = next
        }
        guard let circle else { return nil }
        let offset = circle.center - (circle.center * normal).sum() * normal
        let height = (mean * normal).sum()
        let strength = (circle.radius * circle.radius + height * height).squareRoot()
        return (MagnetometerCalibration(hardIronOffset: offset, softIron: .identity, fieldStrength: strength), normal, mask)
    }

    // MARK: - Helpers

    static func normalization(_ points: [SIMD3<Double>], _ mask: [Bool]) -> (mean: SIMD3<Double>, scale: Double)? {
        var sum = SIMD3<Double>.zero
        var count = 0
        for (point, use) in zip(points, mask) where use { sum += point; count += 1 }
        guard count > 0 else { return nil }
        let mean = sum / Double(count)
        var squares = 0.0
        for (point, use) in zip(points, mask) where use { squares += ((point - mean) * (point - mean)).sum() }
        let scale = (squares / Double(count)).squareRoot()
        guard scale > 0, scale.isFinite else { return nil }
        return (mean, scale)
    }

    /// Drops readings whose distance from the component-wise median reading is far from the
    /// median distance: spikes that would otherwise dominate the first algebraic fit.
    static func screenGrossOutliers(_ points: [SIMD3<Double>], multiple: Double) -> [Bool] {
        let center = SIMD3(median(points.map(\.x)), median(points.map(\.y)), median(points.map(\.z)))
        let distances = points.map { (($0 - center) * ($0 - center)).sum().squareRoot() }
        // Soft iron legitimately spreads the distances by tens of percent: be generous.
        return inlierMask(distances, multiple: 2 * multiple, floor: 0.05 * median(distances))
    }

    /// `true` for values within `multiple` median absolute deviations (at least `floor`) of the
    /// median.
    static func inlierMask(_ values: [Double], multiple: Double, floor: Double) -> [Bool] {
        let center = median(values)
        let deviation = max(median(values.map { abs($0 - center) }), floor)
        return values.map { abs($0 - center) <= multiple * deviation }
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func coverageOf(_ calibration: MagnetometerCalibration, _ points: [SIMD3<Double>], _ mask: [Bool], _ configuration: Configuration) -> SphereCoverage {
        var coverage = SphereCoverage(minimumSamplesPerCell: configuration.minimumSamplesPerCell)
        for (point, use) in zip(points, mask) where use { coverage.insert(calibration.apply(point)) }
        return coverage
    }

    static func report(
        _ calibration: MagnetometerCalibration, _ model: Model, reason: String, unobservedAxis: SIMD3<Double>?,
        _ points: [SIMD3<Double>], _ mask: [Bool], _ coverage: SphereCoverage, _ configuration: Configuration
    ) -> Report {
        var squares = 0.0
        var count = 0
        for (point, use) in zip(points, mask) where use {
            let corrected = calibration.apply(point)
            let relative = ((corrected * corrected).sum().squareRoot() - calibration.fieldStrength) / calibration.fieldStrength
            squares += relative * relative
            count += 1
        }
        let fitError = 100 * (squares / Double(max(count, 1))).squareRoot()
        let plausible = configuration.plausibleFieldStrength.contains(calibration.fieldStrength)
        let accuracy: MagneticFieldCalibrationAccuracy
        func meets(_ grade: MagneticFieldCalibrationAccuracy) -> Bool {
            coverage.coverage >= grade.minimumCoveragePercent / 100 && fitError <= grade.maximumFitErrorPercent
        }
        if model == .fullEllipsoid || model == .diagonalEllipsoid, meets(.high), plausible {
            accuracy = .high
        } else if model != .planarOffset, meets(.medium) {
            accuracy = .medium
        } else if meets(.low) {
            accuracy = .low
        } else {
            accuracy = .uncalibrated
        }
        return Report(
            calibration: calibration, model: model, reason: reason, fieldStrength: calibration.fieldStrength,
            isFieldStrengthPlausible: plausible, fitErrorPercent: fitError, coverage: coverage,
            unobservedAxis: unobservedAxis, inlierCount: count, outlierCount: points.count - count, accuracy: accuracy)
    }

    /// "used X because A; B; directions still missing around +z, −x".
    static func explain(_ chosen: String, _ rejected: [String], _ coverage: SphereCoverage) -> String {
        var text = rejected.isEmpty ? "used \(chosen)" : "used \(chosen) because " + rejected.joined(separator: "; ")
        let axes = coverage.missingAxes
        if !axes.isEmpty { text += "; directions still missing around " + axes.joined(separator: ", ") }
        return text
    }

    static func scientific(_ value: Double) -> String {
        guard value > 0, value.isFinite else { return fixedDecimals(value, 1) }
        var exponent = 0
        var mantissa = value
        while mantissa >= 10 { mantissa /= 10; exponent += 1 }
        while mantissa < 1 { mantissa *= 10; exponent -= 1 }
        return "\(fixedDecimals(mantissa, 1))e\(exponent)"
    }
}

extension EllipsoidFit.Model {
    /// For messages: "the full ellipsoid", …
    var name: String {
        switch self {
        case .fullEllipsoid: "the full ellipsoid"
        case .diagonalEllipsoid: "the diagonal ellipsoid"
        case .offsetOnly: "the offset-only sphere"
        case .planarOffset: "the in-plane offset"
        }
    }
}

/// Why a magnetometer fit could not be made.
package enum EllipsoidFitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer finite readings than the fit needs.
    case tooFewSamples(count: Int, required: Int)
    /// The readings do not determine even an offset in a plane.
    case degenerate(reason: String)

    package var description: String {
        switch self {
        case let .tooFewSamples(count, required):
            "magnetometer fit: \(count) readings, at least \(required) needed; keep turning the board in slow figure-eights"
        case let .degenerate(reason):
            "magnetometer fit: \(reason); turn the board through every orientation (slow figure-eights) and try again"
        }
    }
}
