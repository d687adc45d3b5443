import Foundation
import Fusion
import TestSupport
import Testing

/// The step detector on synthetic signals: walking at several cadences, rates and orientations
/// counted within 2 %, and nothing counted where nobody walks (rest, taps, a shake, slow turns).
@Suite struct StepDetectorTests {
    /// Orientations of the device in the walker's frame: face up, portrait, and tilted about an
    /// oblique axis (as in a pocket).
    static let orientations: [Quaternion] = [
        .identity, Quaternion(axis: SIMD3(1, 0, 0), angle: .pi / 2), Quaternion(axis: SIMD3(0.3, -0.8, 0.5), angle: 2.1),
    ]

    /// Counts `seconds` of samples at about `rate` Hz (timestamps jittered by up to 10 % of the
    /// period), each sample's acceleration in the world frame from `world(t)`, turned into the
    /// device's frame by `orientation(t)`.
    static func count(rate: Double, seconds: Double, seed: UInt64, orientation: (Double) -> Quaternion = { _ in .identity },
                      world: (Double, inout FixedSeedNoise) -> SIMD3<Double>) -> (steps: Int, cadence: Double?) {
        var detector = StepDetector()
        var noise = FixedSeedNoise(seed: seed)
        var t = 0.0
        var cadence: Double?
        while t < seconds {
            let a = orientation(t).conjugate.rotate(world(t, &noise))
            detector.add(acceleration: a, timestamp: t)
            if detector.isWalking { cadence = detector.cadence }
            t += (1 + 0.1 * noise.symmetric()) / rate
        }
        return (detector.steps, cadence)
    }

    /// A walker's acceleration (Core Motion's sign: gravity reads -1 g on the up axis): the
    /// vertical bounce at the step frequency with its second harmonic, the forward surge at the
    /// step frequency and the lateral sway at the stride's, and sensor noise of 0.02 g.
    static func walking(_ frequency: Double) -> (Double, inout FixedSeedNoise) -> SIMD3<Double> {
        { t, noise in
            let phase = 2 * Double.pi * frequency * t
            let vertical = 0.25 * sin(phase) + 0.08 * sin(2 * phase + 0.7)
            return SIMD3(0.06 * sin(phase / 2), 0.12 * sin(phase + 1), -1 - vertical) + noise.gaussianVector(0.02)
        }
    }

    static let walks: [(cadence: Double, rate: Double)] = [(1.6, 100), (1.9, 100), (2.2, 100), (1.6, 400), (2.2, 400)]

    @Test(arguments: walks)
    func countsWalkingWithinTwoPercent(cadence: Double, rate: Double) {
        for (index, orientation) in Self.orientations.enumerated() {
            let seconds = 60.0
            let truth = Int(cadence * seconds)
            let result = Self.count(rate: rate, seconds: seconds, seed: UInt64(index + 1), orientation: { _ in orientation }, world: Self.walking(cadence))
            #expect(abs(result.steps - truth) <= truth / 50, "\(cadence) Hz at \(rate) Hz, orientation \(index): \(result.steps) steps, truth \(truth)")
            let measured = result.cadence ?? 0
            #expect(abs(measured - cadence) < 0.05 * cadence, "cadence \(measured) against \(cadence)")
        }
    }

    /// A walk at 1.8 steps/s whose every sixth impact is too weak to see (0.03 g against 0.25 g,
    /// as a phone swung in the hand weakens one foot's): with `fillsMissedSteps` the gaps of two
    /// step intervals count their missed step; without it a sixth of the walk is lost.
    @Test(arguments: [100.0, 50])
    func aMissedImpactIsCountedFromTheGap(rate: Double) {
        let cadence = 1.8
        let seconds = 60.0
        let truth = Int(cadence * seconds)
        func count(fills: Bool) -> Int {
            var parameters = StepDetector.Parameters()
            parameters.fillsMissedSteps = fills
            var detector = StepDetector(parameters: parameters)
            var noise = FixedSeedNoise(seed: 11)
            var t = 0.0
            while t < seconds {
                let step = Int(t * cadence)
                let height = step % 6 == 5 ? 0.03 : 0.25
                let a = SIMD3(0, 0, -1 - height * sin(2 * .pi * cadence * t)) + noise.gaussianVector(0.005)
                detector.add(acceleration: a, timestamp: t)
                t += 1 / rate
            }
            return detector.steps
        }
        let filled = count(fills: true)
        let unfilled = count(fills: false)
        #expect(abs(filled - truth) <= truth / 50, "\(filled) steps with the gaps filled, truth \(truth)")
        #expect(unfilled <= truth * 5 / 6 + 2, "\(unfilled) steps without, truth \(truth)")
    }

