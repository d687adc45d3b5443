#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A rotation quaternion, scalar first, `Double` components.
///
/// Convention: a quaternion `q` describes the rotation from a body (sensor) frame to a reference
/// frame: `q.rotate(v)` expresses a body-frame vector in the reference frame, `q ⊗ r` applies `r`
/// first (frames chain as `q_A←B ⊗ q_B←C = q_A←C`).
public struct Quaternion: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    package init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// The same, in Core Motion's order (`CMQuaternion(x:y:z:w:)`).
    public init(x: Double, y: Double, z: Double, w: Double) {
        self.init(w: w, x: x, y: y, z: z)
    }

    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// The rotation by `angle` radians about `axis` (right-hand rule). A zero axis gives the identity.
    @inlinable
    package init(axis: SIMD3<Double>, angle: Double) {
        let length = (axis * axis).sum().squareRoot()
        guard length > 0 else {
            self = .identity
            return
        }
        let s = sin(angle / 2) / length
        self.init(w: cos(angle / 2), x: s * axis.x, y: s * axis.y, z: s * axis.z)
    }

    /// The rotation about the z axis by `angle` radians.
    @inlinable
    package static func aboutZ(_ angle: Double) -> Quaternion {
        Quaternion(w: cos(angle / 2), x: 0, y: 0, z: sin(angle / 2))
    }

    /// The rotation about the x axis by `angle` radians.
    @inlinable
    package static func aboutX(_ angle: Double) -> Quaternion {
        Quaternion(w: cos(angle / 2), x: sin(angle / 2), y: 0, z: 0)
    }

    /// The rotation about the y axis by `angle` radians.
    @inlinable
    package static func aboutY(_ angle: Double) -> Quaternion {
        Quaternion(w: cos(angle / 2), x: 0, y: sin(angle / 2), z: 0)
    }

    /// The vector part (x, y, z).
    @inlinable
    package var vector: SIMD3<Double> { SIMD3(x, y, z) }

    @inlinable
    package var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    @inlinable
    package var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// The unit quaternion in the same direction; the identity if the norm is zero or not finite.
    @inlinable @inline(__always)
    package var normalized: Quaternion {
        let n = norm
        guard n > 0, n.isFinite else { return .identity }
        let inverse = 1 / n
        return Quaternion(w: w * inverse, x: x * inverse, y: y * inverse, z: z * inverse)
    }

    /// Hamilton product `lhs ⊗ rhs` (`rhs` is applied first when rotating vectors).
    @inlinable @inline(__always)
    package static func * (lhs: Quaternion, rhs: Quaternion) -> Quaternion {
        Quaternion(
            w: lhs.w * rhs.w - lhs.x * rhs.x - lhs.y * rhs.y - lhs.z * rhs.z,
            x: lhs.w * rhs.x + lhs.x * rhs.w + lhs.y * rhs.z - lhs.z * rhs.y,
            y: lhs.w * rhs.y - lhs.x * rhs.z + lhs.y * rhs.w + lhs.z * rhs.x,
            z: lhs.w * rhs.z + lhs.x * rhs.y - lhs.y * rhs.x + lhs.z * rhs.w)
    }

    /// `q ⊗ (0, v) ⊗ q*` for a unit quaternion: `v` (body frame) expressed in the reference frame.
    @inlinable @inline(__always)
    package func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
        // v + 2w (u × v) + 2 u × (u × v), u = vector part.
        let u = vector
        let t = 2 * cross(u, v)
        return v + w * t + cross(u, t)
    }

    /// `q* ⊗ (0, v) ⊗ q` for a unit quaternion: `v` (reference frame) expressed in the body frame.
    @inlinable @inline(__always)
    package func inverseRotate(_ v: SIMD3<Double>) -> SIMD3<Double> { conjugate.rotate(v) }

    /// The rotation matrix `R` with `R * v == rotate(v)` (body → reference) for a unit quaternion.
    @inlinable @inline(__always)
    package var rotationMatrix: Matrix3 {
        let xx = x * x, yy = y * y, zz = z * z
        let xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z
        return Matrix3(
            rows: SIMD3(1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)),
            SIMD3(2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)),
            SIMD3(2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)))
    }

    /// The rotation angle in radians, 0…π.
    @inlinable
    package var angle: Double { 2 * acos(Swift.min(abs(w) / norm, 1)) }

    /// The rotation as a unit axis and an angle in 0…π (q and −q give the same); the identity
    /// gives ((0, 0, 1), 0).
    @inlinable
    package var axisAngle: (axis: SIMD3<Double>, angle: Double) {
        let q = w < 0 ? Quaternion(w: -w, x: -x, y: -y, z: -z) : self
        let s = (q.x * q.x + q.y * q.y + q.z * q.z).squareRoot()
        guard s > 1e-15 else { return (SIMD3(0, 0, 1), 0) }
        return (q.vector / s, 2 * atan2(s, q.w))
    }

    /// The angle in radians, 0…π, of the rotation between two unit quaternions (q and −q are the
    /// same rotation).
    @inlinable
    package func angle(to other: Quaternion) -> Double {
        let dot = abs(w * other.w + x * other.x + y * other.y + z * other.z)
        return 2 * acos(Swift.min(1, dot))
    }

    // Euler angles follow Core Motion: the attitude is R = Rz(yaw) · Rx(pitch) · Ry(roll) (body →
    // reference), so pitch (about x) is in −π/2…π/2, roll (about y) and yaw (about z) in −π…π.

    /// Rotation about the body y axis, radians (Core Motion's roll).
    @inlinable
    package var roll: Double { atan2(-2 * (x * z - w * y), 1 - 2 * (x * x + y * y)) }

    /// Rotation about the body x axis, radians, −π/2…π/2 (Core Motion's pitch).
    @inlinable
    package var pitch: Double { asin(Swift.max(-1, Swift.min(1, 2 * (y * z + w * x)))) }

    /// Rotation about the vertical z axis, radians (Core Motion's yaw).
    @inlinable
    package var yaw: Double { atan2(-2 * (x * y - w * z), 1 - 2 * (x * x + z * z)) }

    /// The attitude with the given Core Motion Euler angles (radians): `Rz(yaw) · Rx(pitch) · Ry(roll)`.
    @inlinable
    package init(roll: Double, pitch: Double, yaw: Double) {
        self = Quaternion.aboutZ(yaw) * Quaternion(axis: SIMD3(1, 0, 0), angle: pitch)
            * Quaternion(axis: SIMD3(0, 1, 0), angle: roll)
    }

    public var description: String { "Quaternion(w: \(w), x: \(x), y: \(y), z: \(z))" }
}

