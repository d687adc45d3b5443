import Fusion

/// Error figures of one three-axis sensing element (accelerometer or gyroscope), in its own unit
/// (m/s² for an accelerometer, rad/s for a gyroscope), chip axes.
///
/// Measured = (I + diag(scaleFactorError) + crossAxis) · true + bias + bias walk + white noise.
/// Quantization and range saturation are the emulators' job.
package struct SensorErrors: Sendable, Equatable {
    /// One-sided white-noise amplitude spectral density per axis, unit/√Hz (the datasheet's
    /// "noise density"). At sample rate fs the noise has standard deviation density·√(fs/2).
    package var noiseDensity: SIMD3<Double>
    /// Constant offset per axis (zero-g / zero-rate level), unit.
    package var bias: SIMD3<Double>
    /// Bias random walk, unit/√s: after T seconds the bias has wandered by this·√T (1σ) per axis.
    package var biasRandomWalk: Double
    /// Sensitivity error per axis, as a fraction (0.01 = reads 1 % high).
    package var scaleFactorError: SIMD3<Double>
    /// Cross-axis sensitivity: how much of each other axis leaks into an axis, as fractions
    /// (only the off-diagonal entries are used).
    package var crossAxis: Matrix3

    package init(
        noiseDensity: SIMD3<Double> = .zero, bias: SIMD3<Double> = .zero, biasRandomWalk: Double = 0,
        scaleFactorError: SIMD3<Double> = .zero, crossAxis: Matrix3 = .zero
    ) {
        self.noiseDensity = noiseDensity
        self.bias = bias
        self.biasRandomWalk = biasRandomWalk
        self.scaleFactorError = scaleFactorError
        self.crossAxis = crossAxis
    }

    /// A perfect sensor.
    package static let ideal = SensorErrors()

    /// The sensitivity matrix I + diag(scaleFactorError) + offDiagonal(crossAxis).
    package var sensitivity: Matrix3 {
        Matrix3(diagonal: 1 + scaleFactorError) + crossAxis.offDiagonal
    }
}

