import FieldCalibration
import Locking
import Fusion

#if canImport(Glibc)
import Glibc
#endif


/// The device's motion fused from its sensors. Core Motion's `CMDeviceMotion`.
public struct DeviceMotion: Sendable, Equatable {
    /// Orientation of the device (x right, y toward the top edge, z out of the screen) in the
    /// reference frame the updates were started with. An object, as Core Motion's: copies of this
    /// `DeviceMotion` share it (`motion.attitude.multiply(byInverseOf:)` changes what they all
    /// read, as it would through references to one `CMDeviceMotion`); each hand-off of the manager
    /// (a read of ``MotionManager/deviceMotion``, a handler call, a stream element) has its own.
    public var attitude: Attitude
    /// rad/s about the device axes, right-hand rule, with the filter's running gyro bias removed.
    public var rotationRate: SIMD3<Double>
    /// Gravity in g, device axes, Core Motion sign: lying face up `(0, 0, -1)`, portrait `(0, -1, 0)`.
    public var gravity: SIMD3<Double>
    /// The acceleration the user gives the device, in g, device axes: total acceleration (Core
    /// Motion sign) minus ``gravity``.
    public var userAcceleration: SIMD3<Double>
    /// The calibrated magnetic field in µT, device axes, with its accuracy; `.uncalibrated` and
    /// zero when the board has no magnetometer, or while its magnetometer is out (the attitude
    /// then goes on from the accelerometer and gyroscope alone).
    public var magneticField: CalibratedMagneticField
    /// Degrees clockwise from north (0–360) of the direction the device points: its top edge
    /// when it lies flat, its back when it stands up. Only in the north reference frames; -1 otherwise.
    public var heading: Double
    /// When the sample was taken: seconds since boot on the monotonic clock.
    public var timestamp: Double
    /// The attitude the IMU chip computes with its own sensor fusion (e.g. a 9-axis chip's
    /// on-chip fusion mode), in the same reference frame and device axes as ``attitude``, for
    /// comparison or as an alternative (``MotionManager/attitudeSource``); nil when the chip has
    /// no fusion of its own. The chip's fusion is relative to its own gravity and magnetic-north
    /// frame: in the two north frames it is converted exactly like ours; in the two arbitrary
    /// frames its x axis is fixed by its own first sample, so heading differences there are the
    /// two fusions' start-up headings, not an error.
    public var chipAttitude: Attitude? = nil
}

/// Device motion as the sampler keeps it: the attitudes as quaternions (values), made into
/// ``Attitude`` objects only when handed out (``ChannelValue``), so that the sampler allocates
/// nothing per sample and every hand-off has attitudes of its own.
struct DeviceMotionValue: ChannelValue {
    var attitude: Quaternion
    var rotationRate: SIMD3<Double>
    var gravity: SIMD3<Double>
    var userAcceleration: SIMD3<Double>
    var magneticField: CalibratedMagneticField
    var heading: Double
    var timestamp: Double
    var chipAttitude: Quaternion?

    var handedOut: DeviceMotion {
        DeviceMotion(
            attitude: Attitude(quaternion: attitude), rotationRate: rotationRate, gravity: gravity,
            userAcceleration: userAcceleration, magneticField: magneticField, heading: heading, timestamp: timestamp,
            chipAttitude: chipAttitude.map(Attitude.init(quaternion:)))
    }
}

/// Which fusion fills ``DeviceMotion/attitude``.
public enum AttitudeSource: String, Sendable, CaseIterable {
    /// The manager's estimator (the default): this library's filter, which works with every chip,
    /// unless the manager was made with its own (`MotionManager(source:…, attitudeEstimator:)`).
    case library
    /// The IMU chip's own fusion where it has one (``DeviceMotion/chipAttitude``); the manager's
    /// estimator otherwise. Gravity, user acceleration and heading stay the estimator's (for all
    /// of them from the chip: `attitudeEstimator: .chip`).
    case chip
}

/// A place on Earth, for the true-north reference frame (declination from the World Magnetic Model).
public struct GeographicLocation: Sendable, Equatable {
    /// Degrees, north positive.
    public var latitude: Double
    /// Degrees, east positive.
    public var longitude: Double
    /// Kilometres above the WGS-84 ellipsoid.
    public var altitudeKm: Double

    public init(latitude: Double, longitude: Double, altitudeKm: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeKm = altitudeKm
    }
}

