import Fusion

/// The six resting faces of a device, in Core Motion's device frame (x right, y toward the top
/// edge, z out of the screen). Standing faces have the screen toward the south, the user's side.
package enum DeviceFace: String, Sendable, CaseIterable {
    /// Flat, screen up (z up). Attitude: identity (top edge north).
    case faceUp
    /// Flat, screen down (−z up).
    case faceDown
    /// Standing, top edge up (y up).
    case portrait
    /// Standing, top edge down (−y up).
    case portraitUpsideDown
    /// On its side with the top edge to the left (x up).
    case landscapeLeft
    /// On its side with the top edge to the right (−x up).
    case landscapeRight

    /// The attitude (device → East-North-Up) of the device resting on this face.
    package var attitude: Quaternion {
        let standing = Quaternion.aboutX(.pi / 2)
        switch self {
        case .faceUp: return .identity
        case .faceDown: return .aboutY(.pi)
        case .portrait: return standing
        case .portraitUpsideDown: return standing * .aboutZ(.pi)
        case .landscapeLeft: return standing * .aboutZ(.pi / 2)
        case .landscapeRight: return standing * .aboutZ(-.pi / 2)
        }
    }

    /// The device axis that points up (unit, device frame): what the accelerometer sees at rest.
    package var upAxis: SIMD3<Double> {
        switch self {
        case .faceUp: SIMD3(0, 0, 1)
        case .faceDown: SIMD3(0, 0, -1)
        case .portrait: SIMD3(0, 1, 0)
        case .portraitUpsideDown: SIMD3(0, -1, 0)
        case .landscapeLeft: SIMD3(1, 0, 0)
        case .landscapeRight: SIMD3(-1, 0, 0)
        }
    }

    /// The face whose up axis is closest to `specificForce` (device frame).
    package static func closest(to specificForce: SIMD3<Double>) -> DeviceFace {
        allCases.max { dot($0.upAxis, specificForce) < dot($1.upAxis, specificForce) } ?? .faceUp
    }

    /// Portrait tilted back by `angle` radians from lying face up (0 = face up, π/2 = portrait).
    package static func portraitTilt(_ angle: Double) -> Quaternion { .aboutX(angle) }
}
