import Foundation
import Motion
import MotionSimulation

/// Each reference frame the way a compass tutorial tries them: ask whether the device offers
/// it, start, read the heading; a frame it cannot give reports Core Motion's error to the
/// handler (true north needs `location`, which Core Motion takes from location services).
@Sendable func referenceFrames(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("rest", clock: clock) else { return false }
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    var succeeded = true

    func run(_ frame: AttitudeReferenceFrame) {
        let latest = Shared<(heading: Double, error: MotionError?)>((-2, nil))
        let offered = motion.availableAttitudeReferenceFrames().contains(frame)
        motion.startDeviceMotionUpdates(using: frame, to: queue) { data, error in
            if let error = error {
                latest.withLock { $0.error = error }
                return
            }
            guard let data = data else { return }
            latest.withLock { $0.heading = data.heading }
        }
        clock.advance(by: 2)
        queue.waitUntilAllOperationsAreFinished()
        motion.stopDeviceMotionUpdates()
        let got = latest.current
        if let error = got.error {
            let bridged = error as NSError
            let named = error == .trueNorthNotAvailable ? "trueNorthNotAvailable" : "\(error.code)"
            print("reference-frames: \(frame) offered \(offered): error \(named), \(bridged.domain) \(bridged.code): \(error.localizedDescription)")
            if offered { succeeded = false }
        } else {
            let heading = got.heading < 0 ? "none (-1)" : (0..<360).contains(got.heading) ? "0–360°" : "out of range \(got.heading)"
            print("reference-frames: \(frame) offered \(offered): heading \(heading), frame in use \(motion.attitudeReferenceFrame)")
            if !offered { succeeded = false }
        }
    }

    for frame in AttitudeReferenceFrame.allCases { run(frame) }
    motion.location = GeographicLocation(latitude: 37.33, longitude: -122.01)
    run(.xTrueNorthZVertical)
    return succeeded
}
