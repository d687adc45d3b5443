/// One scalar IIO channel in its sysfs-bus-iio form: `in_<type>_input` (processed, already in the
/// ABI's unit), or `in_<type>_raw` with `in_<type>_scale` and `in_<type>_offset`, read as
/// (raw + offset) × scale.
package struct IIOScalarChannel: Sendable, Equatable {
    /// The `_input` or `_raw` file.
    package var valuePath: String
    package var processed: Bool
    package var scale: Double
    package var offset: Double

    /// The channel `in_<type>` under `directory`; nil when the device has neither form.
    static func read(type: String, directory: String) throws(IIOError) -> IIOScalarChannel? {
        let stem = "\(directory)/in_\(type)"
        if SysfsFiles.exists("\(stem)_input") {
            return IIOScalarChannel(valuePath: "\(stem)_input", processed: true, scale: 1, offset: 0)
        }
        guard SysfsFiles.exists("\(stem)_raw") else { return nil }
        let scale = SysfsFiles.exists("\(stem)_scale") ? try SysfsFiles.number("\(stem)_scale") : 1
        let offset = SysfsFiles.exists("\(stem)_offset") ? try SysfsFiles.number("\(stem)_offset") : 0
        guard scale > 0 else { throw IIOError(.badValue, path: "\(stem)_scale", detail: "scale \(scale) is not positive", hint: "the driver broke the IIO ABI: report it") }
        return IIOScalarChannel(valuePath: "\(stem)_raw", processed: false, scale: scale, offset: offset)
    }

    /// The channel's value in the ABI's unit.
    package func read() throws(IIOError) -> Double {
        let value = try SysfsFiles.number(valuePath)
        return processed ? value : (value + offset) * scale
    }
}

/// A barometer the kernel drives (bmp280, st_pressure, dps310, ms5611 …): its pressure channel
/// and its temperature channel when it has one. The sysfs-bus-iio ABI gives pressure in kPa and
/// temperature in m°C, whether a driver exposes them processed (`in_pressure_input`: bmp280,
/// dps310) or raw with a scale (`in_pressure_raw` × `in_pressure_scale`, and
/// (`in_temp_raw` + `in_temp_offset`) × `in_temp_scale`: st_pressure).
package struct IIOBarometer: Sendable, Equatable {
    package var directory: String
    /// `iio:deviceN`.
    package var id: String
    /// The driver's `name`: `bmp280`, `lps25h`, `dps310` …
    package var name: String
    package var pressure: IIOScalarChannel
    package var temperature: IIOScalarChannel?

    /// Reads `directory`; nil when it has no pressure channel.
    package static func read(directory: String) throws(IIOError) -> IIOBarometer? {
        guard let pressure = try IIOScalarChannel.read(type: "pressure", directory: directory) else { return nil }
        let temperature = try IIOScalarChannel.read(type: "temp", directory: directory)
        let name = try SysfsFiles.read("\(directory)/name")
        let id = String(directory.split(separator: "/").last ?? Substring(directory))
        return IIOBarometer(directory: directory, id: id, name: name, pressure: pressure, temperature: temperature)
    }

    /// Every `iio:deviceN` under `root` with a pressure channel, in index order; a device whose
    /// attributes cannot be read is left out and its error returned in `problems`.
    package static func devices(root: String = IIODiscovery.defaultRoot) -> (devices: [IIOBarometer], problems: [IIOError]) {
        var devices: [IIOBarometer] = []
        var problems: [IIOError] = []
        for entry in SysfsFiles.entries(root) where entry.hasPrefix("iio:device") {
            do throws(IIOError) {
                if let device = try read(directory: "\(root)/\(entry)") { devices.append(device) }
            } catch {
                problems.append(error)
            }
        }
        return (devices, problems)
    }

    /// Pressure in Pa and temperature in °C (nil without a temperature channel), from the ABI's
    /// kPa and m°C. A pressure that is not positive is a `badValue`.
    package func read() throws(IIOError) -> (pascal: Double, celsius: Double?) {
        let kilopascal = try pressure.read()
        guard kilopascal > 0 else {
            throw IIOError(.badValue, path: pressure.valuePath, detail: "pressure \(kilopascal) kPa is not positive",
                           hint: "the driver broke the IIO ABI, or the chip is not measuring: report it")
        }
        let milliCelsius = try temperature?.read()
        return (kilopascal * 1000, milliCelsius.map { $0 / 1000 })
    }
}
