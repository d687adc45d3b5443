import Dispatch
import Foundation
import FieldCalibration
import Fusion
import Locking

/// The background hard-iron estimation of one device's magnetometer (``HardIronEstimator``, run
/// by the sampler on the device-motion path): where it starts, what it found last, and where an
/// improvement is saved. The sampler runs whichever ``BackgroundFieldCalibrator`` ``calibrator``
/// makes (``makeCalibrator()``): ``BackgroundFieldCorrection`` by default, or none
/// (``BackgroundFieldCalibratorFactory/off``), or another.
///
/// Soft iron: the estimator models hard iron only, and claims `high` only when soft iron of
/// ``HardIronEstimator/Parameters/softIronAllowance`` could not have moved its offset by more than
/// 0.5 µT over the directions the board was turned through; a stored calibration with a soft-iron
/// matrix (the figure-eight's ellipsoid, or a background one) leaves 1 % of it. Without one, once
/// the board has been turned through the directions a figure-eight covers, the background fit
/// (``BackgroundSoftIron``) finds the ellipsoid, and the save stores its matrix too.
///
/// Start: a stored calibration is applied before the estimator sees the field (`SensorCorrection`),
/// so the estimator learns what is left, from zero, with an uncertainty from the record
/// (``HardIronEstimator/start(from:magnetometerRate:)``, the one mapping `motion-lab evaluate
/// --background-calibration` uses too): a background record's own σ, else the stored accuracy's
/// (high 0.2 µT, medium 0.8 µT, low 2.5 µT per axis: the middle of each
/// ``HardIronEstimator/accuracy(sigma:headingSigma:)`` band); without a record,
/// ``HardIronEstimator/Parameters/initialSigma``.
///
/// Saving: when the estimate is better than what was saved (σ down by a third, or the offset
/// moved by more than 2 σ and 0.5 µT, at accuracy medium or better), at most once every
/// ``saveInterval`` seconds of sample time, the record's magnetometer section is rewritten in the
/// store (atomically, under the store's lock) as `origin: background`. Never over an explicit
/// (figure-eight) calibration: that one wins, and the estimate then only corrects the live field.
final class BackgroundCalibration: Sendable {
    let parameters: HardIronEstimator.Parameters
    /// Per-axis σ of the starting point, µT; nil for the estimator's initial σ.
    let startSigma: Double?
    /// What the sampler runs on the field.
    let calibrator: BackgroundFieldCalibratorFactory
    private let saver: Saver?
    private let latest = Locked<Estimate?>(nil)
    /// The Earth's field strength (µT) and dip (radians) where the device is, from the World
    /// Magnetic Model once a manager's `location` is set; nil: the estimator learns it.
    private let expected = Locked<SIMD2<Double>?>(nil)

    /// Seconds of sample time between two saves.
    static let saveInterval = 10.0

    /// Where and how an estimate is written back.
    struct Saver: Sendable {
        let store: CalibrationStore
        let sensor: SensorIdentity
        /// The stored calibration applied before the estimator (chip axes), nil for none.
        let storedOffset: SIMD3<Double>
        let softIron: Matrix3
        /// Magnetometer chip axes → device axes (mount · the magnetometer's own axes).
        let chipToDevice: Matrix3
    }

    private struct SaveState {
        var lastSaveTime: Double?
        var saved: Estimate?
        var pending: Estimate?
        var error: CalibrationStoreError?
    }
    private let saveState = Locked(SaveState())
    private let saveQueue = DispatchQueue(label: "swift-motion.background-calibration", qos: .utility)

    init(
        parameters: HardIronEstimator.Parameters = HardIronEstimator.Parameters(), startSigma: Double? = nil, saver: Saver? = nil,
        calibrator: BackgroundFieldCalibratorFactory = .standard
    ) {
        self.parameters = parameters
        self.startSigma = startSigma
        self.saver = saver
        self.calibrator = calibrator
    }

    /// For a stored record of the magnetometer (nil: none), saving to `store` unless the record
    /// is an explicit calibration.
    /// - Parameter magnetometerRate: the magnetometer's output data rate, Hz: read between its
    ///   updates, its reading is half a period old on average (``HardIronEstimator/Parameters/magnetometerLag``)
    ///   give or take period/√12 (``HardIronEstimator/Parameters/timingUncertainty``).
    convenience init(
        record: CalibrationRecord?, store: CalibrationStore?, sensor: SensorIdentity, correction: SensorCorrection,
        magnetometerRate: Double? = nil
    ) {
        let stored = record?.magnetometer
        let canSave = stored.map(\.isBackground) ?? true
        let (parameters, sigma) = HardIronEstimator.start(
            from: stored.map { stored in
                HardIronEstimator.StoredCalibration(
                    accuracy: MagneticFieldCalibrationAccuracy(name: stored.accuracy),
                    backgroundSigma: stored.isBackground ? stored.offsetSigma : nil,
                    fittedSoftIron: Matrix3(rowMajor: stored.softIronMatrix).map { ($0 - .identity).frobeniusNorm > 1e-6 } ?? false,
                    fieldStrength: stored.fieldStrength)
            },
            magnetometerRate: magnetometerRate)
        self.init(
            parameters: parameters, startSigma: sigma,
            saver: canSave ? store.map {
                Saver(store: $0, sensor: sensor, storedOffset: correction.hardIronOffset ?? .zero, softIron: correction.softIron,
                      chipToDevice: correction.mount * correction.magnetometerAxes)
            } : nil)
    }

