import Foundation
import FieldCalibration
import Fusion

/// Cost per update of `AttitudeFilter` (6D and 9D) on synthetic motion, next to a plain Madgwick
/// gradient-descent filter (`MadgwickFilter`: Madgwick, Harrison, Vaidyanathan, ICORR 2011) run on
/// the same data in the same process as the reference. Prints ns/sample (best of several runs) and
/// the ratio; then the filter as the sampler runs it (update and the five outputs device motion
/// reads), through `any AttitudeEstimator` and on the concrete type, for the seam's own cost.
func runFusionBenchmark(samples: Int = 200_000, runs: Int = 7) {
    let data = SyntheticMotion(samples: samples, rate: 285.714)
    let interval = 1 / data.rate

    func best(_ body: () -> Double) -> Double {
        var fastest = Double.infinity
        for _ in 0..<runs { fastest = min(fastest, body()) }
        return fastest
    }
    var checksum = 0.0
    let filter9D = best {
        var filter = AttitudeFilter(sampleInterval: interval)
        let ns = timePerSample(samples) {
            for i in 0..<samples {
                filter.update(gyroscope: data.gyr[i], accelerometer: data.acc[i], magnetometer: data.mag[i])
            }
        }
        checksum += filter.quaternion9D.w
        return ns
    }
    let filter6D = best {
        var filter = AttitudeFilter(sampleInterval: interval)
        let ns = timePerSample(samples) {
            for i in 0..<samples {
                filter.update(gyroscope: data.gyr[i], accelerometer: data.acc[i], magnetometer: nil)
            }
        }
        checksum += filter.quaternion6D.w
        return ns
    }
    // What the sampler does for an MPU-6050 at its default filter: update, then read the attitude
    // extrapolated by the chip's 2.8 ms delay, every sample.
    var latency = AttitudeFilter.Parameters()
    latency.sensorLatency = 0.0028
    let read9D = best {
        var filter = AttitudeFilter(sampleInterval: interval, parameters: latency)
        var sum = 0.0
        let ns = timePerSample(samples) {
            for i in 0..<samples {
                filter.update(gyroscope: data.gyr[i], accelerometer: data.acc[i], magnetometer: data.mag[i])
                sum += filter.quaternion9D.w
            }
        }
        checksum += sum / Double(samples)
        return ns
    }
    let read6D = best {
        var filter = AttitudeFilter(sampleInterval: interval, parameters: latency)
        var sum = 0.0
        let ns = timePerSample(samples) {
            for i in 0..<samples {
                filter.update(gyroscope: data.gyr[i], accelerometer: data.acc[i], magnetometer: nil)
                sum += filter.quaternion6D.w
            }
        }
        checksum += sum / Double(samples)
        return ns
    }
    // The background hard-iron estimator (HardIronEstimator) alone, per sample, on the same data
    // with 30 µT of hard iron added; and the 9D filter fed by it as the sampler runs the two.
    let hardIronOffset = SIMD3<Double>(20, -15, 16)
    let hardIron = best {
        var estimator = HardIronEstimator()
        let ns = timePerSample(samples) {
            for i in 0..<samples {
                estimator.update(field: data.mag[i] + hardIronOffset, rotationRate: data.gyr[i], acceleration: -data.acc[i], interval: interval)
            }
        }
        checksum += estimator.estimate.x
        return ns
    }
    let filter9DWithHardIron = best {
        var filter = AttitudeFilter(sampleInterval: interval)
        var estimator = HardIronEstimator()
        let ns = timePerSample(samples) {
            for i in 0..<samples {
                let field = data.mag[i] + hardIronOffset
                estimator.update(field: field, rotationRate: data.gyr[i], acceleration: -data.acc[i], interval: interval)
                filter.update(gyroscope: data.gyr[i], accelerometer: data.acc[i], magnetometer: field - estimator.estimate)
            }
        }
        checksum += filter.quaternion9D.w + estimator.estimate.y
        return ns
    }
    // As the sampler runs it: through BackgroundFieldCorrection, whose status (the offset's σ,
    // the heading's σ, the soft-iron bound) is computed ten times a second of sample time.
    let filter9DWithCorrection = best {
        var filter = AttitudeFilter(sampleInterval: interval)
        var correction = BackgroundFieldCorrection(HardIronEstimator())
        let ns = timePerSample(samples) {
            for i in 0..<samples {
                let result = correction.correct(
                    data.mag[i] + hardIronOffset, rotationRate: data.gyr[i] - filter.gyroBias, gyroBias: filter.gyroBias, acceleration: -data.acc[i], interval: interval,
                    timestamp: Double(i) * interval)
                filter.update(gyroscope: data.gyr[i], accelerometer: data.acc[i], magnetometer: result.field)
            }
        }
        checksum += filter.quaternion9D.w + correction.status.sigma
        return ns
    }
    // The status alone (the worst sample: the one that computes it), after learning.
    let statusCost = best {
        var estimator = HardIronEstimator()
        for i in 0..<samples {
            estimator.update(field: data.mag[i] + hardIronOffset, rotationRate: data.gyr[i], acceleration: -data.acc[i], interval: interval)
        }
        var sum = 0.0
        let repeats = 20_000
        let ns = timePerSample(repeats) {
            for _ in 0..<repeats { sum += estimator.status.softIronBias }
        }
        checksum += sum.isFinite ? 0 : 1
        return ns
    }
    let madgwick9D = best {
        var filter = MadgwickFilter(sampleInterval: interval)
        let ns = timePerSample(samples) {
            for i in 0..<samples { filter.update(gyroscope: data.gyr[i], accelerometer: data.acc[i], magnetometer: data.mag[i]) }
        }
        checksum += filter.quaternion.w
        return ns
    }
    let madgwick6D = best {
        var filter = MadgwickFilter(sampleInterval: interval)
        let ns = timePerSample(samples) {
            for i in 0..<samples { filter.update(gyroscope: data.gyr[i], accelerometer: data.acc[i], magnetometer: nil) }
        }
        checksum += filter.quaternion.w
        return ns
    }
    // What the sampler does per sample: builds the input, updates its `any AttitudeEstimator` in
    // place and reads the outputs (`FusedMotion`), MPU-6050 latency; the same on the concrete type.
    let configuration = AttitudeEstimatorConfiguration(sampleInterval: interval, sensorLatency: 0.0028)
    func input(_ i: Int) -> AttitudeEstimatorInput {
        AttitudeEstimatorInput(acceleration: -data.acc[i], rotationRate: data.gyr[i], magneticField: data.mag[i], interval: interval)
    }
    /// One run of the samples through `estimator` as the sampler drives it: update, then the
    /// outputs. Given an `any AttitudeEstimator`, it runs unspecialised (every call through the
    /// protocol's witness table), as in the sampler; not inlined, so a profile shows each form.
    @inline(never)
    func asTheSampler(_ estimator: inout some AttitudeEstimator) -> Double {
        var sum = 0.0
        let start = ContinuousClock.now
        for i in 0..<samples {
            estimator.update(input(i))
            sum += outputs(estimator)
        }
        let elapsed = ContinuousClock.now - start
        checksum += sum / Double(samples)
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) * 1e-9) / Double(samples)
    }
    let existential9D = best {
        var estimator = unknown(AttitudeFilter(configuration))
        return asTheSampler(&estimator)
    }
    let concrete9D = best {
        var filter = AttitudeFilter(configuration)
        return asTheSampler(&filter)
    }
    // The sampler's step stage: the step detector alone, then with the activity classifier after
    // it, as `StepStage` runs them on every sample while a pedometer or activity manager listens.
    let walking = (0..<samples).map { (i: Int) -> SIMD3<Double> in
        // A walk's bounce at 2 steps a second on top of the synthetic motion, in g.
        let bounce: Double = 0.3 * sin(2 * Double.pi * 2 * Double(i) * interval)
        return -data.acc[i] / 9.80665 + SIMD3(0, 0, bounce)
    }
    let stepDetector = best {
        var detector = StepDetector()
        let ns = timePerSample(samples) {
            for i in 0..<samples { detector.add(acceleration: walking[i], timestamp: Double(i) * interval) }
        }
        checksum += Double(detector.steps) * 1e-6
        return ns
    }
    let stepStage = best {
        var detector = StepDetector()
        var classifier = ActivityClassifier()
        let ns = timePerSample(samples) {
            for i in 0..<samples {
                let t = Double(i) * interval
                detector.add(acceleration: walking[i], timestamp: t)
                classifier.update(acceleration: walking[i], rotationRate: data.gyr[i], timestamp: t, detector: detector)
            }
        }
        checksum += Double(detector.steps + Int(classifier.kind.rawValue)) * 1e-6
        return ns
    }
    print("fusion: cost per update, \(samples) synthetic samples, best of \(runs) runs (checksum \(String(format: "%.3f", checksum)))")
    print("  AttitudeFilter 9D  \(String(format: "%7.1f", filter9D)) ns/sample   \(String(format: "%.2f", filter9D / madgwick9D))× Madgwick 9D")
    print("  AttitudeFilter 6D  \(String(format: "%7.1f", filter6D)) ns/sample   \(String(format: "%.2f", filter6D / madgwick6D))× Madgwick 6D")
    print("  9D, read each sample, 2.8 ms latency  \(String(format: "%7.1f", read9D)) ns/sample   \(String(format: "%.2f", read9D / madgwick9D))× Madgwick 9D")
    print("  6D, read each sample, 2.8 ms latency  \(String(format: "%7.1f", read6D)) ns/sample   \(String(format: "%.2f", read6D / madgwick6D))× Madgwick 6D")
    print("  HardIronEstimator  \(String(format: "%7.1f", hardIron)) ns/sample   \(String(format: "%.2f", hardIron / madgwick9D))× Madgwick 9D (background magnetometer calibration alone)")
    print("  9D + HardIronEstimator  \(String(format: "%7.1f", filter9DWithHardIron)) ns/sample   added \(String(format: "%.1f", filter9DWithHardIron - filter9D)) ns/sample over AttitudeFilter 9D")
    print("  9D + BackgroundFieldCorrection  \(String(format: "%7.1f", filter9DWithCorrection)) ns/sample   added \(String(format: "%.1f", filter9DWithCorrection - filter9D)) ns/sample over AttitudeFilter 9D (as the sampler runs it: the status ten times a second)")
    print("  HardIronEstimator status  \(String(format: "%7.1f", statusCost)) ns (once per 0.1 s of samples: the worst sample's extra)")
    print("  StepDetector  \(String(format: "%7.1f", stepDetector)) ns/sample   \(String(format: "%.2f", stepDetector / filter9D))× AttitudeFilter 9D")
    print("  StepDetector + ActivityClassifier  \(String(format: "%7.1f", stepStage)) ns/sample   \(String(format: "%.2f", stepStage / filter9D))× AttitudeFilter 9D (the sampler's step stage)")
    print("  Madgwick 9D (ref)  \(String(format: "%7.1f", madgwick9D)) ns/sample")
    print("  Madgwick 6D (ref)  \(String(format: "%7.1f", madgwick6D)) ns/sample")
    print("  9D as the sampler runs it (update + outputs, 2.8 ms latency):")
    print("    any AttitudeEstimator  \(String(format: "%7.1f", existential9D)) ns/sample   \(String(format: "%.2f", existential9D / madgwick9D))× Madgwick 9D")
    print("    AttitudeFilter         \(String(format: "%7.1f", concrete9D)) ns/sample   \(String(format: "%.2f", concrete9D / madgwick9D))× Madgwick 9D")
}

