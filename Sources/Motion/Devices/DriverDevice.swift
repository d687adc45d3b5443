import Locking
import Fusion
import I2C
import Sensors
import Timing

/// A `MotionDevice` made of chip drivers on a bus (real or simulated: this code does not know).
final class DriverDevice: MotionDevice {
    let imu: any IMUDriver
    let magnetometer: (any MagnetometerDriver)?
    let correction: SensorCorrection
    /// The calibration store's keys for the two chips.
    let imuIdentity: SensorIdentity
    let magnetometerIdentity: SensorIdentity?
    let name: String
    let maximumTimerRate: Double
    /// The chip's clock as seen through its FIFO, and when the FIFO was last read.
    private let fifoClock = Locked<FIFOClock?>(nil)
    /// Whether FIFO samples are timed by the chip's timestamps where its FIFO has them (else by
    /// their indices alone); off only to compare the two.
    let timesFIFOByChipTimestamps = Locked(true)

    private struct FIFOClock {
        var estimator: SampleTimeEstimator
        var lastRead: Double?
        /// The samples' indices on the chip's clock, from their timestamps; nil until a read
        /// brings timestamped frames (and for a FIFO without timestamps).
        var timeline: ChipTimeline?

        init(period: Double, lastRead: Double? = nil) {
            estimator = SampleTimeEstimator(nominalPeriod: period)
            self.lastRead = lastRead
        }
    }

    init(
        imu: any IMUDriver, magnetometer: (any MagnetometerDriver)?, correction: SensorCorrection, busName: String,
        imuIdentity: SensorIdentity, magnetometerIdentity: SensorIdentity?
    ) {
        self.imu = imu
        self.magnetometer = magnetometer
        self.correction = correction
        self.imuIdentity = imuIdentity
        self.magnetometerIdentity = magnetometerIdentity
        self.name = ([imu.chip] + (magnetometer.map { [$0.chip] } ?? [])).map { "\($0.name) at \($0.address)" }
            .joined(separator: " + ") + " on \(busName)"
        self.maximumTimerRate = min(100, imu.configuration.outputDataRate)
    }

    var hasMagnetometer: Bool { magnetometer != nil }
    var hasChipAttitude: Bool { imu.providesChipOrientation }
    var sensorLatency: Double { imu.outputDelay }

    func initialize() throws(MotionError) {
        try Self.mapping { () throws(SensorError) in
            try imu.configure(imu.configuration)
            if let magnetometer { try magnetometer.configure(magnetometer.configuration) }
        }
    }

    func read(at timestamp: Double) throws(MotionError) -> MotionSample {
        try Self.mapping { () throws(SensorError) in
            let sample = try imu.readSample()
            let magnetic = try magnetometer?.readSample()
            return motionSample(sample, magnetic, at: timestamp)
        }
    }

    func isStillConfigured() throws(MotionError) -> Bool {
        try Self.mapping { () throws(SensorError) in
            let imuConfigured = try imu.isStillConfigured()
            let magnetometerConfigured = try magnetometer?.isStillConfigured() ?? true
            return imuConfigured && magnetometerConfigured
        }
    }

    /// nil for a chip without a FIFO: the sampler then polls it on its timer.
    var fifoRate: Double? { imu.hasFIFO ? imu.configuration.outputDataRate : nil }

    func startFIFO() throws(MotionError) {
        try Self.mapping { () throws(SensorError) in try imu.enableFIFO() }
        let period = 1 / imu.configuration.outputDataRate
        fifoClock.withLock { $0 = FIFOClock(period: period) }
    }

    func readFIFO(at time: Double) throws(MotionError) -> (samples: [MotionSample], lost: Int) {
        // The magnetometer first: if it fails, the IMU's samples stay in its FIFO for the next read
        // instead of being drained and lost.
        let (magnetic, read) = try Self.mapping { () throws(SensorError) in
            (try magnetometer?.readSample(), try imu.readFIFO())
        }
        let byChipTime = timesFIFOByChipTimestamps.withLock { $0 }
        return fifoClock.withLock { clock in
            let rate = imu.configuration.outputDataRate
            guard var state = clock else { return ([], 0) }
            defer { clock = state }
            if read.overflowed {
                let lost = state.lastRead.map { Int(min(max(((time - $0) * rate).rounded(), 0), 1e9)) } ?? 0
                // The driver restarted the FIFO: its indices start again. Timed by the chip's
                // timestamps, which run on, the estimate of the chip's clock is kept; by indices
                // alone it starts again.
                state = state.timeline == nil ? FIFOClock(period: 1 / rate, lastRead: time) : state
                state.lastRead = time
                return ([], lost)
            }
            state.lastRead = time
            guard !read.frames.isEmpty else { return ([], 0) }
            let chipTimes = read.frames.compactMap(\.chipTime)
            let indices: [Double]
            if byChipTime, chipTimes.count == read.frames.count {
                if state.timeline == nil {
                    // Index numbering so far is not the chip's: the estimate starts on the new one.
                    state.estimator = SampleTimeEstimator(nominalPeriod: 1 / rate)
                    state.timeline = ChipTimeline(nominalPeriod: 1 / rate, wrap: read.chipClockWrap)
                }
                indices = state.timeline?.positions(of: chipTimes, readAt: time) ?? read.frames.map { Double($0.sampleIndex) }
            } else {
                indices = read.frames.map { Double($0.sampleIndex) }
            }
            state.estimator.observe(readAt: time, lastPosition: indices[indices.count - 1])
            let estimator = state.estimator
            let samples = zip(read.frames, indices).map { frame, position in
                motionSample(frame.sample, magnetic, at: estimator.time(ofPosition: position))
            }
            return (samples, 0)
        }
    }

    /// Chip readings corrected into device axes, with the registers they came from.
    private func motionSample(_ sample: IMUSample, _ magnetic: MagneticSample?, at timestamp: Double) -> MotionSample {
        let field = magnetic?.field
        return MotionSample(
            timestamp: timestamp,
            acceleration: correction.acceleration(sample.acceleration),
            rotationRate: correction.rotationRate(sample.rotationRate),
            magneticField: field.map(correction.magneticField),
            calibratedMagneticField: field.flatMap(correction.calibratedMagneticField),
            imuRegisters: sample.raw, magnetometerRegisters: magnetic?.raw, temperature: sample.temperature,
            chipAttitude: sample.chipOrientation.map(correction.attitude))
    }

    /// Runs driver calls, keeping a bus error as it is and naming any other chip failure.
    static func mapping<T>(_ body: () throws(SensorError) -> T) throws(MotionError) -> T {
        do {
            return try body()
        } catch {
            switch error {
            case .bus(let busError): throw .bus(busError)
            default: throw .sensor(error.description)
            }
        }
    }
}

/// The chips behind a manager and the settings they run at, for recordings and diagnostics.
public struct ChipSettings: Sendable, Equatable {
    public let imu: ChipInfo
    public let imuConfiguration: IMUConfiguration
    public let magnetometer: ChipInfo?
    public let magnetometerConfiguration: MagnetometerConfiguration?
}

extension MotionManager {
    /// The chips this manager reads and their rates and ranges; nil for a device not made of
    /// chip drivers (tests' scripted devices).
    public var chipSettings: ChipSettings? {
        guard let device = hub.device as? DriverDevice else { return nil }
        return ChipSettings(
            imu: device.imu.chip, imuConfiguration: device.imu.configuration,
            magnetometer: device.magnetometer?.chip, magnetometerConfiguration: device.magnetometer?.configuration)
    }
}
