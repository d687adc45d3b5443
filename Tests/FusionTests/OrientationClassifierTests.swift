import Fusion
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scenario tests at 100 Hz for the orientation classifier, each against the naive classifier
/// on the same samples. Gravity noise 0.01 g (a fused gravity estimate is smoother than that).
@Suite struct OrientationClassifierTests {
    static let degree = Double.pi / 180
    let settle = OrientationClassifier.Configuration().settleTime
    let margin = OrientationClassifier.Configuration().hysteresisMargin

    @Test func geometryFollowsCoreMotionSigns() {
        for orientation in DeviceOrientation.allCases {
            guard let gravity = orientation.gravity else { continue }
            #expect(NaiveOrientationClassifier.classify(gravity) == orientation)
        }
        #expect(GravityAngles(gravity: SIMD3(0, 0, -1)).tilt == 0)
        #expect(abs(GravityAngles(gravity: SIMD3(1, 0, 0)).rotation - .pi / 2) < 1e-12)
        #expect(abs(GravityAngles(gravity: SIMD3(-1, 0, 0)).rotation + .pi / 2) < 1e-12)
        #expect(DeviceOrientation.faceDown.isFlat && DeviceOrientation.landscapeLeft.isLandscape)
        #expect(DeviceOrientation.portraitUpsideDown.isPortrait && !DeviceOrientation.unknown.isFlat)
    }