    /// The calibrator the sampler runs, from the starting point and the expected field last set.
    func makeCalibrator() -> any BackgroundFieldCalibrator {
        calibrator(BackgroundFieldCalibratorConfiguration(parameters: parameters, startSigma: startSigma, expectedField: expectedField))
    }

    /// Sets the expected field (``HardIronEstimator/expect(field:)``); the sampler hands it to
    /// the calibrator at its next status check.
    func expect(field: SIMD2<Double>?) {
        expected.withLock { $0 = field }
    }

    /// The expected field last set (nil: none).
    var expectedField: SIMD2<Double>? { expected.withLock { $0 } }

    /// The calibrator's latest status; nil before device motion first ran.
    var status: HardIronEstimator.Status? { latest.withLock { $0?.status } }

    /// The background soft-iron fit in use at the latest status (``BackgroundSoftIron``); nil
    /// before one.
    var softIronFit: MagnetometerCalibration? { latest.withLock { $0?.softIron } }

    /// The latest status's accuracy, else the starting point's.
    var accuracy: MagneticFieldCalibrationAccuracy { status?.accuracy ?? makeCalibrator().status.accuracy }

    /// The last save that failed, naming the file and the fix; nil when all saves worked.
    var saveError: CalibrationStoreError? { saveState.withLock { $0.error } }

    /// What is saved: the estimator's status (its offset in the field's frame) and the background
    /// soft-iron fit applied before it, if any.
    struct Estimate: Sendable {
        var status: HardIronEstimator.Status
        var softIron: MagnetometerCalibration?
    }

    /// The sampler's latest status, at `timestamp` (sample time, s), with the background soft-iron
    /// fit in use (nil: none): kept for ``status`` and saved when it improves on the last save
    /// (debounced); a new soft-iron fit is an improvement.
    func publish(_ status: HardIronEstimator.Status, softIron: MagnetometerCalibration? = nil, at timestamp: Double) {
        latest.withLock { $0 = Estimate(status: status, softIron: softIron) }
        guard let saver else { return }
        let due: Estimate? = saveState.withLock { state in
            // Saved once the field strength is known too (the record keeps it), and never a stored
            // record's offset that no stretch has confirmed yet (it may be the lie being found out).
            if status.offsetAccuracy >= .medium, status.fieldStrength > 0, status.reason != .relearning, status.reason != .disturbed,
               status.reason != .off, status.startConfirmed {
                let better = state.saved.map { saved in
                    let moved = ((status.offset - saved.status.offset) * (status.offset - saved.status.offset)).sum().squareRoot()
                    return status.sigma < saved.status.sigma * 2 / 3 || moved > max(2 * status.sigma, 0.5) || softIron != saved.softIron
                } ?? true
                if better { state.pending = Estimate(status: status, softIron: softIron) }
            }
            guard let pending = state.pending else { return nil }
            if let last = state.lastSaveTime, timestamp - last < Self.saveInterval, timestamp >= last { return nil }
            state.lastSaveTime = timestamp
            state.saved = pending
            state.pending = nil
            return pending
        }
        guard let due else { return }
        saveQueue.async { [saveState] in
            do throws(CalibrationStoreError) {
                try saver.save(due)
                saveState.withLock { $0.error = nil }
            } catch {
                saveState.withLock { $0.error = error }
                Library.logger.warning("the background magnetometer calibration was not saved: \(error)")
            }
        }
    }

    /// Waits until every save handed over so far has finished (tests, and a program about to exit).
    func waitForSaves() {
        saveQueue.sync {}
    }
}

extension BackgroundCalibration.Saver {
    /// The σ (µT) at or below which ``HardIronEstimator/accuracy(sigma:headingSigma:)`` may say `high`.
    static let highSigmaBound = 0.33

    /// The record's magnetometer section from `estimate`, unless an explicit calibration got there
    /// first (written by `motionctl calibrate magnetometer` meanwhile): that one is kept.
    func save(_ estimate: BackgroundCalibration.Estimate) throws(CalibrationStoreError) {
        let status = estimate.status
        // device = M · S · (chip − b₀) − δ = M · S · (chip − (b₀ + S⁻¹ Mᵀ δ)); M is orthonormal.
        // With a background soft-iron fit S₁ applied in device axes to the field minus δ (the
        // status's offset): S₁ (M S (chip − b₀) − δ) = M (Mᵀ S₁ M S) (chip − (b₀ + S⁻¹ Mᵀ δ)).
        let inverse = softIron.inverse ?? .identity
        let offset = storedOffset + inverse * (chipToDevice.transposed * status.offset)
        let matrix = estimate.softIron.map { chipToDevice.transposed * $0.softIron * chipToDevice * softIron } ?? softIron
        try store.update(sensor) { record in
            if let existing = record.magnetometer, !existing.isBackground { return }
            var section = CalibrationRecord.Magnetometer(
                hardIronOffset: offset, softIronMatrix: matrix.rowMajor,
                fieldStrength: min(max(status.fieldStrength, 1), 1_000), fitErrorPercent: 0, coveragePercent: 0,
                model: estimate.softIron == nil ? "offset" : "ellipsoid", accuracy: status.accuracy.name)
            section.origin = CalibrationRecord.Magnetometer.backgroundOrigin
            // Not above the accuracy it was saved with: an estimate that was not `high` (soft
            // iron the directions seen could not rule out, a hold not yet over) starts the next
            // run no better than `medium`.
            section.offsetSigma = status.accuracy == .high ? status.sigma : max(status.sigma, Self.highSigmaBound * 1.01)
            record.magnetometer = section
        }
    }
}
