import Fusion
import Motion

/// The outcome, as text for a person and as JSON for scripts.
struct MagnetometerResult: Encodable {
    var sensor: SensorIdentity
    var stoppedBecause: String
    var sampleCount: Int
    var outlierCount: Int
    var fieldStrength: Double
    var fieldStrengthPlausible: Bool
    var fitErrorPercent: Double
    var coveragePercent: Double
    var missingRegionCount: Int
    var missingDirections: [String]
    /// Rows from +z to −z, `#` covered, `.` missing (see `SphereCoverage.map`).
    var coverageMap: [String]
    var model: String
    var reason: String
    var accuracy: String
    /// µT, chip axes.
    var hardIronOffset: [Double]
    /// Row-major.
    var softIronMatrix: [Double]
    var unobservedAxis: [Double]?
    var saved: Bool
    var path: String?
    var notSavedBecause: String?
    var plot: String?

    init(_ report: EllipsoidFit.Report, sensor: SensorIdentity, sampleCount: Int, stoppedBecause: String, path: String?, plot: String?) {
        self.sensor = sensor
        self.stoppedBecause = stoppedBecause
        self.sampleCount = sampleCount
        outlierCount = report.outlierCount
        fieldStrength = report.fieldStrength
        fieldStrengthPlausible = report.isFieldStrengthPlausible
        fitErrorPercent = report.fitErrorPercent
        coveragePercent = report.coveragePercent
        missingRegionCount = report.missingRegions.count
        missingDirections = report.coverage.missingAxes
        coverageMap = report.coverage.map.split(separator: "\n").map(String.init)
        model = report.model.rawValue
        reason = report.reason
        accuracy = report.accuracy.storedName
        let offset = report.calibration.hardIronOffset
        hardIronOffset = [offset.x, offset.y, offset.z]
        softIronMatrix = report.calibration.softIron.rowMajor
        unobservedAxis = report.unobservedAxis.map { [$0.x, $0.y, $0.z] }
        saved = path != nil
        self.path = path
        self.plot = plot
    }

    var text: String {
        let m = softIronMatrix.map { decimals($0, 3) }
        var lines = [
            "",
            "Magnetometer calibration of \(sensor)",
            "  stopped:         \(stoppedBecause)",
            "  samples:         \(sampleCount) (\(outlierCount) outliers dropped)",
            "  field strength:  \(decimals(fieldStrength, 1)) µT " + (fieldStrengthPlausible
                ? "(plausible for the Earth: 22–67 µT)" : "(NOT plausible for the Earth's 22–67 µT: steel or a magnet nearby?)"),
            "  fit error:       \(decimals(fitErrorPercent)) %",
            "  coverage:        \(decimals(coveragePercent, 0)) % (\(missingRegionCount) of \(SphereCoverage.cells.count) regions missing"
                + (missingDirections.isEmpty ? ")" : "; around \(missingDirections.joined(separator: ", ")))"),
        ]
        if missingRegionCount > 0 {
            lines.append("  directions covered (# covered, . missing; top row +z, bottom -z):")
            lines += coverageMap.map { "      " + $0 }
        }
        lines += [
            "  model:           \(model): \(reason)",
            "  accuracy:        \(accuracy)",
            "  hard-iron offset: (\(hardIronOffset.map { decimals($0) }.joined(separator: ", "))) µT, chip axes",
            "  soft-iron matrix: [\(m[0...2].joined(separator: " ")); \(m[3...5].joined(separator: " ")); \(m[6...8].joined(separator: " "))]",
        ]
        if let path {
            lines.append("Saved to \(path)")
        } else {
            lines.append("Not saved: \(notSavedBecause ?? "the fit is too poor to use"). Turn the board through every orientation and try again.")
        }
        if let plot { lines.append("Plot written to \(plot)") }
        return lines.joined(separator: "\n")
    }
}
