/// The physical orientation of the device relative to gravity: the seven cases of UIKit's
/// `UIDeviceOrientation`, with the same geometry.
///
/// Device frame: x to the right, y toward the top edge, z out of the screen (front face).
/// Gravity in g with Core Motion's sign (a device lying face up at rest reads (0, 0, −1)):
/// - `faceUp`: gravity along −z; `faceDown`: gravity along +z;
/// - `portrait` (top edge up): gravity along −y; `portraitUpsideDown`: gravity along +y;
/// - `landscapeLeft` (top edge to the left, home button on the right): gravity along −x;
///   `landscapeRight`: gravity along +x.
///
/// The raw values are `UIDeviceOrientation`'s (unknown 0, portrait 1 … faceDown 6); ``name`` is
/// the case's name, what `motionctl`, the live view and calibration records write.
public enum DeviceOrientation: Int, Sendable, CaseIterable {
    case unknown = 0
    case portrait = 1
    case portraitUpsideDown = 2
    case landscapeLeft = 3
    case landscapeRight = 4
    case faceUp = 5
    case faceDown = 6

    /// The case's name: "unknown", "portrait", "portraitUpsideDown", "landscapeLeft",
    /// "landscapeRight", "faceUp", "faceDown" (`OrientationClassifierTests` pins each one).
    package var name: String { String(describing: self) }

    /// The orientation with this ``name``; nil for any other text.
    package init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    /// Portrait or portrait upside down (UIKit's `isPortrait`).
    public var isPortrait: Bool { self == .portrait || self == .portraitUpsideDown }
    /// Landscape left or right (UIKit's `isLandscape`).
    public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }
    /// Face up or face down (UIKit's `isFlat`).
    public var isFlat: Bool { self == .faceUp || self == .faceDown }
    /// Portrait or landscape: an orientation a user interface can take (UIKit's
    /// `isValidInterfaceOrientation`); false for face up, face down and unknown.
    public var isValidInterfaceOrientation: Bool { isPortrait || isLandscape }

    /// Gravity (g, Core Motion sign, device frame) of a device at rest exactly in this
    /// orientation; `nil` for `unknown`.
    package var gravity: SIMD3<Double>? {
        switch self {
        case .unknown: nil
        case .portrait: SIMD3(0, -1, 0)
        case .portraitUpsideDown: SIMD3(0, 1, 0)
        case .landscapeLeft: SIMD3(-1, 0, 0)
        case .landscapeRight: SIMD3(1, 0, 0)
        case .faceUp: SIMD3(0, 0, -1)
        case .faceDown: SIMD3(0, 0, 1)
        }
    }
}
