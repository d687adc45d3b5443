import Foundation
import Fusion
import Testing
@testable import MotionSimulator

private let g = PhysicalState.standardGravity

/// Body-frame angular rate from finite differences of the attitude: q(t−h)⁻¹·q(t+h) ≈ exp(ω·2h).
private func finiteDifferenceRate(_ world: World, at t: Double, step h: Double = 1e-5) -> SIMD3<Double> {
    let before = world.truth(at: t - h).attitude, after = world.truth(at: t + h).attitude
    let (axis, angle) = (before.conjugate * after).axisAngle
    return axis * angle / (2 * h)
}

/// Specific force from the second finite difference of the position and the attitude.
private func finiteDifferenceSpecificForce(_ world: World, at t: Double, step h: Double = 1e-4) -> SIMD3<Double> {
    let p0 = world.truth(at: t - h).position, p1 = world.truth(at: t).position, p2 = world.truth(at: t + h).position
    let acceleration = (p2 - 2 * p1 + p0) / (h * h)
    return world.truth(at: t).attitude.inverseRotate(acceleration + SIMD3(0, 0, g))
}

/// Per scenario, the largest `error(world, t)` from `start` in steps of `step` until a second after
/// its script ends.
private func worstErrors(from start: Double, every step: Double, _ error: (World, Double) -> Double) -> [(scenario: Scenario, worst: Double)] {
    Scenario.all.map { scenario in
        let world = scenario.world()
        var worst = 0.0
        var t = start
        while t < scenario.script.duration + 1 {
            worst = max(worst, error(world, t))
            t += step
        }
        return (scenario, worst)
    }
}

