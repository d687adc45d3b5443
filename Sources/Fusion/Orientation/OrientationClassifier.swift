#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Device orientation from gravity, without flapping.
///
/// Each orientation owns a region of gravity directions (see `GravityAngles`): face up while the
/// tilt from face up is below `flatAngle`, face down while it is above π − `flatAngle`; between
/// them the four edge orientations split the in-plane rotation into 90° sectors centred on 0
/// (portrait), +π/2 (landscape right), ±π (upside down) and −π/2 (landscape left).
///
/// A new orientation is posted only when
/// 1. gravity lies at least `hysteresisMargin` inside its region (so leaving an orientation and
///    coming back happen at different angles: hysteresis; the first orientation needs no
///    margin), and
/// 2. it has stayed there, and held still (gravity within `stillnessAngle` of where the current
///    still period began), for `settleTime`, and
/// 3. user acceleration stayed below `userAccelerationLimit` during that time (shaking or
///    swinging suspends decisions and restarts the settle time).
///
/// Within the margins around each boundary (the dead zones) the current orientation is held.
/// `unknown` is never posted: the classifier starts at `unknown` and posts its first known
/// orientation once the device has settled.
package struct OrientationClassifier: Sendable {
    /// Thresholds. The defaults come from the synthetic 100 Hz scenarios in
    /// `Tests/FusionTests/OrientationClassifierTests.swift` (0.01 g gravity noise):
    /// - `settleTime` 0.3 s with `stillnessAngle` 10°: a face-up → face-down flip about x, y or
    ///   the diagonal taking 0.3 s to 5 s posts only face down; with 0.1 s or 0.2 s, or with a
    ///   20° cone, flips of 2–5 s also post the edge orientation they pass. A turn between two
    ///   faces is posted at most 0.31 s (settle time + one sample) after the device stops.
    /// - `flatAngle` 25° and `hysteresisMargin` 10°: face up is entered below 15° of tilt and
    ///   left above 35°, so a phone read in portrait at 30°–60° from vertical (tilt 60°–30°
    ///   from face up) with a few degrees of wobble stays portrait; a slow in-plane turn
    ///   (10°/s) switches to landscape at 59° and back to portrait at 31°.
    ///   The 10° cone is far above the noise of a gravity estimate (≈ 0.6° at 0.01 g) and makes
    ///   a device turned faster than ~33°/s count as moving.
    /// - `userAccelerationLimit` 0.3 g: above walking (≈ 0.1–0.2 g), below shaking (≥ 0.5 g).
    ///
    /// Measured again on the simulated board (`Tests/MotionTests/OrientationScenarioTests.swift`:
    /// LSM6DSOX + LIS3MDL with datasheet noise and bias, fixed seeds, the attitude filter's fused
    /// gravity at 100 Hz), the defaults stand:
    /// - they post exactly the expected orientations on the six-faces, flip, portrait-tilt,
    ///   shake-portrait and landscape-sweep scenarios and on flips about x, y and the diagonal
    ///   taking 0.5–8 s, at most 0.31 s after the device stops (settle time + one sample);
    /// - fused gravity at rest lies within 1.1° of the truth (up to 9° just after a 0.5 s flip,
    ///   which exceeds the ±500 °/s gyro range), far inside the 10° cone; without true
    ///   acceleration the fused user acceleration stays below 0.17 g (0.03 g on six-faces), the
    ///   shake reaches 1.46 g, the walk's bobbing ≈ 0.25 g: 0.3 g separates them;
    /// - replaying those samples through a grid (settle 0.1–0.4 s × cone 5°, 10°, 20° × margin
    ///   5°, 10°): settle times below 0.3 s, a 20° cone, or a 5° margin post the edge orientation
    ///   during 3–8 s flips; 0.4 s with a 5° cone misses the first face up when a turn begins
    ///   at once. Only a 5° cone at 0.3 s also handles 12 s flips (peak 28 °/s, which post the
    ///   edge they pass with the defaults), but it delays a hand-held device that wobbles a few
    ///   degrees by up to 0.9 s after it arrives (synthetic 1–5° wobble): the cone stays 10°.
    package struct Configuration: Sendable, Equatable {
        /// Seconds a new orientation must hold (still, in its region, no strong user
        /// acceleration) before it is posted.
        package var settleTime: Double
        /// Tilt of gravity from the screen normal (radians) where face up/down end and the edge
        /// orientations begin. Must be below π/2 − `hysteresisMargin`.
        package var flatAngle: Double
        /// How far (radians) gravity must go beyond a region's boundary before the new region
        /// counts. Must be below `flatAngle` and below π/4.
        package var hysteresisMargin: Double
        /// Largest change of gravity direction (radians) within a still period; a larger change
        /// restarts the settle time.
        package var stillnessAngle: Double
        /// User acceleration magnitude (g) above which decisions are suspended.
        package var userAccelerationLimit: Double
        /// Gravity magnitude (g) below which its direction is not trusted (free fall, a filter
        /// that has not converged) and decisions are suspended.
        package var minimumGravity: Double

        package init(
            settleTime: Double = 0.3,
            flatAngle: Double = 25 * .pi / 180,
            hysteresisMargin: Double = 10 * .pi / 180,
            stillnessAngle: Double = 10 * .pi / 180,
            userAccelerationLimit: Double = 0.3,
            minimumGravity: Double = 0.5
        ) {
            self.settleTime = settleTime
            self.flatAngle = flatAngle
            self.hysteresisMargin = hysteresisMargin
            self.stillnessAngle = stillnessAngle
            self.userAccelerationLimit = userAccelerationLimit
            self.minimumGravity = minimumGravity
        }
    }

    package let configuration: Configuration
    /// The last posted orientation; `unknown` until the first one is posted.
    package private(set) var orientation: DeviceOrientation = .unknown

    /// The orientation waiting for its settle time, when its still period began, and the
    /// gravity direction (unit) at that moment.
    private var pending: DeviceOrientation?
    private var pendingSince = 0.0
    private var anchor = SIMD3<Double>(0, 0, 0)

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Feeds one sample: gravity and user acceleration in g (Core Motion sign, device frame) at
    /// `timestamp` (seconds, monotonic). Returns the new orientation when a change is posted.
    package mutating func update(gravity: SIMD3<Double>, userAcceleration: SIMD3<Double>, timestamp: Double) -> DeviceOrientation? {
        let magnitude = (gravity * gravity).sum().squareRoot()
        let acceleration = (userAcceleration * userAcceleration).sum().squareRoot()
        guard magnitude >= configuration.minimumGravity, acceleration <= configuration.userAccelerationLimit else {
            pending = nil
            return nil
        }
        let direction = gravity / magnitude
        // Before the first orientation there is no neighbour to keep a margin from.
        let margin = orientation == .unknown ? 0 : configuration.hysteresisMargin
        guard let region = region(of: GravityAngles(gravity: direction), margin: margin), region != orientation else {
            pending = nil
            return nil
        }
        let moved = (direction * anchor).sum() < cos(configuration.stillnessAngle)
        if pending != region || moved || timestamp < pendingSince {
            pending = region
            pendingSince = timestamp
            anchor = direction
        }
        // A small tolerance so that a settle time that is a whole number of sample periods is
        // reached on that sample despite rounding of the timestamps.
        guard timestamp - pendingSince >= configuration.settleTime - 1e-9 else { return nil }
        orientation = region
        pending = nil
        return region
    }

    /// The orientation whose region contains `angles` with at least `margin` (radians) to
    /// spare, or `nil` in a dead zone.
    func region(of angles: GravityAngles, margin: Double) -> DeviceOrientation? {
        let flat = configuration.flatAngle
        if angles.tilt < flat - margin { return .faceUp }
        if angles.tilt > .pi - flat + margin { return .faceDown }
        guard angles.tilt > flat + margin, angles.tilt < .pi - flat - margin else { return nil }
        let quarter = Double.pi / 2
        let sector = (angles.rotation / quarter).rounded()
        guard abs(angles.rotation - sector * quarter) < quarter / 2 - margin else { return nil }
        switch sector {
        case 0: return .portrait
        case 1: return .landscapeRight
        case -1: return .landscapeLeft
        default: return .portraitUpsideDown
        }
    }
}
