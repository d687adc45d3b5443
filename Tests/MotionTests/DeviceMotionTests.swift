import Dispatch
import Foundation
import Fusion
@testable import Motion
import MotionSimulation
import Testing
import Timing

@Suite struct DeviceMotionTests {
    let clock = VirtualClock()

    func makeManager() -> MotionManager {
        MotionManager(hub: SensorHub(device: ScriptedDevice(clock: clock), clock: clock), magnetometerCalibrationAccuracy: .high)
    }

    @Test func restingFaceUpGivesGravityDownAndNoUserAcceleration() throws {
        let manager = makeManager()
        manager.startDeviceMotionUpdates(using: .xArbitraryZVertical)
        clock.advance(by: 2)
        let motion = try #require(manager.deviceMotion)
        #expect(abs(motion.gravity.x) < 1e-6 && abs(motion.gravity.y) < 1e-6 && abs(motion.gravity.z + 1) < 1e-6)
        #expect((motion.userAcceleration * motion.userAcceleration).sum().squareRoot() < 1e-6)
        #expect(abs(motion.attitude.roll) < 1e-6 && abs(motion.attitude.pitch) < 1e-6)
        #expect(abs(motion.attitude.yaw) < 1e-6)   // the arbitrary frame starts at the device's heading
        #expect(motion.heading == -1)
        manager.stopDeviceMotionUpdates()
    }

    /// The scripted field points along device x (north, 63° down): the top edge (y) points west.
    @Test func magneticNorthFrameGivesHeadingAndYaw() throws {
        let manager = makeManager()
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 30)
        let motion = try #require(manager.deviceMotion)
        #expect(abs(motion.heading - 270) < 0.5, "heading \(motion.heading)")
        #expect(abs(motion.attitude.yaw) < 0.01, "device x is north, so yaw is 0: \(motion.attitude.yaw)")
        #expect(motion.magneticField.field == SIMD3(20, 0, -40))
        manager.stopDeviceMotionUpdates()
    }

    @Test func trueNorthNeedsALocation() throws {
        let manager = makeManager()
        // Pull (Core Motion's does not throw): no value, the reason in lastError, the frame unchanged.
        #expect(manager.lastError == nil)
        manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical)
        clock.advance(by: 1)
        #expect(manager.deviceMotion == nil)
        #expect(manager.lastError == .trueNorthNotAvailable)
        #expect(manager.attitudeReferenceFrame == .xArbitraryZVertical)
        #expect(!manager.isDeviceMotionActive)
        let inbox = Inbox<DeviceMotion>()
        manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical, to: inbox.queue, withHandler: inbox.handler)
        inbox.drain()
        #expect(inbox.errors.withLock { $0 } == [.trueNorthNotAvailable])
        #expect(!manager.isDeviceMotionActive)

        manager.location = GeographicLocation(latitude: 52.52, longitude: 13.40)   // Berlin, declination ≈ +5°
        manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical)
        clock.advance(by: 30)
        let motion = try #require(manager.deviceMotion)
        let declination = WorldMagneticModel.declination(latitude: 52.52, longitude: 13.40, date: MotionManager.decimalYear(of: Date())) * 180 / .pi
        #expect(declination > 3 && declination < 7)
        #expect(abs(motion.heading - (270 + declination)) < 0.5)
    }

    @Test func framesOfferedFollowTheSensorsAndTheLocation() {
        let manager = makeManager()
        #expect(manager.availableAttitudeReferenceFrames() == [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical])
        #expect(!manager.availableAttitudeReferenceFrames().contains(.xTrueNorthZVertical))
        manager.location = GeographicLocation(latitude: 52.52, longitude: 13.40)
        #expect(manager.availableAttitudeReferenceFrames().contains(.xTrueNorthZVertical))
        #expect(manager.availableAttitudeReferenceFrames().rawValue == 0b1111)
    }

    /// A refused start replaces the running updates: the old value goes, the frame stays the last good one.
    @Test func aRefusedStartClearsTheLatestValue() throws {
        let manager = makeManager()
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 1)
        _ = try #require(manager.deviceMotion)
        #expect(manager.attitudeReferenceFrame == .xMagneticNorthZVertical)
        manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical)
        #expect(manager.deviceMotion == nil && !manager.isDeviceMotionActive)
        #expect(manager.attitudeReferenceFrame == .xMagneticNorthZVertical)
        #expect(manager.lastError == .trueNorthNotAvailable)
    }

    /// `showsDeviceMovementDisplay`: with no stored magnetometer calibration, a north frame's start
    /// tells the handler once that the device must move; the samples go on. Off by default.
    @Test func deviceRequiresMovementWhenAskedAndUncalibrated() {
        let uncalibrated = MotionManager(hub: SensorHub(device: ScriptedDevice(clock: clock), clock: clock))
        let quiet = uncalibrated.deviceMotionUpdates(using: .xMagneticNorthZVertical) { clock.advance(by: 0.1) }
        #expect(quiet.errors.isEmpty)

        uncalibrated.showsDeviceMovementDisplay = true
        let told = uncalibrated.deviceMotionUpdates(using: .xMagneticNorthZVertical) { clock.advance(by: 0.1) }
        #expect(told.errors == [.deviceRequiresMovement])
        #expect(told.values.count == 10)
        #expect(uncalibrated.lastError == .deviceRequiresMovement)

        let calibrated = makeManager()   // a stored calibration (accuracy .high): nothing to say
        calibrated.showsDeviceMovementDisplay = true
        let fine = calibrated.deviceMotionUpdates(using: .xMagneticNorthZVertical) { clock.advance(by: 0.1) }
        #expect(fine.errors.isEmpty)
    }
}
