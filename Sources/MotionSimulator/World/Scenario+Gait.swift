import Fusion

/// Walks, runs and stairs with every step's time known (``GaitShape``), and the motions that are
/// not walking a step counter must not count (a vehicle's ride). `Scenario.stepTimes` is the truth.
extension Scenario {
    private static let gaitDegree = Double.pi / 180
    /// Held in the hand in front of the body, tilted back 40° from upright.
    private static let inHand = DeviceFace.portraitTilt(40 * gaitDegree)
    /// In a front trouser pocket: upright, the screen against the thigh.
    private static let inPocket = DeviceFace.portrait.attitude

    /// Every step's time (seconds from the scenario's start): the ground truth of its step count.
    public var stepTimes: [Double] { script.stepTimes }

    package static let walkHand = Scenario(
        name: "walk-hand",
        summary: "held in the hand, walking at 1.8 steps/s for 60 s, 5 s standing, then 2.1 steps/s for 60 s",
        script: MotionScript([
            .turn(to: inHand, over: 2, thenHold: 1),
            .gait(GaitShape(cadence: 1.8, for: 60, speed: 1.3, seed: 11)),
            .rest(5),
            .gait(GaitShape(cadence: 2.1, for: 60, speed: 1.6, seed: 12)),
            .rest(3),
        ]))

    package static let walkPocket = Scenario(
        name: "walk-pocket",
        summary: "in a front trouser pocket, walking at 1.7 steps/s for 60 s, 5 s standing, then 2.0 steps/s for 60 s",
        script: MotionScript([
            .turn(to: inPocket, over: 2, thenHold: 1),
            .gait(GaitShape(cadence: 1.7, for: 60, speed: 1.2, carry: .pocket(), seed: 21)),
            .rest(5),
            .gait(GaitShape(cadence: 2.0, for: 60, speed: 1.5, carry: .pocket(), seed: 22)),
            .rest(3),
        ]))

    package static let run = Scenario(
        name: "run",
        summary: "running with the board in the hand at 2.7 steps/s for 60 s, then in a pocket at 2.9 steps/s for 40 s",
        script: MotionScript([
            .turn(to: inHand, over: 2, thenHold: 1),
            .gait(GaitShape(cadence: 2.7, for: 60, speed: 3.0, bounce: 0.022, seed: 31)),
            .rest(3),
            .turn(to: inPocket, over: 2, thenHold: 3),
            .gait(GaitShape(cadence: 2.9, for: 40, speed: 3.3, carry: .pocket(swing: 0.25), bounce: 0.018, seed: 32)),
            .rest(3),
        ]))

    package static let stairSteps = Scenario(
        name: "stair-steps",
        summary: "in a pocket, up two floors (34 steps of 0.17 m at 1.6 steps/s), 4 s on the landing, down again at 1.9 steps/s",
        script: MotionScript([
            .turn(to: inPocket, over: 2, thenHold: 1),
            .gait(GaitShape(cadence: 1.6, for: 34 / 1.6 + 0.3, speed: 0.45, carry: .pocket(), bounce: 0.02, rise: 0.17, seed: 41)),
            .rest(4),
            .gait(GaitShape(cadence: 1.9, for: 34 / 1.9 + 0.3, speed: 0.5, carry: .pocket(), bounce: 0.025, rise: -0.17, seed: 42)),
            .rest(3),
        ]))

    package static let walkPauses = Scenario(
        name: "walk-pauses",
        summary: "held in the hand: four walks of 20 s at 1.9 steps/s, standing 6 s between them",
        script: MotionScript([.turn(to: inHand, over: 2, thenHold: 1)]
            + (0..<4).flatMap { index -> [MotionSegment] in
                [.gait(GaitShape(cadence: 1.9, for: 20, speed: 1.4, seed: 50 + UInt64(index))), .rest(6)]
            }))

    /// A car's ride on an ordinary road, the board lying on the seat: the body heaving on its
    /// springs after each bump (1.2–1.8 Hz, damped: two to four swings, up to 0.13 g) between
    /// stretches of the road's roughness through the seat (4–15 Hz), seeded.
    package static let vehicle = Scenario(
        name: "vehicle",
        summary: "lying on a car seat on an ordinary road for 60 s: body heave at 1.2–1.8 Hz and road roughness at 4–15 Hz",
        script: MotionScript([.rest(2)] + vehicleRide(for: 60) + [.rest(2)]))

    /// Heaves and roughness one after the other, at changing frequencies and amplitudes.
    private static func vehicleRide(for duration: Double) -> [MotionSegment] {
        var random = SplitMix64(seed: 7)
        var segments: [MotionSegment] = []
        var elapsed = 0.0
        while elapsed < duration {
            let length = random.next(in: 1.2...2.5)
            let heave = random.next(in: 1.2...1.8)
            // 0.004–0.010 m at the heave's frequency: 0.02–0.13 g.
            segments.append(.shake(along: SIMD3(0, 0, 1), amplitude: random.next(in: 0.004...0.010), frequency: heave, for: length, ramp: 0.5))
            let road = random.next(in: 4...15)
            segments.append(.shake(along: SIMD3(random.next(in: -0.3...0.3), 0.2, 1), amplitude: random.next(in: 0.0001...0.0004),
                                   frequency: road, for: random.next(in: 0.5...1.5), ramp: 0.1))
            elapsed += length + 1
        }
        return segments
    }
}
