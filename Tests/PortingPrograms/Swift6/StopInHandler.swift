import Foundation
import Motion

/// A handler that has seen enough stops the updates itself — or lets go of the manager, the
/// last reference to it, so that the manager is released inside its own handler. Every run must
/// return; no handler may start after the stop returned. Real time (the simulated board on the
/// system clock: one sampler for all runs, its timer thread running beside the handlers).
@Sendable func stopInHandler(runs: Int) -> Bool {
    lifecycleRuns("stop-in-handler", runs: runs, returnedAs: "stopped from inside a handler and returned") { run in
        let releases = run % 2 == 0
        let holder = Shared<MotionManager?>(simulatedMotion("tumble", clock: nil))   // the program's only reference
        weak let manager = holder.current
        guard manager != nil else { return nil }
        let queue = OperationQueue()
        if run % 3 == 0 { queue.maxConcurrentOperationCount = 1 }
        let handled = Shared(0)
        let stopReturned = Shared(false)
        let late = Shared(0)
        let stopped = DispatchSemaphore(value: 0)
        let handler: DeviceMotionHandler = { data, error in
            if stopReturned.current { late.withLock { $0 += 1 } }
            guard data != nil else { return }
            guard handled.withLock({ $0 += 1; return $0 }) == 5 else { return }
            if releases {
                holder.withLock { $0 = nil }   // the manager goes, and its updates with it
            } else {
                holder.current?.stopDeviceMotionUpdates()
            }
            stopReturned.withLock { $0 = true }
            stopped.signal()
        }
        holder.current?.startDeviceMotionUpdates(to: queue, withHandler: handler)
        stopped.wait()
        queue.waitUntilAllOperationsAreFinished()
        let releasedInHandler = releases && manager == nil
        holder.withLock { $0 = nil }
        return (handled.current >= 5 && stopReturned.current && (releasedInHandler || !releases), late.current)
    }
}
