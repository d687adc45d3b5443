import Foundation
import FieldCalibration
import Fusion

/// Which physical sensor a calibration belongs to: the same chip type on another board, bus or
/// address is another sensor with its own calibration.
package struct SensorIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Board id, e.g. `raspberry-pi-4b` or `simulated`.
    package var board: String
    /// Chip name, e.g. `LSM6DSOX`.
    package var chip: String
    /// Bus, e.g. `/dev/i2c-1`.
    package var bus: String
    /// 7-bit address.
    package var address: UInt8

    package init(board: String, chip: String, bus: String, address: UInt8) {
        self.board = board
        self.chip = chip
        self.bus = bus
        self.address = address
    }

    /// `raspberry-pi-4b_LSM6DSOX_i2c-1_0x6A.json`: only letters, digits, `-`, `_`, `.`.
    package var fileName: String {
        let busName = bus.split(separator: "/").last.map(String.init) ?? bus
        let hex = String(address, radix: 16, uppercase: true)
        let raw = "\(board)_\(chip)_\(busName)_0x\(address < 0x10 ? "0" : "")\(hex)"
        return String(raw.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "-" }) + ".json"
    }

    package var description: String {
        "\(chip) at 0x\(String(address, radix: 16, uppercase: true)) on \(bus) (board \(board))"
    }
}

