import Fusion

// Core Motion's names for what this library spells otherwise, so that a program ported from Core
// Motion builds with its `CM` prefixes dropped (docs/porting-from-core-motion.md lists them all).

/// Core Motion's `CMAcceleration`: g, device axes, with `x`, `y`, `z` (``AccelerometerData/acceleration``,
/// ``DeviceMotion/gravity``, ``DeviceMotion/userAcceleration``). A `SIMD3<Double>`, so it also
/// does vector arithmetic; `Acceleration(x:y:z:)` makes one.
public typealias Acceleration = SIMD3<Double>
/// Core Motion's `CMRotationRate`: rad/s about the device axes, right-hand rule, with `x`, `y`, `z`.
public typealias RotationRate = SIMD3<Double>
/// Core Motion's `CMMagneticField`: µT, device axes, with `x`, `y`, `z`.
public typealias MagneticField = SIMD3<Double>
/// Core Motion's `CMRotationMatrix`: a ``Matrix3`` with elements `m11` … `m33`
/// (``Attitude/rotationMatrix`` is reference frame → device, as in Core Motion).
public typealias RotationMatrix = Matrix3

extension DeviceMotion {
    /// Where the sensors behind device motion sit (Core Motion's `CMDeviceMotion.SensorLocation`,
    /// same raw values). A board's IMU is the device's own: always ``default``.
    public enum SensorLocation: Int, Sendable, CaseIterable {
        case `default` = 0
        case headphoneLeft = 1
        case headphoneRight = 2
    }

    /// Always ``SensorLocation/default``: the sensors are the board's own (Core Motion reports
    /// the headphone sides for AirPods, which have no counterpart here).
    public var sensorLocation: SensorLocation { .default }
}
