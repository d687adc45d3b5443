import Foundation
import Motion
import MotionSimulation

/// A view controller as iOS code writes one, with renames only: a `@MainActor` class whose
/// handlers change its own state — a closure capturing `self` on `.main`, and a method passed as
/// the handler, taking `Error?` as iOS's methods do.
@MainActor final class TiltViewController {
    let motionManager: MotionManager
    var ballX = 0.0
    var tiltUpdates = 0
    var accelerometerUpdates = 0
    var lastError: Error?

    init(motionManager: MotionManager) {
        self.motionManager = motionManager
    }

    func viewDidAppear() {
        guard motionManager.isDeviceMotionAvailable else { return }
        motionManager.deviceMotionUpdateInterval = 1.0 / 50.0
        motionManager.startDeviceMotionUpdates(to: .main) { [weak self] motion, error in
            guard let self = self, let motion = motion else { return }
            self.ballX += motion.gravity.x * 10
            self.tiltUpdates += 1
        }
        motionManager.accelerometerUpdateInterval = 1.0 / 25.0
        motionManager.startAccelerometerUpdates(to: .main, withHandler: handleAccelerometer)
    }

    func handleAccelerometer(_ data: AccelerometerData?, _ error: Error?) {
        if let error = error {
            lastError = error
            return
        }
        if data != nil { accelerometerUpdates += 1 }
    }

    func viewWillDisappear() {
        motionManager.stopDeviceMotionUpdates()
        motionManager.stopAccelerometerUpdates()
    }
}

/// A model that is not `Sendable`, keeping gyro readings from a queue of its own.
final class GyroLog {
    var rates: [Double] = []
    let queue = OperationQueue()

    func start(_ motionManager: MotionManager) {
        queue.maxConcurrentOperationCount = 1
        motionManager.gyroUpdateInterval = 0.01
        motionManager.startGyroUpdates(to: queue) { data, error in
            guard let data = data else { return }
            self.rates.append(data.rotationRate.z)
        }
    }
}

/// Runs the view controller on the main actor (as UIKit does) and the model on its queue.
@Sendable func ownerHandlers(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("rest", clock: clock) else { return false }
    let controller = DispatchQueue.main.sync { MainActor.assumeIsolated { TiltViewController(motionManager: motion) } }
    DispatchQueue.main.sync { MainActor.assumeIsolated { controller.viewDidAppear() } }
    let log = GyroLog()
    log.start(motion)
    clock.advance(by: 1)
    log.queue.waitUntilAllOperationsAreFinished()
    OperationQueue.main.waitUntilAllOperationsAreFinished()
    motion.stopGyroUpdates()
    let seen = DispatchQueue.main.sync {
        MainActor.assumeIsolated {
            controller.viewWillDisappear()
            return (controller.tiltUpdates, controller.accelerometerUpdates, controller.lastError == nil)
        }
    }
    print("owner-handlers: a @MainActor view controller on .main: \(seen.0) device-motion updates at 50 Hz (a closure capturing self), \(seen.1) accelerometer updates at 25 Hz (a method), no error: \(seen.2)")
    print("owner-handlers: a model that is not Sendable, on its own queue: \(log.rates.count) gyro updates at 100 Hz")
    return seen.0 > 0 && seen.1 > 0 && !log.rates.isEmpty
}
