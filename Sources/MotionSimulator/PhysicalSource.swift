import Fusion

/// What a sensor chip physically experiences at one instant, in the chip's own axes.
///
/// This is the boundary between the simulated world (motion scripts, error models, replays) and
/// the register-level chip emulators: the world says what the chip's sensing elements see, the
/// emulator encodes it into registers the way the datasheet says (range, resolution, saturation).
package struct PhysicalState: Sendable, Equatable {
    /// Seconds since boot (the clock the simulation runs on).
    package var time: Double
    /// Specific force in m/s², chip axes: what an accelerometer measures.
    /// A chip lying flat, face up, at rest reads `(0, 0, +9.80665)`.
    package var specificForce: SIMD3<Double>
    /// Angular rate in rad/s, chip axes, right-hand rule.
    package var angularRate: SIMD3<Double>
    /// Magnetic flux density in µT, chip axes (Earth field plus any disturbance).
    package var magneticField: SIMD3<Double>
    /// Die temperature in °C.
    package var temperature: Double
    /// The true orientation, chip axes → magnetic East-North-Up (x magnetic east, y magnetic north, z up), when the source knows it (a
    /// ``World`` does; a replay or a constant does not). Only chips with on-chip fusion use it;
    /// they fall back to the orientation the specific force and field give when it is nil.
    package var orientation: Quaternion?
    /// Air pressure at the chip, Pa: what a barometer measures (the ICAO standard sea-level
    /// pressure where the source knows no better: a replay, a constant).
    package var pressure: Double

    package init(
        time: Double, specificForce: SIMD3<Double>, angularRate: SIMD3<Double>,
        magneticField: SIMD3<Double>, temperature: Double = 25, orientation: Quaternion? = nil,
        pressure: Double = StandardAtmosphere.seaLevelPressure
    ) {
        self.time = time
        self.specificForce = specificForce
        self.angularRate = angularRate
        self.magneticField = magneticField
        self.temperature = temperature
        self.orientation = orientation
        self.pressure = pressure
    }

    /// Standard gravity, m/s².
    package static let standardGravity = 9.80665

    /// A chip lying flat and face up at rest, in a mid-latitude Earth field (49 µT, 65° down, x north).
    package static func flatAtRest(time: Double = 0) -> PhysicalState {
        PhysicalState(
            time: time,
            specificForce: SIMD3(0, 0, standardGravity),
            angularRate: .zero,
            magneticField: SIMD3(20.7, 0, -44.4)
        )
    }
}

/// Anything that can say what the chip experiences at a time: a motion script, a replayed
/// recording, a constant for tests. Must be cheap: emulators call it on every data-register read.
package protocol PhysicalSource: Sendable {
    func state(at time: Double) -> PhysicalState
    /// How many steps the person carrying the chip has taken before `time` (a foot's impact is
    /// a step): what a chip's own pedometer is modelled on. 0 where the source knows of none.
    func stepsTaken(before time: Double) -> Int
}

extension PhysicalSource {
    package func stepsTaken(before time: Double) -> Int { 0 }
}

/// A source that never changes (tests, `probe`).
package struct ConstantSource: PhysicalSource {
    package var value: PhysicalState
    package init(_ value: PhysicalState = .flatAtRest()) { self.value = value }
    package func state(at time: Double) -> PhysicalState {
        var state = value
        state.time = time
        return state
    }
}
