/// Bosch BMI160 emulator (CHIP_ID 0x00 = 0xD1), at 0x68 or 0x69.
///
/// Both sensors are suspended after power-on and after the CMD soft reset (0xB6); the CMD
/// power-mode commands (0x11 accelerometer, 0x15 gyroscope normal) start them and show in
/// PMU_STATUS. While a sensor runs its data registers (gyroscope 0x0C–0x11, accelerometer
/// 0x12–0x17, little-endian) follow `source` at `now()`; samples come at the output data rate of
/// the chip's clock, setting STATUS drdy_* and, with FIFO_CONFIG_1 sensor bits, appending frames
/// (headerless or with a header byte) to the 1024-byte FIFO, whose oldest frames make room when
/// full (FIFO_LENGTH, FIFO_DATA, CMD 0xB0 flush). SENSORTIME counts the simulation time at
/// 39.0625 µs. Self-test: SELF_TEST's accelerometer bits deflect every axis by ±1.6 g (high
/// amplitude); its gyroscope bit sets STATUS gyr_self_test_ok unless a gyroscope axis is dead.
package final class BMI160Emulator: EngineBackedDevice, ChipEmulator {
    package let chipName = "BMI160"
    let engine: EmulatorEngine<BMI160Chip>

    /// - Parameters:
    ///   - source: what the chip experiences, in the chip's axes.
    ///   - now: simulation time in seconds.
    package init(source: any PhysicalSource, now: @escaping @Sendable () -> Double, options: EmulatorOptions = .init()) {
        engine = EmulatorEngine(BMI160Chip(source: source, options: options), now: now)
    }
}
