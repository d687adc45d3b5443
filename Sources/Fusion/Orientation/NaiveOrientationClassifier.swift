/// The naive threshold classifier from the literature, kept as a baseline to compare against
/// `OrientationClassifier`: |g.z| > 0.93 → face up/down; else |g.x| < 0.3 → portrait/upside
/// down; else |g.y| < 0.3 → landscape; else unknown. It posts every change of class, so it
/// flaps (posts portrait, landscape and unknown while a device is flipped over).
package struct NaiveOrientationClassifier: Sendable {
    /// The last class seen; `unknown` before the first sample.
    package private(set) var orientation: DeviceOrientation = .unknown

    package init() {}

    /// Classifies one gravity sample (g, Core Motion sign, device frame, about unit length).
    package static func classify(_ gravity: SIMD3<Double>) -> DeviceOrientation {
        if abs(gravity.z) > 0.93 { return gravity.z < 0 ? .faceUp : .faceDown }
        if abs(gravity.x) < 0.3 { return gravity.y < 0 ? .portrait : .portraitUpsideDown }
        if abs(gravity.y) < 0.3 { return gravity.x < 0 ? .landscapeLeft : .landscapeRight }
        return .unknown
    }

    /// Returns the new class when it differs from the previous sample's, else `nil`.
    package mutating func update(gravity: SIMD3<Double>) -> DeviceOrientation? {
        let next = Self.classify(gravity)
        guard next != orientation else { return nil }
        orientation = next
        return next
    }
}
