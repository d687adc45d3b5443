import Foundation
import Fusion
@testable import Motion
import Synchronization
import Testing

/// `Attitude` as Core Motion's `CMAttitude`: a class whose `multiply(byInverseOf:)` changes the
/// object (through a `let`, and through the `DeviceMotion` that holds it), whose `copy()` is an
/// independent object, and which stays whole when threads read and change it at once; and the
/// frame conversions it is made from.
@Suite struct AttitudeTests {
    @Test func multiplyByInverseOfMakesTheReferenceTheIdentity() {
        let reference = Attitude(quaternion: Quaternion(roll: 0.1, pitch: 0.2, yaw: 0.3))
        let same = reference.copy() as! Attitude
        same.multiply(byInverseOf: reference)
        #expect(abs(same.quaternion.w - 1) < 1e-9 && abs(same.roll) < 1e-9 && abs(same.pitch) < 1e-9 && abs(same.yaw) < 1e-9)

        // A further yaw of 0.5 rad about the reference's vertical shows up as yaw 0.5.
        let turned = Attitude(quaternion: Quaternion.aboutZ(0.5) * Quaternion(roll: 0, pitch: 0, yaw: 0.3))
        turned.multiply(byInverseOf: Attitude(quaternion: Quaternion(roll: 0, pitch: 0, yaw: 0.3)))
        #expect(abs(turned.yaw - 0.5) < 1e-9)
        #expect(abs(turned.roll) < 1e-9 && abs(turned.pitch) < 1e-9)
        #expect(abs(turned.rotationMatrix.m11 - cos(0.5)) < 1e-9)

        // By its own inverse: read before written, so the identity too.
        let itself = Attitude(quaternion: Quaternion(roll: 0.4, pitch: -0.3, yaw: 2))
        itself.multiply(byInverseOf: itself)
        #expect(abs(itself.quaternion.w - 1) < 1e-9)
    }

    @Test func copyIsIndependentAndMultiplyChangesTheObjectTheMotionHolds() {
        let value = DeviceMotionValue(
            attitude: Quaternion(roll: 0.2, pitch: 0.1, yaw: 1.0), rotationRate: .zero, gravity: SIMD3(0, 0, -1), userAcceleration: .zero,
            magneticField: CalibratedMagneticField(field: .zero, accuracy: .uncalibrated), heading: -1, timestamp: 1, chipAttitude: nil)
        let motion = value.handedOut
        let reference = motion.attitude.copy() as! Attitude
        #expect(reference !== motion.attitude && reference == motion.attitude)

        let turned = DeviceMotionValue(
            attitude: value.attitude * Quaternion.aboutZ(0.3), rotationRate: .zero, gravity: SIMD3(0, 0, -1), userAcceleration: .zero,
            magneticField: CalibratedMagneticField(field: .zero, accuracy: .uncalibrated), heading: -1, timestamp: 2, chipAttitude: nil
        ).handedOut
        // Turned 0.3 rad about its own z axis since the reference.
        turned.attitude.multiply(byInverseOf: reference)
        // The object the motion holds changed: read through `turned` again, it is relative.
        #expect(abs(turned.attitude.yaw - 0.3) < 1e-9 && abs(turned.attitude.roll) < 1e-9 && abs(turned.attitude.pitch) < 1e-9)
        // The reference and the motion it was copied from did not.
        #expect(reference.quaternion == value.attitude && motion.attitude.quaternion == value.attitude)
        // Each hand-off has its own object.
        #expect(value.handedOut.attitude !== value.handedOut.attitude)
    }

    @Test func readersNeverSeeAHalfWrittenChange() {
        // Two threads turn one attitude by 1 rad about z, 2,000 times each, while two read it:
        // every read is a unit quaternion about z (a torn read mixes two and is not), and the
        // end is the sum of the turns.
        let attitude = Attitude(quaternion: .identity)
        let step = Attitude(quaternion: Quaternion.aboutZ(-1))
        let torn = Atomic(0)
        let turns = 2_000
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for _ in 0..<turns {
                if worker < 2 {
                    attitude.multiply(byInverseOf: step)
                } else {
                    let q = attitude.quaternion
                    if abs(q.x) > 1e-12 || abs(q.y) > 1e-12 || abs(q.w * q.w + q.z * q.z - 1) > 1e-9 { torn.add(1, ordering: .relaxed) }
                }
            }
        }
        #expect(torn.load(ordering: .relaxed) == 0)
        let expected = Quaternion.aboutZ(Double(2 * turns))
        #expect(attitude.quaternion.angle(to: expected) < 1e-6)
    }

    @Test func frameConversionsFromENU() {
        // Device lying flat with its y axis (top edge) toward magnetic north: in ENU that is the identity.
        let enu = Quaternion.identity
        let magnetic = Attitude(quaternion: AttitudeReferenceFrame.xMagneticNorthZVertical.attitude(fromENU: enu))
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
        let yTrue = trueNorth.rotationMatrix * SIMD3(0, 1, 0)
        #expect(Swift.abs(atan2(yTrue.y, yTrue.x) + declination) < 1e-9)

        // Arbitrary frames: x where it pointed at the start (here yaw 0.7 in ENU).
        let start = Quaternion.aboutZ(0.7)
        let arbitrary = AttitudeReferenceFrame.xArbitraryCorrectedZVertical.attitude(fromENU: start, startYaw: 0.7)
        #expect(Swift.abs(arbitrary.w - 1) < 1e-9)
        let gyroOnly = AttitudeReferenceFrame.xArbitraryZVertical.attitude(fromENU: start, startYaw: 0.7)
        #expect(gyroOnly == arbitrary)
    }
}