    /// The names `motionctl`, the live view and calibration records write: the case names, read back.
    @Test func namesAreTheCaseNames() {
        #expect(DeviceOrientation.allCases.map(\.name) == [
            "unknown", "portrait", "portraitUpsideDown", "landscapeLeft", "landscapeRight", "faceUp", "faceDown",
        ])
        #expect(DeviceOrientation.allCases.allSatisfy { DeviceOrientation(name: $0.name) == $0 })
        #expect(DeviceOrientation(name: "sideways") == nil)
    }

    @Test func sixFacesInTurnPostSixChangesInOrderWithinSettleTime() {
        let faces: [DeviceOrientation] = [.faceUp, .portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight, .faceDown]
        var scenario = OrientationScenario(start: SIMD3(0, 0, -1))
        var settledAt: [Double] = [0]
        scenario.hold(1.5)
        for face in faces.dropFirst() {
            scenario.turn(to: face.gravity ?? .zero, in: 1)
            settledAt.append(scenario.time)
            scenario.hold(1.5)
        }
        scenario.addNoise(0.01, seed: 1)

        let posted = runClassifier(scenario.samples)
        #expect(posted.map(\.orientation) == faces)
        for (change, settled) in zip(posted, settledAt) {
            #expect(change.time - settled <= settle + OrientationScenario.samplePeriod + 1e-9)
        }
        // The naive classifier adds `unknown` in each of the three in-plane turns and flaps at
        // its thresholds in the noise.
        #expect(runNaive(scenario.samples).count == 11)
    }

    @Test(arguments: zip([0.3, 1.0, 3.0], [[3, 3, 4], [5, 3, 7], [7, 5, 7]]))
    func flipFaceUpToFaceDownPostsOnlyFaceDown(duration: Double, naiveCounts expectedNaive: [Int]) {
        let axes: [SIMD3<Double>] = [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(1, 1, 0)]
        var naiveCounts: [Int] = []
        for (index, axis) in axes.enumerated() {
            var scenario = OrientationScenario(start: SIMD3(0, 0, -1))
            scenario.hold(1)
            scenario.rotate(about: axis, by: .pi, in: duration)
            scenario.hold(1)
            scenario.addNoise(0.01, seed: 10 + UInt64(index))
            let posted = runClassifier(scenario.samples)
            #expect(posted.map(\.orientation) == [.faceUp, .faceDown], "flip about \(axis) in \(duration) s")
            naiveCounts.append(runNaive(scenario.samples).count)
        }
        // The naive classifier posts upside down (about x), landscape (about y), unknown (diagonal)
        // on the way, and flaps at its thresholds in the noise when the flip is slow.
        #expect(naiveCounts == expectedNaive)
    }

    @Test func portraitHeldAtThirtyToSixtyDegreesWithWobbleStaysPortrait() {
        var scenario = OrientationScenario(start: portraitTiltedBack(30 * Self.degree))
        scenario.append(20) { s in
            let t = s * 20
            let tilt = (45 - 15 * cos(2 * .pi * t / 10)) * Self.degree     // 30° → 60° → 30°
            let wobble = 3 * Self.degree * sin(2 * .pi * 1.3 * t)
            let roll = 4 * Self.degree * sin(2 * .pi * 0.7 * t + 1)
            return rotatedVector(portraitTiltedBack(tilt + wobble), about: SIMD3(0, 0, 1), by: roll)
        }
        scenario.addNoise(0.01, seed: 3)
        #expect(runClassifier(scenario.samples).map(\.orientation) == [.portrait])
        // Up to 60° from vertical |g.z| stays below 0.93, so the naive classifier holds too.
        #expect(runNaive(scenario.samples).map(\.orientation) == [.portrait])
    }

    @Test func shakingInPortraitIsIgnored() {
        var scenario = OrientationScenario(start: portraitTiltedBack(20 * Self.degree))
        scenario.hold(1)
        let start = scenario.time
        scenario.append(6) { s in
            let t = s * 6
            let swing = 50 * Self.degree * sin(2 * .pi * 3 * t)
            let nod = 25 * Self.degree * sin(2 * .pi * 2.3 * t)
            return rotatedVector(portraitTiltedBack(20 * Self.degree + nod), about: SIMD3(0, 0, 1), by: swing)
        }
        scenario.modify(start...scenario.time) { sample in
            let t = sample.time
            sample.userAcceleration = 1.2 * SIMD3(sin(2 * .pi * 4 * t), 0.6 * sin(2 * .pi * 5.1 * t + 1), 0.4 * sin(2 * .pi * 3.3 * t + 2))
        }
        scenario.hold(1)
        scenario.addNoise(0.01, seed: 4)
        #expect(runClassifier(scenario.samples).map(\.orientation) == [.portrait])
        #expect(runNaive(scenario.samples).count == 73)
    }

    @Test func slowTurnThroughLandscapeBoundaryShowsHysteresis() {
        let tilt = 20 * Self.degree
        var scenario = OrientationScenario(start: portraitTiltedBack(tilt))
        scenario.hold(1)
        let turnStart = scenario.time
        let rate = 10 * Self.degree     // rad/s, constant
        scenario.append(8) { s in rotatedVector(portraitTiltedBack(tilt), about: SIMD3(0, 0, 1), by: s * 80 * Self.degree) }
        scenario.hold(2)
        let backStart = scenario.time
        scenario.append(8) { s in rotatedVector(portraitTiltedBack(tilt), about: SIMD3(0, 0, 1), by: (1 - s) * 80 * Self.degree) }
        scenario.hold(1)
        scenario.addNoise(0.01, seed: 5)

        let posted = runClassifier(scenario.samples)
        #expect(posted.map(\.orientation) == [.portrait, .landscapeRight, .portrait])
        guard posted.count == 3 else { return }
        // Rotation angle about the screen normal at each posting; the boundary is at 45°.
        let forward = (posted[1].time - turnStart) * rate
        let back = 80 * Self.degree - (posted[2].time - backStart) * rate
        #expect(forward >= 45 * Self.degree + margin)
        #expect(back <= 45 * Self.degree - margin)
        // Naive: portrait, unknown, landscape right, unknown, portrait, plus flaps in the noise
        // while the turn is slow near its thresholds.
        #expect(runNaive(scenario.samples).count == 25)
    }

    /// Why the defaults: a shorter settle time or a wider stillness cone posts the edge
    /// orientation during slow (5 s) flips; the defaults post only face down up to 5 s.
    @Test func defaultsRejectSlowFlipsWhereShorterSettleTimesDoNot() {
        func postsDuringFlip(_ configuration: OrientationClassifier.Configuration) -> [DeviceOrientation] {
            var scenario = OrientationScenario(start: SIMD3(0, 0, -1))
            scenario.hold(1)
            scenario.rotate(about: SIMD3(1, 0, 0), by: .pi, in: 5)
            scenario.hold(1)
            scenario.addNoise(0.01, seed: 10)
            return runClassifier(scenario.samples, configuration: configuration).map(\.orientation)
        }
        #expect(postsDuringFlip(.init()) == [.faceUp, .faceDown])
        #expect(postsDuringFlip(.init(settleTime: 0.2)) == [.faceUp, .portraitUpsideDown, .faceDown])
        #expect(postsDuringFlip(.init(stillnessAngle: 20 * Self.degree)) == [.faceUp, .portraitUpsideDown, .faceDown])
    }

    @Test func firstOrientationNeedsNoMarginButLaterOnesDo() {
        // Lying 20° from face up: inside face up's region, but within the margin of its edge.
        var scenario = OrientationScenario(start: rotatedVector(SIMD3(0, 0, -1), about: SIMD3(1, 0, 0), by: -20 * Self.degree))
        scenario.hold(1)
        #expect(runClassifier(scenario.samples).map(\.orientation) == [.faceUp])
        // Tilting on to 30° (beyond the 25° boundary, within the margin) keeps face up.
        scenario.turn(to: rotatedVector(SIMD3(0, 0, -1), about: SIMD3(1, 0, 0), by: -30 * Self.degree), in: 1)
        scenario.hold(2)
        #expect(runClassifier(scenario.samples).map(\.orientation) == [.faceUp])
        // A classifier that starts at 30° says portrait.
        var started = OrientationScenario(start: scenario.direction)
        started.hold(1)
        #expect(runClassifier(started.samples).map(\.orientation) == [.portrait])
    }

    @Test func neverPostsUnknownAndHoldsThroughFreeFall() {
        var scenario = OrientationScenario(start: SIMD3(0, -1, 0))
        scenario.hold(1)
        scenario.append(1) { _ in SIMD3(0.01, 0.02, 0.01) }   // free fall: no usable direction
        scenario.hold(1)
        let posted = runClassifier(scenario.samples)
        #expect(posted.map(\.orientation) == [.portrait])
    }
}
