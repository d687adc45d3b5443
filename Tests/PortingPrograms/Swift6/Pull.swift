import Foundation
import Motion

/// Apple's "Getting raw accelerometer events" and "Getting processed device-motion data": start
/// pull updates, then read the latest values from a `Timer` on the run loop. Real time (the
/// simulated board on the system clock), half a second.
@Sendable func pull(runs: Int) -> Bool {
    guard let motion = simulatedMotion(clock: nil) else { return false }
    let readings = Shared((accelerometer: 0, gyro: 0, magnetometer: 0, deviceMotion: 0, flat: true))

    if motion.isAccelerometerAvailable && motion.isDeviceMotionAvailable {
        motion.accelerometerUpdateInterval = 1.0 / 60.0
        motion.gyroUpdateInterval = 1.0 / 60.0
        motion.magnetometerUpdateInterval = 1.0 / 60.0
        motion.deviceMotionUpdateInterval = 1.0 / 60.0
        motion.showsDeviceMovementDisplay = true
        motion.startAccelerometerUpdates()
        motion.startGyroUpdates()
        motion.startMagnetometerUpdates()
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)

        // Configure a timer to fetch the data.
        let timer = Timer(fire: Date(), interval: 1.0 / 60.0, repeats: true) { _ in
            readings.withLock { readings in
                if let data = motion.accelerometerData {
                    readings.accelerometer += 1
                    let x = data.acceleration.x, y = data.acceleration.y, z = data.acceleration.z
                    if abs(x) > 0.1 || abs(y) > 0.1 || abs(z + 1) > 0.1 { readings.flat = false }
                }
                if motion.gyroData != nil { readings.gyro += 1 }
                if motion.magnetometerData != nil { readings.magnetometer += 1 }
                if let data = motion.deviceMotion {
                    readings.deviceMotion += 1
                    // The attitude relative to the magnetic north reference frame.
                    if abs(data.attitude.pitch) > 0.1 || abs(data.attitude.roll) > 0.1 { readings.flat = false }
                }
            }
        }
        // Add the timer to the current run loop.
        RunLoop.current.add(timer, forMode: .default)
        RunLoop.current.run(until: Date().addingTimeInterval(0.5))
        timer.invalidate()
        motion.stopAccelerometerUpdates()
        motion.stopGyroUpdates()
        motion.stopMagnetometerUpdates()
        motion.stopDeviceMotionUpdates()
    }
    let got = readings.current
    print("pull: readings seen: accelerometer \(got.accelerometer > 5), gyro \(got.gyro > 5), magnetometer \(got.magnetometer > 5), device motion \(got.deviceMotion > 5); lying flat: \(got.flat)")
    print("pull: last error after a good start: \(motion.lastError.map { "\($0.code)" } ?? "none")")

    // A frame this device cannot give: Core Motion's pull start does not throw, and neither does
    // this one; the value stays nil and the manager says why.
    motion.startDeviceMotionUpdates(using: .xTrueNorthZVertical)
    Thread.sleep(forTimeInterval: 0.1)
    if motion.deviceMotion == nil, let error = motion.lastError {
        print("pull: true north without a location: no data; \(error.code) (\(error.code.rawValue)): \(error.localizedDescription)")
    } else {
        print("pull: true north without a location gave data or no error")
    }
    motion.stopDeviceMotionUpdates()
    return true
}
