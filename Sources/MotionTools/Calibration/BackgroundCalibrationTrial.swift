import Foundation
import FieldCalibration
import Fusion
import Motion
import MotionSimulation
import MotionSimulator
import Timing

/// The background magnetometer calibration on the simulated board, in virtual time: one run of a
/// scenario with a seeded hard iron and no calibration stored (or the one in `store`), measured
/// against the simulator's truth. What `motion-lab background-check` prints and the
/// acceptance tests assert.
package struct BackgroundCalibrationTrial: Sendable {
    /// The hard iron of seed `seed`: uniform within ±50 µT per axis (the simulator's presets are
    /// 7–31 µT; the LIS3MDL's smallest range is ±400 µT, so nothing saturates), from a
    /// SplitMix64 stream of the seed.
    package static func hardIron(seed: UInt64) -> SIMD3<Double> {
        var state = mix(seed &+ 0x2545_F491_4F6C_DD1D)
        func mix(_ value: UInt64) -> UInt64 {
            var z = value
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(1 << 53) * 100 - 50
        }
        return SIMD3(next(), next(), next())
    }

    /// One observation, every `step` seconds of the run.
    package struct Point: Sendable {
        /// Seconds since the scenario began.
        package var time: Double
        /// |estimated − true offset|, µT.
        package var offsetError: Double
        /// The estimated offset less the true one in the world's frame (east, north, up; the
        /// simulator's truth), µT: the east part turns the heading.
        package var offsetErrorWorld = SIMD3<Double>.zero
        /// Heading error, degrees (magnetic north frame), signed, within ±180.
        package var headingError: Double
        package var accuracy: MagneticFieldCalibrationAccuracy
        package var reason: HardIronEstimator.Reason?
        package var sigma: Double
        /// The calibration's heading σ, degrees (``HardIronEstimator/Status/headingSigma``).
        package var headingSigma: Double
        package var consistency: Double
        /// The estimated offset, µT, device axes.
        package var offset: SIMD3<Double>
        package var changes: Int
        /// RMS scatter of the readings about the estimated sphere, µT.
        package var scatter: Double
        /// The bias soft iron could cause in the offset, µT (``HardIronEstimator/Status/softIronBias``).
        package var softIronBias: Double
        /// The estimator's reference field strength, µT (expected or learned; 0 while unknown).
        package var fieldStrength: Double
        /// Whether a background soft-iron fit is applied (``BackgroundSoftIron``, ``HoldSoftIron``).
        package var softIronFitted: Bool
        /// The soft iron left (``softIronLeft(_:correction:)``) with the fit applied, or with none.
        package var softIronLeft: Double
    }

    /// The soft iron `correction` leaves of the board's `softIron`: ‖C·S/λ − I‖ (Frobenius), λ the
    /// mean of C·S's diagonal (a scale common to all axes turns no direction).
    package static func softIronLeft(_ softIron: Matrix3, correction: Matrix3) -> Double {
        let product = correction * softIron
        let scale = (product.m11 + product.m22 + product.m33) / 3
        return scale > 0 ? ((1 / scale) * product - .identity).frobeniusNorm : .infinity
    }

    /// The simulated board's magnetometer as the calibration store names it.
    package static let magnetometer = SensorIdentity(board: "simulated", chip: "LIS3MDL", bus: "simulated", address: 0x1C)

    /// Writes into `store` the background record a store that lies holds for seed `seed`'s board:
    /// the hard iron (``hardIron(seed:)``, or `hardIron`) plus `error` µT (device axes), claiming
    /// `high` at σ 0.16 µT, with Berlin's field strength (the simulated world's, 49.8 µT).
    package static func storeWrongRecord(
        seed: UInt64, error: SIMD3<Double>, hardIron: SIMD3<Double>? = nil, in store: CalibrationStore
    ) throws(CalibrationStoreError) {
        var record = CalibrationRecord(sensor: magnetometer)
        var section = CalibrationRecord.Magnetometer(
            hardIronOffset: (hardIron ?? Self.hardIron(seed: seed)) + error, softIronMatrix: Matrix3.identity.rowMajor, fieldStrength: 49.8,
            fitErrorPercent: 0, coveragePercent: 0, model: "offset", accuracy: "high")
        section.origin = CalibrationRecord.Magnetometer.backgroundOrigin
        section.offsetSigma = 0.16
        record.magnetometer = section
        _ = try store.save(record)
    }

    package var seed: UInt64
    package var scenario: String
    package var trueOffset: SIMD3<Double>
    /// The stored record's hard-iron offset applied before the background calibration (zero for
    /// none): the offset the run ends with is it plus the status's (device axes: the simulated
    /// board's mount is the identity).
    package var storedOffset = SIMD3<Double>.zero
    /// The world played (for the truth of a scenario's own magnets).
    package var world: World
    package var points: [Point]
    /// The accuracy of the very first device-motion sample.
    package var firstAccuracy: MagneticFieldCalibrationAccuracy?

    /// Runs `scenario` for `duration` seconds.
    /// - Parameters:
    ///   - hardIron: the board's hard iron; nil for ``hardIron(seed:)``.
    ///   - store: calibrations to start from and save to (nil: none).
    ///   - location: the manager's `location` (the World Magnetic Model's field there becomes the
    ///     background calibration's reference); nil: none.
    package static func run(
        seed: UInt64, scenario: String = "ordinary-handling", duration: Double, hardIron: SIMD3<Double>? = nil,
        softIron: Matrix3? = nil, store: CalibrationStore? = nil, location: GeographicLocation? = nil, step: Double = 0.1
    ) throws(MotionError) -> BackgroundCalibrationTrial {
        let clock = VirtualClock()
        let offset = hardIron ?? Self.hardIron(seed: seed)
        // The default board's magnetometer is the LIS3MDL.
        let boardSoftIron = softIron ?? MagnetometerErrorModel.lis3mdl.softIron
        let manager = try MotionManager(
            source: .simulated(Simulation(scenario: scenario, seed: seed, hardIron: offset, softIron: softIron)), clock: clock, calibrationStore: store)
        guard let world = manager.simulatedHardware?.world else { throw .sensor("the simulated board has no world") }
        manager.location = location
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        var trial = BackgroundCalibrationTrial(seed: seed, scenario: scenario, trueOffset: offset, world: world, points: [])
        let record: CalibrationRecord?
        do throws(CalibrationStoreError) {
            record = try store?.load(Self.magnetometer)
        } catch {
            throw .sensor("the calibration store could not be read: \(error)")
        }
        if let stored = record?.magnetometer, stored.hardIronOffset.count == 3 {
            trial.storedOffset = SIMD3(stored.hardIronOffset[0], stored.hardIronOffset[1], stored.hardIronOffset[2])
        }
        clock.advance(by: 0.05)
        trial.firstAccuracy = manager.deviceMotion?.magneticField.accuracy
        let steps = Int((duration / step).rounded())
        for _ in 0..<steps {
            clock.advance(by: step)
            guard let motion = manager.deviceMotion else { continue }
            let truth = world.truth(at: motion.timestamp).attitude
            var direction = truth.rotate(SIMD3(0, 1, 0))
            if direction.x * direction.x + direction.y * direction.y < 0.01 { direction = truth.rotate(SIMD3(0, 0, -1)) }
            let trueHeading = (atan2(direction.x, direction.y) - world.earthField.declination) * 180 / .pi
            var error = (motion.heading - trueHeading).truncatingRemainder(dividingBy: 360)
            if error > 180 { error -= 360 }
            if error < -180 { error += 360 }
            let status = manager.backgroundCalibrationStatus
            // The simulated board's mount is the identity and the LIS3MDL's axes are the IMU's: the
            // hard iron in device axes is the one set.
            let estimated = status?.offset ?? .zero
            let difference = trial.storedOffset + estimated - offset
            trial.points.append(Point(
                time: motion.timestamp - world.startTime, offsetError: (difference * difference).sum().squareRoot(),
                offsetErrorWorld: truth.rotate(difference), headingError: error, accuracy: motion.magneticField.accuracy, reason: status?.reason, sigma: status?.sigma ?? .infinity,
                headingSigma: status?.headingSigma ?? .infinity,
                consistency: status?.consistency ?? 0, offset: estimated, changes: status?.changes ?? 0,
                scatter: status?.fieldScatter ?? 0, softIronBias: status?.softIronBias ?? .infinity,
                fieldStrength: status?.fieldStrength ?? 0, softIronFitted: manager.backgroundSoftIronFit != nil,
                softIronLeft: Self.softIronLeft(boardSoftIron, correction: manager.backgroundSoftIronFit?.softIron ?? .identity)))
        }
        manager.stopDeviceMotionUpdates()
        manager.waitForBackgroundCalibrationSaves()
        return trial
    }

    /// The points from `time` on.
    package func after(_ time: Double) -> ArraySlice<Point> {
        points[(points.firstIndex { $0.time >= time } ?? points.endIndex)...]
    }

    /// Root mean square of the heading error from `time` on, degrees.
    package func headingRMS(after time: Double) -> Double {
        let tail = after(time)
        guard !tail.isEmpty else { return .nan }
        return (tail.map { $0.headingError * $0.headingError }.reduce(0, +) / Double(tail.count)).squareRoot()
    }

    /// From `time` on, per accuracy said: how many points said it and the heading error's RMS over
    /// them (degrees).
    package func headingRMSByAccuracy(after time: Double) -> [MagneticFieldCalibrationAccuracy: (count: Int, rms: Double)] {
        Dictionary(grouping: after(time), by: \.accuracy).mapValues { points in
            (points.count, (points.map { $0.headingError * $0.headingError }.reduce(0, +) / Double(points.count)).squareRoot())
        }
    }

    /// The accuracies said from `time` on whose promise (``HardIronEstimator/headingBound(_:)``)
    /// the heading error's RMS over the points that said them exceeds.
    package func brokenPromises(after time: Double) -> [MagneticFieldCalibrationAccuracy] {
        headingRMSByAccuracy(after: time).filter { $0.value.rms > HardIronEstimator.headingBound($0.key) }.map(\.key).sorted { $0.rawValue < $1.rawValue }
    }

    /// The first time the accuracy was `high`, seconds since the scenario began.
    package var timeToHigh: Double? { points.first { $0.accuracy == .high }?.time }

    /// The first time a background soft-iron fit was applied, seconds since the scenario began.
    package var timeToSoftIronFit: Double? { points.first { $0.softIronFitted }?.time }

    /// Points where the accuracy said `high` while the offset was more than 1 µT off, once it had
    /// said less than `high` (a stored record found out: before, at rest, nothing can tell it).
    package var highButWrongOnceDoubted: Int {
        points.drop { $0.accuracy == .high }.filter { $0.accuracy == .high && $0.offsetError > 1 }.count
    }

    /// Points where the accuracy said `high` but the offset was more than 1 µT off.
    package var highButWrong: Int { points.filter { $0.accuracy == .high && $0.offsetError > 1 }.count }
}
