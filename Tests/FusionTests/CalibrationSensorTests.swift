import Fusion
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The largest absolute component.
func largestComponent(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }

@Suite struct CalibrationSensorTests {
    static let degree = Double.pi / 180

    /// 3 s at 100 Hz of a gyroscope at rest: bias plus white noise of 0.05 °/s RMS
    /// (MPU-6050 datasheet figure).
    static func restingGyro(bias: SIMD3<Double>, seed: UInt64, count: Int = 300) -> [SIMD3<Double>] {
        var noise = FixedSeedNoise(seed: seed)
        return (0..<count).map { _ in bias + noise.gaussianVector(0.05 * degree) }
    }

    @Test func gyroBiasAtRestIsRecovered() throws {
        let bias = SIMD3(1.7, -0.4, 3.2) * Self.degree
        var calibration = GyroBiasCalibration()
        for rate in Self.restingGyro(bias: bias, seed: 21) { calibration.add(rate) }
        let estimate = try calibration.result()
        // Standard error of the mean: 0.05 °/s / √300 ≈ 0.003 °/s.
        #expect(largestComponent(estimate.bias - bias) < 0.01 * Self.degree)
        #expect(estimate.sampleCount == 300)
        #expect(abs(estimate.standardDeviation.max() - 0.05 * Self.degree) < 0.01 * Self.degree)
    }

    @Test func gyroRefusesWhileMoving() {
        // A hand-held board: a slow 1 Hz wobble of ±3 °/s on top of the bias.
        var calibration = GyroBiasCalibration()
        for (i, rate) in Self.restingGyro(bias: SIMD3(0.5, 0, 0) * Self.degree, seed: 22).enumerated() {
            calibration.add(rate + SIMD3(0, 3 * Self.degree * sin(2 * .pi * Double(i) / 100), 0))
        }
        #expect {
            try calibration.result()
        } throws: { error in
            guard case let GyroBiasCalibrationError.moving(spread, _) = error else { return false }
            return spread.y > 2 * Self.degree && "\(error)".contains("put it on a table")
        }

        // A steady turn at 40 °/s is quiet but far beyond any bias.
        var turning = GyroBiasCalibration()
        for rate in Self.restingGyro(bias: SIMD3(0, 0, 40) * Self.degree, seed: 23) { turning.add(rate) }
        #expect {
            try turning.result()
        } throws: { error in
            if case GyroBiasCalibrationError.rateTooHigh = error { true } else { false }
        }

        var short = GyroBiasCalibration()
        short.add(.zero)
        #expect(throws: GyroBiasCalibrationError.tooFewSamples(count: 1, required: 200)) { try short.result() }
        short.reset()
        #expect(short.sampleCount == 0)
    }

    /// Averaged raw readings on the six faces of a sensor with the given offset and scale error.
    static func faceReadings(offset: SIMD3<Double>, sensitivity: SIMD3<Double>, seed: UInt64) -> [DeviceOrientation: SIMD3<Double>] {
        var noise = FixedSeedNoise(seed: seed)
        var readings: [DeviceOrientation: SIMD3<Double>] = [:]
        for face in DeviceOrientation.allCases {
            guard let gravity = face.gravity else { continue }
            // Average of 200 readings with 4 mg noise: 0.3 mg residual noise.
            readings[face] = gravity * sensitivity + offset + noise.gaussianVector(0.0003)
        }
        return readings
    }

    @Test func sixFaceAccelerometerCalibrationIsRecovered() throws {
        let offset = SIMD3(0.045, -0.03, 0.08)
        let sensitivity = SIMD3(1.03, 0.98, 1.02)
        let calibration = try AccelerometerCalibration.fromSixFaces(Self.faceReadings(offset: offset, sensitivity: sensitivity, seed: 31))
        #expect(largestComponent(calibration.offset - offset) < 0.001)
        #expect(largestComponent(calibration.scale - 1 / sensitivity) < 0.001)
        let corrected = calibration.apply(SIMD3(0, 0, -1) * sensitivity + offset)
        #expect(largestComponent(corrected - SIMD3(0, 0, -1)) < 0.001)
    }

    @Test func sixFaceCalibrationReportsMissingAndWrongFaces() {
        var readings = Self.faceReadings(offset: .zero, sensitivity: SIMD3(1, 1, 1), seed: 32)
        readings[.faceDown] = nil
        readings[.landscapeLeft] = nil
        #expect(throws: AccelerometerCalibrationError.missingFaces([.landscapeLeft, .faceDown])) {
            try AccelerometerCalibration.fromSixFaces(readings)
        }

        // The "face down" reading taken while the board still lay face up.
        readings = Self.faceReadings(offset: .zero, sensitivity: SIMD3(1, 1, 1), seed: 33)
        readings[.faceDown] = readings[.faceUp]
        #expect {
            try AccelerometerCalibration.fromSixFaces(readings)
        } throws: { error in
            if case AccelerometerCalibrationError.notOnFace(.faceDown, _) = error { true } else { false }
        }

        // Portrait measured while the board was being lifted: 1.4 g.
        readings = Self.faceReadings(offset: .zero, sensitivity: SIMD3(1, 1, 1), seed: 34)
        readings[.portrait] = SIMD3(0, -1.4, 0)
        #expect {
            try AccelerometerCalibration.fromSixFaces(readings)
        } throws: { error in
            if case AccelerometerCalibrationError.inconsistent(axis: 1, _, _) = error { true } else { false }
        }
    }

    @Test func sphereCoverageCellsAreNearlyEqualAreaAndTracked() {
        #expect(SphereCoverage.cells.count == 98)
        // Each cell's exact share of the sphere is within 20 % of 1/98, and uniform random
        // directions land in it at that rate (Monte Carlo, ±5 σ).
        var coverage = SphereCoverage(minimumSamplesPerCell: 1)
        var noise = FixedSeedNoise(seed: 41)
        var counts = [Int](repeating: 0, count: 98)
        for _ in 0..<98_000 {
            let direction = noise.gaussianVector(1)
            coverage.insert(direction)
            if let cell = SphereCoverage.cellIndex(of: direction) { counts[cell] += 1 }
        }
        for (cell, count) in zip(SphereCoverage.cells, counts) {
            let share = (sin(cell.latitude.upperBound) - sin(cell.latitude.lowerBound)) / 2
                * (cell.longitude.upperBound - cell.longitude.lowerBound) / (2 * .pi)
            #expect(abs(share * 98 - 1) < 0.2)
            #expect(abs(Double(count) - share * 98_000) < 5 * (share * 98_000).squareRoot(), "\(cell)")
        }
        #expect(coverage.coverage == 1)
        #expect(coverage.missingCells.isEmpty && coverage.missingAxes.isEmpty)

        var partial = SphereCoverage()
        for _ in 0..<3 { partial.insert(SIMD3(0, 0, 5)) }   // +z only, three samples: one cell
        partial.insert(SIMD3(0, 0, -1))                       // one sample: not enough
        partial.insert(.zero)                                 // ignored
        #expect(partial.coveredCellCount == 1)
        #expect(partial.missingAxes == ["+x", "-x", "+y", "-y", "-z"])
        let rows = partial.map.split(separator: "\n")
        #expect(rows.count == 10)
        #expect(rows.first?.filter { $0 == "#" }.count == 1)
        #expect(partial.missingCells.count == 97)
        #expect(partial.missingCells.first?.description == "latitude -90°…-72°, longitude -180°…0°")
    }
}
