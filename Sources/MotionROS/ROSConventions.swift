import Fusion
import Motion

#if canImport(Glibc)
import Glibc
#endif

/// One `sensor_msgs/Imu` (and `MagneticField`) as ROS conventions want it, from a ``DeviceMotion``.
///
/// REP-103 body frame: x forward, y left, z up. Core Motion's device frame is x to the right
/// edge, y to the top edge, z out of the screen; the board's top edge is taken as forward, so
/// `ros = (y, -x, z)` of the device's vector (a turn of -90° about z, right-handed kept).
/// The world frame is ENU: Core Motion's `xMagneticNorthZVertical` (x north, y west, z up) is
/// turned +90° about z; in 6D (`xArbitraryZVertical`) the same turn, from an arbitrary x.
/// REP-145: `linear_acceleration` is the specific force, gravity included: +9.81 m/s² on z lying
/// face up at rest, i.e. minus Core Motion's total acceleration (`gravity + userAcceleration`, in g).
package struct ROSImuValues: Sendable, Equatable {
    /// Standard gravity, m/s² per g: the 3rd CGPM (1901), "valeur conventionnelle" of g_n.
    package static let standardGravity = 9.80665

    /// body → ENU, (x, y, z, w).
    package var orientation: Quaternion
    /// rad/s, body axes.
    package var angularVelocity: SIMD3<Double>
    /// m/s², body axes, gravity included.
    package var linearAcceleration: SIMD3<Double>
    /// tesla, body axes.
    package var magneticField: SIMD3<Double>
    /// `header.stamp`: seconds and nanoseconds of the system clock.
    package var stamp: (sec: Int32, nanosec: UInt32)

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.orientation == rhs.orientation && lhs.angularVelocity == rhs.angularVelocity
            && lhs.linearAcceleration == rhs.linearAcceleration && lhs.magneticField == rhs.magneticField
            && lhs.stamp == rhs.stamp
    }

    package init(_ motion: DeviceMotion, clock: ROSStampClock) {
        self.init(
            attitude: motion.attitude.quaternion, rotationRate: motion.rotationRate, acceleration: motion.gravity + motion.userAcceleration,
            magneticField: motion.magneticField.field, timestamp: motion.timestamp, clock: clock)
    }

    /// From Core Motion's quantities: `attitude` device → its reference frame (x north or
    /// arbitrary, z up), `rotationRate` rad/s and `acceleration` (total, g, Core Motion's sign)
    /// and `magneticField` µT in device axes, `timestamp` monotonic seconds.
    package init(
        attitude: Quaternion, rotationRate: SIMD3<Double>, acceleration: SIMD3<Double>, magneticField: SIMD3<Double>, timestamp: Double,
        clock: ROSStampClock
    ) {
        orientation = (Self.worldFromCoreMotion * attitude * Self.deviceFromBody).normalized
        angularVelocity = Self.body(rotationRate)
        linearAcceleration = Self.body(-acceleration * Self.standardGravity)
        self.magneticField = Self.body(magneticField * 1e-6)
        stamp = clock.stamp(monotonic: timestamp)
    }

    /// A device-frame vector in the REP-103 body frame.
    package static func body(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(v.y, -v.x, v.z) }

    /// Body → device: +90° about z (body x forward = device y).
    static let deviceFromBody = Quaternion.aboutZ(Double.pi / 2)
    /// Core Motion's attitude frame (x north, y west, z up) → ENU: +90° about z.
    static let worldFromCoreMotion = Quaternion.aboutZ(Double.pi / 2)
}

/// ROS time (the system clock, `CLOCK_REALTIME`) from a sample's monotonic timestamp: the offset
/// between the two clocks is read once, when the publisher starts, as the realtime reading minus
/// the midpoint of two monotonic readings around it (error at most half their spacing, a few µs).
/// A later step of the system clock (NTP) is not followed until the next start.
package struct ROSStampClock: Sendable {
    /// Realtime minus monotonic, nanoseconds (integers: a Double of seconds since 1970 keeps
    /// only about 0.5 µs).
    package let offsetNanoseconds: Int64

    package init(offsetNanoseconds: Int64) { self.offsetNanoseconds = offsetNanoseconds }

    package static func measured() -> ROSStampClock {
        var before = timespec(), real = timespec(), after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(CLOCK_MONOTONIC, &after)
        func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
        return ROSStampClock(offsetNanoseconds: nanoseconds(real) - (nanoseconds(before) + nanoseconds(after)) / 2)
    }

    /// `builtin_interfaces/Time` of a monotonic instant (seconds since boot).
    package func stamp(monotonic: Double) -> (sec: Int32, nanosec: UInt32) {
        // Seconds since boot: finite and far below Int64's 292 years of nanoseconds.
        let monotonicNanoseconds = monotonic.isFinite ? Int64((min(max(monotonic, 0), 1e9) * 1e9).rounded()) : 0
        let time = max(0, monotonicNanoseconds + offsetNanoseconds)
        return (Int32(clamping: time / 1_000_000_000), UInt32(time % 1_000_000_000))
    }
}
