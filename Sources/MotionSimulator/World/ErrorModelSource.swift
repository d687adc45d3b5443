import Fusion
import Locking
import Synchronization

/// Adds sensor errors to what another source says the chip experiences: sensitivity (scale
/// factor, cross-axis, soft iron), constant biases and hard iron, bias random walks, and white
/// noise. Units and axes are the base source's (chip axes, SI / µT).
///
/// Reproducible: noise for sample k = round((t − origin) · sampleRate) is a hash of (seed, k,
/// channel), so asking for the same time twice gives the same value. The bias walks start at zero
/// at ``origin`` (the board's power-on) and are integrated forward sample by sample; the last
/// ``walkHistory`` samples are kept, so an emulator may look back a little (a FIFO, a second chip
/// on a slower clock). Asking further back recomputes from the origin: still correct, but slow
/// late in a long run.
///
/// For an IMU and a magnetometer running at different rates, wrap the world twice: one source
/// with the IMU model at the IMU's rate, one with the magnetometer model at its rate.
package final class ErrorModelSource: PhysicalSource {
    package let base: any PhysicalSource
    package let imu: IMUErrorModel
    package let magnetometer: MagnetometerErrorModel
    package let seed: UInt64
    /// Hz: the rate at which noise is drawn. Set it to the chip's output data rate: the noise
    /// standard deviation per sample is density·√(sampleRate/2).
    package let sampleRate: Double
    /// The time of sample 0 (seconds on the clock the base source is asked in): the board's
    /// power-on, where the bias walks start. On the system clock, times count from the machine's
    /// boot: a walk from there would cost a step per sample of its uptime at the first read.
    package let origin: Double

    private let accelerometerSensitivity: Matrix3
    private let gyroscopeSensitivity: Matrix3
    private let accelerometerSigma: SIMD3<Double>
    private let gyroscopeSigma: SIMD3<Double>
    private let magnetometerSigma: SIMD3<Double>
    private let accelerometerWalkStep: Double
    private let gyroscopeWalkStep: Double
    private let walk = Locked(BiasWalk())

    /// Samples of bias walk kept for looking back.
    package static let walkHistory = 4096

    /// The walk at `index`, and the last `walkHistory` values in a ring (slot index % walkHistory).
    private struct BiasWalk {
        var index: Int64 = 0
        var accelerometer = SIMD3<Double>.zero
        var gyroscope = SIMD3<Double>.zero
        var accelerometerHistory = [SIMD3<Double>](repeating: .zero, count: ErrorModelSource.walkHistory)
        var gyroscopeHistory = [SIMD3<Double>](repeating: .zero, count: ErrorModelSource.walkHistory)

        static func slot(_ index: Int64) -> Int { Int(index % Int64(ErrorModelSource.walkHistory)) }
    }

    /// The hash channels of the normal draws: each quantity takes three (x, y, z), from its raw value on.
    private enum Channel: UInt64 {
        case accelerometerNoise = 0, gyroscopeNoise = 3, magnetometerNoise = 6, accelerometerWalk = 9, gyroscopeWalk = 12
    }

    package init(
        base: any PhysicalSource, imu: IMUErrorModel = .ideal, magnetometer: MagnetometerErrorModel = .ideal,
        seed: UInt64, sampleRate: Double = 100, origin: Double = 0
    ) {
        self.base = base
        self.imu = imu
        self.magnetometer = magnetometer
        self.seed = seed
        self.sampleRate = max(sampleRate, 1e-6)
        self.origin = origin.isFinite ? origin : 0
        let bandwidth = (self.sampleRate / 2).squareRoot()
        accelerometerSensitivity = imu.accelerometer.sensitivity
        gyroscopeSensitivity = imu.gyroscope.sensitivity
        accelerometerSigma = imu.accelerometer.noiseDensity * bandwidth
        gyroscopeSigma = imu.gyroscope.noiseDensity * bandwidth
        magnetometerSigma = magnetometer.noiseDensity * bandwidth
        let step = (1 / self.sampleRate).squareRoot()
        accelerometerWalkStep = imu.accelerometer.biasRandomWalk * step
        gyroscopeWalkStep = imu.gyroscope.biasRandomWalk * step
    }

    /// The base source's: sensor errors do not change the steps taken.
    package func stepsTaken(before time: Double) -> Int { base.stepsTaken(before: time) }

    package func state(at time: Double) -> PhysicalState {
        var state = base.state(at: time)
        let scaled = ((time - origin) * sampleRate).rounded()
        // A time that is not a finite number of samples (NaN, ±∞) reads as sample 0.
        let index = scaled.isFinite ? Int64(max(-1e18, min(1e18, scaled))) : 0
        let (accelerometerWalk, gyroscopeWalk) = biasWalk(at: index)
        state.specificForce = accelerometerSensitivity * state.specificForce + imu.accelerometer.bias + accelerometerWalk
            + accelerometerSigma * gaussians(index, .accelerometerNoise)
        state.angularRate = gyroscopeSensitivity * state.angularRate + imu.gyroscope.bias + gyroscopeWalk
            + gyroscopeSigma * gaussians(index, .gyroscopeNoise)
        state.magneticField = magnetometer.softIron * state.magneticField + magnetometer.hardIron
            + magnetometerSigma * gaussians(index, .magnetometerNoise)
        return state
    }

    @inline(__always)
    private func gaussians(_ index: Int64, _ channel: Channel) -> SIMD3<Double> {
        let first = channel.rawValue
        return SIMD3(
            SplitMix64.gaussian(seed: seed, index: index, channel: first),
            SplitMix64.gaussian(seed: seed, index: index, channel: first + 1),
            SplitMix64.gaussian(seed: seed, index: index, channel: first + 2))
    }

    /// The random-walk part of both biases at sample `index` (zero at and before sample 0).
    private func biasWalk(at index: Int64) -> (SIMD3<Double>, SIMD3<Double>) {
        guard accelerometerWalkStep > 0 || gyroscopeWalkStep > 0, index > 0 else { return (.zero, .zero) }
        return walk.withLock { walk in
            if index <= walk.index {
                if index > walk.index - Int64(Self.walkHistory) {
                    let slot = BiasWalk.slot(index)
                    return (walk.accelerometerHistory[slot], walk.gyroscopeHistory[slot])
                }
                walk = BiasWalk()
            }
            while walk.index < index {
                walk.index += 1
                walk.accelerometer += accelerometerWalkStep * gaussians(walk.index, .accelerometerWalk)
                walk.gyroscope += gyroscopeWalkStep * gaussians(walk.index, .gyroscopeWalk)
                let slot = BiasWalk.slot(walk.index)
                walk.accelerometerHistory[slot] = walk.accelerometer
                walk.gyroscopeHistory[slot] = walk.gyroscope
            }
            return (walk.accelerometer, walk.gyroscope)
        }
    }
}
