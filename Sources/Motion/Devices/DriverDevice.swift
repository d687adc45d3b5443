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
    let backgroundCalibration: BackgroundCalibration?
    let name: String
    let maximumTimerRate: Double
    /// The IMU's output delay at the configuration it was opened with (as `maximumTimerRate`):
    /// read once, not under the driver's lock on every sample.
    let sensorLatency: Double
    let gyroscopeBiasRange: Double
    /// The chip's clock as seen through its FIFO, and when the FIFO was last read.
    private let fifoClock = Locked<FIFOClock?>(nil)
    /// Whether FIFO samples are timed by the chip's timestamps where its FIFO has them (else by
    /// their indices alone); off only to compare the two.
    let timesFIFOByChipTimestamps = Locked(true)
    /// The driver's last FIFO read, kept so the next one reuses its storage.
    private let fifoRead = Locked(FIFORead(frames: [], overflowed: false))

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

        /// Takes one FIFO read made at `time` from a chip sampling at `rate`: hands each frame
        /// with the time it was taken to `deliver`, oldest first. Returns the samples lost to an
        /// overflow: the chip's own count when it kept frames after the gap (they are delivered),
        /// else the time since the last read at `rate`.
        mutating func take(
            _ read: FIFORead, readAt time: Double, rate: Double, byChipTime: Bool, _ deliver: (FIFOFrame, Double) -> Void
        ) -> Int {
            if read.overflowed, read.frames.isEmpty {
                // At least the frames the chip counted as dropped, before any read too.
                let lost = max(lastRead.map { Int(min(max(((time - $0) * rate).rounded(), 0), 1e9)) } ?? 0, read.skippedFrames)
                // The driver restarted the FIFO: its indices start again. Timed by the chip's
                // timestamps, which run on, the estimate of the chip's clock is kept; by indices
                // alone it starts again.
                if timeline == nil { self = FIFOClock(period: 1 / rate) }
                lastRead = time
                return lost
            }
            lastRead = time
            // Frames after a gap the chip counted (the BMI160's skip frame): numbered past it.
            let lost = read.overflowed ? read.skippedFrames : 0
            guard let first = read.frames.first, let last = read.frames.last else { return lost }
            var timed = false
            if byChipTime, let firstTime = first.chipTime, let lastTime = last.chipTime,
               read.frames.allSatisfy({ $0.chipTime != nil }) {
                if timeline == nil {
                    // Index numbering so far is not the chip's: the estimate starts on the new one.
                    estimator = SampleTimeEstimator(nominalPeriod: 1 / rate)
                    timeline = ChipTimeline(nominalPeriod: 1 / rate, wrap: read.chipClockWrap)
                }
                timeline?.observeRead(first: firstTime, newest: lastTime, readAt: time)
                timed = true
            }
            estimator.observe(readAt: time, lastPosition: position(of: last, timed: timed))
            for frame in read.frames { deliver(frame, estimator.time(ofPosition: position(of: frame, timed: timed))) }
            return lost
        }

        /// Where `frame` lies on the chip's clock, in sample periods: by its timestamp when the
        /// read was `timed`, else by its index.
        private func position(of frame: FIFOFrame, timed: Bool) -> Double {
            if timed, let timeline, let chipTime = frame.chipTime { return timeline.position(of: chipTime) }
            return Double(frame.sampleIndex)
        }
    }

    init(
        imu: any IMUDriver, magnetometer: (any MagnetometerDriver)?, correction: SensorCorrection, busName: String,
        imuIdentity: SensorIdentity, magnetometerIdentity: SensorIdentity?, backgroundCalibration: BackgroundCalibration? = nil
    ) {
        self.backgroundCalibration = backgroundCalibration
        self.imu = imu
        self.magnetometer = magnetometer
        self.correction = correction
        self.imuIdentity = imuIdentity
        self.magnetometerIdentity = magnetometerIdentity
        self.name = ([imu.chip] + (magnetometer.map { [$0.chip] } ?? [])).map { "\($0.name) at \($0.address)" }
            .joined(separator: " + ") + " on \(busName)"
        self.maximumTimerRate = min(100, imu.configuration.outputDataRate)
        self.sensorLatency = imu.outputDelay
        // An MPU-6050's gyroscope may be 20 °/s off (PS-MPU-6000A §6.1); a filter that estimates at
        // most 2 °/s would leave the rest turning the attitude for ever (each chip's descriptor cites
        // its figure). A stored gyroscope calibration leaves only what drifts since.
        let zeroRateTolerance = correction.gyroBias == .zero ? imu.chip.descriptor?.gyroRestLimits?.biasDPS : nil
        self.gyroscopeBiasRange = max(AttitudeFilter.Parameters().biasClip, zeroRateTolerance ?? 0)
    }

    var hasMagnetometer: Bool { magnetometer != nil }
    var hasGyroscope: Bool { imu.hasGyroscope }
    var hasChipAttitude: Bool { imu.providesChipOrientation }

    /// The IMU alone: the magnetometer is set up, read and checked on its own
    /// (``readsMagnetometerSeparately``), so that one failing leaves the other working.
    func initialize() throws(MotionError) {
        try Self.mapping { () throws(SensorError) in try imu.configure(imu.configuration) }
    }

    func read(at timestamp: Double) throws(MotionError) -> MotionSample {
        try Self.mapping { () throws(SensorError) in motionSample(try imu.readSample(), at: timestamp) }
    }

    func isStillConfigured() throws(MotionError) -> Bool {
        try Self.mapping { () throws(SensorError) in try imu.isStillConfigured() }
    }

    var readsMagnetometerSeparately: Bool { magnetometer != nil }
    var fifoReadsEverySampleTaken: Bool { true }

    func initializeMagnetometer() throws(MotionError) {
        guard let magnetometer else { return }
        try Self.mapping { () throws(SensorError) in try magnetometer.configure(magnetometer.configuration) }
    }

    func readMagnetometer() throws(MotionError) -> MagnetometerReading {
        guard let magnetometer else { throw .sensor("\(name) has no magnetometer") }
        let magnetic = try Self.mapping { () throws(SensorError) in try magnetometer.readSample() }
        return MagnetometerReading(
            field: correction.magneticField(magnetic.field), calibratedField: correction.calibratedMagneticField(magnetic.field),
            registers: magnetic.raw)
    }

    func isMagnetometerStillConfigured() throws(MotionError) -> Bool {
        guard let magnetometer else { return true }
        return try Self.mapping { () throws(SensorError) in try magnetometer.isStillConfigured() }
    }

    /// nil for a chip without a FIFO: the sampler then polls it on its timer.
    var fifoRate: Double? { imu.hasFIFO ? imu.configuration.outputDataRate : nil }

    func startFIFO() throws(MotionError) {
        try Self.mapping { () throws(SensorError) in try imu.enableFIFO() }
        let period = 1 / imu.configuration.outputDataRate
        fifoClock.withLock { $0 = FIFOClock(period: period) }
    }

    func readFIFO(at time: Double) throws(MotionError) -> (samples: [MotionSample], lost: Int) {
        var samples: [MotionSample] = []
        let lost = try readFIFO(at: time, into: &samples)
        return (samples, lost)
    }

    /// ``readFIFO(at:)`` into `samples` (emptied first, its storage kept): no allocation once it
    /// has grown to a read's worth.
    func readFIFO(at time: Double, into samples: inout [MotionSample]) throws(MotionError) -> Int {
        samples.removeAll(keepingCapacity: true)
        let byChipTime = timesFIFOByChipTimestamps.withLock { $0 }
        return try fifoRead.withLock { (read: inout FIFORead) throws(MotionError) -> Int in
            // The IMU alone: the sampler reads the magnetometer apart (``readMagnetometer()``).
            try Self.mapping { () throws(SensorError) in try imu.readFIFO(into: &read) }
            // The clock is changed where it lies: a copy would share the estimator's storage and
            // copy it on the first change, once per read.
            return fifoClock.withLock { clock in
                clock?.take(read, readAt: time, rate: imu.configuration.outputDataRate, byChipTime: byChipTime) { frame, timestamp in
                    samples.append(motionSample(frame.sample, at: timestamp))
                } ?? 0
            }
        }
    }

    /// The IMU's reading corrected into device axes, with the registers it came from (the field
    /// is the sampler's to add: ``readMagnetometer()``).
    private func motionSample(_ sample: IMUSample, at timestamp: Double) -> MotionSample {
        MotionSample(
            timestamp: timestamp,
            acceleration: correction.acceleration(sample.acceleration),
            rotationRate: correction.rotationRate(sample.rotationRate),
            magneticField: nil, calibratedMagneticField: nil,
            imuRegisters: sample.raw, temperature: sample.temperature,
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
package struct ChipSettings: Sendable, Equatable {
    package let imu: ChipInfo
    package let imuConfiguration: IMUConfiguration
    package let magnetometer: ChipInfo?
    package let magnetometerConfiguration: MagnetometerConfiguration?
}
