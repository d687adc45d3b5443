import Foundation
import Motion

/// Two kinds of update on two queues: the device-motion handler reports to the gyro's serial
/// queue with `sync`, and the gyro handler — on that queue — stops the device-motion updates
/// while a device-motion handler may be waiting for it. Serial and concurrent device-motion
/// queues alternate. Every run must return; no device-motion handler may start after the stop
/// returned. Real time: the simulated board on the system clock.
@Sendable func stopFromAnotherQueue(runs: Int) -> Bool {
    let passed = lifecycleRuns("stop-from-another-queue", runs: runs) { run in
        guard let motion = simulatedMotion("tumble", clock: nil) else { return nil }
        let gyroQueue = DispatchQueue(label: "porting.gyro-queue")
        let motionQueue = OperationQueue()
        motionQueue.maxConcurrentOperationCount = run % 2 == 0 ? 1 : 4
        let reported = Shared(0)
        let waiting = Shared(0)   // device-motion handlers waiting for the gyro's queue now
        let stopReturned = Shared(false)
        let late = Shared(0)
        let stopped = DispatchSemaphore(value: 0)

        motion.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: motionQueue) { data, error in
            if stopReturned.current { late.withLock { $0 += 1 } }
            guard data != nil else { return }
            waiting.withLock { $0 += 1 }
            gyroQueue.sync {
                waiting.withLock { $0 -= 1 }
                reported.withLock { $0 += 1 }
            }
        }
        motion.startGyroUpdates(to: gyroQueue) { data, error in
            guard data != nil, !stopReturned.current, reported.current >= 3 else { return }
            // Stop while a device-motion handler waits for this queue (it comes within a period;
            // waited for here, at most a second, so that every run meets that case).
            for _ in 0..<1000 where waiting.current == 0 { Thread.sleep(forTimeInterval: 0.001) }
            if waiting.current > 0 { blockedAtStop.withLock { $0 += 1 } }
            motion.stopDeviceMotionUpdates()
            stopReturned.withLock { $0 = true }
            stopped.signal()
        }
        stopped.wait()
        motion.stopGyroUpdates()
        motion.waitUntilHandlersFinish()
        return (true, late.current)
    }
    print("stop-from-another-queue: runs where a handler was waiting for the stopping queue when it stopped: \(blockedAtStop.current)")
    return passed
}

/// Runs in which a device-motion handler waited in `gyroQueue.sync` at the moment of the stop.
private let blockedAtStop = Shared(0)
