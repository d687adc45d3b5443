import Foundation
import Locking
import Motion   // alone: what a user of the product sees (the estimator types are re-exported)
import MotionSimulation
import Testing

/// A fixed orientation whatever the sensors say, gravity as the acceleration it was last given
/// and a made-up gyro bias; every input it gets is kept in `seen`.
private struct FixedEstimator: AttitudeEstimator {
    let orientation: Quaternion
    let seen: Locked<[AttitudeEstimatorInput]>
    var lastAcceleration = SIMD3<Double>.zero

    mutating func update(_ input: AttitudeEstimatorInput) {
        lastAcceleration = input.acceleration
        seen.withLock { $0.append(input) }
    }

    var quaternion9D: Quaternion { orientation }
    var quaternion6D: Quaternion { orientation }
    var gravity: SIMD3<Double> { lastAcceleration }
    var gyroBias: SIMD3<Double> { SIMD3(0.001, -0.002, 0.003) }
}

/// A user's own estimator (`MotionManager(source:attitudeEstimator:)`) behind device motion.
@Suite struct AttitudeEstimatorTests {
    let clock = VirtualClock()

    @Test func userEstimatorDrivesDeviceMotion() throws {
        let fixed = Quaternion(axis: SIMD3(1, 2, 3), angle: 0.7)
        let seen = Locked<[AttitudeEstimatorInput]>([])
        let made = Locked<[AttitudeEstimatorConfiguration]>([])
        let motion = try MotionManager(
            source: .simulated(Simulation(scenario: "rest")), clock: clock, calibrationStore: nil,
            attitudeEstimator: AttitudeEstimatorFactory { configuration in
                made.withLock { $0.append(configuration) }
                return FixedEstimator(orientation: fixed, seen: seen)
            })
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 1)
        let sample = try #require(motion.deviceMotion)
        let last = try #require(seen.withLock { $0.last })

        #expect(sample.attitude.quaternion == AttitudeReferenceFrame.xMagneticNorthZVertical.attitude(fromENU: fixed))
        // The estimator got this sample's acceleration (g, Core Motion sign) and gave it back as gravity.
        #expect(sample.gravity == last.acceleration)
        #expect(sample.userAcceleration == .zero)
        #expect(abs(sample.gravity.z + 1) < 0.05, "lying face up: \(sample.gravity)")
        #expect(sample.rotationRate == last.rotationRate - SIMD3(0.001, -0.002, 0.003))
        #expect(last.magneticField != nil)
        // One estimator for the start, made for the 100 Hz timer; one input per sample, each with
        // the interval since the one before (the first: the nominal one).
        let configurations = made.withLock { $0 }
        #expect(configurations.map(\.sampleInterval) == [0.01])
        let intervals = seen.withLock { $0.map(\.interval) }
        #expect(intervals.count == motion.counters.sampled)
        #expect(intervals.allSatisfy { abs($0 - 0.01) < 1e-9 }, "\(intervals)")
        motion.stopDeviceMotionUpdates()

        // Another sample rate (the chip's FIFO) makes a new estimator, for that rate.
        motion.usesChipFIFO = true
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 0.5)
        let remade = made.withLock { $0 }
        #expect(remade.count == 2)
        #expect(remade.last.map { $0.sampleInterval < 0.01 } == true, "\(remade)")
        #expect(motion.deviceMotion?.attitude.quaternion == AttitudeReferenceFrame.xMagneticNorthZVertical.attitude(fromENU: fixed))
        motion.stopDeviceMotionUpdates()
    }

    /// The chip's own fusion as the estimator (simulated BNO055): device motion's attitude is the
    /// chip's in every frame, and its gravity the chip's vertical.
    @Test(arguments: [AttitudeReferenceFrame.xMagneticNorthZVertical, .xArbitraryZVertical])
    func chipEstimatorGivesTheChipsAttitude(frame: AttitudeReferenceFrame) throws {
        let motion = try MotionManager(
            source: .simulated(Simulation(scenario: "tumble", imu: .bno055)), clock: clock, calibrationStore: nil,
            attitudeEstimator: .chip)
        motion.startDeviceMotionUpdates(using: frame)
        clock.advance(by: 2)
        let sample = try #require(motion.deviceMotion)
        let chip = try #require(sample.chipAttitude)
        #expect(sample.attitude == chip)
        let vertical = chip.quaternion.conjugate.rotate(SIMD3(0, 0, -1))
        #expect(((sample.gravity - vertical) * (sample.gravity - vertical)).sum() < 1e-20, "\(sample.gravity) against \(vertical)")
        motion.stopDeviceMotionUpdates()
    }

    /// Madgwick's filter through the manager: at rest its gravity is the world's.
    @Test func madgwickDrivesDeviceMotion() throws {
        let motion = try MotionManager(
            source: .simulated(Simulation(scenario: "rest", sensorErrors: false)), clock: clock, calibrationStore: nil,
            attitudeEstimator: .madgwick())
        let world = try #require(motion.simulatedHardware).world
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 20)
        let sample = try #require(motion.deviceMotion)
        let truth = world.truth(at: sample.timestamp).attitude.inverseRotate(SIMD3(0, 0, -1))
        let cosine = (truth * sample.gravity).sum() / (sample.gravity * sample.gravity).sum().squareRoot()
        #expect(acos(min(1, cosine)) * 180 / .pi < 0.5, "\(sample.gravity) against \(truth)")
        motion.stopDeviceMotionUpdates()
    }
}
