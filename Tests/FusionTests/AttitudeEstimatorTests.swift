import Foundation
import Fusion
import Testing

/// Readings of a device at rest with attitude `truth` (device → East-North-Up), as the sampler
/// hands them to an estimator: acceleration in g with Core Motion's sign, field in µT (also for
/// `MadgwickFilterTests`).
func restInput(_ truth: Quaternion, magnetometer: Bool = true, interval: Double = 0.01) -> AttitudeEstimatorInput {
    let toDevice = truth.conjugate
    return AttitudeEstimatorInput(
        acceleration: toDevice.rotate(SIMD3(0, 0, -1)), rotationRate: .zero,
        magneticField: magnetometer ? toDevice.rotate(SIMD3(0, 20, -44)) : nil, interval: interval)
}

/// Angle between two directions, degrees.
func degreesBetween(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let cosine = (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()
    return acos(min(1, max(-1, cosine))) * 180 / .pi
}

@Suite struct AttitudeEstimatorConformanceTests {
    /// Through the protocol (Core Motion sign, measured interval) the filter gives the numbers of
    /// its own update with specific force: the sampler's results do not change with the seam.
    @Test func attitudeFilterThroughTheProtocolIsTheFilter() {
        let configuration = AttitudeEstimatorConfiguration(sampleInterval: 0.01, sensorLatency: 0.0028, gyroscopeBiasRange: 20)
        var parameters = AttitudeFilter.Parameters()
        parameters.sensorLatency = 0.0028
        parameters.biasClip = 20
        var direct = AttitudeFilter(sampleInterval: 0.01, parameters: parameters)
        var estimator: any AttitudeEstimator = AttitudeFilter(configuration)
        var attitude = Quaternion.identity
        for index in 0..<2000 {
            let rate = SIMD3(0.3 * sin(Double(index) / 50), 0.2, -0.1 * cos(Double(index) / 70))
            attitude = (attitude * Quaternion(axis: rate, angle: (rate * rate).sum().squareRoot() * 0.01)).normalized
            var input = restInput(attitude)
            input.rotationRate = rate + SIMD3(0.01, -0.02, 0.005)
            // The first sample after a start comes with the nominal interval; the rest measured.
            input.interval = index == 0 ? 0.01 : 0.01 * (1 + 0.05 * sin(Double(index)))
            direct.update(
                gyroscope: input.rotationRate, accelerometer: -input.acceleration, magnetometer: input.magneticField,
                interval: index == 0 ? nil : input.interval)
            estimator.update(input)
        }
        #expect(estimator.quaternion9D == direct.quaternion9D)
        #expect(estimator.quaternion6D == direct.quaternion6D)
        #expect(estimator.gravity == direct.gravity)
        #expect(estimator.gyroBias == direct.gyroBias)
        #expect(estimator.magneticAccuracy == direct.magneticAccuracy)
    }

    /// The chip's orientation passes through; gravity is its vertical.
    @Test func chipEstimatorPassesTheChipsOrientationThrough() {
        let chip = Quaternion.aboutZ(1.1) * Quaternion.aboutX(0.4)
        var estimator = ChipAttitudeEstimator(AttitudeEstimatorConfiguration(sampleInterval: 0.01))
        var input = restInput(.identity)
        estimator.update(input)
        #expect(estimator.quaternion9D == .identity)   // no chip fusion yet
        input.chipOrientation = chip
        estimator.update(input)
        #expect(estimator.quaternion9D == chip)
        #expect(estimator.quaternion6D == chip)
        #expect(degreesBetween(estimator.gravity, chip.conjugate.rotate(SIMD3(0, 0, -1))) < 1e-6)
        input.chipOrientation = nil
        estimator.update(input)
        #expect(estimator.quaternion9D == chip)   // kept until the chip says otherwise
    }
}
