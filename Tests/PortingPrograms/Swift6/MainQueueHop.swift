import Foundation
import Motion

/// The most common iOS pattern: a handler on an `OperationQueue` (or a `DispatchQueue`) hands
/// each update to the user interface with `DispatchQueue.main.sync`, and the main thread stops
/// the updates — from a button, here after five updates. A stop that waited for the handler would
/// hang for ever (the handler waits for the main thread). Every run must return; no handler
/// may start after the stop returned. Afterwards the program waits for the last handler with
/// `waitUntilHandlersFinish()` from its own thread, never from the main thread (which the
/// handler may be waiting for). Real time: the simulated board on the system clock.
@Sendable func mainQueueHop(runs: Int) -> Bool {
    let passed = lifecycleRuns("main-queue-hop", runs: runs) { run in
        guard let motion = simulatedMotion("tumble", clock: nil) else { return nil }
        let operationQueue = OperationQueue()
        let dispatchQueue = DispatchQueue(label: "porting.hop")
        let shown = Shared((updates: 0, roll: 0.0))        // the "user interface": touched on the main thread
        let stopReturned = Shared(false)
        let late = Shared(0)
        let waiting = Shared(0)                           // handlers waiting for the main thread now
        let stopped = DispatchSemaphore(value: 0)

        let handler: DeviceMotionHandler = { data, error in
            if stopReturned.current { late.withLock { $0 += 1 } }
            guard let data = data else { return }
            waiting.withLock { $0 += 1 }
            DispatchQueue.main.sync {
                waiting.withLock { $0 -= 1 }
                let updates = shown.withLock { shown -> Int in
                    shown.updates += 1
                    shown.roll = data.attitude.roll
                    return shown.updates
                }
                if updates == 5 {
                    // The user taps Stop: on the main thread, while the next handler waits for it
                    // (the next sample's handler comes within a period and blocks in `main.sync`;
                    // waited for here, at most a second, so that every run meets that case).
                    DispatchQueue.main.async {
                        for _ in 0..<1000 where waiting.current == 0 { Thread.sleep(forTimeInterval: 0.001) }
                        if waiting.current > 0 { blockedAtStopCount.withLock { $0 += 1 } }
                        motion.stopDeviceMotionUpdates()
                        stopReturned.withLock { $0 = true }
                        stopped.signal()
                    }
                }
            }
        }
        if run % 2 == 0 {
            motion.startDeviceMotionUpdates(to: dispatchQueue, withHandler: handler)
        } else {
            motion.startDeviceMotionUpdates(to: operationQueue, withHandler: handler)
        }
        stopped.wait()
        motion.waitUntilHandlersFinish()
        return (true, late.current)
    }
    print("main-queue-hop: runs where a handler was waiting for the main thread when it stopped: \(blockedAtStopCount.current)")
    return passed
}

/// Runs in which a handler waited in `DispatchQueue.main.sync` at the moment of the stop (the
/// case a waiting stop would hang in).
private let blockedAtStopCount = Shared(0)
