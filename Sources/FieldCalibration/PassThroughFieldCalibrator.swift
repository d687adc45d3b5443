import Fusion

/// The background calibration turned off (``BackgroundFieldCalibratorFactory/off``): the field
/// goes on as read (any stored calibration applied before it, as always), nothing is learned and
/// the attitude estimator is never told of a change. Its status is the starting point's (what a
/// stored calibration says of the offset it leaves; `uncalibrated` without one) with reason
/// ``HardIronEstimator/Reason/off``, refreshed ten times a second of sample time as the
/// correction's is; it is never saved.
package struct PassThroughFieldCalibrator: BackgroundFieldCalibrator {
    /// The starting point, never updated: it gives the status its σ, accuracy and reference field.
    private var start: HardIronEstimator
    package private(set) var status: HardIronEstimator.Status
    package var softIronFit: MagnetometerCalibration? { nil }
    /// Sample time of the last status check (−∞ before the first).
    private var lastCheck = -Double.infinity

    package init(_ configuration: BackgroundFieldCalibratorConfiguration = BackgroundFieldCalibratorConfiguration()) {
        start = configuration.makeEstimator()
        status = Self.status(of: start)
    }

    package mutating func correct(
        _ field: SIMD3<Double>, rotationRate: SIMD3<Double>, gyroBias: SIMD3<Double>, acceleration: SIMD3<Double>,
        interval: Double, timestamp: Double
    ) -> (field: SIMD3<Double>, checked: Bool, changed: Bool) {
        guard timestamp - lastCheck >= 0.1 || timestamp < lastCheck else { return (field, false, false) }
        lastCheck = timestamp
        return (field, true, false)
    }

    package mutating func expect(field: SIMD2<Double>?) {
        start.expect(field: field)
        status = Self.status(of: start)
    }

    package mutating func restartStretch() {}

    private static func status(of estimator: HardIronEstimator) -> HardIronEstimator.Status {
        var status = estimator.status
        status.reason = .off
        return status
    }
}
