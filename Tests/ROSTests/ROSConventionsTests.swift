import Foundation
import Fusion
import Testing
@testable import MotionROS

/// REP-103 and REP-145 in `ROSImuValues`, and `ROSStampClock`, on hand-made Core Motion values.
@Suite struct ROSConventionsTests {
    static let clock = ROSStampClock(offsetNanoseconds: 1_700_000_000_000_000_000)

    static func values(attitude: Quaternion = Quaternion(w: 1, x: 0, y: 0, z: 0), rate: SIMD3<Double> = .zero,
                       acceleration: SIMD3<Double> = SIMD3(0, 0, -1), field: SIMD3<Double> = .zero, timestamp: Double = 10) -> ROSImuValues {
        ROSImuValues(attitude: attitude, rotationRate: rate, acceleration: acceleration, magneticField: field, timestamp: timestamp, clock: clock)
    }

    /// The ROS yaw of a body → ENU quaternion (about z, from east toward north).
    static func yaw(_ q: Quaternion) -> Double { atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z)) }

    @Test("face up at rest: +9.80665 m/s² on z (gravity included), level, body x = the top edge, y = the left edge")
    func faceUp() {
        let v = Self.values(rate: SIMD3(0.1, 0.2, 0.3), field: SIMD3(20, 0, -40))
        #expect(v.linearAcceleration == SIMD3(0, 0, 9.80665))
        // Device x (right) → body -y, device y (top) → body x, z stays.
        #expect(v.angularVelocity == SIMD3(0.2, -0.1, 0.3))
        #expect(abs(v.magneticField.y - -20e-6) < 1e-18 && v.magneticField.x == 0 && abs(v.magneticField.z - -40e-6) < 1e-18)
        let q = v.orientation
        #expect(abs(q.x) < 1e-12 && abs(q.y) < 1e-12)
        // Core Motion's identity in xMagneticNorthZVertical: the right edge north, the top edge (body x) west.
        #expect(abs(abs(Self.yaw(q)) - Double.pi) < 1e-12)
    }

    @Test("standing in portrait (top edge up): +9.80665 m/s² on body x")
    func portrait() {
        let v = Self.values(acceleration: SIMD3(0, -1, 0))
        #expect(v.linearAcceleration == SIMD3(9.80665, 0, 0))
    }

    @Test("turned 90° counterclockwise about up: ROS's yaw grows by 90°", arguments: [0.0, 0.5, 2.0])
    func yawTurn(start: Double) {
        let before = Self.values(attitude: Quaternion.aboutZ(start)).orientation
        let after = Self.values(attitude: Quaternion.aboutZ(start + Double.pi / 2)).orientation
        var change = Self.yaw(after) - Self.yaw(before)
        if change < -Double.pi { change += 2 * Double.pi }
        #expect(abs(change - Double.pi / 2) < 1e-12)
    }

    @Test("stamps: monotonic seconds plus the offset, in whole seconds and nanoseconds")
    func stamps() {
        let v = Self.values(timestamp: 12.25)
        #expect(v.stamp.sec == 1_700_000_012 && v.stamp.nanosec == 250_000_000)
        let measured = ROSStampClock.measured()
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let stamp = measured.stamp(monotonic: Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9)
        // Within a minute of the system clock read here (a bound, not a measurement).
        #expect(abs(Double(stamp.sec) - Date().timeIntervalSince1970) < 60)
    }

    @Test("topics under the namespace with rmw's rt/ prefix; bad settings name the fix")
    func configuration() throws {
        var configuration = ROSConfiguration()
        #expect(configuration.ddsTopic("imu/data") == "rt/imu/data")
        configuration.namespace = "/robot1/arm"
        #expect(configuration.ddsTopic("imu/mag") == "rt/robot1/arm/imu/mag")
        try configuration.validate()
        for bad in ["/1robot", "/a b", "/a//b"] {
            configuration.namespace = bad
            #expect(throws: ROSError.self) { try configuration.validate() }
        }
        configuration.namespace = ""
        configuration.domainID = 233
        #expect(throws: ROSError.self) { try configuration.validate() }
    }
}
