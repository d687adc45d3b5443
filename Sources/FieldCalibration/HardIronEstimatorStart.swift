import Fusion

/// Where the background estimation starts from what the store holds: one mapping for the product
/// (`BackgroundCalibration`) and for `motion-lab evaluate --background-calibration`, so that the
/// evaluation starts the estimator exactly as a board with that record would.
extension HardIronEstimator {
    /// What a stored magnetometer calibration says about the offset that is left once it is applied.
    package struct StoredCalibration: Sendable, Equatable {
        /// The record's accuracy (nil: a name the store does not know; treated as uncalibrated).
        package var accuracy: MagneticFieldCalibrationAccuracy?
        /// A background record's own σ per axis, µT (nil: an explicit calibration, or none saved).
        package var backgroundSigma: Double?
        /// Whether the record fitted soft iron (an ellipsoid: its matrix is not the identity).
        package var fittedSoftIron: Bool
        /// The corrected field's strength the record was saved with, µT (nil: unknown): what the
        /// field with the record applied should measure until a stretch confirms the record
        /// (``Parameters/storedFieldStrength``).
        package var fieldStrength: Double?

        package init(
            accuracy: MagneticFieldCalibrationAccuracy?, backgroundSigma: Double? = nil, fittedSoftIron: Bool, fieldStrength: Double? = nil
        ) {
            self.accuracy = accuracy
            self.backgroundSigma = backgroundSigma
            self.fittedSoftIron = fittedSoftIron
            self.fieldStrength = fieldStrength
        }

        /// An explicit figure-eight calibration at `high` (ellipsoid fitted): what
        /// `motionctl calibrate magnetometer` stores after a good dance.
        package static let figureEightHigh = StoredCalibration(accuracy: .high, fittedSoftIron: true)
    }

    /// The per-axis σ (µT) the offset left by a stored calibration of `accuracy` starts from: the
    /// middle of each ``accuracy(sigma:headingSigma:)`` band (high 0.2 µT, medium 0.8 µT, low
    /// 2.5 µT); ``Parameters/initialSigma`` for uncalibrated.
    package static func startSigma(for accuracy: MagneticFieldCalibrationAccuracy?) -> Double {
        switch accuracy {
        case .high?: 0.2
        case .medium?: 0.8
        case .low?: 2.5
        case .uncalibrated?, nil: Parameters().initialSigma
        }
    }

    /// The parameters and starting σ for a stored calibration (nil: none stored, the defaults and
    /// ``Parameters/initialSigma``). The offset starts at zero: the stored calibration is applied
    /// to the field before the estimator sees it.
    /// - A background record starts from its own σ; any other from its accuracy's (``startSigma(for:)``).
    /// - Its field strength is what the corrected field is checked against until a stretch
    ///   confirms the record (``Parameters/storedFieldStrength``).
    /// - A record that fitted soft iron has removed it: what is left is what such a fit leaves,
    ///   taken as 1 % (``Parameters/softIronAllowance`` 0.01 instead of 8 %).
    /// - `magnetometerRate` (Hz): read between its updates, the magnetometer's reading is half a
    ///   period old on average (``Parameters/magnetometerLag``) give or take period/√12
    ///   (``Parameters/timingUncertainty``); nil keeps the defaults (an 80 Hz chip).
    package static func start(
        from stored: StoredCalibration?, magnetometerRate: Double? = nil
    ) -> (parameters: Parameters, sigma: Double?) {
        var parameters = Parameters()
        if stored?.fittedSoftIron == true { parameters.softIronAllowance = 0.01 }
        parameters.storedFieldStrength = stored?.fieldStrength
        if let rate = magnetometerRate, rate.isFinite, rate >= 1 {
            parameters.magnetometerLag = 0.5 / rate
            parameters.timingUncertainty = max(parameters.timingUncertainty, 1 / (rate * 12.0.squareRoot()))
        }
        let sigma = stored.map { $0.backgroundSigma ?? startSigma(for: $0.accuracy) }
        return (parameters, sigma)
    }
}
