import I2C

/// Driver for the TDK InvenSense ICM-45686 accelerometer + gyroscope (I2C 0x68 or 0x69).
///
/// Both sensors run in low-noise mode at one output data rate; samples come from one 14-byte
/// burst of ACCEL_DATA_X1_UI … TEMP_DATA0_UI (little-endian). The chip's FIFO (16- or 20-byte
/// packets, timestamps enabled through an indirect register) is not driven: ``enableFIFO()``
/// throws ``SensorError/notSupported(chip:feature:)`` and the descriptor has no FIFO layout, so
/// the sampler polls the data registers on a timer. No self-test either.
package final class ICM45600IMU: CoreIMUDriver, BusPlacedDriver {
    /// 200 Hz, ±4 g, ±500 °/s.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500)

    let core: DriverCore<ICM45600Settings, IMUState<NoFIFOProgress>>
    /// PWR_MGMT0: 0x00 after a reset (sensors off), low-noise modes after ``configure(_:)``.
    static let configuredRegister = ICM45600Register.powerManagement0

    /// After turning the sensors on (kernel INV_ICM45600_ACCEL_STARTUP_TIME_MS and
    /// INV_ICM45600_GYRO_STARTUP_TIME_MS, both 60).
    static let startupTime = Duration.milliseconds(60)

    package init(bus: any I2CBus, address: I2CAddress, pause: Pause, resetCompletion: ResetCompletion) {
        core = DriverCore(
            bus: bus, address: address, chip: ChipDescriptor.icm45686Name, .icm45600, identity: ICM45600Settings.icm45686Identity,
            settings: ICM45600Settings(), pause: pause, resetCompletion: resetCompletion, configuration: defaultConfiguration,
            scale: IMUScale(accelerometerLSBPerG: 8192, gyroscopeLSBPerDPS: 65.5))
    }

    /// Identify; soft reset; ranges and rates; both sensors to low-noise mode.
    func apply(_ configuration: IMUConfiguration, to state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        state = try program(configuration, settings.tables.optionsWithChipFiltering(for: configuration, chip: chip.name, checkingTablesFirst: true),
                            map: ICM45600Register.map, identity: ICM45600Settings.icm45686Identity)
    }

    /// One 14-byte burst from ACCEL_DATA_X1_UI (0x00): accel, gyro, temperature, little-endian.
    /// Under the driver's lock, so the counts are scaled by the ranges they were read at.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(ICM45600Register.accelDataX, count: ICM45600Register.sampleBytes) { bytes in
                let raw = Int16(bitPattern: UInt16(bytes[12]) | UInt16(bytes[13]) << 8)
                return state.scale.sample(
                    accelerometer: AxisLayout.littleEndian.counts(bytes, from: 0), gyroscope: AxisLayout.littleEndian.counts(bytes, from: 6),
                    temperature: Double(raw) / ICM45600Settings.temperatureLSBPerDegree + 25)
            }
        }
    }

    package func enableFIFO() throws(SensorError) {
        throw .notSupported(chip: chip.name, feature: "FIFO in this driver (the data registers are polled)")
    }

    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        throw .notSupported(chip: chip.name, feature: "FIFO in this driver (the data registers are polled)")
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test in this driver")
    }
}
