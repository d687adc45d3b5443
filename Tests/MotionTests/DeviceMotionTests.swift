import Dispatch
import Foundation
import Fusion
@testable import Motion
import Testing
import Timing

@Suite struct DeviceMotionTests {
    let clock = VirtualClock()

    func makeManager() -> MotionManager {
        MotionManager(hub: SensorHub(device: ScriptedDevice(clock: clock), clock: clock), magnetometerCalibrationAccuracy: .high)
    }

    @Test func restingFaceUpGivesGravityDownAndNoUserAcceleration() throws {
        let manager = makeManager()
        try manager.startDeviceMotionUpdates(using: .xArbitraryZVertical)
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
        try manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 30)
        let motion = try #require(manager.deviceMotion)
        #expect(abs(motion.heading - 270) < 0.5, "heading \(motion.heading)")
        #expect(abs(motion.attitude.yaw) < 0.01, "device x is north, so yaw is 0: \(motion.attitude.yaw)")
        #expect(motion.magneticField.field == SIMD3(20, 0, -40))
        manager.stopDeviceMotionUpdates()
    }

    @Test func trueNorthNeedsALocation() throws {
        let manager = makeManager()
        #expect(throws: MotionError.trueNorthNotAvailable) { try manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical) }
        let inbox = Inbox<DeviceMotion>()
        manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical, to: inbox.queue, withHandler: inbox.handler)
        inbox.drain()
        #expect(inbox.errors.withLock { $0 } == [.trueNorthNotAvailable])
        #expect(!manager.isDeviceMotionActive)

        manager.location = GeographicLocation(latitude: 52.52, longitude: 13.40)   // Berlin, declination ≈ +5°
        try manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical)
        clock.advance(by: 30)
        let motion = try #require(manager.deviceMotion)
        let declination = WorldMagneticModel.declination(latitude: 52.52, longitude: 13.40, date: MotionManager.decimalYear(of: Date())) * 180 / .pi
        #expect(declination > 3 && declination < 7)
        #expect(abs(motion.heading - (270 + declination)) < 0.5)
    }

    @Test func framesOfferedFollowTheSensors() {
        #expect(makeManager().availableAttitudeReferenceFrames().count == 4)
    }
}
