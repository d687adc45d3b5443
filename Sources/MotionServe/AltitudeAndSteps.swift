import Dispatch
import Foundation
import Locking
import Motion

/// What the page shows beside device motion: the altimeter's latest update (once a second) and
/// the pedometer's count with the activity, kept as the latest value for the event stream's
/// samples to carry (`altitude` and `steps` in ``EventEncoding``).
final class AltitudeAndSteps: Sendable {
    let altimeter: Altimeter?
    let pedometer: Pedometer
    let activities: MotionActivityManager
    private let queue = DispatchQueue(label: "swift-motion.serve.altitude-steps")
    private let latest = Locked<(altitude: AltitudeData?, steps: PedometerData?)>((nil, nil))

    /// `altimeter`: the same board's barometer, nil without one.
    init(manager: MotionManager, altimeter: Altimeter?) {
        self.altimeter = altimeter?.barometerName == nil ? nil : altimeter
        pedometer = Pedometer(sharing: manager, altimeter: self.altimeter)
        activities = MotionActivityManager(sharing: manager)
    }

    func start() {
        altimeter?.startRelativeAltitudeUpdates(to: queue) { [latest] data, _ in
            if let data { latest.withLock { $0.altitude = data } }
        }
        pedometer.startUpdates(from: Date()) { [latest] data, _ in
            if let data { latest.withLock { $0.steps = data } }
        }
    }

    func stop() {
        altimeter?.stopRelativeAltitudeUpdates()
        pedometer.stopUpdates()
        queue.sync {}
    }

    /// The latest altitude update, step count and activity.
    var current: (altitude: AltitudeData?, steps: PedometerData?, activity: MotionActivity?) {
        let (altitude, steps) = latest.withLock { $0 }
        return (altitude, steps, activities.currentActivity)
    }
}
