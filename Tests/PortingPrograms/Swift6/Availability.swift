import Foundation
import Motion
import MotionSimulation

/// Apple's "Getting raw accelerometer events" opening: check what the device has before
/// starting. Core Motion's `CMMotionManager.availableAttitudeReferenceFrames()` is a class method
/// here too (for the default device); the manager answers for its own.
@Sendable func availability(runs: Int) -> Bool {
    guard let motion = simulatedMotion(clock: VirtualClock()) else { return false }
    print("availability: accelerometer \(motion.isAccelerometerAvailable), gyro \(motion.isGyroAvailable), "
        + "magnetometer \(motion.isMagnetometerAvailable), device motion \(motion.isDeviceMotionAvailable)")
    print("availability: active \(motion.isAccelerometerActive) \(motion.isGyroActive) \(motion.isMagnetometerActive) \(motion.isDeviceMotionActive)")

    let frames: [AttitudeReferenceFrame] = [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical, .xTrueNorthZVertical]
    let classFrames = MotionManager.availableAttitudeReferenceFrames()
    print("availability: default device frames " + frames.filter { classFrames.contains($0) }.map { "\($0)" }.joined(separator: " "))
    print("availability: this manager's frames " + frames.filter { motion.availableAttitudeReferenceFrames().contains($0) }.map { "\($0)" }.joined(separator: " "))
    motion.location = GeographicLocation(latitude: 48.86, longitude: 2.35)
    print("availability: with a location " + frames.filter { motion.availableAttitudeReferenceFrames().contains($0) }.map { "\($0)" }.joined(separator: " "))
    print("availability: reference frame \(motion.attitudeReferenceFrame), shows movement display \(motion.showsDeviceMovementDisplay)")

    motion.accelerometerUpdateInterval = 1.0 / 60.0
    motion.deviceMotionUpdateInterval = 0.001   // faster than the device: clamped
    print("availability: intervals \(formatted(motion.accelerometerUpdateInterval, 4)), clamped to the shortest \(motion.deviceMotionUpdateInterval == motion.shortestUpdateInterval)")
    return true
}