/// Everything stored for one sensor. One JSON file per sensor.
package struct CalibrationRecord: Sendable, Codable, Equatable {
    /// The file format version; a newer one is refused with a clear error.
    package var version = 1
    package var sensor: SensorIdentity
    package var gyroscope: Gyroscope?
    package var accelerometer: Accelerometer?
    package var magnetometer: Magnetometer?
    /// When it was last written (ISO 8601).
    package var updated: Date

    package init(sensor: SensorIdentity, updated: Date = Date()) {
        self.sensor = sensor
        self.updated = updated
    }

    /// Checks the shape of the arrays (a hand-edited file may be wrong); the message names the key.
    func validate() -> String? {
        if let gyroscope, gyroscope.bias.count != 3 { return "gyroscope.bias must have 3 numbers" }
        if let gyroscope, !Bounds.sampleCount.contains(gyroscope.sampleCount) {
            return "gyroscope.sampleCount \(gyroscope.sampleCount) must lie within \(Bounds.sampleCount.lowerBound)…\(Bounds.sampleCount.upperBound)"
        }
        if let accelerometer {
            if accelerometer.offset.count != 3 { return "accelerometer.offset must have 3 numbers" }
            if accelerometer.scale.count != 3 || accelerometer.scale.contains(where: { !($0 > 0) }) {
                return "accelerometer.scale must have 3 positive numbers"
            }
        }
        if let magnetometer {
            if magnetometer.hardIronOffset.count != 3 { return "magnetometer.hardIronOffset must have 3 numbers" }
            if magnetometer.softIronMatrix.count != 9 { return "magnetometer.softIronMatrix must have 9 numbers (row-major 3×3)" }
            // An unknown name would leave the calibration applied but its accuracy unknown.
            if MagneticFieldCalibrationAccuracy(name: magnetometer.accuracy) == nil {
                return "magnetometer.accuracy \"\(magnetometer.accuracy)\" must be one of uncalibrated, low, medium, high"
            }
        }
        let all = (gyroscope?.bias ?? []) + (accelerometer?.offset ?? []) + (accelerometer?.scale ?? [])
            + (magnetometer?.hardIronOffset ?? []) + (magnetometer?.softIronMatrix ?? [])
            + [magnetometer?.fieldStrength, magnetometer?.fitErrorPercent, magnetometer?.coveragePercent, magnetometer?.offsetSigma].compactMap { $0 }
        if all.contains(where: { !$0.isFinite }) { return "every number must be finite" }
        return physicalProblem()
    }

    /// What no real sensor can need: the bounds below hold for every chip this library reads, with
    /// room to spare, and keep a damaged or hand-made file from turning every reading into garbage
    /// (a bias of 1e308 makes every sample NaN; a mirrored soft-iron matrix flips the heading).
    enum Bounds {
        /// rad/s per axis: 20 °/s, the widest zero-rate offset tolerance of the supported gyroscopes
        /// (MPU-6050 datasheet rev 3.4 §6.1, "Initial ZRO Tolerance ±20 °/s"; ST parts are ±1–10 °/s).
        static let gyroscopeBias = 20 * Double.pi / 180
        /// g per axis: zero-g offsets are within ±150 mg (MPU-6050 §6.2, Z axis); 0.25 g leaves room.
        static let accelerometerOffset = 0.25
        /// Dimensionless: sensitivity tolerances are a few percent (MPU-6050 §6.2 ±3 %, LSM6DSOX
        /// ±1 %); a correction beyond 20 % is a failed measurement.
        static let accelerometerScale = 0.8...1.2
        /// µT: the largest full scale of the supported magnetometers (AK8963 ±4912 µT, datasheet
        /// §5.3; LIS2MDL ±49.152 gauss); a hard-iron offset outside it could not have been measured.
        static let hardIronOffset = 4_912.0
        /// Largest ratio of the soft-iron matrix's singular values: a board that squeezes the field
        /// tenfold in one direction is not a magnetometer calibration any more.
        static let softIronCondition = 10.0
        /// µT: the corrected field's radius; the Earth's is 22–67 µT, calibrations near steel less sane.
        static let fieldStrength = 1.0...1_000
        /// The soft-iron matrix's scale: the fit scales it to determinant 1 (it reshapes, it does not
        /// scale: `MagnetometerCalibration`), so that the corrected field's radius is the stored
        /// field strength. Its cube root may differ from 1 by 5 % (a hand-rounded file); beyond,
        /// corrected readings no longer have the stored strength (1e300·I, 1e-10·I).
        static let softIronScale = 0.95...1.05
        /// Largest asymmetry of the soft-iron matrix (|M − Mᵀ| over its largest entry): a fit's is
        /// symmetric; a rotation hidden in it (60° about z) would turn every heading.
        static let softIronAsymmetry = 1e-3
        /// Samples a mean can have been taken over: a day at 32 kHz is 2.8·10⁹.
        static let sampleCount = 0...1_000_000_000_000
        /// Percent: a fit error is an RMS relative error of the radius; beyond 100 % it fitted nothing.
        static let fitErrorPercent = 0.0...100
    }

    /// The first value outside ``Bounds``, naming the field and the bound; nil when all are plausible.
    func physicalProblem() -> String? {
        if let bias = gyroscope?.bias, let worst = bias.map(abs).max(), worst > Bounds.gyroscopeBias {
            return "gyroscope.bias \(bias) rad/s is beyond ±0.349 rad/s (20 °/s), more than any supported gyroscope's offset"
        }
        if let accelerometer {
            if let worst = accelerometer.offset.map(abs).max(), worst > Bounds.accelerometerOffset {
                return "accelerometer.offset \(accelerometer.offset) g is beyond ±\(Bounds.accelerometerOffset) g"
            }
            if accelerometer.scale.contains(where: { !Bounds.accelerometerScale.contains($0) }) {
                return "accelerometer.scale \(accelerometer.scale) must lie within \(Bounds.accelerometerScale.lowerBound)…\(Bounds.accelerometerScale.upperBound)"
            }
        }
        if let magnetometer {
            if let worst = magnetometer.hardIronOffset.map(abs).max(), worst > Bounds.hardIronOffset {
                return "magnetometer.hardIronOffset \(magnetometer.hardIronOffset) µT is beyond ±\(Bounds.hardIronOffset) µT, the widest magnetometer range"
            }
            if !Bounds.fieldStrength.contains(magnetometer.fieldStrength) {
                return "magnetometer.fieldStrength \(magnetometer.fieldStrength) µT must lie within \(Bounds.fieldStrength.lowerBound)…\(Bounds.fieldStrength.upperBound) µT"
            }
            if let matrix = Matrix3(rowMajor: magnetometer.softIronMatrix) {
                let largest = magnetometer.softIronMatrix.map(abs).max() ?? 0
                let asymmetry = (matrix - matrix.transposed).rowMajor.map(abs).max() ?? 0
                if asymmetry > Bounds.softIronAsymmetry * largest {
                    return "magnetometer.softIronMatrix must be symmetric (|M − Mᵀ| within \(Bounds.softIronAsymmetry) of its largest entry; "
                        + "a fit gives a symmetric matrix, a rotation in it turns every heading); \(magnetometer.softIronMatrix) is not"
                }
                // Positive definite: its symmetric part has only positive eigenvalues (so no
                // mirror, no collapse); conditioned: singular values within a ratio of 10.
                let symmetric = 0.5 * (matrix + matrix.transposed)
                if symmetric.symmetricEigen.values.min() <= 0 || matrix.determinant <= 0 {
                    return "magnetometer.softIronMatrix must be positive definite (no mirroring, no zero direction); \(magnetometer.softIronMatrix) is not"
                }
                // Scale: determinant 1, so corrected readings have the stored field strength.
                let scale = cbrt(matrix.determinant)
                if !Bounds.softIronScale.contains(scale) {
                    return "magnetometer.softIronMatrix scales the field by \(scale) (the cube root of its determinant), outside "
                        + "\(Bounds.softIronScale.lowerBound)…\(Bounds.softIronScale.upperBound): corrected readings would not have the stored "
                        + "magnetometer.fieldStrength \(magnetometer.fieldStrength) µT (a fit scales the matrix to determinant 1)"
                }
                let squared = (matrix.transposed * matrix).symmetricEigen.values
                let condition = (squared.max() / max(squared.min(), .leastNormalMagnitude)).squareRoot()
                if !(condition <= Bounds.softIronCondition) {
                    return "magnetometer.softIronMatrix has condition number \(condition), above \(Bounds.softIronCondition) (its singular values differ more than tenfold)"
                }
            }
            if let sigma = magnetometer.offsetSigma, !(sigma >= 0 && sigma.isFinite) {
                return "magnetometer.offsetSigma \(sigma) µT must be a number ≥ 0"
            }
            if !Bounds.fitErrorPercent.contains(magnetometer.fitErrorPercent) {
                return "magnetometer.fitErrorPercent \(magnetometer.fitErrorPercent) must lie within \(Int(Bounds.fitErrorPercent.lowerBound))…\(Int(Bounds.fitErrorPercent.upperBound)) %"
            }
            if !(0...100).contains(magnetometer.coveragePercent) {
                return "magnetometer.coveragePercent \(magnetometer.coveragePercent) must lie within 0…100 %"
            }
            if !["ellipsoid", "diagonal", "offset"].contains(magnetometer.model) {
                return "magnetometer.model \"\(magnetometer.model)\" must be one of ellipsoid, diagonal, offset"
            }
            if let problem = accuracyProblem(magnetometer) { return problem }
        }
        return nil
    }

    /// The stored accuracy must be one the fit could have given: as good as its fit error, its
    /// coverage and its model allow (`EllipsoidFit`'s grading), no better.
    private func accuracyProblem(_ magnetometer: Magnetometer) -> String? {
        guard let accuracy = MagneticFieldCalibrationAccuracy(name: magnetometer.accuracy) else { return nil }   // checked before
        if magnetometer.isBackground { return backgroundAccuracyProblem(magnetometer, accuracy) }
        if magnetometer.fitErrorPercent > accuracy.maximumFitErrorPercent {
            return "magnetometer.accuracy \(magnetometer.accuracy) needs magnetometer.fitErrorPercent ≤ \(Int(accuracy.maximumFitErrorPercent)) %, "
                + "not \(magnetometer.fitErrorPercent) %"
        }
        if magnetometer.coveragePercent < accuracy.minimumCoveragePercent {
            return "magnetometer.accuracy \(magnetometer.accuracy) needs magnetometer.coveragePercent ≥ \(Int(accuracy.minimumCoveragePercent)) %, "
                + "not \(magnetometer.coveragePercent) %"
        }
        if accuracy == .high, magnetometer.model == "offset" {
            return "magnetometer.accuracy high needs magnetometer.model ellipsoid or diagonal, not offset"
        }
        return nil
    }

    /// A background estimate's accuracy stands on its offset's uncertainty, not on a fit: it needs
    /// `offsetSigma`, and may claim no better than that σ gives (``HardIronEstimator/accuracy(sigma:headingSigma:)``
    /// with the heading σ it gives at least: σ over the whole field strength, since the horizontal
    /// part is no larger).
    private func backgroundAccuracyProblem(_ magnetometer: Magnetometer, _ accuracy: MagneticFieldCalibrationAccuracy) -> String? {
        guard let sigma = magnetometer.offsetSigma else {
            return "magnetometer.origin background needs magnetometer.offsetSigma (the offset's uncertainty in µT)"
        }
        let headingSigma = magnetometer.fieldStrength > 0 ? sigma / magnetometer.fieldStrength * 180 / .pi : .infinity
        let supported = HardIronEstimator.accuracy(sigma: sigma, headingSigma: headingSigma)
        guard accuracy.rawValue <= supported.rawValue else {
            return "magnetometer.accuracy \(magnetometer.accuracy) needs a smaller magnetometer.offsetSigma than \(sigma) µT "
                + "(at most \(supported.storedName) with a field of \(magnetometer.fieldStrength) µT)"
        }
        return nil
    }

    /// The record's sensor must be the one its file and its use name: a record copied under
    /// another sensor's name (another address or chip) would correct the wrong chip. The message
    /// names the first field that differs and both values.
    func identityProblem(expected: SensorIdentity) -> String? {
        let fields: [(String, String, String)] = [
            ("sensor.chip", sensor.chip, expected.chip),
            ("sensor.address", "0x" + String(sensor.address, radix: 16, uppercase: true), "0x" + String(expected.address, radix: 16, uppercase: true)),
            ("sensor.bus", sensor.bus, expected.bus),
            ("sensor.board", sensor.board, expected.board),
        ]
        guard let (field, found, wanted) = fields.first(where: { $0.1 != $0.2 }) else { return nil }
        return "\(field) is \(found), but this file is the calibration of \(expected) (\(field) \(wanted)): it belongs to another sensor"
    }
}

