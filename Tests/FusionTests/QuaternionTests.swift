import Foundation
import Fusion
import Testing

@Suite struct QuaternionTests {
    let q = Quaternion(roll: 0.3, pitch: -0.4, yaw: 1.1)

    @Test func eulerAnglesRoundTrip() {
        #expect(abs(q.roll - 0.3) < 1e-9)
        #expect(abs(q.pitch + 0.4) < 1e-9)
        #expect(abs(q.yaw - 1.1) < 1e-9)
        let flipped = Quaternion(roll: 2.5, pitch: 1.2, yaw: -3.0)
        #expect(abs(flipped.roll - 2.5) < 1e-9 && abs(flipped.pitch - 1.2) < 1e-9 && abs(flipped.yaw + 3.0) < 1e-9)
    }

    @Test func rotateMatchesMatrixAndProductChains() {
        let v = SIMD3<Double>(0.2, -1.5, 0.7)
        let byQuaternion = q.rotate(v)
        let byMatrix = q.rotationMatrix * v
        #expect(abs(byQuaternion - byMatrix).max() < 1e-12)
        let r = Quaternion(axis: SIMD3(1, 2, 3), angle: 0.8)
        #expect(abs((q * r).rotate(v) - q.rotate(r.rotate(v))).max() < 1e-12)
        #expect(abs(q.conjugate.rotate(q.rotate(v)) - v).max() < 1e-12)
        #expect(q.rotationMatrix.isProperRotation(tolerance: 1e-12))
    }

    @Test func axisAngle() {
        let quarterTurn = Quaternion(axis: SIMD3(0, 0, 2), angle: Double.pi / 2)
        #expect(abs(quarterTurn.rotate(SIMD3(1, 0, 0)) - SIMD3(0, 1, 0)).max() < 1e-12)
        #expect(abs(quarterTurn.angle - Double.pi / 2) < 1e-12)
        #expect(Quaternion(axis: .zero, angle: 1) == .identity)
    }

    @Test func elementaryRotationsMatchAxisAngle() {
        let v = SIMD3<Double>(0.2, -1.5, 0.7)
        #expect(abs(Quaternion.aboutX(0.7).rotate(v) - Quaternion(axis: SIMD3(1, 0, 0), angle: 0.7).rotate(v)).max() < 1e-12)
        #expect(abs(Quaternion.aboutY(-2.1).rotate(v) - Quaternion(axis: SIMD3(0, 1, 0), angle: -2.1).rotate(v)).max() < 1e-12)
        // A quarter turn about x takes y to z.
        #expect(abs(Quaternion.aboutX(Double.pi / 2).rotate(SIMD3(0, 1, 0)) - SIMD3(0, 0, 1)).max() < 1e-12)
    }

    @Test func inverseRotateUndoesRotate() {
        let v = SIMD3<Double>(0.2, -1.5, 0.7)
        #expect(abs(q.inverseRotate(q.rotate(v)) - v).max() < 1e-12)
        #expect(abs(q.inverseRotate(v) - q.rotationMatrix.transposed * v).max() < 1e-12)
    }

    @Test func axisAngleDecomposition() {
        let r = Quaternion(axis: SIMD3(1, 2, 2), angle: 2.5)
        let (axis, angle) = r.axisAngle
        #expect(abs(axis - SIMD3(1, 2, 2) / 3).max() < 1e-12)
        #expect(Swift.abs(angle - 2.5) < 1e-12)
        // −q is the same rotation: the angle stays in 0…π.
        let negated = Quaternion(w: -r.w, x: -r.x, y: -r.y, z: -r.z).axisAngle
        #expect(abs(negated.axis - axis).max() < 1e-12 && Swift.abs(negated.angle - angle) < 1e-12)
        #expect(Quaternion.identity.axisAngle.axis == SIMD3(0, 0, 1) && Quaternion.identity.axisAngle.angle == 0)
    }

    @Test func angleBetweenAttitudes() {
        let turned = q * Quaternion(axis: SIMD3(0, 1, 1), angle: 0.4)
        #expect(Swift.abs(q.angle(to: turned) - 0.4) < 1e-9)
        #expect(Swift.abs(turned.angle(to: q) - 0.4) < 1e-9)
        #expect(q.angle(to: Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z)) < 1e-6)
    }
}

