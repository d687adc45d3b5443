import Dispatch
import Foundation
import Fusion
@testable import Motion
import MotionSimulation
import MotionSimulator
import Testing
import Timing

/// A chip that fuses its sensors itself (the simulated BNO055): its attitude next to ours, the
/// choice between them, and a chip without a FIFO sampled on the timer.
@Suite struct ChipAttitudeTests {
    let clock = VirtualClock()

    func manager(_ imu: SimulatedBoard.IMU, scenario: String = "rest", sensorErrors: Bool = true) throws -> MotionManager {
        try MotionManager(source: .simulated(Simulation(scenario: scenario, imu: imu, sensorErrors: sensorErrors)), clock: clock, calibrationStore: nil)
    }

    /// At rest, after 1 s, the chip's attitude and ours agree within 2° in every frame the
    /// manager offers (measured with the datasheet sensor errors: 1.15° at most, see
    /// `motionctl stream --simulated --imu bno055 --device-motion --scenario rest`).
    @Test(arguments: [AttitudeReferenceFrame.xMagneticNorthZVertical, .xArbitraryCorrectedZVertical])
    func chipAttitudeAgreesWithOursAtRest(frame: AttitudeReferenceFrame) throws {
        let motion = try manager(.bno055)
        #expect(motion.isChipAttitudeAvailable)
        motion.startDeviceMotionUpdates(using: frame)
        clock.advance(by: 1)
        for _ in 0..<20 {
            clock.advance(by: 0.1)
            let sample = try #require(motion.deviceMotion)
            let chip = try #require(sample.chipAttitude)
            #expect(chip.quaternion.angle(to: sample.attitude.quaternion) * 180 / .pi < 2, "\(frame)")
        }
        motion.stopDeviceMotionUpdates()
    }

    /// The rest scenario's device lies flat with x toward true east: in the magnetic-north frame
    /// the chip's yaw is −90° turned by the declination.
    @Test func chipAttitudeIsInTheManagersFrame() throws {
        let motion = try manager(.bno055, sensorErrors: false)
        let world = try #require(motion.simulatedHardware).world
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 0.5)
        let chip = try #require(motion.deviceMotion?.chipAttitude)
        // Truth: device → true ENU; in the magnetic-north frame (x at yaw π/2 − D from east).
        let truth = Quaternion.aboutZ(-(.pi / 2 - world.earthField.declination)) * world.truth(at: clock.now).attitude
        #expect(chip.quaternion.angle(to: truth) < 1e-3)
        motion.stopDeviceMotionUpdates()
    }

    @Test func attitudeSourceChoosesTheChip() throws {
        let motion = try manager(.bno055, scenario: "tumble")
        #expect(motion.attitudeSource == .library)
        motion.attitudeSource = .chip
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 2)
        let sample = try #require(motion.deviceMotion)
        #expect(sample.attitude == sample.chipAttitude)
        motion.stopDeviceMotionUpdates()
    }

    /// A chip without its own fusion: no chip attitude, and `.chip` falls back to ours.
    @Test func chipWithoutFusionHasNone() throws {
        let motion = try manager(.lsm6dsox)
        #expect(!motion.isChipAttitudeAvailable)
        motion.attitudeSource = .chip
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 0.5)
        let sample = try #require(motion.deviceMotion)
        #expect(sample.chipAttitude == nil)
        motion.stopDeviceMotionUpdates()
    }

    /// The BNO055 has no FIFO: a consumer that prefers the FIFO is served by the timer, at the
    /// timer's fastest rate (its 100 Hz), and nothing is dropped.
    @Test func chipWithoutFIFOIsPolledOnTheTimer() throws {
        let motion = try manager(.bno055, sensorErrors: false)
        motion.usesChipFIFO = true
        motion.gyroUpdateInterval = 0.001
        let inbox = Inbox<GyroData>()
        motion.startGyroUpdates(to: inbox.queue, withHandler: inbox.handler)
        #expect(motion.hub.mode == .timer(interval: 0.01))
        clock.advance(by: 2)
        inbox.drain()
        motion.stopGyroUpdates()
        #expect(inbox.values.withLock { $0.count } == 200)
        #expect(motion.counters.totalDropped == 0)
    }
}