/// `estimator` as the sampler holds it (from its factory): a call the optimiser does not see
/// through, so that the concrete type is not known at the call site and no specialisation applies.
@inline(never)
private func unknown(_ estimator: any AttitudeEstimator) -> any AttitudeEstimator { estimator }

/// The outputs the sampler reads after each update (`FusedMotion`), folded into one number.
private func outputs(_ estimator: some AttitudeEstimator) -> Double {
    estimator.quaternion9D.w + estimator.quaternion6D.w + estimator.gravity.z + estimator.gyroBias.x
        + Double(estimator.magneticAccuracy.rawValue)
}

private func timePerSample(_ samples: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    body()
    let elapsed = clock.now - start
    return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) * 1e-9) / Double(samples)
}

/// Smoothly varying rotation with gravity and an Earth field, readings computed from the truth.
private struct SyntheticMotion {
    let rate: Double
    var gyr: [SIMD3<Double>] = []
    var acc: [SIMD3<Double>] = []
    var mag: [SIMD3<Double>] = []

    init(samples: Int, rate: Double) {
        self.rate = rate
        gyr.reserveCapacity(samples)
        acc.reserveCapacity(samples)
        mag.reserveCapacity(samples)
        var attitude = Quaternion.identity
        let dt = 1 / rate
        for i in 0..<samples {
            let t = Double(i) * dt
            let w = SIMD3(sin(0.7 * t), 0.5 * cos(1.1 * t), 0.8 * sin(0.3 * t))
            let toSensor = attitude.conjugate
            gyr.append(w)
            acc.append(toSensor.rotate(SIMD3(0.3 * sin(2 * t), 0, 9.81)))
            mag.append(toSensor.rotate(SIMD3(0, 20, -44)))
            attitude = (attitude * Quaternion(axis: w, angle: (w * w).sum().squareRoot() * dt)).normalized
        }
    }
}
