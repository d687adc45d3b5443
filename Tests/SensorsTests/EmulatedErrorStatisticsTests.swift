import Fusion
import I2C
import MotionSimulator
import Sensors
import Testing

/// The configured sensor errors come out of the whole path — error model → chip emulator
/// (quantization) → bus → driver — as configured, within 5 %: what MotionSimulatorTests checks on
/// the error-model source alone, checked here on what a driver reads. Fixed seeds.
@Suite struct EmulatedErrorStatisticsTests {
    /// An LSM6DSOX (0x6A) and a LIS3MDL (0x1C) on a simulated bus, each fed by its own source
    /// (noise drawn at that chip's rate), read by their drivers at their defaults
    /// (208 Hz ±4 g ±500 °/s; 80 Hz ±400 µT).
    struct Board {
        let imu: LSM6IMU
        let magnetometer: LIS3MDLMagnetometer

        init(imuSource: any PhysicalSource, magnetometerSource: any PhysicalSource, time: ManualTime) throws {
            let bus = SimulatedBus(logCapacity: 0, now: { time.now })
            bus.attach(LSM6DSOXEmulator(source: imuSource, now: { time.now }), at: I2CAddress(0x6A))
            bus.attach(LIS3MDLEmulator(source: magnetometerSource, now: { time.now }), at: I2CAddress(0x1C))
            imu = LSM6IMU(bus: bus, address: I2CAddress(0x6A), model: .lsm6dso, pause: .none)
            magnetometer = LIS3MDLMagnetometer(bus: bus, address: I2CAddress(0x1C), pause: .none)
            try imu.configure(imu.defaultConfiguration)
            try magnetometer.configure(magnetometer.defaultConfiguration)
        }

        /// The IMU read once at each of `times`: specific force (m/s²) and rotation rate (rad/s),
        /// and the size of one LSB of each at the configured full scales.
        func readIMU(at times: [Double], time: ManualTime) throws -> (
            accelerometer: [SIMD3<Double>], gyroscope: [SIMD3<Double>], accelerometerStep: Double, gyroscopeStep: Double
        ) {
            var accelerometer: [SIMD3<Double>] = [], gyroscope: [SIMD3<Double>] = []
            var accelerometerStep = 0.0, gyroscopeStep = 0.0
            for t in times {
                time.set(t)
                let sample = try imu.readSample()
                let raw = try #require(sample.raw)
                accelerometer.append(specificForce(sample))
                gyroscope.append(sample.rotationRate)
                accelerometerStep = PhysicalState.standardGravity / raw.accelerometerLSBPerG
                gyroscopeStep = Double.pi / 180 / raw.gyroscopeLSBPerDPS
            }
            return (accelerometer, gyroscope, accelerometerStep, gyroscopeStep)
        }
    }

