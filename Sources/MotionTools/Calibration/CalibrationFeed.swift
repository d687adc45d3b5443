import Motion
import MotionSimulation
import Locking
import Dispatch
import Foundation
import Timing

/// Raw readings for a calibration, in each chip's own axes, collected from a manager opened
/// without a calibration store (so nothing is corrected yet).
///
/// Time passes through ``pass(_:)``: on a `VirtualClock` it advances the clock itself (a
/// simulated minute takes a fraction of a second), on the system clock it sleeps.
package final class CalibrationFeed: Sendable {
    /// Readings collected since the last ``take()``, chip axes.
    package struct Batch: Sendable {
        /// µT, magnetometer chip axes.
        package var magneticField: [SIMD3<Double>] = []
        /// g (Core Motion sign), IMU chip axes.
        package var acceleration: [SIMD3<Double>] = []
        /// rad/s, IMU chip axes.
        package var rotationRate: [SIMD3<Double>] = []
        /// The first error the sampler reported, if any.
        package var error: MotionError?
    }

    package enum Sensors: Sendable {
        case magnetometer
        /// Accelerometer and gyroscope.
        case inertial
    }

    package let manager: MotionManager
    package let clock: any MotionClock
    package let target: CalibrationTarget
    private let queue = DispatchQueue(label: "swift-motion.calibration-feed")
    private let batch = Locked(Batch())

    /// - Throws: ``MotionError`` when the manager's device is not made of chips (nothing to calibrate).
    package init(manager: MotionManager, clock: any MotionClock) throws(MotionError) {
        guard let target = manager.calibrationTarget else {
            throw .sensor("\(manager.deviceName) has no chips to calibrate")
        }
        self.manager = manager
        self.clock = clock
        self.target = target
    }

    /// Starts collecting readings of `sensors` at 100 Hz.
    package func start(_ sensors: Sensors) {
        let target = target
        switch sensors {
        case .magnetometer:
            manager.magnetometerUpdateInterval = 0.01
            manager.startMagnetometerUpdates(to: queue) { data, error in
                self.batch.withLock { batch in
                    if let data { batch.magneticField.append(target.magnetometerChipAxes(data.magneticField)) }
                    if let error, batch.error == nil { batch.error = error }
                }
            }
        case .inertial:
            manager.accelerometerUpdateInterval = 0.01
            manager.gyroUpdateInterval = 0.01
            manager.startAccelerometerUpdates(to: queue) { data, error in
                self.batch.withLock { batch in
                    if let data { batch.acceleration.append(target.imuChipAxes(data.acceleration)) }
                    if let error, batch.error == nil { batch.error = error }
                }
            }
            manager.startGyroUpdates(to: queue) { data, error in
                self.batch.withLock { batch in
                    if let data { batch.rotationRate.append(target.imuChipAxes(data.rotationRate)) }
                    if let error, batch.error == nil { batch.error = error }
                }
            }
        }
    }

    package func stop() {
        manager.stopMagnetometerUpdates()
        manager.stopAccelerometerUpdates()
        manager.stopGyroUpdates()
        queue.sync {}
    }

    /// Lets `seconds` pass (advancing a virtual clock, or sleeping), then waits until every
    /// reading delivered so far is in the batch.
    package func pass(_ seconds: Double) {
        if let virtual = clock as? VirtualClock {
            virtual.advance(by: seconds)
        } else {
            Thread.sleep(forTimeInterval: seconds)
        }
        queue.sync {}
    }

    /// The readings since the last call.
    package func take() -> Batch {
        batch.withLock { batch in
            defer { batch = Batch() }
            return batch
        }
    }

    /// Runs `body` once per `step` of (virtual or real) time for at most `duration` seconds,
    /// until it returns false or `shouldStop` returns true. Returns the seconds measured.
    @discardableResult
    package func measure(duration: Double, step: Double, shouldStop: () -> Bool, _ body: (Batch, Double) throws -> Bool) rethrows -> Double {
        var elapsed = 0.0
        while elapsed < duration - 1e-9, !shouldStop() {
            let slice = min(step, duration - elapsed)
            pass(slice)
            elapsed += slice
            guard try body(take(), elapsed) else { break }
        }
        return elapsed
    }
}
