import I2C
import Sensors

/// A barometer chip driven by this library's driver (``Sensors/BarometerDriver``), on any bus.
final class DriverBarometer: BarometerDevice {
    let driver: any BarometerDriver
    let name: String
    let rate: Double
    /// The rate a barometer whose driver names none is polled at, Hz: about the BMP280's
    /// indoor-navigation rate (26.3 Hz).
    static let fallbackRate = 25.0

    init(driver: any BarometerDriver, busName: String) {
        self.driver = driver
        self.name = "\(driver.chip.name) at \(driver.chip.address) on \(busName)"
        self.rate = driver.outputDataRate ?? Self.fallbackRate
    }

    func initialize() throws(MotionError) {
        try DriverDevice.mapping { () throws(SensorError) in try driver.configure(driver.configuration) }
    }

    func read(at timestamp: Double) throws(MotionError) -> BarometerSample {
        let sample = try DriverDevice.mapping { () throws(SensorError) in try driver.readSample() }
        return BarometerSample(timestamp: timestamp, pressure: sample.pressure, temperature: sample.temperature)
    }

    func isStillConfigured() throws(MotionError) -> Bool {
        try DriverDevice.mapping { () throws(SensorError) in try driver.isStillConfigured() }
    }

    /// The first barometer of ``Sensors/ChipRegistry/barometers`` that answers on `bus` at one of
    /// `addresses` (by default the registry's scan order), configured with its driver's default
    /// settings; nil when none answers.
    static func find(
        on bus: any I2CBus, addresses: [I2CAddress] = ChipRegistry.barometerScanAddresses, pause: Pause = .system
    ) throws(MotionError) -> DriverBarometer? {
        for address in addresses {
            let chip = try DriverDevice.mapping { () throws(SensorError) in
                try ChipCatalog.identify(bus: bus, address: address, pause: pause, among: ChipRegistry.barometers)
            }
            guard let chip, let driver = chip.descriptor?.makeBarometer(bus: bus, address: address, pause: pause) else { continue }
            try DriverDevice.mapping { () throws(SensorError) in try driver.configure(driver.defaultConfiguration) }
            return DriverBarometer(driver: driver, busName: bus.name)
        }
        return nil
    }
}