    /// 60 s at rest, read at each chip's output data rate: the white-noise density of every axis
    /// matches the LSM6DSOX and LIS3MDL datasheet presets. Estimated from first differences (the
    /// bias walk cancels): var(Δ) = 2σ² + 2q²/12 for noise σ quantized with step q (σ ≥ 2q here,
    /// so the rounding errors are independent and uniform); density = σ / √(rate/2).
    @Test func noiseDensityReadThroughTheDriversMatchesTheConfiguredDensity() throws {
        let world = Scenario.rest.world()
        let imuRate = 208.0, magnetometerRate = 80.0
        let imuModel = IMUErrorModel.lsm6dsox, magnetometerModel = MagnetometerErrorModel.lis3mdl
        let time = ManualTime(0)
        let board = try Board(
            imuSource: ErrorModelSource(base: world, imu: imuModel, seed: 11, sampleRate: imuRate),
            magnetometerSource: ErrorModelSource(base: world, magnetometer: magnetometerModel, seed: 12, sampleRate: magnetometerRate),
            time: time)
        #expect(board.imu.configuration.outputDataRate == imuRate)
        #expect(board.magnetometer.configuration.outputDataRate == magnetometerRate)

        let (accelerometer, gyroscope, accelerometerStep, gyroscopeStep) = try board.readIMU(
            at: (1...Int(60 * imuRate)).map { Double($0) / imuRate }, time: time)
        var field: [SIMD3<Double>] = []
        var fieldStep = SIMD3<Double>.zero
        for k in 1...Int(60 * magnetometerRate) {
            time.set(Double(k) / magnetometerRate)
            let sample = try board.magnetometer.readSample()
            field.append(sample.field)
            fieldStep = 1 / (try #require(sample.raw)).lsbPerMicrotesla
        }
        #expect(accelerometer.count == 12_480 && field.count == 4_800)

        let checks: [(String, [SIMD3<Double>], SIMD3<Double>, Double, Double)] = [
            ("accelerometer", accelerometer, imuModel.accelerometer.noiseDensity, accelerometerStep, imuRate),
            ("gyroscope", gyroscope, imuModel.gyroscope.noiseDensity, gyroscopeStep, imuRate),
            ("magnetometer", field, magnetometerModel.noiseDensity, fieldStep.x, magnetometerRate),
        ]
        for (name, values, configured, step, rate) in checks {
            for axis in 0..<3 {
                let differences = zip(values.dropFirst(), values).map { $0[axis] - $1[axis] }
                let sigma = (variance(differences) / 2 - step * step / 12).squareRoot()
                let density = sigma / (rate / 2).squareRoot()
                #expect(sigma > 2 * step, "\(name): noise must span several LSB for the correction to hold")
                #expect(abs(density / configured[axis] - 1) < 0.05, "\(name) axis \(axis): \(density) vs \(configured[axis])")
            }
        }
    }

    /// A bias random walk (no white noise) read once a second for 2000 s: increments over τ = 1 s
    /// have variance q²τ, plus 2q_LSB²/12 of rounding.
    @Test func biasRandomWalkReadThroughTheDriversMatchesTheConfiguredWalk() throws {
        let accelerometerWalk = 5e-3, gyroscopeWalk = 2e-3  // m/s²/√s, rad/s/√s
        let model = IMUErrorModel(
            accelerometer: SensorErrors(bias: SIMD3(0.05, -0.03, 0.08), biasRandomWalk: accelerometerWalk),
            gyroscope: SensorErrors(bias: SIMD3(0.004, 0.002, -0.003), biasRandomWalk: gyroscopeWalk))
        let time = ManualTime(0)
        let board = try Board(
            imuSource: ErrorModelSource(base: Scenario.rest.world(), imu: model, seed: 21, sampleRate: 208),
            magnetometerSource: ConstantSource(), time: time)
        let seconds = 2000
        let (accelerometer, gyroscope, accelerometerStep, gyroscopeStep) = try board.readIMU(
            at: (0...seconds).map { Double($0) }, time: time)
        // Rest, face up: the walk starts from the configured bias.
        #expect(maxAbs(gyroscope[0] - model.gyroscope.bias) <= gyroscopeStep / 2 + 1e-12)
        #expect(maxAbs(accelerometer[0] - SIMD3(0, 0, PhysicalState.standardGravity) - model.accelerometer.bias) <= accelerometerStep / 2 + 1e-9)
        let checks = [("accelerometer", accelerometer, accelerometerWalk, accelerometerStep),
                      ("gyroscope", gyroscope, gyroscopeWalk, gyroscopeStep)]
        for (name, values, configured, step) in checks {
            for axis in 0..<3 {
                let increments = zip(values.dropFirst(), values).map { $0[axis] - $1[axis] }
                let walk = (variance(increments) - step * step / 6).squareRoot()  // τ = 1 s
                #expect(abs(walk / configured - 1) < 0.05, "\(name) axis \(axis): \(walk) vs \(configured)")
            }
        }
    }

    /// The figure-eight dance read by the LIS3MDL driver (20 reads a second): a least-squares fit
    /// of measured = M · true + b recovers the configured soft iron M and hard iron b.
    @Test func hardAndSoftIronReadThroughTheDriverMatchTheConfiguredDistortion() throws {
        let world = Scenario.figureEight.world()
        let model = MagnetometerErrorModel.lis3mdl
        let time = ManualTime(0)
        let board = try Board(
            imuSource: world,
            magnetometerSource: ErrorModelSource(base: world, magnetometer: model, seed: 31, sampleRate: 80), time: time)
        var truth: [SIMD3<Double>] = [], measured: [SIMD3<Double>] = []
        for k in 1..<Int(Scenario.figureEight.script.duration * 20) {
            let t = Double(k) / 20
            time.set(t)
            measured.append(try board.magnetometer.readSample().field)
            truth.append(world.state(at: t).magneticField)
        }
        let fit = AffineFit(truth: truth, measured: measured)
        let fitRows = [fit.matrix.rows.0, fit.matrix.rows.1, fit.matrix.rows.2]
        let hardIronError = norm(fit.offset - model.hardIron) / norm(model.hardIron)
        let softIronError = frobenius(fitRows - model.softIron) / frobenius(model.softIron)
        #expect(hardIronError < 0.05, "hard iron \(fit.offset) vs \(model.hardIron)")
        #expect(softIronError < 0.05, "soft iron \(fitRows.rowMajor) vs \(model.softIron.rowMajor)")
        // Far tighter in practice: 0.3 µT noise and 0.015 µT steps next to a 50 µT field.
        #expect(norm(fit.offset - model.hardIron) < 0.1, "hard iron \(fit.offset)")
    }
}

private func variance(_ values: [Double]) -> Double {
    let mean = values.reduce(0, +) / Double(values.count)
    return values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
}

private func maxAbs(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }
private func norm(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
private func frobenius(_ rows: [SIMD3<Double>]) -> Double { rows.reduce(0) { $0 + ($1 * $1).sum() }.squareRoot() }

/// M − S as rows, for the soft-iron comparison.
private func - (m: [SIMD3<Double>], s: Matrix3) -> [SIMD3<Double>] {
    [m[0] - s.rows.0, m[1] - s.rows.1, m[2] - s.rows.2]
}

private func frobenius(_ m: Matrix3) -> Double { frobenius([m.rows.0, m.rows.1, m.rows.2]) }

private extension Array where Element == SIMD3<Double> {
    var rowMajor: [Double] { flatMap { [$0.x, $0.y, $0.z] } }
}
