/// The physical orientation of the device relative to gravity: the seven cases of UIKit's
/// `UIDeviceOrientation`, with the same geometry.
///
/// Device frame: x to the right, y toward the top edge, z out of the screen (front face).
/// Gravity in g with Core Motion's sign (a device lying face up at rest reads (0, 0, −1)):
/// - `faceUp`: gravity along −z; `faceDown`: gravity along +z;
/// - `portrait` (top edge up): gravity along −y; `portraitUpsideDown`: gravity along +y;
/// - `landscapeLeft` (top edge to the left, home button on the right): gravity along −x;
///   `landscapeRight`: gravity along +x.
public enum DeviceOrientation: String, Sendable, CaseIterable {
    case unknown
    case portrait
    case portraitUpsideDown
    case landscapeLeft
    case landscapeRight
    case faceUp
    case faceDown

    public var isPortrait: Bool { self == .portrait || self == .portraitUpsideDown }
    public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }
    /// Face up or face down.
    public var isFlat: Bool { self == .faceUp || self == .faceDown }

    /// Gravity (g, Core Motion sign, device frame) of a device at rest exactly in this
    /// orientation; `nil` for `unknown`.
    public var gravity: SIMD3<Double>? {
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
