import Fusion

/// The outcome of a magnetometer calibration as `motionctl calibrate magnetometer --non-interactive`
/// prints it and `motionctl serve` sends it (JSON); µT, chip axes.
public struct MagnetometerResult: Encodable, Sendable {
    public var sensor: SensorIdentity
    public var stoppedBecause: String
    public var sampleCount: Int
    public var outlierCount: Int
    public var fieldStrength: Double
    public var fieldStrengthPlausible: Bool
    public var fitErrorPercent: Double
    public var coveragePercent: Double
    public var missingRegionCount: Int
    public var missingDirections: [String]
    /// Rows from +z to −z, `#` covered, `.` missing (see `SphereCoverage.map`).
    public var coverageMap: [String]
    public var model: String
    public var reason: String
    public var accuracy: String
    /// µT, chip axes.
    public var hardIronOffset: [Double]
    /// Row-major.
    public var softIronMatrix: [Double]
    public var unobservedAxis: [Double]?
    public var saved: Bool
    public var path: String?
    public var notSavedBecause: String?
    public var plot: String?

    public init(_ report: EllipsoidFit.Report, sensor: SensorIdentity, sampleCount: Int, stoppedBecause: String, path: String?, plot: String?) {
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
