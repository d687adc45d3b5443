import Foundation
import Fusion
import Testing

@Suite struct MadgwickFilterTests {
    /// Tilted 52° and turned 34°, at rest, from the identity: Madgwick's gradient step (β = 0.1
    /// rad/s) brings gravity and the magnetic heading onto the truth.
    let truth = Quaternion.aboutZ(0.6) * Quaternion(axis: SIMD3(1, 0.5, 0), angle: 0.9)

    @Test func convergesToGravityAtRest() {
        var filter = MadgwickFilter(AttitudeEstimatorConfiguration(sampleInterval: 0.01))
        let gravity = truth.conjugate.rotate(SIMD3(0, 0, -1))
        let start = degreesBetween(filter.gravity, gravity)
        for _ in 0..<3000 { filter.update(restInput(truth)) }
        #expect(start > 45)
        #expect(degreesBetween(filter.gravity, gravity) < 0.1, "\(filter.gravity) against \(gravity)")
        #expect(filter.quaternion9D.angle(to: truth) * 180 / .pi < 0.1, "device → ENU")
        #expect(filter.gyroBias == .zero)
        #expect(filter.magneticAccuracy == .uncalibrated)
    }

    @Test func convergesToGravityAtRestWithoutMagnetometer() {
        var filter = MadgwickFilter(AttitudeEstimatorConfiguration(sampleInterval: 0.01))
        let gravity = truth.conjugate.rotate(SIMD3(0, 0, -1))
        for _ in 0..<3000 { filter.update(restInput(truth, magnetometer: false)) }
        #expect(degreesBetween(filter.gravity, gravity) < 0.1, "\(filter.gravity) against \(gravity)")
        #expect(filter.quaternion6D == filter.quaternion9D)
    }

    /// The protocol's form takes Core Motion's sign and the measured interval; the bench's form
    /// specific force over the nominal interval: the same filter.
    @Test func bothFormsAgree() {
        var direct = MadgwickFilter(sampleInterval: 0.01)
        var estimator = direct
        for _ in 0..<500 {
            let input = restInput(truth)
            direct.update(gyroscope: input.rotationRate, accelerometer: -input.acceleration, magnetometer: input.magneticField)
            estimator.update(input)
        }
        #expect(direct.quaternion == estimator.quaternion)
    }

    /// A sample the sampler could not make sense of (no acceleration, NaN) is skipped, not taken
    /// into the quaternion.
    @Test func skipsSamplesWithoutAcceleration() {
        var filter = MadgwickFilter(sampleInterval: 0.01)
        filter.update(AttitudeEstimatorInput(acceleration: .zero, rotationRate: SIMD3(1, 0, 0), magneticField: nil, interval: 0.01))
        filter.update(AttitudeEstimatorInput(acceleration: SIMD3(0, 0, .nan), rotationRate: .zero, magneticField: nil, interval: 0.01))
        #expect(filter.quaternion == .identity)
    }
}
