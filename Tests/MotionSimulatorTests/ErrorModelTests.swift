import Foundation
import Fusion
import Testing
@testable import MotionSimulator

private func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }

private func standardDeviation(_ values: [Double]) -> Double {
    let m = mean(values)
    return (values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count - 1)).squareRoot()
}

private func lagOneCorrelation(_ values: [Double]) -> Double {
    let m = mean(values)
    var numerator = 0.0, denominator = 0.0
    for i in values.indices {
        denominator += (values[i] - m) * (values[i] - m)
        if i > 0 { numerator += (values[i] - m) * (values[i - 1] - m) }
    }
    return numerator / denominator
}

/// One-sided power spectral density averaged over segments of `length` samples (Welch, no
/// window, no overlap) and over all bins but DC and Nyquist; returns its square root, unit/√Hz.
private func averageAmplitudeDensity(_ values: [Double], rate: Double, length: Int = 128) -> Double {
    var total = 0.0, bins = 0
    for start in stride(from: 0, through: values.count - length, by: length) {
        let segment = Array(values[start..<start + length])
        let m = mean(segment)
        for k in 1..<length / 2 {
            var re = 0.0, im = 0.0
            for (n, value) in segment.enumerated() {
                let phase = -2 * Double.pi * Double(k * n) / Double(length)
                re += (value - m) * cos(phase)
                im += (value - m) * sin(phase)
            }
            // One-sided PSD: 2·|X_k|² / (fs·N).
            total += 2 * (re * re + im * im) / (rate * Double(length))
            bins += 1
        }
    }
    return (total / Double(bins)).squareRoot()
}

private func frobenius(_ m: Matrix3) -> Double { m.rowMajor.reduce(0) { $0 + $1 * $1 }.squareRoot() }
private func difference(_ a: Matrix3, _ b: Matrix3) -> Matrix3 { a - b }
private func norm(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }

@Suite struct ErrorModelTests {
    let rate = 200.0
    let count = 20_000

    @Test func measuredWhiteNoiseDensityMatchesTheConfiguredDensity() {
        let imu = IMUErrorModel(
            accelerometer: SensorErrors(noiseDensity: SIMD3(0.004, 0.004, 0.006)),
            gyroscope: SensorErrors(noiseDensity: SIMD3(repeating: 1.7e-4)))
        let magnetometer = MagnetometerErrorModel(noiseDensity: SIMD3(0.05, 0.05, 0.065))
        let source = ErrorModelSource(base: ConstantSource(), imu: imu, magnetometer: magnetometer, seed: 42, sampleRate: rate)
        let states = (0..<count).map { source.state(at: Double($0) / rate) }
        let checks: [(KeyPath<PhysicalState, SIMD3<Double>>, SIMD3<Double>)] = [
            (\.specificForce, imu.accelerometer.noiseDensity), (\.angularRate, imu.gyroscope.noiseDensity),
            (\.magneticField, magnetometer.noiseDensity),
        ]
        for (path, configured) in checks {
            for axis in 0..<3 {
                let values = states.map { $0[keyPath: path][axis] }
                // One-sided density of white noise sampled at fs: σ / √(fs/2).
                let density = standardDeviation(values) / (rate / 2).squareRoot()
                #expect(abs(density / configured[axis] - 1) < 0.05, "\(path) axis \(axis): \(density) vs \(configured[axis])")
                #expect(abs(lagOneCorrelation(values)) < 0.03, "noise must be white")
            }
        }
        // The same from the spectrum (Welch), on one axis of each sensor.
        let spectral: [(Double, Double)] = [
            (averageAmplitudeDensity(states.prefix(8192).map(\.specificForce.z), rate: rate), imu.accelerometer.noiseDensity.z),
            (averageAmplitudeDensity(states.prefix(8192).map(\.angularRate.x), rate: rate), imu.gyroscope.noiseDensity.x),
            (averageAmplitudeDensity(states.prefix(8192).map(\.magneticField.y), rate: rate), magnetometer.noiseDensity.y),
        ]
        for (measured, configured) in spectral {
            #expect(abs(measured / configured - 1) < 0.05, "spectral density \(measured) vs \(configured)")
        }
    }

