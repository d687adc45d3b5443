import Motion
import Fusion

/// The outcome of a magnetometer calibration as `motionctl calibrate magnetometer --non-interactive`
/// prints it and `motionctl serve` sends it (JSON); µT, chip axes.
package struct MagnetometerResult: Encodable, Sendable {
    package var sensor: SensorIdentity
    package var stoppedBecause: String
    package var sampleCount: Int
    package var outlierCount: Int
    package var fieldStrength: Double
    package var fieldStrengthPlausible: Bool
    package var fitErrorPercent: Double
    package var coveragePercent: Double
    package var missingRegionCount: Int
    package var missingDirections: [String]
    /// Rows from +z to −z, `#` covered, `.` missing (see `SphereCoverage.map`).
    package var coverageMap: [String]
    package var model: String
    package var reason: String
    package var accuracy: String
    /// µT, chip axes.
    package var hardIronOffset: [Double]
    /// Row-major.
    package var softIronMatrix: [Double]
    package var unobservedAxis: [Double]?
    package var saved: Bool
    package var path: String?
    package var notSavedBecause: String?
    package var plot: String?

    package init(_ report: EllipsoidFit.Report, sensor: SensorIdentity, sampleCount: Int, stoppedBecause: String, path: String?, plot: String?) {
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
}
