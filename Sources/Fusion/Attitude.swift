/// The frame an `Attitude` is relative to (Core Motion's `CMAttitudeReferenceFrame`), and sets of
/// frames: an option set with Core Motion's raw values, so that `[.a, .b]`, `contains(_:)` and
/// `rawValue` read as they do there. All have z vertical (up); they differ in where x points. One
/// frame is one bit; `startDeviceMotionUpdates(using:)` takes one of the four.
public struct AttitudeReferenceFrame: OptionSet, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// x arbitrary and fixed at the start, heading from the gyroscope alone (drifts slowly).
    public static let xArbitraryZVertical = AttitudeReferenceFrame(rawValue: 1 << 0)
    /// x arbitrary and fixed at the start, heading held by the magnetometer (no drift).
    public static let xArbitraryCorrectedZVertical = AttitudeReferenceFrame(rawValue: 1 << 1)
    /// x toward magnetic north (y west).
    public static let xMagneticNorthZVertical = AttitudeReferenceFrame(rawValue: 1 << 2)
    /// x toward true (geographic) north (y west); needs the magnetic declination at the location.
    public static let xTrueNorthZVertical = AttitudeReferenceFrame(rawValue: 1 << 3)

    /// The four frames, one bit each.
    public static let allCases: [AttitudeReferenceFrame] = [
        .xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical, .xTrueNorthZVertical,
    ]

    /// The frame's name (`xMagneticNorthZVertical`), or the names of a set's frames joined by `|`.
    public var description: String {
        let names = [
            (Self.xArbitraryZVertical, "xArbitraryZVertical"), (.xArbitraryCorrectedZVertical, "xArbitraryCorrectedZVertical"),
            (.xMagneticNorthZVertical, "xMagneticNorthZVertical"), (.xTrueNorthZVertical, "xTrueNorthZVertical"),
        ].filter { contains($0.0) }.map(\.1)
        let rest = rawValue & ~Self.allCases.reduce(0) { $0 | $1.rawValue }
        return (names + (rest == 0 ? [] : ["0x" + String(rest, radix: 16)])).joined(separator: "|")
    }

    /// The attitude in this frame from the filter's output.
    /// - Parameters:
    ///   - enu: sensor → East-North-Up: the filter's 9D quaternion (magnetic ENU), or for
    ///     `xArbitraryZVertical` its 6D quaternion (ENU-like, arbitrary heading).
    ///   - startYaw: for the two arbitrary frames, the yaw (radians, about up, from east toward
    ///     north) of the frame's x axis in `enu`, fixed when updates start; ignored otherwise.
    ///   - declination: for `xTrueNorthZVertical`, magnetic declination in radians, positive when
    ///     magnetic north lies east of true north (see `WorldMagneticModel`); ignored otherwise.
    package func attitude(fromENU enu: Quaternion, startYaw: Double = 0, declination: Double = 0) -> Attitude {
        // A frame whose x axis lies at yaw ψ (from east toward north) in ENU: q = Rz(−ψ) ⊗ q_enu.
        // True north lies `declination` west of magnetic north, i.e. at yaw π/2 + declination.
        let yaw: Double =
            switch self {
            case .xMagneticNorthZVertical: Double.pi / 2
            case .xTrueNorthZVertical: Double.pi / 2 + declination
            default: startYaw   // the two arbitrary frames (a manager refuses a value that is not one frame)
            }
        return Attitude(quaternion: Quaternion.aboutZ(-yaw) * enu)
    }
}

/// The orientation of the device relative to a reference frame (Core Motion's `CMAttitude`).
public struct Attitude: Sendable, Equatable {
    /// Device → reference frame rotation (unit quaternion).
    public var quaternion: Quaternion

    public init(quaternion: Quaternion) {
        self.quaternion = quaternion
    }

    /// Core Motion's rotation matrix (`CMAttitude.rotationMatrix`, elements `m11` … `m33`):
    /// reference frame → device, `rotationMatrix * v_reference == v_device`, the transpose of
    /// the quaternion's matrix. Its rows are the device axes in the reference frame (`m31, m32,
    /// m33` is the device's z axis, out of the screen: `m33` is 1 lying face up), its columns the
    /// reference axes in the device frame (gravity is `(-m13, -m23, -m33)`). Before version 0.3
    /// this was the device → reference matrix, which `quaternion.rotationMatrix` still gives.
    public var rotationMatrix: Matrix3 { quaternion.rotationMatrix.transposed }

    /// Rotation about the device's y axis, radians, −π…π (Core Motion convention:
    /// R = Rz(yaw) · Rx(pitch) · Ry(roll)).
    public var roll: Double { quaternion.roll }
    /// Rotation about the device's x axis, radians, −π/2…π/2.
    public var pitch: Double { quaternion.pitch }
    /// Rotation about the vertical axis, radians, −π…π.
    public var yaw: Double { quaternion.yaw }

    /// Makes this attitude relative to `reference` (Core Motion's `multiply(byInverseOf:)`): the
    /// result is the rotation from this device orientation to the device orientation `reference`,
    /// so an attitude equal to `reference` becomes the identity.
    public mutating func multiply(byInverseOf reference: Attitude) {
        quaternion = (reference.quaternion.conjugate * quaternion).normalized
    }

    /// The same, returned rather than applied: `data.attitude.multiplied(byInverseOf: reference)`
    /// where `data` is a constant. (Core Motion's `CMAttitude` is a class, so its mutating
    /// `multiply(byInverseOf:)` works through a `let`; this `Attitude` is a value.)
    public func multiplied(byInverseOf reference: Attitude) -> Attitude {
        var relative = self
        relative.multiply(byInverseOf: reference)
        return relative
    }
}
