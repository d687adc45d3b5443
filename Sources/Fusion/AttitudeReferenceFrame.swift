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

    /// The attitude in this frame from the filter's output: device → this frame (the quaternion
    /// that `Motion`'s `Attitude` carries).
    /// - Parameters:
    ///   - enu: sensor → East-North-Up: the filter's 9D quaternion (magnetic ENU), or for
    ///     `xArbitraryZVertical` its 6D quaternion (ENU-like, arbitrary heading).
    ///   - startYaw: for the two arbitrary frames, the yaw (radians, about up, from east toward
    ///     north) of the frame's x axis in `enu`, fixed when updates start; ignored otherwise.
    ///   - declination: for `xTrueNorthZVertical`, magnetic declination in radians, positive when
    ///     magnetic north lies east of true north (see `WorldMagneticModel`); ignored otherwise.
    package func attitude(fromENU enu: Quaternion, startYaw: Double = 0, declination: Double = 0) -> Quaternion {
        // A frame whose x axis lies at yaw ψ (from east toward north) in ENU: q = Rz(−ψ) ⊗ q_enu.
        // True north lies `declination` west of magnetic north, i.e. at yaw π/2 + declination.
        let yaw: Double =
            switch self {
            case .xMagneticNorthZVertical: Double.pi / 2
            case .xTrueNorthZVertical: Double.pi / 2 + declination
            default: startYaw   // the two arbitrary frames (a manager refuses a value that is not one frame)
            }
        return Quaternion.aboutZ(-yaw) * enu
    }
}