/// The error model of an IMU chip (accelerometer + gyroscope).
package struct IMUErrorModel: Sendable, Equatable {
    /// m/s² based figures.
    package var accelerometer: SensorErrors
    /// rad/s based figures.
    package var gyroscope: SensorErrors
    /// How fast the chip's own output-data-rate clock runs, in parts per million (positive: fast).
    /// Not applied here: the emulators read it to time their samples.
    package var clockDriftPPM: Double

    package init(accelerometer: SensorErrors = .ideal, gyroscope: SensorErrors = .ideal, clockDriftPPM: Double = 0) {
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.clockDriftPPM = clockDriftPPM
    }

    package static let ideal = IMUErrorModel()

    private static let g = PhysicalState.standardGravity
    private static let degree = Double.pi / 180
    /// A small, fixed cross-axis pattern scaled by `fraction` (representative, not measured).
    private static func crossAxis(_ fraction: Double) -> Matrix3 {
        fraction * Matrix3(rows: SIMD3(0, 0.6, -0.3), SIMD3(-0.5, 0, 0.4), SIMD3(0.2, -0.7, 0))
    }

    /// ST LSM6DSOX, datasheet DS12814, Table 2 (mechanical characteristics), high-performance mode:
    /// accelerometer noise density 70 µg/√Hz (±2 g), gyroscope rate noise density 3.8 mdps/√Hz;
    /// zero-g offset typ. ±20 mg, zero-rate level typ. ±1 dps (the biases below are a third of
    /// those). Bias walk, scale, cross-axis and clock drift: representative values.
    package static let lsm6dsox = IMUErrorModel(
        accelerometer: SensorErrors(
            noiseDensity: SIMD3(repeating: 70e-6 * g), bias: SIMD3(0.006, -0.004, 0.007) * g,
            biasRandomWalk: 4e-5, scaleFactorError: SIMD3(0.004, -0.003, 0.005), crossAxis: crossAxis(0.005)),
        gyroscope: SensorErrors(
            noiseDensity: SIMD3(repeating: 3.8e-3 * degree), bias: SIMD3(0.3, -0.25, 0.2) * degree,
            biasRandomWalk: 2e-5, scaleFactorError: SIMD3(-0.004, 0.003, 0.002), crossAxis: crossAxis(0.005)),
        clockDriftPPM: 150)

    /// InvenSense MPU-6050, product specification PS-MPU-6000A-00 rev. 3.4: §6.2 accelerometer
    /// noise power spectral density 400 µg/√Hz, zero-g initial tolerance ±50 mg (x, y) and ±80 mg
    /// (z), sensitivity tolerance ±3 %, cross-axis ±2 %; §6.1 gyroscope rate noise spectral
    /// density 0.005 °/s/√Hz, zero-rate output tolerance ±20 °/s, sensitivity tolerance ±3 %,
    /// cross-axis ±2 %. Biases, scale and cross-axis below are about a third of those limits.
    package static let mpu6050 = IMUErrorModel(
        accelerometer: SensorErrors(
            noiseDensity: SIMD3(repeating: 400e-6 * g), bias: SIMD3(0.015, -0.02, 0.03) * g,
            biasRandomWalk: 1e-4, scaleFactorError: SIMD3(0.01, -0.008, 0.012), crossAxis: crossAxis(0.007)),
        gyroscope: SensorErrors(
            noiseDensity: SIMD3(repeating: 0.005 * degree), bias: SIMD3(-2.5, 1.8, 0.9) * degree,
            biasRandomWalk: 5e-5, scaleFactorError: SIMD3(0.01, 0.006, -0.009), crossAxis: crossAxis(0.007)),
        clockDriftPPM: 400)

    /// InvenSense MPU-9250, product specification PS-MPU-9250A-01 rev. 1.1: §3.2 accelerometer
    /// noise power spectral density 300 µg/√Hz, zero-g tolerance ±60 mg (x, y) and ±80 mg (z);
    /// §3.1 gyroscope rate noise spectral density 0.01 °/s/√Hz, zero-rate output tolerance
    /// ±5 °/s; sensitivity tolerance ±3 %, cross-axis ±2 % for both. Biases, scale and cross-axis
    /// below are about a third of those limits.
    package static let mpu9250 = IMUErrorModel(
        accelerometer: SensorErrors(
            noiseDensity: SIMD3(repeating: 300e-6 * g), bias: SIMD3(-0.02, 0.015, 0.025) * g,
            biasRandomWalk: 8e-5, scaleFactorError: SIMD3(-0.009, 0.011, 0.007), crossAxis: crossAxis(0.007)),
        gyroscope: SensorErrors(
            noiseDensity: SIMD3(repeating: 0.01 * degree), bias: SIMD3(1.2, -0.8, 1.5) * degree,
            biasRandomWalk: 4e-5, scaleFactorError: SIMD3(0.008, -0.01, 0.006), crossAxis: crossAxis(0.007)),
        clockDriftPPM: 400)

    /// TDK InvenSense ICM-42688-P, datasheet DS-000347 (Table 1 gyroscope: rate noise spectral
    /// density 0.0028 °/s/√Hz, zero-rate output ±0.5 °/s; Table 2 accelerometer: noise spectral
    /// density 70 µg/√Hz). Accelerometer bias, bias walk, scale, cross-axis and clock drift:
    /// representative values.
    package static let icm42688 = IMUErrorModel(
        accelerometer: SensorErrors(
            noiseDensity: SIMD3(repeating: 70e-6 * g), bias: SIMD3(0.008, -0.006, 0.01) * g,
            biasRandomWalk: 4e-5, scaleFactorError: SIMD3(0.003, -0.004, 0.002), crossAxis: crossAxis(0.005)),
        gyroscope: SensorErrors(
            noiseDensity: SIMD3(repeating: 0.0028 * degree), bias: SIMD3(0.15, -0.12, 0.1) * degree,
            biasRandomWalk: 2e-5, scaleFactorError: SIMD3(0.002, -0.003, 0.002), crossAxis: crossAxis(0.005)),
        clockDriftPPM: 200)

    /// The preset for a chip name ("lsm6dsox", "mpu6050", "mpu9150", "mpu9250", "icm42688"; case and
    /// dashes ignored): the chip's ``IMUEmulatorEntry/errorModel`` in ``EmulatorRegistry``, found by
    /// its name or an alias ("icm42688p").
    package static func preset(named name: String) -> IMUErrorModel? {
        SimulatedBoard.IMU(name: name.lowercased().filter { $0.isLetter || $0.isNumber })?.entry.errorModel
    }
}

