/// Gyroscope bias from a window of readings taken at rest: the mean rate, refused while the
/// board moves.
///
/// Feed readings with `add(_:)` (rad/s, device frame), then ask `result()`. Motion shows up as
/// a spread of the readings well above the sensor's noise or as a mean rate beyond any
/// plausible zero-rate offset. Default limits from datasheet-typical figures:
/// - MPU-6000/6050 product specification rev. 3.4 §6.1: total RMS noise 0.05 °/s (100 Hz
///   bandwidth), initial zero-rate output tolerance ±20 °/s;
/// - LSM6DSO-class chips: rate noise density ≈ 4 mdps/√Hz (≈ 0.04 °/s RMS at 100 Hz),
///   zero-rate level ±1 °/s.
/// So: standard deviation per axis at most 0.5 °/s (ten times the noise: a hand-held board or
/// a tap on the table exceeds it), mean rate at most 25 °/s.
package struct GyroBiasCalibration: Sendable {
    package struct Configuration: Sendable, Equatable {
        /// Fewest readings (e.g. 200 = 2 s at 100 Hz).
        package var minimumSamples: Int
        /// Largest standard deviation (rad/s) on any axis accepted as "at rest".
        package var maximumStandardDeviation: Double
        /// Largest mean rate magnitude (rad/s) accepted as a bias rather than a turn.
        package var maximumBias: Double

        package init(minimumSamples: Int = 200, maximumStandardDeviation: Double = 0.5 * .pi / 180, maximumBias: Double = 25 * .pi / 180) {
            self.minimumSamples = minimumSamples
            self.maximumStandardDeviation = maximumStandardDeviation
            self.maximumBias = maximumBias
        }
    }

    /// The bias found at rest.
    package struct Estimate: Sendable, Equatable {
        /// Mean rate (rad/s, device frame): subtract it from every reading.
        package var bias: SIMD3<Double>
        /// Standard deviation per axis (rad/s) of the readings: the noise at rest.
        package var standardDeviation: SIMD3<Double>
        package var sampleCount: Int
    }

    package let configuration: Configuration
    package private(set) var sampleCount = 0
    // Welford's running mean and sum of squared deviations, per axis.
    private var mean = SIMD3<Double>.zero
    private var squaredDeviations = SIMD3<Double>.zero

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Adds one reading (rad/s, device frame, right-hand rule). Non-finite readings are ignored.
    package mutating func add(_ rate: SIMD3<Double>) {
        guard rate.x.isFinite, rate.y.isFinite, rate.z.isFinite else { return }
        sampleCount += 1
        let delta = rate - mean
        mean += delta / Double(sampleCount)
        squaredDeviations += delta * (rate - mean)
    }

    /// Starts a new window (e.g. after the board moved).
    package mutating func reset() {
        sampleCount = 0
        mean = .zero
        squaredDeviations = .zero
    }

    /// The standard deviation per axis (rad/s) so far; zero before two readings.
    package var standardDeviation: SIMD3<Double> {
        sampleCount > 1 ? (squaredDeviations / Double(sampleCount - 1)).squareRoot() : .zero
    }

    /// The bias, or why the window cannot give one.
    package func result() throws(GyroBiasCalibrationError) -> Estimate {
        guard sampleCount >= configuration.minimumSamples else {
            throw .tooFewSamples(count: sampleCount, required: configuration.minimumSamples)
        }
        let spread = standardDeviation
        guard spread.max() <= configuration.maximumStandardDeviation else {
            throw .moving(standardDeviation: spread, limit: configuration.maximumStandardDeviation)
        }
        let magnitude = (mean * mean).sum().squareRoot()
        guard magnitude <= configuration.maximumBias else {
            throw .rateTooHigh(mean: mean, limit: configuration.maximumBias)
        }
        return Estimate(bias: mean, standardDeviation: spread, sampleCount: sampleCount)
    }
}

/// Why a gyroscope bias could not be measured.
package enum GyroBiasCalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not enough readings yet.
    case tooFewSamples(count: Int, required: Int)
    /// The readings spread more than noise at rest does (rad/s per axis): the board moved.
    case moving(standardDeviation: SIMD3<Double>, limit: Double)
    /// The mean rate (rad/s) is beyond any plausible bias: the board is turning steadily.
    case rateTooHigh(mean: SIMD3<Double>, limit: Double)

    package var description: String {
        let degrees = 180 / Double.pi
        switch self {
        case let .tooFewSamples(count, required):
            return "gyroscope calibration: \(count) readings, at least \(required) needed; keep the board still a little longer"
        case let .moving(spread, limit):
            return "gyroscope calibration: the board is moving (spread \(fixedDecimals(spread * degrees, 2)) °/s, at rest at most \(fixedDecimals(limit * degrees, 2)) °/s); put it on a table and do not touch it"
        case let .rateTooHigh(mean, limit):
            return "gyroscope calibration: mean rate \(fixedDecimals(mean * degrees, 1)) °/s exceeds \(fixedDecimals(limit * degrees, 1)) °/s, more than any bias; the board is turning: keep it still"
        }
    }
}
