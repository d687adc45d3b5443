/// The Bosch BME280 on a simulated bus, measuring `atmosphere(time)`: the BMP280's register model
/// (``BMP280Chip``) with CHIP_ID 0x60 (BST-BME280-DS002 §5.4.1) and ctrl_hum, from the BME280
/// datasheet alone. It holds the BMP280 datasheet example's trimming parameters (the BME280's
/// datasheet gives no worked example; its compensation of pressure and temperature is the same).
/// Humidity is not modelled: its readings hold 0x8000. Seeded, it has the BME280's pressure noise
/// and offset temperature coefficient (``BMP280Chip``).
package final class BME280Emulator: EngineBackedDevice {
    let engine: EmulatorEngine<BMP280Chip>
    package var chipName: String { "BME280" }

    /// - Parameters:
    ///   - atmosphere: the true pressure (Pa) and temperature (°C) at a simulation time (s).
    ///   - now: simulation time, s.
    ///   - noiseSeed: seed of the chip's pressure noise and temperature offset; nil: none (quantisation only).
    package init(
        atmosphere: @escaping @Sendable (Double) -> (pressure: Double, temperature: Double), now: @escaping @Sendable () -> Double,
        noiseSeed: UInt64? = nil
    ) {
        engine = EmulatorEngine(BMP280Chip(identity: 0x60, atmosphere: atmosphere, noiseSeed: noiseSeed), now: now)
    }
}
