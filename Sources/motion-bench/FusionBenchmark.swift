import Foundation
import Fusion

/// Cost per update of `AttitudeFilter` (6D and 9D) on synthetic motion, next to a plain Madgwick
/// gradient-descent filter (Madgwick, Harrison, Vaidyanathan, ICORR 2011) run on the same data in
/// the same process as the reference. Prints ns/sample (best of several runs) and the ratio.
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
    let madgwick9D = best {
        var filter = MadgwickFilter(sampleInterval: interval)
        let ns = timePerSample(samples) {
            for i in 0..<samples { filter.update(gyr: data.gyr[i], acc: data.acc[i], mag: data.mag[i]) }
        }
        checksum += filter.q.w
        return ns
    }
    let madgwick6D = best {
        var filter = MadgwickFilter(sampleInterval: interval)
        let ns = timePerSample(samples) {
            for i in 0..<samples { filter.update(gyr: data.gyr[i], acc: data.acc[i], mag: nil) }
        }
        checksum += filter.q.w
        return ns
    }
    print("fusion: cost per update, \(samples) synthetic samples, best of \(runs) runs (checksum \(String(format: "%.3f", checksum)))")
    print("  AttitudeFilter 9D  \(String(format: "%7.1f", filter9D)) ns/sample   \(String(format: "%.2f", filter9D / madgwick9D))× Madgwick 9D")
    print("  AttitudeFilter 6D  \(String(format: "%7.1f", filter6D)) ns/sample   \(String(format: "%.2f", filter6D / madgwick6D))× Madgwick 6D")
    print("  9D, read each sample, 2.8 ms latency  \(String(format: "%7.1f", read9D)) ns/sample   \(String(format: "%.2f", read9D / madgwick9D))× Madgwick 9D")
    print("  6D, read each sample, 2.8 ms latency  \(String(format: "%7.1f", read6D)) ns/sample   \(String(format: "%.2f", read6D / madgwick6D))× Madgwick 6D")
    print("  Madgwick 9D (ref)  \(String(format: "%7.1f", madgwick9D)) ns/sample")
    print("  Madgwick 6D (ref)  \(String(format: "%7.1f", madgwick6D)) ns/sample")
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

/// Madgwick's gradient-descent AHRS (β = 0.1), the benchmark's reference. Quaternion sensor →
/// earth with the earth x axis toward magnetic north.
private struct MadgwickFilter {
    var q = Quaternion.identity
    let dt: Double
    let beta = 0.1

    init(sampleInterval: Double) { dt = sampleInterval }

    mutating func update(gyr: SIMD3<Double>, acc: SIMD3<Double>, mag: SIMD3<Double>?) {
        let (q0, q1, q2, q3) = (q.w, q.x, q.y, q.z)
        // Rate of change from the gyroscope: ½ q ⊗ (0, ω).
        var dot = q * Quaternion(w: 0, x: 0.5 * gyr.x, y: 0.5 * gyr.y, z: 0.5 * gyr.z)
        let a = acc / (acc * acc).sum().squareRoot()
        // Objective: gravity (0, 0, 1) seen in the sensor frame minus the accelerometer.
        let fg = SIMD3(2 * (q1 * q3 - q0 * q2) - a.x, 2 * (q0 * q1 + q2 * q3) - a.y, 2 * (0.5 - q1 * q1 - q2 * q2) - a.z)
        var s = SIMD4<Double>(
            -2 * q2 * fg.x + 2 * q1 * fg.y,
            2 * q3 * fg.x + 2 * q0 * fg.y - 4 * q1 * fg.z,
            -2 * q0 * fg.x + 2 * q3 * fg.y - 4 * q2 * fg.z,
            2 * q1 * fg.x + 2 * q2 * fg.y)
        if let mag {
            let m = mag / (mag * mag).sum().squareRoot()
            let h = q.rotate(m)
            let bx = (h.x * h.x + h.y * h.y).squareRoot(), bz = h.z
            let fb = SIMD3(
                2 * bx * (0.5 - q2 * q2 - q3 * q3) + 2 * bz * (q1 * q3 - q0 * q2) - m.x,
                2 * bx * (q1 * q2 - q0 * q3) + 2 * bz * (q0 * q1 + q2 * q3) - m.y,
                2 * bx * (q0 * q2 + q1 * q3) + 2 * bz * (0.5 - q1 * q1 - q2 * q2) - m.z)
            s += SIMD4(
                -2 * bz * q2 * fb.x + (-2 * bx * q3 + 2 * bz * q1) * fb.y + 2 * bx * q2 * fb.z,
                2 * bz * q3 * fb.x + (2 * bx * q2 + 2 * bz * q0) * fb.y + (2 * bx * q3 - 4 * bz * q1) * fb.z,
                (-4 * bx * q2 - 2 * bz * q0) * fb.x + (2 * bx * q1 + 2 * bz * q3) * fb.y + (2 * bx * q0 - 4 * bz * q2) * fb.z,
                (-4 * bx * q3 + 2 * bz * q1) * fb.x + (-2 * bx * q0 + 2 * bz * q2) * fb.y + 2 * bx * q1 * fb.z)
        }
        let norm = (s * s).sum().squareRoot()
        if norm > 0 {
            s /= norm
            dot.w -= beta * s[0]
            dot.x -= beta * s[1]
            dot.y -= beta * s[2]
            dot.z -= beta * s[3]
        }
        q = Quaternion(w: q0 + dot.w * dt, x: q1 + dot.x * dt, y: q2 + dot.y * dt, z: q3 + dot.z * dt).normalized
    }
}
