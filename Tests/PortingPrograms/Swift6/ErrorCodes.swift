import Foundation
import Motion
import MotionSimulation

/// Error handling as iOS code writes it against Core Motion's C constants, and the frames as the
/// option set Core Motion's are — renames only: `CMErrorDomain` → `MotionErrorDomain`,
/// `CMErrorTrueNorthNotAvailable` → `MotionErrorTrueNorthNotAvailable`, `CMError(rawValue:)` →
/// `MotionError.Code(rawValue:)`, `CMAttitudeReferenceFrame` → `AttitudeReferenceFrame`.
@Sendable func errorCodes(runs: Int) -> Bool {
    let frames = MotionManager.availableAttitudeReferenceFrames()
    let compass: AttitudeReferenceFrame = [.xArbitraryZVertical, .xMagneticNorthZVertical]
    print("error-codes: frames rawValue \(frames.rawValue), magnetic north \(frames.contains(.xMagneticNorthZVertical)), compass frames \(frames.isSuperset(of: compass))")
    if frames.rawValue & AttitudeReferenceFrame.xTrueNorthZVertical.rawValue == 0 {
        print("error-codes: true north is not offered without a location")
    }

    let clock = VirtualClock()
    guard let motion = simulatedMotion("rest", clock: clock) else { return false }
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    motion.startDeviceMotionUpdates(using: .xTrueNorthZVertical, to: queue) { motion, error in
        guard let error = error as NSError? else { return }
        if error.domain == MotionErrorDomain && error.code == Int(MotionErrorTrueNorthNotAvailable.rawValue) {
            print("error-codes: the handler's error is CMErrorTrueNorthNotAvailable by domain and code")
        }
        switch MotionError.Code(rawValue: UInt32(error.code)) {
        case MotionErrorTrueNorthNotAvailable: print("error-codes: switch matched MotionErrorTrueNorthNotAvailable")
        case MotionErrorDeviceRequiresMovement: print("error-codes: switch matched MotionErrorDeviceRequiresMovement")
        default: print("error-codes: switch matched another code \(error.code)")
        }
    }
    clock.advance(by: 0.5)
    queue.waitUntilAllOperationsAreFinished()
    motion.stopDeviceMotionUpdates()
    print("error-codes: CMError(rawValue: 999) reads as unknown: \(MotionError.Code(rawValue: UInt32(999)) == MotionErrorUnknown)")
    return true
}
