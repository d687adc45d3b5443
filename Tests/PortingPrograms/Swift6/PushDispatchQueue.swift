import Foundation
import Motion
import MotionSimulation

/// Push updates to a `DispatchQueue` (this library's extra: Core Motion takes only
/// `OperationQueue`s): a serial queue of the program's and a global concurrent one, where the
/// handler still sees one update at a time, in order.
@Sendable func pushToDispatchQueue(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("tumble", clock: clock) else { return false }
    let serial = DispatchQueue(label: "porting.gyro")
    let gyro = Shared((count: 0, ordered: true, last: -Double.infinity))
    let magnetometer = Shared((count: 0, ordered: true, last: -Double.infinity, running: 0, overlapped: false))

    motion.gyroUpdateInterval = 0.01
    motion.startGyroUpdates(to: serial) { data, error in
        guard let data = data else { return }
        gyro.withLock {
            $0.count += 1
            if data.timestamp <= $0.last { $0.ordered = false }
            $0.last = data.timestamp
        }
    }
    motion.magnetometerUpdateInterval = 0.01
    let handler: MagnetometerHandler = { data, error in
        guard let data = data else { return }
        magnetometer.withLock {
            $0.running += 1
            if $0.running > 1 { $0.overlapped = true }
        }
        let field = data.magneticField
        _ = (field.x * field.x + field.y * field.y + field.z * field.z).squareRoot()
        magnetometer.withLock {
            $0.running -= 1
            $0.count += 1
            if data.timestamp <= $0.last { $0.ordered = false }
            $0.last = data.timestamp
        }
    }
    motion.startMagnetometerUpdates(to: DispatchQueue.global(), withHandler: handler)
    clock.advance(by: 1)
    serial.sync {}
    motion.stopGyroUpdates()
    motion.stopMagnetometerUpdates()
    motion.waitUntilHandlersFinish()

    let g = gyro.current, m = magnetometer.current
    print("push-dispatch-queue: serial queue: \(g.count) gyro updates, in order: \(g.ordered)")
    print("push-dispatch-queue: global queue: magnetometer updates in order: \(m.ordered), never two at once: \(!m.overlapped)")
    return g.count == 100 && g.ordered && m.ordered && !m.overlapped
}