extension CalibrationRecord {
    /// Gyroscope bias measured at rest.
    package struct Gyroscope: Sendable, Codable, Equatable {
        /// rad/s, chip axes; subtracted from every reading.
        package var bias: [Double]
        /// How many samples the mean was taken over.
        package var sampleCount: Int

        package init(bias: SIMD3<Double>, sampleCount: Int) {
            self.bias = [bias.x, bias.y, bias.z]
            self.sampleCount = sampleCount
        }
    }

    /// Accelerometer offset and scale per axis, from six faces: corrected = (raw − offset) · scale.
    package struct Accelerometer: Sendable, Codable, Equatable {
        /// g, chip axes.
        package var offset: [Double]
        /// Dimensionless, chip axes.
        package var scale: [Double]

        package init(offset: SIMD3<Double>, scale: SIMD3<Double>) {
            self.offset = [offset.x, offset.y, offset.z]
            self.scale = [scale.x, scale.y, scale.z]
        }
    }

    /// Magnetometer hard- and soft-iron correction: corrected = softIron · (raw − hardIronOffset).
    package struct Magnetometer: Sendable, Codable, Equatable {
        /// µT, chip axes.
        package var hardIronOffset: [Double]
        /// Row-major 3×3, dimensionless.
        package var softIronMatrix: [Double]
        /// µT: the radius of the corrected sphere (the local Earth field where it was calibrated).
        package var fieldStrength: Double
        /// RMS of (|corrected| − radius) / radius, in percent.
        package var fitErrorPercent: Double
        /// Share of the sphere of directions covered by the samples, in percent.
        package var coveragePercent: Double
        /// Which fit was used: `ellipsoid`, `diagonal` or `offset`.
        package var model: String
        /// `uncalibrated`, `low`, `medium` or `high`.
        package var accuracy: String
        /// Where it came from: `background` for the estimate found during ordinary use
        /// (`HardIronEstimator`); absent for an explicit calibration (the figure-eight), which wins.
        package var origin: String? = nil
        /// The background estimate's standard deviation per axis, µT (absent otherwise).
        package var offsetSigma: Double? = nil

        /// Whether the sampler's background estimate wrote it.
        package var isBackground: Bool { origin == Self.backgroundOrigin }
        package static let backgroundOrigin = "background"

        package init(
            hardIronOffset: SIMD3<Double>, softIronMatrix: [Double], fieldStrength: Double,
            fitErrorPercent: Double, coveragePercent: Double, model: String, accuracy: String
        ) {
            self.hardIronOffset = [hardIronOffset.x, hardIronOffset.y, hardIronOffset.z]
            self.softIronMatrix = softIronMatrix
            self.fieldStrength = fieldStrength
            self.fitErrorPercent = fitErrorPercent
            self.coveragePercent = coveragePercent
            self.model = model
            self.accuracy = accuracy
        }
    }
}
