import Foundation
import Fusion
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The orientation of the device relative to a reference frame: Core Motion's `CMAttitude`, and a
/// class as there, so the relative-attitude idiom reads as on iOS:
///
///     let reference = motion.attitude.copy() as! Attitude
///     …
///     motion.attitude.multiply(byInverseOf: reference)   // `motion` a `let`: the object changes
///     let roll = motion.attitude.roll                      // relative to `reference`
///
/// Each ``DeviceMotion`` the manager hands out (``MotionManager/deviceMotion``, each call of a
/// handler, each element of a stream) carries a new `Attitude` of its own, so changing one never
/// changes another's. Safe to read and change from any thread: the quaternion is kept in atomics
/// behind a sequence count (a read retries while a change is half written), so there is no lock
/// to allocate and a reading thread never blocks.
public final class Attitude: NSCopying, Sendable, Equatable {
    /// Changes: odd while one is being written. A write takes the count from even to odd
    /// (compare-and-exchange, so writers exclude each other), stores the four components and
    /// makes it even again; a read that sees it odd, or changed across its loads, reads again.
    private let version = Atomic<UInt>(0)
    private let w: Atomic<UInt64>
    private let x: Atomic<UInt64>
    private let y: Atomic<UInt64>
    private let z: Atomic<UInt64>

    /// An attitude from its device → reference frame rotation (a unit quaternion).
    public init(quaternion: Quaternion) {
        w = Atomic(quaternion.w.bitPattern)
        x = Atomic(quaternion.x.bitPattern)
        y = Atomic(quaternion.y.bitPattern)
        z = Atomic(quaternion.z.bitPattern)
    }

    /// Device → reference frame rotation (unit quaternion).
    public var quaternion: Quaternion {
        while true {
            let before = version.load(ordering: .acquiring)
            if before & 1 == 1 {
                sched_yield()   // a change is half written: let its thread finish it
                continue
            }
            let value = Quaternion(
                w: Double(bitPattern: w.load(ordering: .relaxed)), x: Double(bitPattern: x.load(ordering: .relaxed)),
                y: Double(bitPattern: y.load(ordering: .relaxed)), z: Double(bitPattern: z.load(ordering: .relaxed)))
            atomicMemoryFence(ordering: .acquiring)
            if version.load(ordering: .relaxed) == before { return value }
        }
    }

    /// Core Motion's rotation matrix (`CMAttitude.rotationMatrix`, elements `m11` … `m33`):
    /// reference frame → device, `rotationMatrix * v_reference == v_device`, the transpose of
    /// the quaternion's matrix. Its rows are the device axes in the reference frame (`m31, m32,
    /// m33` is the device's z axis, out of the screen: `m33` is 1 lying face up), its columns the
    /// reference axes in the device frame (gravity is `(-m13, -m23, -m33)`).
    public var rotationMatrix: Matrix3 { quaternion.rotationMatrix.transposed }

    /// Rotation about the device's y axis, radians, −π…π (Core Motion convention:
    /// R = Rz(yaw) · Rx(pitch) · Ry(roll)).
    public var roll: Double { quaternion.roll }
    /// Rotation about the device's x axis, radians, −π/2…π/2.
    public var pitch: Double { quaternion.pitch }
    /// Rotation about the vertical axis, radians, −π…π.
    public var yaw: Double { quaternion.yaw }

    /// Makes this attitude relative to `reference` (Core Motion's `multiply(byInverseOf:)`): this
    /// object becomes the rotation from `reference`'s device orientation to this one's, so an
    /// attitude equal to `reference` becomes the identity, and ``roll``, ``pitch``, ``yaw``,
    /// ``quaternion`` and ``rotationMatrix`` then read the relative attitude.
    public func multiply(byInverseOf reference: Attitude) {
        let inverse = reference.quaternion.conjugate   // read first: `reference` may be `self`
        var current = version.load(ordering: .relaxed)
        while true {
            if current & 1 == 1 {
                sched_yield()
                current = version.load(ordering: .relaxed)
                continue
            }
            let (exchanged, found) = version.compareExchange(expected: current, desired: current + 1, ordering: .acquiring)
            if exchanged { break }
            current = found
        }
        atomicMemoryFence(ordering: .releasing)   // the odd count is seen before any component
        let own = Quaternion(
            w: Double(bitPattern: w.load(ordering: .relaxed)), x: Double(bitPattern: x.load(ordering: .relaxed)),
            y: Double(bitPattern: y.load(ordering: .relaxed)), z: Double(bitPattern: z.load(ordering: .relaxed)))
        let relative = (inverse * own).normalized
        w.store(relative.w.bitPattern, ordering: .relaxed)
        x.store(relative.x.bitPattern, ordering: .relaxed)
        y.store(relative.y.bitPattern, ordering: .relaxed)
        z.store(relative.z.bitPattern, ordering: .relaxed)
        version.store(current + 2, ordering: .releasing)
    }

    /// An independent attitude with the same value, as `Any` like `NSObject.copy()` on iOS, so
    /// `attitude.copy() as! Attitude` reads as there.
    public func copy() -> Any { copy(with: nil) }

    /// `NSCopying`: an independent attitude with the same value.
    public func copy(with zone: NSZone?) -> Any { Attitude(quaternion: quaternion) }

    /// The same rotation: equal quaternions (the components, not the identity of the objects).
    public static func == (lhs: Attitude, rhs: Attitude) -> Bool { lhs === rhs || lhs.quaternion == rhs.quaternion }
}
