import Foundation
import Fusion

extension CalibrationRecord.Magnetometer {
    /// The stored form of a fit (chip axes).
    package init(_ report: EllipsoidFit.Report) {
        self.init(
            hardIronOffset: report.calibration.hardIronOffset, softIronMatrix: report.calibration.softIron.rowMajor,
            fieldStrength: report.fieldStrength, fitErrorPercent: report.fitErrorPercent, coveragePercent: report.coveragePercent,
            model: report.model.storedName, accuracy: report.accuracy.name)
    }
}

extension EllipsoidFit.Model {
    /// The name in a calibration file: `ellipsoid`, `diagonal` or `offset` (also for the in-plane offset).
    package var storedName: String {
        switch self {
        case .fullEllipsoid: "ellipsoid"
        case .diagonalEllipsoid: "diagonal"
        case .offsetOnly, .planarOffset: "offset"
        }
    }
}

extension MagneticFieldCalibrationAccuracy {
    /// `uncalibrated`, `low`, `medium` or `high`, as stored.
    package var storedName: String { name }

    /// From a stored name; nil for an unknown one.
    package init?(storedName: String) { self.init(name: storedName) }
}

extension CalibrationStore {
    /// Loads the record of `sensor` (or starts a new one), lets `change` edit it, stamps the
    /// time and saves it atomically. Returns the path written. The whole read-modify-write holds
    /// an advisory lock on the record (`flock`), so updates of different sections from threads or
    /// processes at once all land; temporaries left by dead writers are removed first.
    @discardableResult
    package func update(_ sensor: SensorIdentity, _ change: (inout CalibrationRecord) -> Void) throws(CalibrationStoreError) -> String {
        try withRecordLocked(sensor) { () throws(CalibrationStoreError) -> String in
            removeStaleTemporaries(of: sensor)
            var record = try load(sensor) ?? CalibrationRecord(sensor: sensor)
            change(&record)
            record.updated = Date()
            return try saveLocked(record)
        }
    }
}