    @Test func measuredBiasRandomWalkMatchesTheConfiguredWalk() {
        let imu = IMUErrorModel(
            accelerometer: SensorErrors(bias: SIMD3(0.1, -0.2, 0.3), biasRandomWalk: 2e-3),
            gyroscope: SensorErrors(bias: SIMD3(0.01, 0.02, -0.03), biasRandomWalk: 5e-4))
        let source = ErrorModelSource(base: ConstantSource(), imu: imu, seed: 7, sampleRate: rate)
        let truth = ConstantSource().value
        let start = source.state(at: 0)
        #expect(start.specificForce == truth.specificForce + imu.accelerometer.bias)
        #expect(start.angularRate == imu.gyroscope.bias)
        let states = (0...count).map { source.state(at: Double($0) / rate) }
        for axis in 0..<3 {
            // Increments of a random walk with coefficient q sampled at fs have σ = q / √fs.
            let accelerometerSteps = (1...count).map { states[$0].specificForce[axis] - states[$0 - 1].specificForce[axis] }
            let gyroscopeSteps = (1...count).map { states[$0].angularRate[axis] - states[$0 - 1].angularRate[axis] }
            let accelerometerWalk = standardDeviation(accelerometerSteps) * rate.squareRoot()
            let gyroscopeWalk = standardDeviation(gyroscopeSteps) * rate.squareRoot()
            #expect(abs(accelerometerWalk / 2e-3 - 1) < 0.05, "accelerometer axis \(axis): \(accelerometerWalk)")
            #expect(abs(gyroscopeWalk / 5e-4 - 1) < 0.05, "gyroscope axis \(axis): \(gyroscopeWalk)")
        }
    }

    @Test func measuredHardAndSoftIronMatchTheConfiguredDistortion() {
        let world = Scenario.figureEight.world()
        let model = MagnetometerErrorModel.lis3mdl
        let source = ErrorModelSource(base: world, magnetometer: model, seed: 3, sampleRate: 20)
        let times = stride(from: 0.0, to: Scenario.figureEight.script.duration, by: 0.05).map { $0 }
        let fit = AffineFit(truth: times.map { world.state(at: $0).magneticField },
                           measured: times.map { source.state(at: $0).magneticField })
        #expect(norm(fit.offset - model.hardIron) / norm(model.hardIron) < 0.05, "hard iron \(fit.offset)")
        #expect(frobenius(difference(fit.matrix, model.softIron)) / frobenius(model.softIron) < 0.05, "soft iron \(fit.matrix)")
        // Far tighter in practice: noise is small next to a 50 µT field.
        #expect(norm(fit.offset - model.hardIron) < 0.05)
    }

    @Test func measuredAccelerometerBiasAndSensitivityMatchTheConfiguredErrors() {
        let world = Scenario.tumble.world()
        let model = IMUErrorModel.mpu6050
        let source = ErrorModelSource(base: world, imu: model, seed: 5, sampleRate: 50)
        let times = stride(from: 0.0, to: 120, by: 0.02).map { $0 }
        let fit = AffineFit(truth: times.map { world.state(at: $0).specificForce },
                           measured: times.map { source.state(at: $0).specificForce })
        #expect(norm(fit.offset - model.accelerometer.bias) / norm(model.accelerometer.bias) < 0.05, "bias \(fit.offset)")
        let sensitivity = model.accelerometer.sensitivity
        #expect(frobenius(difference(fit.matrix, sensitivity)) / frobenius(sensitivity) < 0.05)
        #expect(abs(fit.matrix[0, 0] - sensitivity[0, 0]) < 0.005)
    }