/// The error model of a magnetometer chip, µT, chip axes:
/// measured = softIron · true + hardIron + white noise.
/// A calibration recovers true = softIron⁻¹ · (measured − hardIron).
package struct MagnetometerErrorModel: Sendable, Equatable {
    /// One-sided white-noise amplitude spectral density per axis, µT/√Hz.
    package var noiseDensity: SIMD3<Double>
    /// Hard-iron offset, µT (the chip's own offset plus magnetised parts on the board).
    package var hardIron: SIMD3<Double>
    /// Soft-iron distortion including the chip's sensitivity errors (identity when perfect).
    package var softIron: Matrix3
    /// How fast the chip's output-data-rate clock runs, ppm; read by the emulators.
    package var clockDriftPPM: Double

    package init(noiseDensity: SIMD3<Double> = .zero, hardIron: SIMD3<Double> = .zero, softIron: Matrix3 = .identity, clockDriftPPM: Double = 0) {
        self.noiseDensity = noiseDensity
        self.hardIron = hardIron
        self.softIron = softIron
        self.clockDriftPPM = clockDriftPPM
    }

    package static let ideal = MagnetometerErrorModel()

    /// A board's typical soft iron: a few percent of gain error and coupling (representative).
    private static let boardSoftIron = Matrix3(
        rows: SIMD3(1.04, 0.03, -0.02), SIMD3(0.03, 0.97, 0.015), SIMD3(-0.02, 0.015, 1.01))

    /// ST LIS3MDL, datasheet DocID024204 rev. 4, Table 2: RMS noise in ultra-high-performance mode
    /// 3.2 mgauss (x, y) and 4.1 mgauss (z) at ±4 gauss. Taken as measured at the 80 Hz ODR over
    /// a 40 Hz band: density = RMS/√40. Hard and soft iron: a representative board.
    package static let lis3mdl = MagnetometerErrorModel(
        noiseDensity: SIMD3(0.32, 0.32, 0.41) / 40.0.squareRoot(),
        hardIron: SIMD3(12, -7, 18), softIron: boardSoftIron, clockDriftPPM: 300)

    /// QST QMC5883L, datasheet rev. 1.0, Table 2: noise 2 mG (±2 G range). Taken as RMS at the
    /// 50 Hz ODR over a 25 Hz band: density = RMS/√25. Hard and soft iron: a representative
    /// breakout board (these modules sit next to regulators and headers).
    package static let qmc5883l = MagnetometerErrorModel(
        noiseDensity: SIMD3(repeating: 0.2 / 5),
        hardIron: SIMD3(-25, 16, 31), softIron: boardSoftIron, clockDriftPPM: 500)

    /// The preset for a chip name ("lis3mdl", "qmc5883l"; case and dashes ignored): the chip's
    /// ``MagnetometerEmulatorEntry/errorModel`` in ``EmulatorRegistry``.
    package static func preset(named name: String) -> MagnetometerErrorModel? {
        SimulatedBoard.Magnetometer(rawValue: name.lowercased().filter { $0.isLetter || $0.isNumber })?.entry.errorModel
    }
}