private func norm(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
private func largestComponent(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }

@Suite struct WorldTests {
    @Test func restFaceUpReadsGravityAndTheEarthField() {
        let world = Scenario.rest.world()
        let truth = world.truth(at: 12.3)
        #expect(truth.specificForce == SIMD3(0, 0, g))
        #expect(truth.gravity == SIMD3(0, 0, -1))
        #expect(truth.userAcceleration == .zero)
        #expect(truth.angularRate == .zero)
        let field = truth.magneticField
        #expect(abs(norm(field) - 49.8) < 1e-9)
        // Inclination 68.3° down, declination 4.3° east of north (device top edge points north).
        let horizontal = (field.x * field.x + field.y * field.y).squareRoot()
        #expect(abs(atan2(-field.z, horizontal) * 180 / .pi - 68.3) < 1e-9)
        #expect(abs(atan2(field.x, field.y) * 180 / .pi - 4.3) < 1e-9)
    }

    @Test func mountMapsDeviceAxesToChipAxes() {
        // A chip mounted with x and y swapped and z flipped.
        let mount = Matrix3(rows: SIMD3(0, 1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, -1))
        let state = Scenario.rest.world(earthField: .berlin, mount: mount, temperature: 31).state(at: 1)
        #expect(state.specificForce == SIMD3(0, 0, -g))
        #expect(state.temperature == 31)
    }

    @Test func specificForceMagnitudeIsGravityWheneverTheDeviceIsStill() {
        for scenario in Scenario.all {
            let world = scenario.world()
            var t = 0.0
            while t < scenario.script.duration {
                let truth = world.truth(at: t)
                if norm(truth.velocity) == 0, norm(truth.acceleration) == 0 {
                    #expect(abs(norm(truth.specificForce) - g) < 1e-9, "\(scenario.name) at \(t)")
                }
                t += 0.25
            }
        }
    }

    @Test func angularRateIsTheDerivativeOfTheAttitudeInEveryScenario() {
        let results = worstErrors(from: 0.013, every: 0.05) { world, t in
            let rate = world.truth(at: t).angularRate
            return norm(rate - finiteDifferenceRate(world, at: t)) / max(1, norm(rate))
        }
        for (scenario, worst) in results {
            #expect(worst < 1e-5, "\(scenario.name): worst relative error \(worst)")
        }
    }

    @Test func specificForceIsTheSecondDerivativeOfPositionMinusGravity() {
        let results = worstErrors(from: 0.0071, every: 0.0173) { world, t in
            norm(world.truth(at: t).specificForce - finiteDifferenceSpecificForce(world, at: t))
        }
        for (scenario, worst) in results {
            #expect(worst < 2e-3, "\(scenario.name): worst error \(worst) m/s²")
        }
    }

    @Test func coreMotionGravityAndUserAccelerationAddUpToTheSpecificForce() {
        let world = Scenario.shakePortrait.world()
        for t in stride(from: 0.0, to: 12, by: 0.1) {
            let truth = world.truth(at: t)
            // Core Motion's acceleration (g, opposite sign) = gravity + userAcceleration = −f/g.
            #expect(norm(truth.gravity + truth.userAcceleration + truth.specificForce / g) < 1e-12)
        }
    }

    @Test func velocityIsTheDerivativeOfPosition() {
        let world = Scenario.walk.world()
        let h = 1e-5
        var t = 0.5
        while t < 35 {
            let estimate = (world.truth(at: t + h).position - world.truth(at: t - h).position) / (2 * h)
            #expect(norm(world.truth(at: t).velocity - estimate) < 1e-6)
            t += 0.37
        }
    }

    @Test func motionIsContinuousAcrossSegmentBoundariesAndLoops() {
        for scenario in Scenario.all {
            let world = scenario.world()
            var boundaries = scenario.script.segmentStartTimes.dropFirst().map { $0 }
            boundaries.append(scenario.script.duration)
            if scenario.script.endBehavior == .loop { boundaries.append(2 * scenario.script.duration) }
            for time in boundaries {
                let before = world.truth(at: time - 1e-7), after = world.truth(at: time + 1e-7)
                #expect(before.attitude.angle(to: after.attitude) < 1e-5, "\(scenario.name) attitude at \(time)")
                #expect(norm(before.angularRate - after.angularRate) < 1e-4, "\(scenario.name) rate at \(time)")
                #expect(norm(before.specificForce - after.specificForce) < 1e-3, "\(scenario.name) force at \(time)")
                #expect(norm(before.position - after.position) < 1e-6, "\(scenario.name) position at \(time)")
            }
        }
    }

    @Test func sixFacesVisitsTheSixFacesInOrder() {
        let world = Scenario.sixFaces.world()
        let expected: [DeviceFace] = [.faceUp, .faceDown, .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight]
        // Rest 4 s, then each face: 2 s turn + 4 s hold; sample in the middle of each hold.
        let visited = (0..<6).map { index in
            let time = index == 0 ? 2.0 : 4 + Double(index - 1) * 6 + 4
            let force = world.truth(at: time).specificForce
            #expect(norm(force - g * DeviceFace.closest(to: force).upAxis) < 1e-9)
            return DeviceFace.closest(to: force)
        }
        #expect(visited == expected)
        #expect(Scenario.sixFaces.script.duration == 34)
    }

    @Test func faceAttitudesPutTheRightAxisUp() {
        for face in DeviceFace.allCases {
            let up = face.attitude.inverseRotate(SIMD3(0, 0, 1))
            #expect(norm(up - face.upAxis) < 1e-12, "\(face)")
        }
        // Standing faces show the screen to the south (the user), so z is horizontal.
        for face in [DeviceFace.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight] {
            #expect(norm(face.attitude.rotate(SIMD3(0, 0, 1)) - SIMD3(0, -1, 0)) < 1e-12)
        }
    }

    @Test func flipEndsFaceDown() {
        let world = Scenario.flip.world()
        #expect(DeviceFace.closest(to: world.truth(at: 1).specificForce) == .faceUp)
        #expect(DeviceFace.closest(to: world.truth(at: 100).specificForce) == .faceDown)
    }

    @Test func portraitTiltStaysBetween30And60Degrees() {
        let world = Scenario.portraitTilt.world()
        var t = 3.0  // after the first turn
        while t < Scenario.portraitTilt.script.duration {
            let force = world.truth(at: t).specificForce
            let tilt = atan2(force.y, force.z) * 180 / .pi
            #expect(tilt >= 30 - 1e-9 && tilt <= 60 + 1e-9, "tilt \(tilt)° at \(t)")
            t += 0.1
        }
    }

    @Test func landscapeSweepCrossesThePortraitLandscapeBoundaryBothWays() {
        let world = Scenario.landscapeSweep.world()
        var faces: [DeviceFace] = []
        var t = 0.0
        while t < Scenario.landscapeSweep.script.duration {
            let face = DeviceFace.closest(to: world.truth(at: t).specificForce)
            if faces.last != face { faces.append(face) }
            t += 0.1
        }
        #expect(faces == [.faceUp, .portrait, .landscapeLeft, .portrait, .landscapeRight, .portrait])
    }

    @Test func figureEightCoversTheSphereOfFieldDirections() {
        let world = Scenario.figureEight.world()
        // 6 bands of equal area (equal steps in z) × 8 sectors of azimuth = 48 equal cells.
        var visited = Set<Int>()
        var maximumRate = 0.0
        var t = 0.0
        while t < Scenario.figureEight.script.duration {
            let truth = world.truth(at: t)
            let direction = truth.magneticField / norm(truth.magneticField)
            let band = min(5, Int((direction.z + 1) / 2 * 6))
            let azimuth: Double = atan2(direction.y, direction.x) + .pi
            let sector = min(7, Int(azimuth / (2 * .pi) * 8))
            visited.insert(band * 8 + sector)
            maximumRate = max(maximumRate, norm(truth.angularRate))
            t += 0.02
        }
        #expect(visited.count == 48)
        #expect(maximumRate < 2.5)
        // It ends where it began.
        #expect(world.truth(at: 0).attitude.angle(to: world.truth(at: 200).attitude) < 1e-9)
    }

    @Test func everyScenarioStaysInsideTheSmallestChipRanges() {
        for scenario in Scenario.all {
            let world = scenario.world()
            var maximumForce = 0.0, maximumRate = 0.0, maximumField = 0.0
            var t = 0.0
            while t < scenario.script.duration {
                let truth = world.truth(at: t)
                maximumForce = max(maximumForce, largestComponent(truth.specificForce))
                maximumRate = max(maximumRate, largestComponent(truth.angularRate))
                maximumField = max(maximumField, largestComponent(truth.magneticField))
                t += 0.002
            }
            // ±2 g and ±250 °/s are the smallest full scales of the emulated chips; leave room
            // for bias and scale errors (the brief's limit is ±4 g and ±500 °/s).
            #expect(maximumForce <= 1.9 * g, "\(scenario.name): \(maximumForce / g) g")
            #expect(maximumRate <= 240 * .pi / 180, "\(scenario.name): \(maximumRate * 180 / .pi) °/s")
            #expect(maximumField <= 400, "\(scenario.name): \(maximumField) µT")
        }
    }

    @Test func scenariosAreFoundByName() {
        let names = Scenario.all.map(\.name)
        for required in ["rest", "six-faces", "flip", "portrait-tilt", "shake-portrait", "landscape-sweep",
                         "figure-eight", "tumble", "walk", "translation", "magnet-disturbance"] {
            #expect(Scenario.named(required)?.name == required)
        }
        #expect(Set(names).count == names.count)
        #expect(Scenario.named("no-such-scenario") == nil)
        #expect(Scenario.all.allSatisfy { !$0.summary.isEmpty })
    }

    @Test func magnetAndDeskDisturbTheField() {
        let earth = EarthField.berlin.vector
        let magnet = Scenario.magnetDisturbance.world()
        let near = magnet.truth(at: 10).magneticField
        #expect(norm(near - earth) > 80 && norm(near - earth) < 120)
        #expect(norm(magnet.truth(at: 0).magneticField - earth) < 1)

        let desk = Scenario.steelDesk.world()
        let onDesk = desk.truth(at: 1).magneticField
        #expect(norm(onDesk - earth) > 5)
        #expect(norm(desk.truth(at: 15).magneticField - desk.truth(at: 15).attitude.inverseRotate(earth)) < 1e-9)

        // A magnet carried on the device adds a constant offset in the device frame.
        let carried = World(script: MotionScript([.rotate(about: SIMD3(1, 1, 0), rate: 1, for: 5)]),
                            disturbances: [.magnetOnDevice(position: SIMD3(0.02, 0, 0), moment: SIMD3(0, 0, 0.01))])
        for t in stride(from: 0.0, through: 5, by: 0.5) {
            let truth = carried.truth(at: t)
            let offset = truth.magneticField - truth.attitude.inverseRotate(earth)
            #expect(norm(offset - SIMD3(0, 0, -0.1 * 0.01 / 8e-6)) < 1e-9)
        }
    }

    @Test func tumbleIsSeededAndLoops() {
        let a = MotionScript([.tumble(for: 30, seed: 7)])
        let b = MotionScript([.tumble(for: 30, seed: 7)])
        let c = MotionScript([.tumble(for: 30, seed: 8)])
        #expect(a.kinematics(at: 12.5).attitude == b.kinematics(at: 12.5).attitude)
        #expect(a.kinematics(at: 12.5).attitude != c.kinematics(at: 12.5).attitude)
        let tumble = Scenario.tumble.world()
        let period = Scenario.tumble.script.duration
        #expect(tumble.truth(at: 17.25) == { var truth = tumble.truth(at: 17.25 + period); truth.time = 17.25; return truth }())
    }

    @Test func beforeStartTimeTheDeviceRestsInItsStartingPose() {
        let world = Scenario.tumble.world(startTime: 1000)
        #expect(world.truth(at: 10).angularRate == .zero)
        #expect(world.truth(at: 1000.5).attitude == world.truth(at: 0).attitude)
        #expect(world.truth(at: 1030).angularRate != .zero)
        #expect(world.truth(at: .nan).attitude == world.truth(at: 0).attitude)
        #expect(ErrorModelSource(base: world, imu: .mpu6050, seed: 1).state(at: .infinity).specificForce.z > 9)
    }
}
