import Fusion
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One 100 Hz sample of a synthetic orientation scenario: gravity and user acceleration in g
/// (Core Motion sign, device frame).
struct OrientationSample {
    var time: Double
    var gravity: SIMD3<Double>
    var userAcceleration = SIMD3<Double>(0, 0, 0)
}

/// Builds gravity sequences at 100 Hz from smooth segments.
struct OrientationScenario {
    static let samplePeriod = 0.01
    private(set) var samples: [OrientationSample] = []
    private(set) var time = 0.0
    /// Gravity direction at the end of the scenario so far.
    private(set) var direction: SIMD3<Double>

    init(start: SIMD3<Double>) { direction = unitVector(start) }

    /// Holds the current direction for `duration` seconds.
    mutating func hold(_ duration: Double) {
        let start = direction
        append(duration) { _ in start }
    }

    /// Turns gravity from the current direction to `target` along a great circle with a smooth
    /// (cosine) speed profile. `target` must not be opposite to the current direction.
    mutating func turn(to target: SIMD3<Double>, in duration: Double) {
        let a = direction
        let b = unitVector(target)
        let angle = acos(min(1, max(-1, (a * b).sum())))
        append(duration) { s in
            guard angle > 1e-9 else { return b }
            let t = ease(s) * angle
            return (sin(angle - t) * a + sin(t) * b) / sin(angle)
        }
    }

    /// Rotates gravity by `angle` about the unit `axis` (device frame) with a cosine profile.
    mutating func rotate(about axis: SIMD3<Double>, by angle: Double, in duration: Double) {
        let start = direction
        let k = unitVector(axis)
        append(duration) { s in rotatedVector(start, about: k, by: ease(s) * angle) }
    }

    /// Appends samples for `duration` seconds, the last one exactly at its end; `path` maps the
    /// fraction of the segment (0…1] to a gravity direction.
    mutating func append(_ duration: Double, path: (Double) -> SIMD3<Double>) {
        let count = Int((duration / Self.samplePeriod).rounded())
        let startIndex = samples.count
        for i in 1...count {
            let g = path(Double(i) / Double(count))
            samples.append(OrientationSample(time: Double(startIndex + i) * Self.samplePeriod, gravity: g))
        }
        time = Double(samples.count) * Self.samplePeriod
        direction = samples.last?.gravity ?? direction
    }

    /// Adds independent Gaussian noise (g) to every gravity sample.
    mutating func addNoise(_ sigma: Double, seed: UInt64) {
        var noise = FixedSeedNoise(seed: seed)
        for i in samples.indices { samples[i].gravity += noise.gaussianVector(sigma) }
    }

    /// Transforms samples whose time lies in `range`.
    mutating func modify(_ range: ClosedRange<Double>, _ change: (inout OrientationSample) -> Void) {
        for i in samples.indices where range.contains(samples[i].time) { change(&samples[i]) }
    }
}

func unitVector(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }

func rotatedVector(_ v: SIMD3<Double>, about k: SIMD3<Double>, by angle: Double) -> SIMD3<Double> {
    // Rodrigues' rotation formula.
    let cross = SIMD3(k.y * v.z - k.z * v.y, k.z * v.x - k.x * v.z, k.x * v.y - k.y * v.x)
    return v * cos(angle) + cross * sin(angle) + k * (k * v).sum() * (1 - cos(angle))
}

private func ease(_ s: Double) -> Double { (1 - cos(.pi * s)) / 2 }

/// A posted change and the time of the sample that caused it.
struct PostedChange: Equatable {
    var time: Double
    var orientation: DeviceOrientation
}

func runClassifier(_ samples: [OrientationSample], configuration: OrientationClassifier.Configuration = .init()) -> [PostedChange] {
    var classifier = OrientationClassifier(configuration: configuration)
    return samples.compactMap { s in
        classifier.update(gravity: s.gravity, userAcceleration: s.userAcceleration, timestamp: s.time)
            .map { PostedChange(time: s.time, orientation: $0) }
    }
}

func runNaive(_ samples: [OrientationSample]) -> [PostedChange] {
    var classifier = NaiveOrientationClassifier()
    return samples.compactMap { s in
        classifier.update(gravity: s.gravity).map { PostedChange(time: s.time, orientation: $0) }
    }
}

/// Gravity of a device in portrait tilted back by `tilt` radians from upright.
func portraitTiltedBack(_ tilt: Double) -> SIMD3<Double> { SIMD3(0, -cos(tilt), -sin(tilt)) }
