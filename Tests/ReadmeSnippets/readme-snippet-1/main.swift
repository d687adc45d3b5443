import Dispatch
import Foundation
import Motion

// Handlers run on your queue, never on the main actor: in Swift 6, keep them out of top-level
// code (which is main-actor isolated) by starting the updates from a function like this one.
func printDeviceMotion(forSeconds seconds: Double) {
    let motion = MotionManager()                     // this machine's board, else the simulated board
    let queue = DispatchQueue(label: "motion")       // handlers never run on the main queue unless you pass it
    motion.deviceMotionUpdateInterval = 1.0 / 10
    motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { motion, error in
        guard let motion else { return print("motion error: \(error.map(String.init(describing:)) ?? "none")") }
        print("roll \(motion.attitude.roll) rad, gravity \(motion.gravity) g, heading \(motion.heading)°")
    }
    Thread.sleep(forTimeInterval: seconds)
    motion.stopDeviceMotionUpdates()                 // no handler starts after this returns
    motion.waitUntilHandlersFinish()                 // and the last one has ended
}

printDeviceMotion(forSeconds: 1)