/// Turns the filter's output into device motion (``DeviceMotionValue``) in one reference frame. One per start: an
/// arbitrary frame's x axis is fixed by the first sample it sees.
final class DeviceMotionExtractor: Sendable {
    let frame: AttitudeReferenceFrame
    /// Radians, positive when magnetic north lies east of true north.
    let declination: Double
    let hasMagnetometer: Bool
    /// The calibration's own accuracy (from the fit's quality); nil without a stored calibration.
    let calibrationAccuracy: MagneticFieldCalibrationAccuracy?
    let attitudeSource: AttitudeSource
    private let startYaw = Locked<Double?>(nil)
    private let chipStartYaw = Locked<Double?>(nil)
    /// The fused (9D) yaw less the gyroscope's own (6D) yaw in ENU, radians, as last trusted, and
    /// the time of the first sample; held while the field is uncalibrated, so that attitude and
    /// heading turn with the board and do not follow a field the calibration has not yet corrected
    /// (``magneticOrientation(_:holds:at:)``).
    private let yawOffset = Locked<(offset: Double, since: Double)?>(nil)
    /// How long the offset follows the fused orientation after the first sample, s: the filter
    /// starts its heading as the running mean of its first readings, and a second of them takes
    /// the first reading's noise out.
    static let headingSettleTime = 1.0
    /// A level as reported, and since when a higher level than it has been seen (s, sample time)
    /// (``steady(_:at:in:)``).
    private typealias SteadyLevel = Locked<(level: MagneticFieldCalibrationAccuracy, higherSince: Double?)?>
    /// The accuracy reported.
    private let reportedAccuracy = SteadyLevel(nil)
    /// The same for the field's own level (the calibration's, without the filter's heading σ),
    /// which decides whether the heading is held.
    private let calibrationLevel = SteadyLevel(nil)
    /// How long a higher accuracy must last before it is reported, s; a lower one is reported at
    /// once (never claim more than the estimate says). So a level rises at most once per interval.
    static let accuracyRiseDelay = 2.0

    init(
        frame: AttitudeReferenceFrame, declination: Double, hasMagnetometer: Bool, calibrationAccuracy: MagneticFieldCalibrationAccuracy?,
        attitudeSource: AttitudeSource = .library
    ) {
        self.frame = frame
        self.declination = declination
        self.hasMagnetometer = hasMagnetometer
        self.calibrationAccuracy = calibrationAccuracy
        self.attitudeSource = attitudeSource
    }

    /// `enu` (device → ENU) in this extractor's frame; an arbitrary frame's x axis is fixed by the
    /// first value `start` sees.
    private func attitude(_ enu: Quaternion, start: Locked<Double?>) -> Quaternion {
        let yaw = start.withLock { yaw in
            if yaw == nil { yaw = enu.yaw }
            return yaw ?? 0
        }
        return frame.attitude(fromENU: enu, startYaw: yaw, declination: declination)
    }

    func callAsFunction(_ sample: MotionSample, _ fused: FusedMotion?) -> DeviceMotionValue? {
        guard let fused else { return nil }
        // Without a reading (the magnetometer is out; the fusion ran 6D): no accuracy.
        let levels = sample.magneticField == nil ? (calibration: .uncalibrated, reported: .uncalibrated) : accuracy(fused)
        let fieldAccuracy = steady(levels.reported, at: sample.timestamp, in: reportedAccuracy)
        // Held only while the field itself is uncalibrated: where the filter's heading is what is
        // uncertain, the field is what corrects it. A field the background estimate's offset has
        // been taken out of (however unsure, past `low`'s bound) counts as `low` here: a heading
        // held from the field as read is worse than one that follows the corrected field, which
        // the filter has taken in by the time the level's rise is reported.
        let corrected = fused.hardIron?.offsetRemoved ?? false
        let fieldLevel = corrected ? max(levels.calibration, .low) : levels.calibration
        let holds = steady(fieldLevel, at: sample.timestamp, in: calibrationLevel) == .uncalibrated
        let magnetic = frame == .xArbitraryZVertical ? nil : magneticOrientation(fused, holds: holds, at: sample.timestamp)
        let ours = attitude(magnetic ?? fused.orientation6D, start: startYaw)
        let chip = sample.chipAttitude.map { attitude($0, start: chipStartYaw) }
        let field = fused.magneticField ?? sample.calibratedMagneticField ?? sample.magneticField ?? .zero
        return DeviceMotionValue(
            attitude: attitudeSource == .chip ? chip ?? ours : ours,
            rotationRate: sample.rotationRate - fused.gyroBias,
            gravity: fused.gravity,
            userAcceleration: sample.acceleration - fused.gravity,
            magneticField: CalibratedMagneticField(field: field, accuracy: fieldAccuracy),
            heading: frame == .xMagneticNorthZVertical || frame == .xTrueNorthZVertical ? heading(magnetic ?? fused.orientation) : -1,
            timestamp: sample.timestamp,
            chipAttitude: chip)
    }

