// The contracts every chip driver meets: what the sampler, the checks and the CLI call on an IMU
// or a magnetometer, whichever chip it is (a chip's ChipDescriptor builds its driver).

/// What every chip driver does, whatever the chip senses: configure it, read a sample, notice a
/// lost configuration, run its self-test.
package protocol ChipDriver<Configuration, Sample>: AnyObject, Sendable {
    /// Rates and ranges (``IMUConfiguration``, ``MagnetometerConfiguration``).
    associatedtype Configuration: Sendable
    /// One reading (``IMUSample``, ``MagneticSample``).
    associatedtype Sample: Sendable
    var chip: ChipInfo { get }
    /// A sensible configuration for this chip: for an IMU ±4 g or the nearest, ±500 °/s, ODR ≥
    /// 100 Hz; for a magnetometer its fastest continuous rate up to 100 Hz and a range covering
    /// the Earth's field.
    var defaultConfiguration: Configuration { get }
    /// The configuration last applied.
    var configuration: Configuration { get }
    /// Resets the chip (where it can) and applies `configuration`; an IMU checks its identity
    /// first, and its reset stops the FIFO: call ``IMUDriver/enableFIFO()`` again afterwards.
    func configure(_ configuration: Configuration) throws(SensorError)
    /// Reads one sample in one bus transaction (an IMU: exactly one).
    func readSample() throws(SensorError) -> Sample
    /// Reads back one configuration register: false when the chip lost its configuration (e.g. it
    /// reset itself after a brown-out).
    func isStillConfigured() throws(SensorError) -> Bool
    /// Runs the datasheet self-test, then restores the configuration (an IMU's FIFO stopped, as
    /// after ``configure(_:)``): keep the chip still while it runs. Throws
    /// ``SensorError/notSupported(chip:feature:)`` on a chip without one.
    func selfTest() throws(SensorError) -> SelfTestReport
}

/// An accelerometer + gyroscope driver.
package protocol IMUDriver: ChipDriver where Configuration == IMUConfiguration, Sample == IMUSample {
    /// How long the gyroscope's output lags the motion with the configuration applied, s: the
    /// group delay of the chip's output low-pass filter, from its datasheet; 0 where the datasheet
    /// gives none. The attitude filter looks this far ahead (``AttitudeFilter``'s `sensorLatency`).
    var outputDelay: Double { get }
    /// Starts the FIFO at the output data rate, with accelerometer and gyroscope in every frame.
    /// A chip without a FIFO (``hasFIFO`` false) throws ``SensorError/notSupported(chip:feature:)``.
    func enableFIFO() throws(SensorError)
    /// Reads every whole frame waiting in the FIFO into `read`, replacing what it held but keeping
    /// its frames' storage: a caller that keeps one `FIFORead` allocates nothing per read
    /// (``readFIFO()`` is built on it). A chip without a FIFO throws
    /// ``SensorError/notSupported(chip:feature:)``.
    func readFIFO(into read: inout FIFORead) throws(SensorError)
    /// The driver of a magnetometer that is part of this chip and read with its samples (same
    /// address, same registers); nil when the magnetometer, if any, is found on the bus.
    var companionMagnetometer: (any MagnetometerDriver)? { get }
    /// True when ``readSample()`` fills ``IMUSample/chipOrientation`` (the chip fuses its sensors itself).
    var providesChipOrientation: Bool { get }
}

extension IMUDriver {
    package var companionMagnetometer: (any MagnetometerDriver)? { nil }
    package var providesChipOrientation: Bool { false }
}

extension IMUDriver {
    /// Whether the chip has a FIFO, as its descriptor says (``ChipDescriptor/fifo``): false for a
    /// chip without one (``enableFIFO()`` and ``readFIFO(into:)`` then throw
    /// ``SensorError/notSupported(chip:feature:)``; a sampler polls it on a timer) and for a chip
    /// the registry does not know.
    package var hasFIFO: Bool { chip.descriptor?.fifo != nil }

    /// Whether the chip has a gyroscope, as its descriptor says (``ChipDescriptor/hasGyroscope``):
    /// false for an accelerometer alone (its samples' rotation rate is zero); true for a chip the
    /// registry does not know.
    package var hasGyroscope: Bool { chip.descriptor?.hasGyroscope ?? true }

    /// Reads every whole frame waiting in the FIFO, into a new ``FIFORead``.
    package func readFIFO() throws(SensorError) -> FIFORead {
        var read = FIFORead(frames: [], overflowed: false)
        try readFIFO(into: &read)
        return read
    }

    package var outputDelay: Double { 0 }
}

/// A magnetometer driver.
package protocol MagnetometerDriver: ChipDriver where Configuration == MagnetometerConfiguration, Sample == MagneticSample {}

/// One barometer reading: the compensated pressure and the die temperature the compensation used.
package struct PressureSample: Sendable, Equatable {
    /// Pressure, Pa.
    package var pressure: Double
    /// Die temperature, °C.
    package var temperature: Double

    package init(pressure: Double, temperature: Double) {
        self.pressure = pressure
        self.temperature = temperature
    }
}

/// How a barometer is run: its oversampling, IIR filter and standby between measurements.
package struct BarometerConfiguration: Sendable, Equatable {
    /// Pressure oversampling (×1, ×2, ×4, ×8, ×16).
    package var pressureOversampling: Int
    /// Temperature oversampling (×1, ×2, ×4, ×8, ×16).
    package var temperatureOversampling: Int
    /// IIR filter coefficient (0 = off, 2, 4, 8, 16).
    package var filterCoefficient: Int
    /// Standby between measurements in normal mode, ms.
    package var standby: Double

    package init(pressureOversampling: Int, temperatureOversampling: Int, filterCoefficient: Int, standby: Double) {
        self.pressureOversampling = pressureOversampling
        self.temperatureOversampling = temperatureOversampling
        self.filterCoefficient = filterCoefficient
        self.standby = standby
    }
}

/// A pressure sensor's driver (``ChipDriver/readSample()`` gives Pa and °C).
package protocol BarometerDriver: ChipDriver where Configuration == BarometerConfiguration, Sample == PressureSample {
    /// Measurements per second with the configuration applied (normal mode: the measurement time
    /// plus the standby, from the datasheet); nil where the driver does not say (the sampler
    /// then polls at a rate of its own).
    var outputDataRate: Double? { get }
}

extension BarometerDriver {
    package var outputDataRate: Double? { nil }
}
