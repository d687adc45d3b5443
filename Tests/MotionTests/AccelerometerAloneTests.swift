import Foundation
import Motion
import MotionSimulation
import MotionSimulator
import Testing
import Timing

/// An accelerometer alone (the ADXL345 on the simulated board, beside the HMC5883L of a GY-85):
/// accelerometer and magnetometer updates as any board's; no gyroscope, and so no device motion,
/// as Core Motion answers on a device without a gyroscope (`isDeviceMotionAvailable` false; a
/// start is refused with `notAvailable`, docs/porting-from-core-motion.md).
@Suite struct AccelerometerAloneTests {
    let clock = VirtualClock()

    func manager() throws -> MotionManager {
        try MotionManager(source: .simulated(Simulation(scenario: "rest", imu: .adxl345, sensorErrors: false)), clock: clock, calibrationStore: nil)
    }

    @Test func availabilitySaysAccelerometerWithoutGyroscopeOrDeviceMotion() throws {
        let motion = try manager()
        #expect(motion.isAccelerometerAvailable && motion.isMagnetometerAvailable)
        #expect(!motion.isGyroAvailable && !motion.isDeviceMotionAvailable)
        #expect(motion.availableAttitudeReferenceFrames() == [])
    }

    /// Push, pull and stream starts are each refused once with the gyroscope named and Core
    /// Motion's `notAvailable` code; no value is ever delivered, and accelerometer updates go on.
    @Test func deviceMotionIsRefusedWithCoreMotionsNotAvailable() throws {
        let motion = try manager()
        let (values, errors) = motion.deviceMotionUpdates(using: .xArbitraryZVertical) { clock.advance(by: 1) }
        #expect(values.isEmpty)
        #expect(errors == [.sensorNotAvailable("gyroscope")])
        let error = try #require(errors.first)
        #expect(error.code == .notAvailable && (error as NSError).code == 109)
        #expect(error.description.contains("no gyroscope") && error.description.contains("isDeviceMotionAvailable"))

        motion.startDeviceMotionUpdates()
        clock.advance(by: 1)
        #expect(motion.deviceMotion == nil && !motion.isDeviceMotionActive && motion.lastError == .sensorNotAvailable("gyroscope"))
        #expect(throws: MotionError.sensorNotAvailable("gyroscope")) { _ = try motion.deviceMotionUpdates() }

        let accelerometer = motion.accelerometerUpdates { clock.advance(by: 1) }
        #expect(accelerometer.values.count == 100 && accelerometer.errors.isEmpty)
    }

    /// At rest face up: (0, 0, −1) g within the 3.9 mg step; gyroscope updates deliver nothing.
    @Test func readsGravityAndNoRotation() throws {
        let motion = try manager()
        let gyro = Inbox<GyroData>()
        motion.startGyroUpdates(to: gyro.queue, withHandler: gyro.handler)
        let (values, errors) = motion.accelerometerUpdates { clock.advance(by: 2) }
        gyro.drain()
        motion.stopGyroUpdates()
        #expect(values.count == 200 && errors.isEmpty)
        let last = try #require(values.last)
        #expect(abs(last.acceleration.x) < 0.004 && abs(last.acceleration.y) < 0.004 && abs(last.acceleration.z + 1) < 0.004, "\(last.acceleration)")
        #expect(gyro.values.withLock { $0.isEmpty })
    }

    /// Through its 32-sample FIFO (stream mode, no timestamps: timed by index at the chip's rate):
    /// every period delivered, in order, none dropped.
    @Test func throughTheFIFOEverySampleArrivesInOrder() throws {
        let motion = try manager()
        motion.usesChipFIFO = true
        motion.accelerometerUpdateInterval = 0.01
        let (values, errors) = motion.accelerometerUpdates { clock.advance(by: 5) }
        #expect(errors.isEmpty)
        #expect(values.count >= 495 && values.count <= 500, "\(values.count)")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(motion.counters.totalDropped == 0)
    }
}
