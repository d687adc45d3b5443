import Fusion

/// The seam between the sampler and the background magnetometer calibration, as
/// ``AttitudeEstimator`` is the seam to the fusion: the sampler hands every magnetometer reading
/// to one of these before the attitude estimator sees it, publishes ``status`` (and
/// ``softIronFit``) whenever a reading comes back `checked`, tells the attitude estimator
/// (``AttitudeEstimator/magneticCalibrationChanged()``) when one comes back `changed`, passes on
/// the Earth's field a manager's location gives (``expect(field:)``), and says when the samples
/// stopped following one another (``restartStretch()``).
///
/// ``BackgroundFieldCorrection`` is this library's (``BackgroundFieldCalibratorFactory/standard``);
/// ``PassThroughFieldCalibrator`` leaves the field as read (``BackgroundFieldCalibratorFactory/off``).
/// All calls come from the sampler's queue, one at a time.
package protocol BackgroundFieldCalibrator: Sendable {
    /// One magnetometer reading (µT, device axes, any stored calibration applied) at `timestamp`
    /// (sample time, s), with the gyroscope's rate less its bias (rad/s), that bias, the
    /// acceleration (g, Core Motion sign) and the seconds since the previous sample. Returns the
    /// field for the attitude estimator, whether ``status`` was refreshed (the sampler publishes
    /// it then), and whether the attitude estimator should be told that the calibration moved
    /// under it.
    mutating func correct(
        _ field: SIMD3<Double>, rotationRate: SIMD3<Double>, gyroBias: SIMD3<Double>, acceleration: SIMD3<Double>,
        interval: Double, timestamp: Double
    ) -> (field: SIMD3<Double>, checked: Bool, changed: Bool)

    /// The estimate as of the last reading that came back `checked`: offset (µT, the field's
    /// frame), confidence, accuracy and why.
    var status: HardIronEstimator.Status { get }

    /// The soft-iron fit applied to the field before the offset (nil: none), saved with the status.
    var softIronFit: MagnetometerCalibration? { get }

    /// The Earth's field where the board is (strength µT, dip radians positive down), or nil to
    /// learn it (see ``HardIronEstimator/expect(field:)``).
    mutating func expect(field: SIMD2<Double>?)

    /// The samples stop following one another (fusion paused, a gap): whatever spans samples
    /// starts again; what was learned stays.
    mutating func restartStretch()
}

/// Where a background calibration starts: the estimator's parameters and starting σ that a
/// stored calibration gives (``HardIronEstimator/start(from:magnetometerRate:)``), and the
/// expected field a manager's location gives (nil: none set).
package struct BackgroundFieldCalibratorConfiguration: Sendable, Equatable {
    package var parameters: HardIronEstimator.Parameters
    /// Per-axis σ of the starting point, µT; nil for ``HardIronEstimator/Parameters/initialSigma``.
    package var startSigma: Double?
    package var expectedField: SIMD2<Double>?

    package init(parameters: HardIronEstimator.Parameters = HardIronEstimator.Parameters(), startSigma: Double? = nil, expectedField: SIMD2<Double>? = nil) {
        self.parameters = parameters
        self.startSigma = startSigma
        self.expectedField = expectedField
    }

    /// The estimator this configuration starts: the parameters and σ, then the expected field if one is set.
    package func makeEstimator() -> HardIronEstimator {
        var estimator = HardIronEstimator(parameters: parameters, sigma: startSigma)
        if let field = expectedField { estimator.expect(field: field) }
        return estimator
    }
}

/// Makes the background calibration the sampler runs (see ``BackgroundFieldCalibrator``), as
/// ``AttitudeEstimatorFactory`` makes its attitude estimator: ``standard`` (this library's), ``off``
/// (the field as read), or another: `BackgroundFieldCalibratorFactory { MyCalibrator($0) }`. Called
/// once, when the sampler first fuses with a magnetometer.
package struct BackgroundFieldCalibratorFactory: Sendable {
    private let make: @Sendable (BackgroundFieldCalibratorConfiguration) -> any BackgroundFieldCalibrator

    package init(_ make: @escaping @Sendable (BackgroundFieldCalibratorConfiguration) -> any BackgroundFieldCalibrator) {
        self.make = make
    }

    /// ``BackgroundFieldCorrection`` on the configuration's estimator.
    package static var standard: BackgroundFieldCalibratorFactory {
        BackgroundFieldCalibratorFactory { BackgroundFieldCorrection($0.makeEstimator()) }
    }

    /// No background calibration: ``PassThroughFieldCalibrator``.
    package static var off: BackgroundFieldCalibratorFactory {
        BackgroundFieldCalibratorFactory { PassThroughFieldCalibrator($0) }
    }

    /// A new calibrator for `configuration`.
    package func callAsFunction(_ configuration: BackgroundFieldCalibratorConfiguration) -> any BackgroundFieldCalibrator {
        make(configuration)
    }
}