    /// `calibration`: the background estimate's accuracy (``HardIronEstimator/accuracy(sigma:headingSigma:)``:
    /// it starts from the stored calibration's; without a background estimate, the stored
    /// calibration's), at most `low` while the attitude filter sees a disturbed field (the
    /// filter's other levels say how far its heading has settled, not how well the field is
    /// calibrated). `reported`: that, lowered further where the filter's heading σ
    /// (``AttitudeFilter/headingSigma``) passes `medium`'s or `low`'s bound.
    private func accuracy(_ fused: FusedMotion) -> (calibration: MagneticFieldCalibrationAccuracy, reported: MagneticFieldCalibrationAccuracy) {
        guard hasMagnetometer else { return (.uncalibrated, .uncalibrated) }
        guard let calibration = fused.hardIron?.accuracy ?? calibrationAccuracy else { return (.uncalibrated, .uncalibrated) }
        let field = fused.magneticAccuracy == .low ? min(calibration, .low) : calibration
        guard let sigma = fused.headingSigma else { return (field, field) }
        // `high` stays the calibration's own (its stricter tests); the filter's σ in motion
        // carries its bias σ × its time constant (0.05 °/s × 15 s ≈ 0.75°), so it lowers the
        // level only past `medium`'s bound.
        let heading = HardIronEstimator.accuracy(headingSigma: sigma)
        return (field, min(field, heading >= .medium ? .high : heading))
    }

    /// `level` as reported at `time`: a fall at once, a rise once the higher level has lasted
    /// ``accuracyRiseDelay`` (so the level does not flap between two while the estimate hovers).
    private func steady(
        _ level: MagneticFieldCalibrationAccuracy, at time: Double, in reported: SteadyLevel
    ) -> MagneticFieldCalibrationAccuracy {
        reported.withLock { state in
            guard let current = state, level >= current.level else {
                state = (level, nil)
                return level
            }
            guard level > current.level else {
                state = (current.level, nil)
                return current.level
            }
            let since = current.higherSince ?? time
            if time - since >= Self.accuracyRiseDelay {
                state = (level, nil)
                return level
            }
            state = (current.level, since)
            return current.level
        }
    }

    /// Device → ENU in a magnetic frame: the fused (9D) orientation; while the field is
    /// uncalibrated (after the first ``headingSettleTime``), the gyroscope's (6D) orientation turned
    /// about up by the yaw between the two last trusted, so that it turns with the board and does
    /// not move while the board is still, where the fused one would follow an uncorrected field (a
    /// hard-iron offset makes a quarter turn read as a smaller one).
    private func magneticOrientation(_ fused: FusedMotion, holds: Bool, at time: Double) -> Quaternion {
        let held = yawOffset.withLock { state -> Double? in
            let since = state?.since ?? time
            if let state, holds, time - since >= Self.headingSettleTime { return state.offset }
            state = (fused.orientation.yaw - fused.orientation6D.yaw, since)
            return nil
        }
        return held.map { (Quaternion.aboutZ($0) * fused.orientation6D).normalized } ?? fused.orientation
    }

    /// Compass heading of the device's top edge (or its back when the top edge points up or down),
    /// degrees, in the extractor's frame, from `enu` (``magneticOrientation(_:holds:at:)``).
    private func heading(_ enu: Quaternion) -> Double {
        Self.normalized(Self.compass(enu) + (frame == .xTrueNorthZVertical ? declination * 180 / .pi : 0))
    }

    /// The compass direction of the device's top edge (or its back) in `enu`, degrees from north toward east.
    private static func compass(_ enu: Quaternion) -> Double {
        var direction = enu.rotate(SIMD3(0, 1, 0))
        if direction.x * direction.x + direction.y * direction.y < 0.01 { direction = enu.rotate(SIMD3(0, 0, -1)) }
        return atan2(direction.x, direction.y) * 180 / .pi
    }

    private static func normalized(_ degrees: Double) -> Double {
        let degrees = degrees.truncatingRemainder(dividingBy: 360)
        return degrees < 0 ? degrees + 360 : degrees
    }
}
