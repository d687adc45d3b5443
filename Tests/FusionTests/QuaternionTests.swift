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
