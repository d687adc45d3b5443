import Fusion
import Sensors
/// One reading of every sensor a device has, in device axes, calibration applied.
struct MotionSample: Sendable, Equatable {
    /// Seconds since boot when the sample was taken.
    var timestamp: Double
    /// g, Core Motion sign, device axes, accelerometer calibration applied.
    var acceleration: SIMD3<Double>
    /// rad/s, device axes, stored gyro bias removed.
    var rotationRate: SIMD3<Double>
    /// µT, device axes, as measured (nil when the device has no magnetometer).
    var magneticField: SIMD3<Double>?
    /// µT, device axes, hard and soft iron removed (nil without a magnetometer calibration).
    var calibratedMagneticField: SIMD3<Double>?
    /// The chips' output registers behind this sample (chip axes, as read) and the IMU's die
    /// temperature (°C), passed on to ``SensorData``; nil when not read from a chip.
    var imuRegisters: RawIMUReading? = nil
    var magnetometerRegisters: RawMagneticReading? = nil
    var temperature: Double? = nil
    /// Device → magnetic East-North-Up from the chip's own sensor fusion (mount matrix applied);
    /// nil for chips without one.
    var chipAttitude: Quaternion? = nil
}

/// The sensors the sampler reads, whatever bus and chips are underneath: the sampler only knows
/// this protocol (docs/ARCHITECTURE.md: nothing above the device knows whether the sample came from I2C, IIO, a replay or the simulator).
protocol MotionDevice: AnyObject, Sendable {
    /// How a person names it in logs and errors: "LSM6DSOX at 0x6A + LIS3MDL at 0x1C on /dev/i2c-1".
    var name: String { get }
    var hasMagnetometer: Bool { get }
    /// False for an accelerometer alone (many laptops' HID sensors): rotation rates are then zero.
    var hasGyroscope: Bool { get }
    /// True when samples carry ``MotionSample/chipAttitude`` (the chip runs its own fusion).
    var hasChipAttitude: Bool { get }
    /// The fastest rate the timer path may poll, in Hz (the chip's ODR bounds it too).
    var maximumTimerRate: Double { get }
    /// How long the readings lag the motion, s (the chip's output filter delay); 0 when unknown.
    var sensorLatency: Double { get }
    /// The largest gyroscope offset the fusion may have to estimate, °/s: the chip's zero-rate
    /// tolerance when its gyroscope is not calibrated, else the filter's default
    /// (`AttitudeFilter.Parameters.biasClip`).
    var gyroscopeBiasRange: Double { get }
    /// Identifies and configures the chips (again, after a reset or a disappearance).
    func initialize() throws(MotionError)
    /// Reads one sample: one bus transaction for the IMU, one for the magnetometer if any.
    func read(at timestamp: Double) throws(MotionError) -> MotionSample
    /// Reads back a configuration register: false when the chip lost its configuration.
    func isStillConfigured() throws(MotionError) -> Bool

    /// The IMU's output data rate in Hz when it can buffer samples in a FIFO; nil without one.
    var fifoRate: Double? { get }
    /// Starts (or restarts) the FIFO; samples are timed from the chip's clock from here on.
    func startFIFO() throws(MotionError)
    /// Every sample waiting in the FIFO, oldest first, each timed from the chip's own clock;
    /// `lost` counts samples the FIFO overflowed past since the previous read.
    func readFIFO(at time: Double) throws(MotionError) -> (samples: [MotionSample], lost: Int)
    /// The same into `samples` (emptied first, its storage kept): the sampler keeps one array, so
    /// a device that implements this reads its FIFO without allocating. Returns `lost`.
    func readFIFO(at time: Double, into samples: inout [MotionSample]) throws(MotionError) -> Int
    /// Nobody reads the FIFO any more (the last consumer left): release what `startFIFO` holds
    /// (an IIO buffer stays enabled in the kernel otherwise). The next FIFO read starts it again.
    func stopFIFO()

    /// True when every FIFO read brings all the samples taken since the previous one (a chip's
    /// FIFO read over the bus; not a kernel buffer that hands them over in batches), so that a
    /// read a sample period or more after the last that finds none means the chip stopped.
    var fifoReadsEverySampleTaken: Bool { get }

    /// True when the magnetometer is a chip of its own that fails and recovers apart from the
    /// IMU: ``read(at:)``, ``readFIFO(at:into:)``, ``initialize()`` and ``isStillConfigured()``
    /// then concern the IMU alone, and the sampler reads the field with ``readMagnetometer()``,
    /// so a magnetometer that is gone leaves the IMU's samples coming (without a field).
    var readsMagnetometerSeparately: Bool { get }
    /// Configures the magnetometer (again, after it vanished or reset).
    func initializeMagnetometer() throws(MotionError)
    /// One magnetometer reading, device axes, calibration applied.
    func readMagnetometer() throws(MotionError) -> MagnetometerReading
    /// Reads back the magnetometer's configuration register: false when it lost its configuration.
    func isMagnetometerStillConfigured() throws(MotionError) -> Bool

    /// The IMU's own step counter, as its chip's descriptor advertises it; nil without one.
    var stepCounter: StepCounterFeature? { get }
    /// Starts the IMU's step counter (again after ``initialize()``: a reset stops it).
    func startStepCounter() throws(MotionError)
    /// The step counter's raw value, 0 ..< ``StepCounterFeature/wrap``.
    func readStepCounter() throws(MotionError) -> Int
}

/// One magnetometer reading, for ``MotionDevice/readMagnetometer()``: what a sample carries of it.
struct MagnetometerReading: Sendable, Equatable {
    /// µT, device axes, as measured.
    var field: SIMD3<Double>
    /// µT, device axes, hard and soft iron removed (nil without a calibration).
    var calibratedField: SIMD3<Double>?
    var registers: RawMagneticReading?
}

extension MotionSample {
    /// The sample with `reading`'s field (nil: without a field, the magnetometer did not answer).
    mutating func setMagnetometer(_ reading: MagnetometerReading?) {
        magneticField = reading?.field
        calibratedMagneticField = reading?.calibratedField
        magnetometerRegisters = reading?.registers
    }
}

extension MotionDevice {
    var hasGyroscope: Bool { true }
    var hasChipAttitude: Bool { false }
    var sensorLatency: Double { 0 }
    var gyroscopeBiasRange: Double { AttitudeFilter.Parameters().biasClip }
    var fifoRate: Double? { nil }
    func startFIFO() throws(MotionError) {
        throw .sensor("\(name) has no FIFO")
    }
    func readFIFO(at time: Double) throws(MotionError) -> (samples: [MotionSample], lost: Int) {
        throw .sensor("\(name) has no FIFO")
    }
    func stopFIFO() {}
    var fifoReadsEverySampleTaken: Bool { false }
    var readsMagnetometerSeparately: Bool { false }
    func initializeMagnetometer() throws(MotionError) {}
    func readMagnetometer() throws(MotionError) -> MagnetometerReading {
        throw .sensor("\(name) reads its magnetometer with its other sensors")
    }
    func isMagnetometerStillConfigured() throws(MotionError) -> Bool { true }
    var stepCounter: StepCounterFeature? { nil }
    func startStepCounter() throws(MotionError) {
        throw .sensor("\(name) has no step counter of its own")
    }
    func readStepCounter() throws(MotionError) -> Int {
        throw .sensor("\(name) has no step counter of its own")
    }
    func readFIFO(at time: Double, into samples: inout [MotionSample]) throws(MotionError) -> Int {
        let (read, lost) = try readFIFO(at: time)
        samples.removeAll(keepingCapacity: true)
        samples.append(contentsOf: read)
        return lost
    }
}