    /// A slow walk (1.4 steps/s: 0.71 s a step) whose every impact, from the tenth second, rings
    /// with a second bump 0.33 s later (a phone bouncing in a bag): past `minimumInterval`, but
    /// under half the walk's step, so not a step; without that rule nearly every bump counts.
    @Test(arguments: [100.0, 50])
    func aBounceSoonerThanHalfAStepIsNotAStep(rate: Double) {
        let cadence = 1.4
        let impacts = Array(stride(from: 0.2, to: 60, by: 1 / cadence))
        func count(fraction: Double) -> Int {
            var parameters = StepDetector.Parameters()
            parameters.shortestStepFraction = fraction
            var detector = StepDetector(parameters: parameters)
            var noise = FixedSeedNoise(seed: 12)
            var t = 0.0
            while t < 60 {
                var bump = 0.0
                for impact in impacts where abs(t - impact) < 0.5 {
                    bump += 0.3 * exp(-0.5 * pow((t - impact) / 0.04, 2))
                    if impact > 10 { bump += 0.2 * exp(-0.5 * pow((t - impact - 0.33) / 0.04, 2)) }
                }
                detector.add(acceleration: SIMD3(0, 0, -1 - bump) + noise.gaussianVector(0.005), timestamp: t)
                t += 1 / rate
            }
            return detector.steps
        }
        let truth = impacts.count
        let kept = count(fraction: 0.5)
        let without = count(fraction: 0)
        #expect(abs(kept - truth) <= truth / 50, "\(kept) steps, truth \(truth)")
        #expect(without > truth * 3 / 2, "\(without) steps without the rule, truth \(truth)")
    }

    /// The gate: the first steps of a walk count once enough have followed at a steady pace
    /// (back-filled at once), and a stop ends the walk.
    @Test func backFillsTheFirstStepsAndEndsAtAStop() {
        var detector = StepDetector()
        let walk = Self.walking(2)
        var noise = FixedSeedNoise(seed: 9)
        var counted: [Int] = []
        var t = 0.0
        while t < 20 {
            let a = t < 10 ? walk(t, &noise) : SIMD3(0, 0, -1) + noise.gaussianVector(0.005)
            let added = detector.add(acceleration: a, timestamp: t)
            if added > 0 { counted.append(added) }
            t += 0.01
        }
        #expect(counted.first == detector.parameters.gateSteps, "\(counted)")
        #expect(counted.dropFirst().allSatisfy { $0 == 1 }, "\(counted)")
        #expect(abs(detector.steps - 20) <= 1, "\(detector.steps)")
        #expect(!detector.isWalking)
        #expect(detector.cadence == nil)
    }

    @Test(arguments: [100.0, 400])
    func restCountsNothing(rate: Double) {
        let result = Self.count(rate: rate, seconds: 120, seed: 3) { _, noise in SIMD3(0, 0, -1) + noise.gaussianVector(0.01) }
        #expect(result.steps == 0)
    }

    /// Taps on the case at irregular moments: each a 2 g spike of 10 ms ringing at 30 Hz.
    @Test(arguments: [100.0, 400])
    func tapsCountNothing(rate: Double) {
        let taps = [2.0, 3.7, 6.9, 8.1, 11.5, 12.0, 15.0, 16.4, 17.9, 19.0]
        let result = Self.count(rate: rate, seconds: 25, seed: 4) { t, noise in
            var a = SIMD3<Double>(0, 0, -1) + noise.gaussianVector(0.005)
            if let tap = taps.last(where: { $0 <= t }), t - tap < 0.2 {
                a.z += 2 * exp(-(t - tap) / 0.01) * cos(2 * .pi * 30 * (t - tap))
            }
            return a
        }
        #expect(result.steps == 0)
    }

    /// Shaken hard for 2 s at 3, 4 and 6 Hz, then held still.
    @Test(arguments: [3.0, 4, 6])
    func aShortShakeCountsNothing(frequency: Double) {
        for rate in [100.0, 400] {
            let result = Self.count(rate: rate, seconds: 10, seed: 5) { t, noise in
                let shake = t > 3 && t < 5 ? 1.5 * sin(2 * .pi * frequency * (t - 3)) : 0
                return SIMD3(shake, 0.3 * shake, -1) + noise.gaussianVector(0.01)
            }
            #expect(result.steps == 0, "\(frequency) Hz shake at \(rate) Hz")
        }
    }

    /// Turned slowly in the hand, back and forth through 180° about an oblique axis, with a hand's tremor.
    @Test func slowTurnsCountNothing() {
        let axis = SIMD3(0.5, 0.7, 0.2)
        let result = Self.count(rate: 100, seconds: 60, seed: 6, orientation: { t in Quaternion(axis: axis, angle: .pi / 2 * sin(2 * .pi * 0.2 * t)) }) { t, noise in
            SIMD3(0, 0, -1) + 0.01 * SIMD3(sin(2 * .pi * 9 * t), 0, 0) + noise.gaussianVector(0.01)
        }
        #expect(result.steps == 0)
    }

    /// A timestamp that does not advance is skipped; a non-finite sample is too.
    @Test func skipsSamplesThatDoNotAdvance() {
        var detector = StepDetector()
        #expect(detector.add(acceleration: SIMD3(0, 0, -1), timestamp: 1) == 0)
        #expect(detector.add(acceleration: SIMD3(0, 0, .nan), timestamp: 2) == 0)
        #expect(detector.add(acceleration: SIMD3(0, 0, -3), timestamp: 1) == 0)
        #expect(detector.steps == 0)
    }
}
