import Fusion
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Synthetic magnetometer data: the Earth's field (48 µT, 60° inclination) seen by a board that
/// is turned around, distorted by soft iron, shifted by hard iron, plus sensor noise.
struct MagnetometerScenario {
    var hardIron: SIMD3<Double>
    var softIron: Matrix3
    var fieldStrength = 48.0
    var noise = 0.4   // µT, per axis (typical of LIS3MDL/AK8963-class sensors at 100 Hz)

    /// Raw readings for unit field directions in the device frame.
    func readings(_ directions: [SIMD3<Double>], seed: UInt64) -> [SIMD3<Double>] {
        var random = FixedSeedNoise(seed: seed)
        return directions.map { softIron * (fieldStrength * $0) + hardIron + random.gaussianVector(noise) }
    }

    /// 60 s at 100 Hz of slow figure-eights covering the whole sphere: the field direction in
    /// the device frame sweeps pole to pole while turning in azimuth, with hand jitter.
    static func figureEight(seed: UInt64, count: Int = 6000) -> [SIMD3<Double>] {
        var random = FixedSeedNoise(seed: seed)
        return (0..<count).map { i in
            let t = Double(i) / Double(count)
            let polar = Double.pi / 2 + (Double.pi / 2 - 0.05) * sin(2 * .pi * 9.1 * t)
            let azimuth = 2 * Double.pi * 5.3 * t + 1.5 * sin(2 * .pi * 23.7 * t)
            let direction = SIMD3(sin(polar) * cos(azimuth), sin(polar) * sin(azimuth), cos(polar))
            return unitVector(direction + random.gaussianVector(0.02))
        }
    }

    /// The board turned about its z axis only (flat on a table), three turns: the field
    /// direction traces a cone around z at the 60° inclination; `wobble` (radians) tilts the
    /// board back and forth on the way, as a hand would.
    static func onePlane(wobble: Double = 0, count: Int = 3000) -> [SIMD3<Double>] {
        let inclination = 60 * Double.pi / 180
        return (0..<count).map { i in
            let heading = 2 * Double.pi * 3 * Double(i) / Double(count)
            let flat = SIMD3(cos(inclination) * cos(heading), cos(inclination) * sin(heading), -sin(inclination))
            let tilt = wobble * sin(2 * .pi * 17.3 * Double(i) / Double(count))
            return rotatedVector(flat, about: SIMD3(cos(0.7 * heading), sin(0.7 * heading), 0), by: tilt)
        }
    }
}

/// Scales a matrix to determinant 1.
func unitDeterminant(_ m: Matrix3) -> Matrix3 { (1 / cbrt(m.determinant)) * m }

func relativeSoftIronError(estimated: Matrix3, distortion: Matrix3) -> Double {
    guard let inverse = distortion.inverse else { return .infinity }
    let truth = unitDeterminant(inverse)
    return (unitDeterminant(estimated) - truth).frobeniusNorm / truth.frobeniusNorm
}

@Suite struct CalibrationEllipsoidFitTests {
    static let distortions: [(hardIron: SIMD3<Double>, softIron: Matrix3)] = [
        (SIMD3(55, -60, 38), Matrix3(rows: SIMD3(1.25, 0.15, -0.1), SIMD3(0.15, 0.8, 0.2), SIMD3(-0.1, 0.2, 1.1))),
        (SIMD3(-60, 20, 60), Matrix3(rows: SIMD3(0.75, -0.3, 0.05), SIMD3(-0.3, 1.3, -0.25), SIMD3(0.05, -0.25, 0.9))),
        (SIMD3(12, 45, -59), Matrix3(rows: SIMD3(1.3, 0.3, 0.3), SIMD3(0.3, 1.0, 0.0), SIMD3(0.3, 0.0, 0.7))),
    ]

    @Test(arguments: 0..<3)
    func figureEightRecoversHardAndSoftIron(case index: Int) throws {
        let (hardIron, softIron) = Self.distortions[index]
        let scenario = MagnetometerScenario(hardIron: hardIron, softIron: softIron)
        let raw = scenario.readings(MagnetometerScenario.figureEight(seed: 100 + UInt64(index)), seed: 200 + UInt64(index))
        let report = try EllipsoidFit.fit(raw)

        #expect(report.model == .fullEllipsoid, "\(report.reason)")
        let offsetError = report.calibration.hardIronOffset - hardIron
        #expect((offsetError * offsetError).sum().squareRoot() < 0.5, "offset \(report.calibration.hardIronOffset)")
        let softIronError = relativeSoftIronError(estimated: report.calibration.softIron, distortion: softIron)
        #expect(softIronError < 0.02, "soft iron \(report.calibration.softIron)")
        #expect(report.fitErrorPercent < 2)
        #expect(report.coveragePercent > 85)
        #expect(report.isFieldStrengthPlausible)
        #expect(report.accuracy == .high)
        #expect(report.outlierCount < raw.count / 100)
        print("case \(index): offset error \(offsetError), soft iron error \(softIronError), fit error \(report.fitErrorPercent) %, field \(report.fieldStrength) µT, coverage \(report.coveragePercent) %, \(report.reason)")
    }

