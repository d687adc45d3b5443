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
    private let fifoClock = Locked<(estimator: SampleTimeEstimator, lastRead: Double?)?>(nil)
    /// The driver's last FIFO read, kept so the next one reuses its storage.
    private let fifoRead = Locked(FIFORead(frames: [], overflowed: false))

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

    var fifoRate: Double? { imu.configuration.outputDataRate }

    func startFIFO() throws(MotionError) {
        try Self.mapping { () throws(SensorError) in try imu.enableFIFO() }
        let period = 1 / imu.configuration.outputDataRate
        fifoClock.withLock { $0 = (SampleTimeEstimator(nominalPeriod: period), nil) }
    }

    func readFIFO(at time: Double) throws(MotionError) -> (samples: [MotionSample], lost: Int) {
        var samples: [MotionSample] = []
        let lost = try readFIFO(at: time, into: &samples)
        return (samples, lost)
    }

    func readFIFO(at time: Double, into samples: inout [MotionSample]) throws(MotionError) -> Int {
        samples.removeAll(keepingCapacity: true)
        return try fifoRead.withLock { (read: inout FIFORead) throws(MotionError) -> Int in
            // The magnetometer first: if it fails, the IMU's samples stay in its FIFO for the next
            // read instead of being drained and lost.
            let magnetic = try Self.mapping { () throws(SensorError) in
                let magnetic = try magnetometer?.readSample()
                try imu.readFIFO(into: &read)
                return magnetic
            }
            return fifoClock.withLock { clock in
                let rate = imu.configuration.outputDataRate
                guard let (started, lastRead) = clock else { return 0 }
                var estimator = started
                if read.overflowed {
                    // The driver restarted the FIFO: indices start again, and so does the chip's clock.
                    let lost = lastRead.map { Int(min(max(((time - $0) * rate).rounded(), 0), 1e9)) } ?? 0
                    clock = (SampleTimeEstimator(nominalPeriod: 1 / rate), time)
                    return lost
                }
                guard let last = read.frames.last else {
                    clock = (estimator, time)
                    return 0
                }
                estimator.observe(readAt: time, lastIndex: last.sampleIndex)
                clock = (estimator, time)
                for frame in read.frames {
                    samples.append(motionSample(frame.sample, magnetic, at: estimator.time(ofSample: frame.sampleIndex)))
                }
                return 0
            }
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
            imuRegisters: sample.raw, magnetometerRegisters: magnetic?.raw, temperature: sample.temperature)
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
