import Foundation
import Motion

/// A shake detector as iOS code writes one, with renames only (`CMMotionManager` →
/// `MotionManager`, `CMAccelerometerData` → `AccelerometerData`): a model class that is not
/// `Sendable`, its handler on an `OperationQueue` of its own capturing `self` weakly, which stops
/// the updates itself once it has seen enough and then marks itself stopped; an update that came
/// after that would find the mark and be counted.
final class ShakeDetector {
    let motionManager: MotionManager
    let queue = OperationQueue()
    var isDetecting = false
    var samples = 0
    var peak = 0.0
    var updatesAfterStop = 0
    var onFinished: (() -> Void)?

    init(motionManager: MotionManager) {
        self.motionManager = motionManager
    }

    func startDetecting(samplesNeeded: Int) {
        guard motionManager.isAccelerometerAvailable else { return }
        samples = 0
        isDetecting = true
        motionManager.accelerometerUpdateInterval = 0.01
        motionManager.startAccelerometerUpdates(to: queue) { [weak self] data, error in
            guard let self = self else { return }
            guard self.isDetecting else {
                self.updatesAfterStop += 1
                return
            }
            guard let data = data else { return }
            let a = data.acceleration
            self.peak = max(self.peak, sqrt(a.x * a.x + a.y * a.y + a.z * a.z))
            self.samples += 1
            if self.samples >= samplesNeeded {
                self.motionManager.stopAccelerometerUpdates()
                self.isDetecting = false
                self.onFinished?()
            }
        }
    }
}

/// Starts the detector and lets its handler stop it, `runs` times in a row on one manager (the
/// simulated board in real time, shaken), under the watchdog; the tally says how many cycles
/// stopped from inside the handler and how many updates came after a stop.
@Sendable func shakeLifecycle(runs: Int) -> Bool {
    guard let motion = simulatedMotion("shake-portrait", clock: nil) else { return false }
    let detector = ShakeDetector(motionManager: motion)
    let finished = DispatchSemaphore(value: 0)
    detector.onFinished = { finished.signal() }
    var stopped = 0
    for run in 1...max(1, runs) {
        Watchdog.shared.arm("shake-lifecycle run \(run)")
        detector.startDetecting(samplesNeeded: 5)
        finished.wait()
        // What was submitted to the detector's queue before the stop has run by now.
        detector.queue.waitUntilAllOperationsAreFinished()
        if !motion.isAccelerometerActive { stopped += 1 }
        Watchdog.shared.disarm()
    }
    let late = detector.updatesAfterStop   // the queue is idle: its last operation has finished
    print("shake-lifecycle: \(stopped) of \(runs) cycles stopped from inside the handler; updates after a stop: \(late); peak above 1 g: \(detector.peak > 1)")
    return stopped == runs && late == 0
}
