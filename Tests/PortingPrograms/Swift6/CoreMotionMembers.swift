import Foundation
import Motion
import MotionSimulation

/// Every member the issue found missing or different, used as a Core Motion program uses it,
/// with the `CM` prefixes dropped and nothing else changed.
@Sendable func coreMotionMembers(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("rest", clock: clock) else { return false }

    // Class method, as in Core Motion; an option set there, a Set here: `.contains` reads the same.
    if MotionManager.availableAttitudeReferenceFrames().contains(.xMagneticNorthZVertical) {
        print("core-motion-members: the default device offers xMagneticNorthZVertical")
    }
    print("core-motion-members: attitudeReferenceFrame \(motion.attitudeReferenceFrame)")
    motion.showsDeviceMovementDisplay = false
    print("core-motion-members: showsDeviceMovementDisplay \(motion.showsDeviceMovementDisplay)")

    // The pull form does not throw.
    motion.startDeviceMotionUpdates(using: .xArbitraryZVertical)
    clock.advance(by: 1)
    guard let data = motion.deviceMotion else {
        print("core-motion-members: no device motion: \(motion.lastError?.localizedDescription ?? "no error")")
        return false
    }
    print("core-motion-members: attitudeReferenceFrame \(motion.attitudeReferenceFrame) while running")
    print("core-motion-members: sensorLocation \(data.sensorLocation == .default ? "default" : "other") (\(data.sensorLocation.rawValue))")

    let r: RotationMatrix = data.attitude.rotationMatrix
    print("core-motion-members: rotationMatrix lying flat: m11 \(formatted(r.m11, 1)) m22 \(formatted(r.m22, 1)) m33 \(formatted(r.m33, 1)), "
        + "m12 m13 m21 m23 m31 m32 \([r.m12, r.m13, r.m21, r.m23, r.m31, r.m32].map { formatted(abs($0), 1) }.joined(separator: " "))")
    let gravity: Acceleration = data.gravity
    let rotation: RotationRate = data.rotationRate
    let field: MagneticField = data.magneticField.field
    print("core-motion-members: gravity z \(formatted(gravity.z, 1)) = -m33; rotation rate finite \(rotation.x.isFinite); field finite \(field.z.isFinite)")
    let accuracy: MagneticFieldCalibrationAccuracy = data.magneticField.accuracy
    print("core-motion-members: field accuracy \(accuracy) (\(accuracy.rawValue))")

    let q = Quaternion(x: 0, y: 0, z: 0, w: 1)
    let before = data.attitude.quaternion
    let attitude = data.attitude
    attitude.multiply(byInverseOf: Attitude(quaternion: q))
    let after = attitude.quaternion
    let unchanged = [after.x - before.x, after.y - before.y, after.z - before.z, after.w - before.w].allSatisfy { abs($0) < 1e-9 }
    let relative = data.attitude.copy() as! Attitude
    relative.multiply(byInverseOf: data.attitude)
    print("core-motion-members: Quaternion(x:y:z:w:) w \(q.w); relative to itself \(formatted(2 * acos(min(abs(relative.quaternion.w), 1)) * 180 / .pi, 0))°; "
        + "relative to identity unchanged \(unchanged)")
    motion.stopDeviceMotionUpdates()

    // Handler type names and `to: .main` (OperationQueue.main: the DispatchQueue form gives way).
    let received = Shared(0)
    let deviceMotionHandler: DeviceMotionHandler = { data, error in if data != nil { received.withLock { $0 += 1 } } }
    let accelerometerHandler: AccelerometerHandler = { data, error in if data != nil { received.withLock { $0 += 1 } } }
    let gyroHandler: GyroHandler = { data, error in if data != nil { received.withLock { $0 += 1 } } }
    let magnetometerHandler: MagnetometerHandler = { data, error in if data != nil { received.withLock { $0 += 1 } } }
    motion.startDeviceMotionUpdates(to: .main, withHandler: deviceMotionHandler)
    motion.startAccelerometerUpdates(to: .main, withHandler: accelerometerHandler)
    motion.startGyroUpdates(to: .main, withHandler: gyroHandler)
    motion.startMagnetometerUpdates(to: .main, withHandler: magnetometerHandler)
    clock.advance(by: 0.1)
    OperationQueue.main.waitUntilAllOperationsAreFinished()
    motion.stopDeviceMotionUpdates()
    motion.stopAccelerometerUpdates()
    motion.stopGyroUpdates()
    motion.stopMagnetometerUpdates()
    print("core-motion-members: handlers on .main got \(received.current) updates")

    // UIDeviceOrientation's raw values and properties.
    let orientation = DeviceOrientation(rawValue: 3) ?? .unknown
    print("core-motion-members: DeviceOrientation(rawValue: 3) \(orientation.name), valid interface orientation \(orientation.isValidInterfaceOrientation), "
        + "faceUp \(DeviceOrientation.faceUp.rawValue) valid \(DeviceOrientation.faceUp.isValidInterfaceOrientation), landscape \(orientation.isLandscape), "
        + "portrait \(orientation.isPortrait), flat \(orientation.isFlat)")
    return received.current == 40
}
