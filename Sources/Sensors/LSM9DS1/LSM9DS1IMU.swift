import I2C

/// Driver for the accelerometer and gyroscope of the ST LSM9DS1 (0x6A or 0x6B; the Raspberry Pi
/// Sense HAT has it at 0x6A). Its magnetometer is a separate I2C device at 0x1C/0x1E with the
/// LIS3MDL's register map and identity: ``LIS3MDLMagnetometer`` serves it.
///
/// The register map differs from the LSM6 family (3-bit ODR fields, control registers at
/// 0x10/0x20/0x22, gyroscope output before a gap of control registers, a 32-level FIFO read
/// through the output registers), so it has its own register table (``STRegisterLayout``) and
/// FIFO code; configuration, sample read and self-test are the ST ones (``STIMUDriver``).
package final class LSM9DS1IMU: STIMUDriver {
    /// 119 Hz, ±4 g, ±500 °/s.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 119, accelerometerRange: 4, gyroscopeRange: 500)

    private typealias Register = LSM9DS1Register
    let core: DriverCore<LSM9DS1Settings, IMUState<NoFIFOProgress>>
    /// CTRL_REG1_G (0x10): 0x00 after a reset, the rate and range after ``configure(_:)``.
    static let configuredRegister = LSM9DS1Register.ctrlReg1G
    var layout: STRegisterLayout { LSM9DS1Register.st }

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x6A), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        let settings = LSM9DS1Settings()
        core = DriverCore(bus: bus, address: address, chip: Self.name, .lsm9ds1, identity: settings.identity, settings: settings, pause: pause,
                          resetCompletion: resetCompletion, configuration: defaultConfiguration, scale: IMUScale(accelerometerLSBPerG: 1, gyroscopeLSBPerDPS: 1))
    }

    package static let name = "LSM9DS1"

    // MARK: FIFO

    /// Continuous mode (§3.5.3): bypass first (empties the FIFO), FIFO_EN in CTRL_REG9, then
    /// FMODE = 110. Each level holds a gyroscope and an accelerometer set taken at the same ODR tick.
    package func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in try startFIFO(&state) }
    }

    private func startFIFO(_ state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        try device.write(Register.fifoCtrl, Register.fifoBypass)
        try device.write(Register.ctrlReg9, Register.fifoEnable)
        try device.write(Register.fifoCtrl, Register.fifoContinuous)
        state.restartFIFO()
    }

    /// FIFO_SRC (0x2F): OVRN (bit 6) means the oldest level was overwritten, so the frame count
    /// no longer matches the chip's clock: the FIFO is restarted and the read reports the overflow
    /// (as the LSM6 driver does). Otherwise FSS (5:0) levels are read, oldest first. With the
    /// FIFO on, the output registers show the oldest level (§3.5): each level is read as the
    /// gyroscope set (OUT_X_L_G 0x18, 6 bytes) then the accelerometer set (OUT_X_L_XL 0x28,
    /// 6 bytes), and the FIFO moves on to the next level after the accelerometer set. Two plain
    /// reads per level do not depend on how the address pointer wraps in FIFO mode.
    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            let source = try device.read(Register.fifoSrc)
            if source & Register.fifoOverrun != 0 {
                try startFIFO(&state)
                read.overflowed = true
                return
            }
            let unread = min(Int(source & Register.fifoUnreadMask), settings.fifoDepth)
            for _ in 0..<unread {
                let gyroscope = try device.burst(Register.outXLG, count: 6) { AxisLayout.littleEndian.counts($0) }
                let accelerometer = try device.burst(Register.outXLXL, count: 6) { AxisLayout.littleEndian.counts($0) }
                read.frames.append(FIFOFrame(
                    sampleIndex: state.fifoSamples, sample: state.scale.sample(accelerometer: accelerometer, gyroscope: gyroscope)))
                state.fifoSamples += 1
            }
        }
    }
}