    @Test(arguments: [0.0, 3.0])
    func onePlaneFallsBackAndSaysWhatIsMissing(wobbleDegrees: Double) throws {
        let (hardIron, softIron) = Self.distortions[0]
        let scenario = MagnetometerScenario(hardIron: hardIron, softIron: softIron)
        let directions = MagnetometerScenario.onePlane(wobble: wobbleDegrees * .pi / 180)
        let report = try EllipsoidFit.fit(scenario.readings(directions, seed: 7))
        #expect(report.model == .planarOffset)
        #expect(report.unobservedAxis != nil)
        #expect(report.coveragePercent < 25)
        #expect(report.missingRegions.count > 70)
        #expect(!report.coverage.missingAxes.isEmpty)
        #expect(report.accuracy <= .low)
        #expect(report.reason.contains("cannot be observed"))
    }

    @Test func bandOfDirectionsGivesOnlyAnOffsetOfLowAccuracy() throws {
        let (hardIron, softIron) = Self.distortions[0]
        let scenario = MagnetometerScenario(hardIron: hardIron, softIron: softIron)
        let report = try EllipsoidFit.fit(scenario.readings(MagnetometerScenario.onePlane(wobble: 20 * .pi / 180), seed: 7))
        #expect(report.model == .offsetOnly)
        #expect(report.accuracy == .low)
        #expect(report.reason.contains("the full ellipsoid") && report.reason.contains("the diagonal ellipsoid"))
    }

    @Test func capOfDirectionsFallsBackToSmallerModel() throws {
        let (hardIron, softIron) = Self.distortions[1]
        let scenario = MagnetometerScenario(hardIron: hardIron, softIron: softIron)
        // Only directions within 60° of +z (a quarter of the sphere).
        let cap = MagnetometerScenario.figureEight(seed: 5).filter { $0.z > 0.5 }
        let report = try EllipsoidFit.fit(scenario.readings(cap, seed: 8))
        #expect(report.model != .fullEllipsoid)
        #expect(report.reason.contains("the full ellipsoid"))
        #expect(report.coveragePercent < 40)
        #expect(report.coverage.missingAxes.contains("-z"))
    }

    @Test func outliersAreRejected() throws {
        let (hardIron, softIron) = Self.distortions[2]
        let scenario = MagnetometerScenario(hardIron: hardIron, softIron: softIron)
        var raw = scenario.readings(MagnetometerScenario.figureEight(seed: 9), seed: 10)
        var random = FixedSeedNoise(seed: 11)
        let spikes = stride(from: 17, to: raw.count, by: 40).map { $0 }   // 2.5 % of the readings
        for i in spikes { raw[i] += unitVector(random.gaussianVector(1)) * (30 + 200 * random.uniform()) }
        let report = try EllipsoidFit.fit(raw)
        let offsetError = report.calibration.hardIronOffset - hardIron
        #expect(report.model == .fullEllipsoid)
        #expect((offsetError * offsetError).sum().squareRoot() < 0.5)
        #expect(relativeSoftIronError(estimated: report.calibration.softIron, distortion: softIron) < 0.02)
        #expect(report.outlierCount >= spikes.count)
        #expect(report.outlierCount < spikes.count + raw.count / 100)
    }

    @Test func tooFewSamplesIsAnError() {
        #expect(throws: EllipsoidFitError.tooFewSamples(count: 3, required: 50)) {
            try EllipsoidFit.fit([SIMD3(1, 2, 3), SIMD3(4, 5, 6), SIMD3(7, 8, .nan), SIMD3(0, 0, 1)])
        }
    }

    @Test func jacobiEigenAndSquareRoot() throws {
        let m = Matrix3(rows: SIMD3(4, 1, 0.5), SIMD3(1, 3, 0.2), SIMD3(0.5, 0.2, 2))
        let (values, vectors) = m.symmetricEigen
        #expect(values.x >= values.y && values.y >= values.z)
        let rebuilt = vectors * Matrix3(diagonal: values) * vectors.transposed
        #expect((rebuilt - m).frobeniusNorm < 1e-12)
        let root = try #require(m.symmetricSquareRoot)
        #expect((root * root - m).frobeniusNorm < 1e-12)
    }
}
