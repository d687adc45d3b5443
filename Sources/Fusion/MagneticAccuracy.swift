/// How far the magnetometer heading can be trusted, Core Motion style.
public enum MagneticAccuracy: Int, Sendable, RankedByRawValue {
    /// No undisturbed reference field learned yet (or no magnetometer).
    case uncalibrated
    /// The field currently deviates from the reference: heading runs on the gyroscope alone.
    case low
    /// Undisturbed, but heading is still converging after the start or a disturbance.
    case medium
    /// Undisturbed and converged.
    case high
}