    @Test func sameSeedGivesTheSameValuesInAnyCallOrder() {
        let world = Scenario.shakePortrait.world()
        let first = ErrorModelSource(base: world, imu: .lsm6dsox, magnetometer: .qmc5883l, seed: 99)
        let second = ErrorModelSource(base: world, imu: .lsm6dsox, magnetometer: .qmc5883l, seed: 99)
        let other = ErrorModelSource(base: world, imu: .lsm6dsox, magnetometer: .qmc5883l, seed: 100)
        let times = (0..<500).map { Double($0) / 100 }
        let forward = times.map { first.state(at: $0) }
        #expect(times.map { second.state(at: $0) } == forward)
        #expect(times.map { first.state(at: $0) } == forward, "asking again, even going back in time, repeats the values")
        #expect(times.map { first.state(at: $0) } == times.map { first.state(at: $0) })
        #expect(first.state(at: 3.21) == first.state(at: 3.21))
        #expect(times.map { other.state(at: $0) } != forward)
        // Beyond the kept history: go 60 s ahead, then back to the start.
        let later = first.state(at: 60)
        #expect(first.state(at: 1.5) == forward[150])
        #expect(first.state(at: 60) == later)
        #expect(second.state(at: 60) == later)
    }

    @Test func presetsCarryTheDatasheetNoiseDensities() {
        let g = PhysicalState.standardGravity, degree = Double.pi / 180
        #expect(IMUErrorModel.preset(named: "MPU-6050") == .mpu6050)
        #expect(IMUErrorModel.preset(named: "lsm6dsox") == .lsm6dsox)
        #expect(IMUErrorModel.preset(named: "mpu9250") == .mpu9250)
        #expect(IMUErrorModel.preset(named: "bmi160") == nil)
        #expect(MagnetometerErrorModel.preset(named: "QMC5883L") == .qmc5883l)
        #expect(MagnetometerErrorModel.preset(named: "lis3mdl") == .lis3mdl)
        #expect(abs(IMUErrorModel.mpu6050.accelerometer.noiseDensity.x - 400e-6 * g) < 1e-12)
        #expect(abs(IMUErrorModel.mpu6050.gyroscope.noiseDensity.x - 0.005 * degree) < 1e-12)
        #expect(abs(IMUErrorModel.mpu9250.gyroscope.noiseDensity.x - 0.01 * degree) < 1e-12)
        #expect(abs(IMUErrorModel.lsm6dsox.gyroscope.noiseDensity.x - 3.8e-3 * degree) < 1e-12)
        // LIS3MDL: 3.2 mgauss RMS over a 40 Hz band.
        #expect(abs(MagnetometerErrorModel.lis3mdl.noiseDensity.x * 40.0.squareRoot() - 0.32) < 1e-12)
    }

    @Test func presetErrorsStayWellInsideEveryChipRange() {
        // Biases must be small next to the ±4 g / ±500 °/s the scenarios use, and the magnetometer
        // must stay inside ±400 µT (LIS3MDL at ±4 gauss) even next to the magnet.
        for imu in [IMUErrorModel.lsm6dsox, .mpu6050, .mpu9250] {
            #expect(abs(imu.accelerometer.bias).max() < 0.05 * PhysicalState.standardGravity)
            #expect(abs(imu.gyroscope.bias).max() < 5 * .pi / 180)
        }
        for magnetometer in [MagnetometerErrorModel.lis3mdl, .qmc5883l] {
            let source = ErrorModelSource(base: Scenario.magnetDisturbance.world(), magnetometer: magnetometer, seed: 1)
            let largest = stride(from: 0.0, to: 30, by: 0.01).map { abs(source.state(at: $0).magneticField).max() }.max() ?? 0
            #expect(largest < 400)
        }
    }
}

private func abs(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(Swift.abs(v.x), Swift.abs(v.y), Swift.abs(v.z)) }