private func abs(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(Swift.abs(v.x), Swift.abs(v.y), Swift.abs(v.z)) }

@Suite struct AttitudeTests {
    @Test func multiplyByInverseOfMakesTheReferenceTheIdentity() {
        let reference = Attitude(quaternion: Quaternion(roll: 0.1, pitch: 0.2, yaw: 0.3))
        var same = reference
        same.multiply(byInverseOf: reference)
        #expect(abs(same.quaternion.w - 1) < 1e-9 && abs(same.roll) < 1e-9 && abs(same.pitch) < 1e-9 && abs(same.yaw) < 1e-9)

        // A further yaw of 0.5 rad about the reference's vertical shows up as yaw 0.5.
        var turned = Attitude(quaternion: Quaternion.aboutZ(0.5) * Quaternion(roll: 0, pitch: 0, yaw: 0.3))
        turned.multiply(byInverseOf: Attitude(quaternion: Quaternion(roll: 0, pitch: 0, yaw: 0.3)))
        #expect(abs(turned.yaw - 0.5) < 1e-9)
        #expect(abs(turned.roll) < 1e-9 && abs(turned.pitch) < 1e-9)
    }

    @Test func frameConversionsFromENU() {
        // Device lying flat with its y axis (top edge) toward magnetic north: in ENU that is the identity.
        let enu = Quaternion.identity
        let magnetic = AttitudeReferenceFrame.xMagneticNorthZVertical.attitude(fromENU: enu)
        // x north, y west, z up: the device's y axis (north) is the frame's x axis.
        let yAxis = magnetic.quaternion.rotationMatrix * SIMD3(0, 1, 0)
        #expect(Swift.abs(yAxis.x - 1) < 1e-9 && Swift.abs(yAxis.y) < 1e-9 && Swift.abs(yAxis.z) < 1e-9)
        // The device's x axis points east, which is −y (y is west).
        let xAxis = magnetic.quaternion.rotationMatrix * SIMD3(1, 0, 0)
        #expect(Swift.abs(xAxis.y + 1) < 1e-9)
        // Core Motion's rotation matrix goes the other way, reference → device: north (the
        // frame's x) is the device's y axis; its rows are the device axes in the frame.
        let north = magnetic.rotationMatrix * SIMD3(1, 0, 0)
        #expect(Swift.abs(north.x) < 1e-9 && Swift.abs(north.y - 1) < 1e-9 && Swift.abs(north.z) < 1e-9)
        #expect(Swift.abs(magnetic.rotationMatrix.m21 - 1) < 1e-9 && Swift.abs(magnetic.rotationMatrix.m33 - 1) < 1e-9)
        #expect(magnetic.rotationMatrix == magnetic.quaternion.rotationMatrix.transposed)
        #expect(Swift.abs(magnetic.yaw + Double.pi / 2) < 1e-9)

        // Declination 10° east: magnetic north is 10° east of true north, so the device's y axis
        // (magnetic north) has yaw −10° (toward east) in the true-north frame.
        let declination = 10 * Double.pi / 180
        let trueNorth = AttitudeReferenceFrame.xTrueNorthZVertical.attitude(fromENU: enu, declination: declination)
        let yTrue = trueNorth.quaternion.rotationMatrix * SIMD3(0, 1, 0)
        #expect(Swift.abs(atan2(yTrue.y, yTrue.x) + declination) < 1e-9)

        // Arbitrary frames: x where it pointed at the start (here yaw 0.7 in ENU).
        let start = Quaternion.aboutZ(0.7)
        let arbitrary = AttitudeReferenceFrame.xArbitraryCorrectedZVertical.attitude(fromENU: start, startYaw: 0.7)
        #expect(Swift.abs(arbitrary.quaternion.w - 1) < 1e-9)
        let gyroOnly = AttitudeReferenceFrame.xArbitraryZVertical.attitude(fromENU: start, startYaw: 0.7)
        #expect(gyroOnly == arbitrary)
    }
}
