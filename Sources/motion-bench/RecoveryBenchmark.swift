import Dispatch
import Foundation
import Locking
import Motion
import MotionSimulation

/// How a fault plan (the same `FaultPlan` text `motionctl --faults` and the tests take) plays out
/// on the simulated board in virtual time, timer and FIFO sampling side by side, next to the same
/// run without faults: samples delivered and dropped by reason, incidents, and the longest gap
/// between two delivered samples (how long the fault kept the stream silent).
func runRecoveryBenchmark(plan text: String, seconds: Double) {
    print("== Recovery: --faults \(text), \(Int(seconds)) s of device motion in virtual time")
    let plan: FaultPlan
    do {
        plan = try FaultPlan(parsing: text)
    } catch {
        print("recovery benchmark: \(error)")
        return
    }
    for fifo in [false, true] {
        for faults in [nil, plan] {
            do {
                let clock = VirtualClock()
                let manager = try MotionManager(
                    source: .simulated(Simulation(scenario: "tumble", faults: faults)), clock: clock, calibrationStore: nil)
                manager.usesChipFIFO = fifo
                manager.deviceMotionUpdateInterval = fifo ? manager.shortestUpdateInterval : 0.01
                let queue = DispatchQueue(label: "bench.recovery")
                let times = Locked<[Double]>([])
                manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { motion, _ in
                    if let motion { times.withLock { $0.append(motion.timestamp) } }
                }
                clock.advance(by: seconds)
                queue.sync {}
                manager.stopDeviceMotionUpdates()
                let delivered = times.withLock { $0 }
                let longestGap = zip(delivered, delivered.dropFirst()).map { $1 - $0 }.max() ?? 0
                let label = (fifo ? "FIFO " : "timer") + (faults == nil ? " (reference, no faults)" : "")
                print(String(format: "  %-32@ %@; longest gap %.3f s", label as NSString, "\(manager.counters)" as NSString, longestGap))
            } catch {
                print("recovery benchmark failed: \(error)")
            }
        }
    }
}
