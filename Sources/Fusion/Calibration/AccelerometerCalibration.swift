/// Accelerometer offset and scale per axis from six faces.
///
/// `calibrated = (raw − offset) · scale` per axis, in g with Core Motion's sign (face up reads
/// (0, 0, −1)), device frame. Measured by resting the board on each of its six faces: on each
/// face gravity is ±1 g along one axis (`DeviceOrientation.gravity`), so each axis is seen at
/// +1 g and −1 g: offset = mean of the two, scale = 2 / their difference. Cross-axis terms are
/// not modelled (≤ 2 % by MPU-6000/6050 product specification rev. 3.4 §6.2).
package struct AccelerometerCalibration: Sendable, Equatable {
    /// Zero-g offset per axis (g).
    package var offset: SIMD3<Double>
    /// Scale per axis (dimensionless), 1 for a perfect sensor.
    package var scale: SIMD3<Double>

    package init(offset: SIMD3<Double> = .zero, scale: SIMD3<Double> = SIMD3(1, 1, 1)) {
        self.offset = offset
        self.scale = scale
    }

    package static let identity = AccelerometerCalibration()

    /// The calibrated acceleration (g, Core Motion sign, device frame) for a raw reading.
    package func apply(_ raw: SIMD3<Double>) -> SIMD3<Double> {
        (raw - offset) * scale
    }

    /// Limits a six-face result must satisfy. Defaults are several times the datasheet
    /// tolerances (MPU-6000/6050 rev. 3.4 §6.2: zero-g ±50 mg on x/y, ±80 mg on z, sensitivity
    /// ±3 %), so a healthy chip always passes and a face placed wrongly does not.
    package struct Limits: Sendable, Equatable {
        /// Largest component (g) across the face's axis: the board must lie flat on the face.
        package var maximumOffAxis: Double
        /// Largest accepted offset magnitude per axis (g).
        package var maximumOffset: Double
        /// Largest accepted deviation of a scale from 1.
        package var maximumScaleError: Double

        package init(maximumOffAxis: Double = 0.25, maximumOffset: Double = 0.3, maximumScaleError: Double = 0.15) {
            self.maximumOffAxis = maximumOffAxis
            self.maximumOffset = maximumOffset
            self.maximumScaleError = maximumScaleError
        }
    }

    /// The calibration from the averaged raw reading (g) on each of the six faces, keyed by the
    /// orientation the board rested in: `faceUp`, `faceDown`, `portrait`, `portraitUpsideDown`,
    /// `landscapeLeft`, `landscapeRight`.
    package static func fromSixFaces(_ readings: [DeviceOrientation: SIMD3<Double>], limits: Limits = Limits()) throws(AccelerometerCalibrationError) -> AccelerometerCalibration {
        let faces = DeviceOrientation.allCases.filter { $0 != .unknown }
        let missing = faces.filter { readings[$0] == nil }
        guard missing.isEmpty else { throw .missingFaces(missing) }
        var offset = SIMD3<Double>.zero
        var scale = SIMD3<Double>(1, 1, 1)
        for axis in 0..<3 {
            // The faces where gravity is +1 g and −1 g along this axis.
            guard let positive = faces.first(where: { $0.gravity?[axis] == 1 }),
                  let negative = faces.first(where: { $0.gravity?[axis] == -1 }),
                  let high = readings[positive], let low = readings[negative] else { continue }
            for (face, reading) in [(positive, high), (negative, low)] {
                let expected = face.gravity ?? .zero
                let offAxis = (0..<3).filter { $0 != axis }.map { abs(reading[$0]) }.max() ?? 0
                guard offAxis <= limits.maximumOffAxis, (reading[axis] > 0) == (expected[axis] > 0) else {
                    throw .notOnFace(face, reading: reading)
                }
            }
            offset[axis] = (high[axis] + low[axis]) / 2
            scale[axis] = 2 / (high[axis] - low[axis])
            guard abs(offset[axis]) <= limits.maximumOffset, abs(scale[axis] - 1) <= limits.maximumScaleError else {
                throw .inconsistent(axis: axis, offset: offset[axis], scale: scale[axis])
            }
        }
        return AccelerometerCalibration(offset: offset, scale: scale)
    }
}

/// Why a six-face accelerometer calibration failed.
package enum AccelerometerCalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No reading for these faces yet.
    case missingFaces([DeviceOrientation])
    /// The reading (g) for this face does not point along the face's axis: the board was not
    /// lying on that face.
    case notOnFace(DeviceOrientation, reading: SIMD3<Double>)
    /// The two faces of an axis (0 = x, 1 = y, 2 = z) give an offset (g) or scale outside the
    /// limits: a face was measured while moving or tilted.
    case inconsistent(axis: Int, offset: Double, scale: Double)

    package var description: String {
        switch self {
        case let .missingFaces(faces):
            return "accelerometer calibration: no reading yet for " + faces.map(\.name).joined(separator: ", ") + "; rest the board on each of them"
        case let .notOnFace(face, reading):
            return "accelerometer calibration: the \(face.name) reading \(fixedDecimals(reading, 3)) g does not point along that face's axis; lay the board flat on that face and measure again"
        case let .inconsistent(axis, offset, scale):
            let name = ["x", "y", "z"][min(max(axis, 0), 2)]
            return "accelerometer calibration: the \(name) axis gives offset \(fixedDecimals(offset, 3)) g and scale \(fixedDecimals(scale, 3)), beyond any healthy sensor; measure both \(name) faces again, holding the board still"
        }
    }
}
