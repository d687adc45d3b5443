import FieldCalibration
import Fusion

/// What the attitude estimator says after one sample (the device-motion path).
struct FusedMotion: Sendable, Equatable {
    /// Device → magnetic East-North-Up (heading from the magnetometer when there is one).
    var orientation: Quaternion
    /// Device → a z-up frame with an arbitrary heading (from the gyroscope alone, for our filter).
    var orientation6D: Quaternion
    /// g, Core Motion sign, device axes.
    var gravity: SIMD3<Double>
    /// Running gyro bias estimate, rad/s, device axes.
    var gyroBias: SIMD3<Double>
    var magneticAccuracy: MagneticAccuracy
    /// How far the 9D heading may be off, degrees (one σ), as the estimator tracks it
    /// (``AttitudeFilter/headingSigma``); nil for an estimator that does not say.
    var headingSigma: Double?
    /// The background hard-iron estimate behind ``magneticField`` (nil without a magnetometer).
    var hardIron: HardIronEstimator.Status?
    /// µT, device axes: the field the estimator was given (the stored calibration and the
    /// background offset removed); nil without a magnetometer.
    var magneticField: SIMD3<Double>?

    init(
        _ estimator: some AttitudeEstimator, hardIron: HardIronEstimator.Status? = nil, magneticField: SIMD3<Double>? = nil,
        headingSigma: Double? = nil
    ) {
        orientation = estimator.quaternion9D
        orientation6D = estimator.quaternion6D
        gravity = estimator.gravity
        gyroBias = estimator.gyroBias
        magneticAccuracy = estimator.magneticAccuracy
        self.hardIron = hardIron
        self.magneticField = magneticField
        self.headingSigma = headingSigma
    }
}

/// The fusion stage of the tick: the attitude estimator (made by the manager's factory for the
/// sample rate and the chip, made anew when either changes) and, first, the magnetometer's
/// background calibration (kept across estimators: a new sample rate does not forget the offset;
/// made when fusion first runs). Lives on the sampler's queue, never under a lock: the estimator may
/// be the application's own.
struct FusionStage {
    private var fusion: FusionState?
    private var magnetic: MagneticCalibrationState?

    /// One sample through the background calibration and the estimator (one made first when the
    /// configuration is new); the outputs (always some: the estimator was just made if need be).
    mutating func fuse(
        _ sample: MotionSample, configuration: AttitudeEstimatorConfiguration, makeEstimator: AttitudeEstimatorFactory,
        background: BackgroundCalibration, hasMagnetometer: Bool
    ) -> FusedMotion? {
        if fusion?.configuration != configuration {
            fusion = FusionState(configuration: configuration, estimator: makeEstimator(configuration))
            magnetic?.correction.restartStretch()   // unseen samples may lie before this one
        }
        if magnetic == nil, hasMagnetometer {
            magnetic = MagneticCalibrationState(background)
        }
        return fusion?.update(sample, &magnetic)
    }

    /// No consumer needs fusion: the estimator goes (the next one starts afresh); the calibration stays.
    mutating func stop() {
        fusion = nil
    }
}

/// The estimator the tick runs, with what it was made for.
private struct FusionState {
    let configuration: AttitudeEstimatorConfiguration
    var estimator: any AttitudeEstimator
    /// The time of the last sample it took: the next update covers the real interval.
    var lastTimestamp: Double?
    /// The estimator's heading σ (``AttitudeFilter/headingSigma``, degrees) as last read, and
    /// when: read ten times a second of sample time (it moves with the filter's 15 s time
    /// constant; reading it takes the filter out of the existential).
    var headingSigma: Double?
    var headingSigmaRead = -Double.infinity

    /// One sample through the estimator, updated where it lies (a copy out and back would
    /// cost more than the update's own arithmetic), the magnetometer's background
    /// calibration first (`magnetic`, nil without a magnetometer); the outputs.
    mutating func update(_ sample: MotionSample, _ magnetic: inout MagneticCalibrationState?) -> FusedMotion {
        let interval = lastTimestamp.map { sample.timestamp - $0 } ?? configuration.sampleInterval
        var field = sample.calibratedMagneticField ?? sample.magneticField
        if let measured = field, magnetic != nil {
            field = magnetic?.update(
                measured, rotationRate: sample.rotationRate - estimator.gyroBias, gyroBias: estimator.gyroBias, acceleration: sample.acceleration,
                interval: interval, timestamp: sample.timestamp, filter: &estimator)
        }
        var input = AttitudeEstimatorInput(
            acceleration: sample.acceleration, rotationRate: sample.rotationRate, magneticField: field,
            interval: interval, chipOrientation: sample.chipAttitude)
        input.fieldHeadingSigma = field == nil ? nil : magnetic?.fieldHeadingSigma
        estimator.update(input)
        lastTimestamp = sample.timestamp
        if !(sample.timestamp - headingSigmaRead < 0.1) {
            headingSigmaRead = sample.timestamp
            headingSigma = (estimator as? AttitudeFilter)?.headingSigma
        }
        return FusedMotion(estimator, hardIron: field == nil ? nil : magnetic?.status, magneticField: field, headingSigma: headingSigma)
    }
}

/// The background magnetometer calibration on the sampler's queue (see `BackgroundCalibration`):
/// whichever ``BackgroundFieldCalibrator`` its factory made (this library's by default).
private struct MagneticCalibrationState {
    let link: BackgroundCalibration
    var correction: any BackgroundFieldCalibrator
    var status: HardIronEstimator.Status { correction.status }

    /// The expected field the estimator was last given (`BackgroundCalibration.expectedField`).
    private var expected: SIMD2<Double>?
    /// The heading σ of the corrected field, degrees (the status's, refreshed at each check).
    private(set) var fieldHeadingSigma: Double

    init(_ link: BackgroundCalibration) {
        self.link = link
        correction = link.makeCalibrator()
        expected = link.expectedField
        fieldHeadingSigma = correction.status.headingSigma
    }

    /// One reading (µT, device axes) through the calibrator; the field it gives the attitude filter.
    /// The status is published (a lock) ten times a second of sample time, and the attitude
    /// filter told when the calibration moved under it.
    mutating func update(
        _ field: SIMD3<Double>, rotationRate: SIMD3<Double>, gyroBias: SIMD3<Double>, acceleration: SIMD3<Double>, interval: Double,
        timestamp: Double, filter: inout any AttitudeEstimator
    ) -> SIMD3<Double> {
        let result = correction.correct(
            field, rotationRate: rotationRate, gyroBias: gyroBias, acceleration: acceleration, interval: interval, timestamp: timestamp)
        if result.checked {
            let status = correction.status
            fieldHeadingSigma = status.headingSigma
            link.publish(status, softIron: correction.softIronFit, at: timestamp)
            let field = link.expectedField   // a manager's location, set or changed since
            if field != expected {
                expected = field
                correction.expect(field: field)
            }
        }
        if result.changed { filter.magneticCalibrationChanged() }
        return result.field
    }
}
