import Foundation
import Motion
import MotionSimulation

/// UIKit's orientation notifications as a ported program uses them: begin generating, observe
/// the notification, read the orientation (`UIDevice.current.orientation` → the manager's), act
/// on `isValidInterfaceOrientation`. The observer is a closure (`addObserver(forName:object:
/// queue:using:)`): without an Objective-C runtime there are no selectors.
@Sendable func orientationNotifications(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("six-faces", clock: clock) else { return false }
    let seen = Shared<[String]>([])
    let observer = NotificationCenter.default.addObserver(forName: .deviceOrientationDidChange, object: motion, queue: nil) { notification in
        guard let orientation = notification.userInfo?[MotionManager.newOrientationKey] as? DeviceOrientation else { return }
        let kind = orientation.isValidInterfaceOrientation ? "rotate the interface" : orientation.isFlat ? "flat: keep it" : "unknown"
        seen.withLock { $0.append("\(orientation.name) (\(orientation.rawValue)): \(kind)") }
    }
    motion.beginGeneratingDeviceOrientationNotifications()
    clock.advance(by: 34)   // 4 s on each face, 2 s to turn between them
    motion.waitForOrientationNotifications()
    let last = motion.orientation
    motion.endGeneratingDeviceOrientationNotifications()
    NotificationCenter.default.removeObserver(observer)

    for line in seen.current { print("orientation-notifications: \(line)") }
    print("orientation-notifications: last \(last.name), portrait \(last.isPortrait), landscape \(last.isLandscape); "
        + "UIDeviceOrientation(rawValue: 1) is \(DeviceOrientation(rawValue: 1).map { $0.name } ?? "nil")")
    return seen.current.count == 6
}
