#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The direction of gravity in the device frame as two angles, so that orientation thresholds
/// read like geometry.
package struct GravityAngles: Sendable, Equatable {
    /// Angle (radians, 0…π) between gravity and the "into the screen" direction −z: 0 when the
    /// device lies face up, π/2 when it stands on an edge, π when it lies face down.
    package var tilt: Double
    /// Angle (radians, −π…π) of gravity's projection on the screen plane, measured from −y
    /// toward +x: 0 in portrait, +π/2 in landscape right, −π/2 in landscape left, ±π upside
    /// down. Poorly defined when `tilt` is near 0 or π.
    package var rotation: Double

    /// From gravity (any length > 0; g, Core Motion sign, device frame).
    package init(gravity: SIMD3<Double>) {
        let length = (gravity * gravity).sum().squareRoot()
        let cosine = length > 0 ? -gravity.z / length : 1
        tilt = acos(min(1, max(-1, cosine)))
        rotation = atan2(gravity.x, -gravity.y)
    }
}
