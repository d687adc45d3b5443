import Foundation
import Motion
import MotionSimulation

/// Push updates to an `OperationQueue`, Core Motion's own kind of queue: a queue of the
/// program's, and `.main` — which means `OperationQueue.main` here as in Core Motion (the
/// `DispatchQueue` forms give way).
@Sendable func pushToOperationQueue(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("tumble", clock: clock) else { return false }
    let queue = OperationQueue()
    let received = Shared((count: 0, ordered: true, last: -Double.infinity, errors: 0))
    let onMain = Shared((count: 0, allOnMainThread: true))

    motion.deviceMotionUpdateInterval = 1.0 / 50.0
    motion.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { data, error in
        received.withLock { received in
            if error != nil { received.errors += 1 }
            guard let data = data else { return }
            received.count += 1
            if data.timestamp <= received.last { received.ordered = false }
            received.last = data.timestamp
        }
    }
    motion.accelerometerUpdateInterval = 1.0 / 100.0
    motion.startAccelerometerUpdates(to: .main) { data, error in
        guard data != nil else { return }
        let isMain = Thread.isMainThread
        onMain.withLock {
            $0.count += 1
            if !isMain { $0.allOnMainThread = false }
        }
    }
    clock.advance(by: 1)
    queue.waitUntilAllOperationsAreFinished()
    OperationQueue.main.waitUntilAllOperationsAreFinished()
    motion.stopDeviceMotionUpdates()
    motion.stopAccelerometerUpdates()

    let got = received.current, main = onMain.current
    print("push-operation-queue: OperationQueue: \(got.count) device-motion updates in 1 s at 50 Hz, in order: \(got.ordered), errors: \(got.errors)")
    print("push-operation-queue: .main: \(main.count) accelerometer updates at 100 Hz, all on the main thread: \(main.allOnMainThread)")
    return got.count == 50 && got.ordered && main.count == 100 && main.allOnMainThread
}
