import Foundation

/// A unit quaternion for the simulated world's true attitude: it rotates vectors from the device
/// frame (x right, y toward the top edge, z out of the screen) into the world frame
/// (East-North-Up). The identity is a device lying face up with its top edge pointing north.
///
/// Kept small on purpose: the simulator cannot depend on `Fusion`, which has its own types.
public struct SimQuaternion: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Scalar part.
    public var w: Double
    /// Vector part.
    public var x: Double
    public var y: Double
    public var z: Double

    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    public static let identity = SimQuaternion(w: 1, x: 0, y: 0, z: 0)

    /// A rotation by `angle` radians (right-hand rule) about `axis` (need not be unit length).
    /// A zero axis gives the identity.
    public init(axis: SIMD3<Double>, angle: Double) {
        let length = (axis * axis).sum().squareRoot()
        guard length > 0 else {
            self = .identity
            return
        }
        let half = angle / 2
        let v = axis / length * sin(half)
        self.init(w: cos(half), x: v.x, y: v.y, z: v.z)
    }

    /// The rotation about the device x axis (tilting the top edge up from face up), and so on.
    public static func aboutX(_ angle: Double) -> SimQuaternion { SimQuaternion(axis: SIMD3(1, 0, 0), angle: angle) }
    public static func aboutY(_ angle: Double) -> SimQuaternion { SimQuaternion(axis: SIMD3(0, 1, 0), angle: angle) }
    public static func aboutZ(_ angle: Double) -> SimQuaternion { SimQuaternion(axis: SIMD3(0, 0, 1), angle: angle) }

    /// Vector part.
    public var vector: SIMD3<Double> { SIMD3(x, y, z) }

    public var conjugate: SimQuaternion { SimQuaternion(w: w, x: -x, y: -y, z: -z) }

    public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    public var normalized: SimQuaternion {
        let n = norm
        return SimQuaternion(w: w / n, x: x / n, y: y / n, z: z / n)
    }

    /// Hamilton product: `a * b` applies `b` first, then `a`.
    public static func * (a: SimQuaternion, b: SimQuaternion) -> SimQuaternion {
        SimQuaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w
        )
    }

    /// Rotates `v` (device frame → world frame for an attitude).
    public func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
        // v' = v + 2w (u × v) + 2 u × (u × v), u the vector part.
        let u = vector
        let t = 2 * cross(u, v)
        return v + w * t + cross(u, t)
    }

    /// Rotates `v` by the inverse (world frame → device frame for an attitude).
    public func inverseRotate(_ v: SIMD3<Double>) -> SIMD3<Double> { conjugate.rotate(v) }

    /// The rotation as an axis (unit) and angle in [0, π]; the identity gives ((0,0,1), 0).
    public var axisAngle: (axis: SIMD3<Double>, angle: Double) {
        let q = w < 0 ? SimQuaternion(w: -w, x: -x, y: -y, z: -z) : self
        let s = (q.x * q.x + q.y * q.y + q.z * q.z).squareRoot()
        guard s > 1e-15 else { return (SIMD3(0, 0, 1), 0) }
        return (q.vector / s, 2 * atan2(s, q.w))
    }

    /// The angle in radians of the rotation that takes `self` to `other` (0…π; q and −q are equal).
    public func angle(to other: SimQuaternion) -> Double {
        let dot = abs(w * other.w + x * other.x + y * other.y + z * other.z)
        return 2 * acos(min(1, dot))
    }

    /// The columns are the device axes expressed in the world frame (row-major, 9 values).
    public var rotationMatrixRowMajor: [Double] {
        let c0 = rotate(SIMD3(1, 0, 0)), c1 = rotate(SIMD3(0, 1, 0)), c2 = rotate(SIMD3(0, 0, 1))
        return [c0.x, c1.x, c2.x, c0.y, c1.y, c2.y, c0.z, c1.z, c2.z]
    }

    public var description: String { "(w: \(w), x: \(x), y: \(y), z: \(z))" }
}

@inline(__always)
func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inline(__always)
func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }

@inline(__always)
func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
