/// One barometer reading, whatever chip and bus it came from.
package struct BarometerSample: Sendable, Equatable {
    /// Seconds since boot when the reading was taken.
    package var timestamp: Double
    /// Air pressure, Pa.
    package var pressure: Double
    /// The barometer's die temperature, °C.
    package var temperature: Double

    package init(timestamp: Double, pressure: Double, temperature: Double) {
        self.timestamp = timestamp
        self.pressure = pressure
        self.temperature = temperature
    }
}

/// A pressure sensor as the barometer's sampler sees it: nothing above this knows whether the
/// readings come from I2C, IIO, a replay or the simulator (the barometer's ``MotionDevice``).
protocol BarometerDevice: AnyObject, Sendable {
    /// How a person names it in logs and errors: "BMP280 at 0x76 on /dev/i2c-1".
    var name: String { get }
    /// Readings per second the chip makes as configured, Hz: the sampler polls at this rate.
    var rate: Double { get }
    /// Identifies and configures the chip (again, after a reset or a disappearance).
    func initialize() throws(MotionError)
    /// One reading, in one bus transaction.
    func read(at timestamp: Double) throws(MotionError) -> BarometerSample
    /// Reads back a configuration register: false when the chip lost its configuration.
    func isStillConfigured() throws(MotionError) -> Bool
}
