import Foundation
import Motion
import MotionSimulation

/// The common "relative attitude" tutorial: keep the first attitude as the reference and show
/// every later one relative to it with `multiply(byInverseOf:)`. Core Motion's `CMAttitude` is a
/// class, so the tutorial's `let attitude = data.attitude` may call the mutating method; here
/// `Attitude` is a value: the port says `var` (or uses `multiplied(byInverseOf:)`).
@Sendable func relativeAttitude(runs: Int) -> Bool {
    let clock = VirtualClock()
    guard let motion = simulatedMotion("flip", clock: clock) else { return false }
    let queue = OperationQueue()
    let reference = Shared<Attitude?>(nil)
    let relative = Shared<(first: Double?, last: Double, agree: Bool)>((nil, 0, true))

    motion.deviceMotionUpdateInterval = 1.0 / 60.0
    motion.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { data, error in
        guard let data = data else { return }
        guard let referenceAttitude = reference.withLock({ stored -> Attitude? in
            if stored == nil { stored = data.attitude }
            return stored
        }) else { return }
        var attitude = data.attitude
        attitude.multiply(byInverseOf: referenceAttitude)
        let alsoRelative = data.attitude.multiplied(byInverseOf: referenceAttitude)
        let degrees = attitude.quaternion.angle * 180 / .pi
        relative.withLock {
            if $0.first == nil { $0.first = degrees }
            $0.last = degrees
            if alsoRelative.quaternion.angle(to: attitude.quaternion) > 1e-6 { $0.agree = false }
        }
    }
    clock.advance(by: 7)   // 3 s face up, flipped over in 1.5 s, face down
    queue.waitUntilAllOperationsAreFinished()
    motion.stopDeviceMotionUpdates()

    let got = relative.current
    print("relative-attitude: first update relative to itself: \(formatted(got.first ?? -1, 0))°")
    print("relative-attitude: after the flip: \(formatted((got.last / 10).rounded() * 10, 0))° from the reference; multiplied(byInverseOf:) agrees: \(got.agree)")
    return got.first.map { $0 < 0.5 } == true && abs(got.last - 180) < 5 && got.agree
}