@inlinable @inline(__always)
package func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

extension Quaternion {
    /// The unit quaternion of a rotation matrix (`m * v == rotate(v)`), by Shepperd's method: the
    /// largest of w, x, y, z is found first, so every rotation converts without loss of precision.
    package init(rotationMatrix m: Matrix3) {
        let trace = m[0, 0] + m[1, 1] + m[2, 2]
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(w: s / 4, x: (m[2, 1] - m[1, 2]) / s, y: (m[0, 2] - m[2, 0]) / s, z: (m[1, 0] - m[0, 1]) / s)
        } else if m[0, 0] > m[1, 1], m[0, 0] > m[2, 2] {
            let s = (1 + m[0, 0] - m[1, 1] - m[2, 2]).squareRoot() * 2
            self.init(w: (m[2, 1] - m[1, 2]) / s, x: s / 4, y: (m[0, 1] + m[1, 0]) / s, z: (m[0, 2] + m[2, 0]) / s)
        } else if m[1, 1] > m[2, 2] {
            let s = (1 + m[1, 1] - m[0, 0] - m[2, 2]).squareRoot() * 2
            self.init(w: (m[0, 2] - m[2, 0]) / s, x: (m[0, 1] + m[1, 0]) / s, y: s / 4, z: (m[1, 2] + m[2, 1]) / s)
        } else {
            let s = (1 + m[2, 2] - m[0, 0] - m[1, 1]).squareRoot() * 2
            self.init(w: (m[1, 0] - m[0, 1]) / s, x: (m[0, 2] + m[2, 0]) / s, y: (m[1, 2] + m[2, 1]) / s, z: s / 4)
        }
        self = normalized
    }

    /// Sensor → magnetic East-North-Up from one accelerometer reading (specific force, m/s² or any
    /// unit: up is its direction at rest) and one magnetometer reading, both in sensor axes; nil
    /// when either is zero or they are parallel.
    package static func magneticENU(specificForce: SIMD3<Double>, magneticField: SIMD3<Double>) -> Quaternion? {
        func unit(_ v: SIMD3<Double>) -> SIMD3<Double>? {
            let length = (v * v).sum().squareRoot()
            return length > 1e-12 && length.isFinite ? v / length : nil
        }
        func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
        }
        guard let up = unit(specificForce), let east = unit(cross(magneticField, up)) else { return nil }
        let north = cross(up, east)
        // Rows are the ENU axes in sensor coordinates: v_enu = (east·v, north·v, up·v).
        return Quaternion(rotationMatrix: Matrix3(rows: east, north, up))
    }
}
