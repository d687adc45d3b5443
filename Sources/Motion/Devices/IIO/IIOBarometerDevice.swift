import IIO

/// A barometer the Linux kernel drives (bmp280, st_pressure, dps310, ms5611 …), read through its
/// sysfs channels (``IIO/IIOBarometer``): pressure from kPa, temperature from m°C. The kernel
/// owns the chip's configuration, so there is nothing to configure or to find lost.
final class IIOBarometerDevice: BarometerDevice {
    let device: IIOBarometer
    let name: String
    let rate: Double

    /// The rate a driver is polled at when it gives no `sampling_frequency`, Hz (a choice, not a
    /// chip's figure: a sysfs read of a forced-mode driver such as bmp280 waits for a conversion).
    static let fallbackRate = 10.0
    /// The fastest it is polled at, Hz: a BMP280's indoor-navigation rate (26.3 Hz, BMP280
    /// datasheet §3.4 Table 7) rounded down; faster sysfs reads repeat the driver's last value.
    static let maximumRate = 25.0

    init(_ device: IIOBarometer) {
        self.device = device
        name = "\(device.name) (Linux IIO driver, \(device.id))"
        let frequency = ["in_pressure_sampling_frequency", "sampling_frequency"]
            .map { "\(device.directory)/\($0)" }
            .first(where: SysfsFiles.exists)
            .flatMap { path in
                do throws(IIOError) { return try SysfsFiles.number(path) } catch { return nil }
            }
        rate = frequency.map { min(max($0, 1), Self.maximumRate) } ?? Self.fallbackRate
    }

    /// The barometer `selection` picks under its root: the device whose `name` is the
    /// selection's, else (no name, or the name is an IMU's) the first with a pressure channel.
    /// - Throws: ``MotionError/sensorNotAvailable(_:)`` naming the root when there is none, with
    ///   the first device whose attributes could not be read.
    static func find(_ selection: IIOSelection) throws(MotionError) -> IIOBarometerDevice {
        let (devices, problems) = IIOBarometer.devices(root: selection.root)
        if let named = selection.name, let device = devices.first(where: { $0.name == named }) { return IIOBarometerDevice(device) }
        guard let first = devices.first else {
            throw .sensorNotAvailable(
                "no IIO device with a pressure channel under \(selection.root)"
                    + (problems.first.map { " (\($0))" } ?? "")
                    + "; load the kernel's driver (e.g. `sudo modprobe bmp280-i2c`) and bind it, or pass the board instead (`--board`)")
        }
        return IIOBarometerDevice(first)
    }

    func initialize() throws(MotionError) {
        do throws(IIOError) {
            guard try IIOBarometer.read(directory: device.directory) != nil else {
                throw IIOError(.noDevice, path: device.directory, detail: "no pressure channel any more", hint: "check that the driver is still bound")
            }
        } catch {
            throw .iio(error)
        }
    }

    /// One reading: pressure in Pa, temperature in °C (not a number when the driver has no
    /// temperature channel).
    func read(at timestamp: Double) throws(MotionError) -> BarometerSample {
        do throws(IIOError) {
            let reading = try device.read()
            return BarometerSample(timestamp: timestamp, pressure: reading.pascal, temperature: reading.celsius ?? .nan)
        } catch {
            throw .iio(error)
        }
    }

    func isStillConfigured() throws(MotionError) -> Bool { true }
}
