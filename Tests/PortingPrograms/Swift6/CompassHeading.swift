import Foundation
import Motion
import MotionSimulation

/// A compass screen as iOS code writes one, with renames only (`CMMotionManager` →
/// `MotionManager`, `CMAttitudeReferenceFrame` → `AttitudeReferenceFrame`): device motion in the
/// magnetic-north frame on `.main`, keeping each update's heading and field accuracy.
@MainActor final class CompassViewController {
    let motionManager: MotionManager
    var readings: [(heading: Double, accuracy: MagneticFieldCalibrationAccuracy, timestamp: TimeInterval)] = []

    init(motionManager: MotionManager) {
        self.motionManager = motionManager
    }

    func viewDidAppear() {
        guard motionManager.isDeviceMotionAvailable,
              MotionManager.availableAttitudeReferenceFrames().contains(.xMagneticNorthZVertical) else { return }
        motionManager.deviceMotionUpdateInterval = 0.1
        motionManager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: .main) { [weak self] motion, error in
            guard let self = self, let motion = motion else { return }
            self.readings.append((motion.heading, motion.magneticField.accuracy, motion.timestamp))
        }
    }

    func viewWillDisappear() {
        motionManager.stopDeviceMotionUpdates()
    }
}

/// Runs the compass through the simulated flip (face up 3 s, turned over in 1.5 s, then still)
/// for 25 s in virtual time with nothing calibrated, and prints what its readings show: the
/// heading while still and uncalibrated, and how the accuracy changed.
@Sendable func compassHeading(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("flip", clock: clock) else { return false }
    let controller = DispatchQueue.main.sync { MainActor.assumeIsolated { CompassViewController(motionManager: motion) } }
    DispatchQueue.main.sync { MainActor.assumeIsolated { controller.viewDidAppear() } }
    clock.advance(by: 25)
    OperationQueue.main.waitUntilAllOperationsAreFinished()
    let readings = DispatchQueue.main.sync {
        MainActor.assumeIsolated { () -> [(heading: Double, accuracy: MagneticFieldCalibrationAccuracy, timestamp: TimeInterval)] in
            controller.viewWillDisappear()
            return controller.readings
        }
    }
    guard let start = readings.first?.timestamp else {
        print("compass-heading: no readings")
        return false
    }
    // Still from 5 s on (the flip ends at 4.5 s): the spread of the headings while uncalibrated.
    let still = readings.filter { $0.timestamp - start >= 5 && $0.accuracy == .uncalibrated }
    let spread = still.map { reading -> Double in
        let d = abs(reading.heading - still[0].heading).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }.max() ?? 0
    // Each rise of the accuracy at least 2 s (less one update) after the previous change.
    var changed = start, changes = 0, slowRises = true
    for (previous, next) in zip(readings, readings.dropFirst()) where next.accuracy != previous.accuracy {
        changes += 1
        if next.accuracy.rawValue > previous.accuracy.rawValue, next.timestamp - changed < 1.9 { slowRises = false }
        changed = next.timestamp
    }
    print("compass-heading: \(readings.count) updates; still and uncalibrated for \(still.count), the heading moved less than 1°: \(spread < 1)")
    print("compass-heading: accuracy changes: \(changes); every rise at least 2 s after the previous change: \(slowRises)")
    return readings.count >= 240 && !still.isEmpty && spread < 1 && slowRises
}
