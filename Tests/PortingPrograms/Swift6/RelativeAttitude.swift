import Foundation
import Motion
import MotionSimulation

/// The relative-attitude code of Apple's motion-events guide and the common tutorials, as iOS
/// writes it with renames only (`CMMotionManager` → `MotionManager`, `CMAttitude` → `Attitude`):
/// the first attitude kept with `copy() as? Attitude`, every later one made relative with
/// `multiply(byInverseOf:)` on the update's own attitude (a `let`), then read through it again;
/// and the pull form of the guide's `drawView`.
@MainActor final class AttitudeViewController {
    let motionManager: MotionManager
    var referenceAttitude: Attitude?
    var firstAngle: Double?
    var angle = 0.0
    var updates = 0
    var rotation = RotationMatrix()
    var drawnYaw = 0.0

    init(motionManager: MotionManager) {
        self.motionManager = motionManager
    }

    func startDeviceMotion() {
        motionManager.deviceMotionUpdateInterval = 1.0 / 60.0
        motionManager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: .main) { motion, error in
            guard let motion = motion else { return }
            if self.referenceAttitude == nil {
                self.referenceAttitude = motion.attitude.copy() as? Attitude
            }
            motion.attitude.multiply(byInverseOf: self.referenceAttitude!)
            let q = motion.attitude.quaternion
            let degrees = 2 * acos(min(abs(q.w), 1)) * 180 / .pi
            if self.firstAngle == nil { self.firstAngle = degrees }
            self.angle = degrees
            self.updates += 1
        }
    }

    /// The guide's `drawView`: the latest attitude, relative to the reference.
    func drawView() {
        guard let deviceMotion = motionManager.deviceMotion else { return }
        let attitude = deviceMotion.attitude
        if let referenceAttitude = referenceAttitude {
            attitude.multiply(byInverseOf: referenceAttitude)
        }
        rotation = attitude.rotationMatrix
        drawnYaw = attitude.yaw
    }

    func stopDeviceMotion() {
        motionManager.stopDeviceMotionUpdates()
    }
}

/// Runs the view controller on the main actor through the simulated flip (3 s face up, turned
/// over in 1.5 s, face down) in virtual time, and prints what it saw.
@Sendable func relativeAttitude(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("flip", clock: clock) else { return false }
    let controller = DispatchQueue.main.sync { MainActor.assumeIsolated { AttitudeViewController(motionManager: motion) } }
    DispatchQueue.main.sync { MainActor.assumeIsolated { controller.startDeviceMotion() } }
    clock.advance(by: 7)
    OperationQueue.main.waitUntilAllOperationsAreFinished()
    let seen = DispatchQueue.main.sync {
        MainActor.assumeIsolated { () -> (first: Double, last: Double, updates: Int, referenceYaw: Double, m33: Double, drawnYaw: Double, laterYaw: Double) in
            controller.drawView()
            let laterYaw = controller.motionManager.deviceMotion?.attitude.yaw ?? .nan
            controller.stopDeviceMotion()
            return (controller.firstAngle ?? -1, controller.angle, controller.updates, controller.referenceAttitude?.yaw ?? .nan,
                    controller.rotation.m33, controller.drawnYaw, laterYaw)
        }
    }
    // A `copy()` that shared the object would have become the identity (yaw 0) at the first
    // multiply, and a pull value that shared it would read relative (the drawn yaw) again.
    let degree = Double.pi / 180
    let referenceKept = abs(seen.referenceYaw) > 5 * degree
    let laterIsAbsolute = abs(remainder(seen.laterYaw - seen.drawnYaw, 2 * .pi)) > 5 * degree
    print("relative-attitude: \(seen.updates) updates on .main; first relative to its own copy: \(formatted(seen.first, 0))°")
    print("relative-attitude: after the flip: \(formatted((seen.last / 10).rounded() * 10, 0))° from the reference; the reference copy kept its own yaw: \(referenceKept)")
    print("relative-attitude: drawView's relative m33 \(formatted(seen.m33, 1)); a later read of deviceMotion is its own, not relative: \(laterIsAbsolute)")
    return seen.first < 0.5 && abs(seen.last - 180) < 5 && abs(seen.m33 + 1) < 0.05 && referenceKept && laterIsAbsolute
}
