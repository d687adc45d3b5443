/// A magnetometer calibration: hard-iron offset and soft-iron matrix.
///
/// `calibrated = softIron · (raw − hardIronOffset)`. Field values in µT, device frame.
/// `softIron` is symmetric with determinant 1 (it reshapes, it does not scale on average), so a
/// perfect calibration maps every raw reading of the local field to a vector of length
/// `fieldStrength`.
package struct MagnetometerCalibration: Sendable, Equatable {
    /// Hard-iron offset (µT): the field the board itself adds in every orientation.
    package var hardIronOffset: SIMD3<Double>
    /// Soft-iron correction: symmetric, determinant 1, maps raw − offset onto a sphere.
    package var softIron: Matrix3
    /// Strength of the local field (µT) the fit found: the radius of that sphere.
    package var fieldStrength: Double

    package init(hardIronOffset: SIMD3<Double>, softIron: Matrix3, fieldStrength: Double) {
        self.hardIronOffset = hardIronOffset
        self.softIron = softIron
        self.fieldStrength = fieldStrength
    }

    /// No correction.
    package static let identity = MagnetometerCalibration(hardIronOffset: .zero, softIron: .identity, fieldStrength: 0)

    /// The calibrated field (µT, device frame) for a raw reading (µT, device frame).
    package func apply(_ raw: SIMD3<Double>) -> SIMD3<Double> {
        softIron * (raw - hardIronOffset)
    }
}

/// Core Motion-style calibration accuracy of a magnetic field (same raw values as
/// `CMMagneticFieldCalibrationAccuracy`).
public enum MagneticFieldCalibrationAccuracy: Int, Sendable, RankedByRawValue {
    case uncalibrated = -1
    case low = 0
    case medium = 1
    case high = 2

    /// Every grade, lowest first.
    package static let allCases: [Self] = [.uncalibrated, .low, .medium, .high]

    /// The largest fit error (RMS of the radius' relative error, percent) a fit of this accuracy
    /// may have: high ≤ 2 %, medium ≤ 5 %, low ≤ 10 % (`EllipsoidFit` grades by these, and a
    /// stored calibration is checked against them).
    package var maximumFitErrorPercent: Double {
        switch self {
        case .high: 2
        case .medium: 5
        case .low: 10
        case .uncalibrated: .infinity
        }
    }

    /// The least coverage of the sphere of directions (percent) a fit of this accuracy needs.
    package var minimumCoveragePercent: Double {
        switch self {
        case .high: 80
        case .medium: 50
        case .low, .uncalibrated: 0
        }
    }
}
