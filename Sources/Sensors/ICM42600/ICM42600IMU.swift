import I2C

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Driver for the TDK InvenSense ICM-42688-P accelerometer + gyroscope (I2C 0x68 or 0x69).
///
/// Both sensors run in low-noise mode at one output data rate. Samples come from one burst of
/// TEMP_DATA1 … GYRO_DATA_Z0; the FIFO runs in stream mode with 16-byte packets (packet 3:
/// accelerometer, gyroscope, 8-bit temperature and the chip's 16-bit timestamp). FIFO frames are
/// numbered in order (``FIFOFrame/sampleIndex``) like the other drivers' frames and carry the
/// packets' timestamps as ``FIFOFrame/chipTime`` (1 µs LSB, unwrapped from frame to frame), read
/// in the same FIFO burst.
package final class ICM42600IMU: CoreIMUDriver {
    /// 200 Hz, ±4 g, ±500 °/s.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500)

    typealias State = IMUState<ICMFIFOPacket.Progress>
    let core: DriverCore<ICM42600Settings, State>
    /// PWR_MGMT0 (0x4E): 0x00 after a reset (sensors off), low-noise modes after ``configure(_:)``.
    static let configuredRegister = ICM42600Register.powerManagement0

    /// After turning the sensors on: the gyroscope needs its start-up time before data are valid
    /// (kernel INV_ICM42600_GYRO_STARTUP_TIME_MS = 60; the datasheet asks ≥ 200 µs before any
    /// register write after a PWR_MGMT0 change).
    static let startupTime = Duration.milliseconds(60)
    /// Most packets per FIFO_DATA read (fewer on a bus with a shorter read limit).
    static let fifoChunkPackets = 8

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x68), model: ICM42600Model, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        let settings = ICM42600Settings.settings(for: model)
        core = DriverCore(bus: bus, address: address, chip: model.rawValue, .icm42600, identity: settings.identity, settings: settings, pause: pause,
                          resetCompletion: resetCompletion, configuration: defaultConfiguration, scale: IMUScale(accelerometerLSBPerG: 8192, gyroscopeLSBPerDPS: 65.5))
    }

    /// The gyroscope's delay at the configured output data rate (the default's before
    /// ``configure(_:)``): ``ICM42600Settings/gyroscopeDelay(rate:)``.
    package var outputDelay: Double {
        ICM42600Settings.gyroscopeDelay(rate: core.configuration.outputDataRate)
    }

    /// Identify; soft reset; rates and ranges; both sensors to low-noise mode.
    func apply(_ configuration: IMUConfiguration, to state: inout State) throws(SensorError) {
        state = try program(configuration, settings.tables.optionsWithChipFiltering(for: configuration, chip: chip.name, checkingTablesFirst: true),
                            map: ICM42600Register.map, identity: settings.identity)
    }

    /// One 14-byte burst from TEMP_DATA1 (0x1D) to GYRO_DATA_Z0 (0x2A): temperature, accel, gyro,
    /// big-endian. Under the driver's lock, so the counts are scaled by the ranges they were
    /// read at even while another thread reconfigures.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(ICM42600Register.temperatureHigh, count: 14) { bytes in
                state.scale.sample(
                    accelerometer: AxisLayout.bigEndian.counts(bytes, from: 2), gyroscope: AxisLayout.bigEndian.counts(bytes, from: 8),
                    temperature: Double(int16BE(bytes, 0)) / settings.temperatureLSBPerDegree + 25)
            }
        }
    }

    // MARK: FIFO (DS-000347 §6 FIFO; kernel inv_icm42600_buffer.c)

    /// Bypass (empties the FIFO), flush, accelerometer + gyroscope + temperature in every packet,
    /// then stream mode.
    package func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in try startFIFO(&state) }
    }

    private func startFIFO(_ state: inout State) throws(SensorError) {
        try device.write(ICM42600Register.fifoConfig, ICM42600Register.fifoMode.setting(ICM42600Register.fifoBypass, in: 0))
        try device.write(ICM42600Register.signalPathReset, ICM42600Register.fifoFlush)
        try device.write(ICM42600Register.fifoConfig1, ICM42600Register.fifoAccelGyroTemperature)
        try device.write(ICM42600Register.fifoConfig, ICM42600Register.fifoMode.setting(ICM42600Register.fifoStream, in: 0))
        state.restartFIFO()
    }

    /// INT_STATUS and FIFO_COUNT in one 3-byte read (0x2D…0x2F); after FIFO_FULL the FIFO is
    /// restarted instead of read (old packets were overwritten). Otherwise whole 16-byte packets,
    /// in order, each header checked: the empty marker ends the read; a packet whose ODR-change
    /// flag is set after the first one means someone changed the rate under the driver, so the
    /// FIFO is restarted and reported like an overflow (no frames, indices from 0 again); a sensor's −32768 on all axes (not yet valid,
    /// e.g. during the gyroscope's start-up) skips the frame but keeps its index.
    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            let (full, packets) = try device.burst(ICM42600Register.interruptStatus, count: 3) { status in
                (status[0] & ICM42600Register.fifoFullInterrupt != 0, (Int(status[1]) << 8 | Int(status[2])) / ICMFIFOPacket.size)
            }
            if full {
                try startFIFO(&state)
                read.overflowed = true
                return
            }
            let rateChanged = try settings.fifoPacket.read(
                packets, from: ICM42600Register.fifoData, chunkPackets: Self.fifoChunkPackets, device: device, state: &state, into: &read)
            if rateChanged {
                // As after an overflow: the indices start again, so the frames of the old
                // numbering are not handed out with the restart.
                try startFIFO(&state)
                read.restart(overflowed: true)
            }
        }
    }

    // MARK: Self-test

    /// The self-test procedure of the datasheet (DS-000347 §14 SELF_TEST_CONFIG, factory codes
    /// XG/YG/ZG_ST_DATA in bank 1 and XA/YA/ZA_ST_DATA in bank 2) in the steps of TDK's reference
    /// driver (Icm426xxSelfTest.c): both sensors at 1 kHz in low-noise mode, gyroscope at
    /// ±250 °/s, accelerometer at ±4 g; 200 samples averaged without and with self-test
    /// (gyroscope EN_GX/GY/GZ after 200 ms, accelerometer EN_AX/AY/AZ + ACCEL_ST_POWER after
    /// 25 ms); the responses compared with the factory values; then the chip is reset and the
    /// configuration restored. The digital filters are left at their reset values.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { state throws(SensorError) in
            let name = chip.name
            let tables = settings.tables
            let rate = try tables.rate(1000, chip: name)
            let gyroscopeRange = try tables.gyroscopeRange(250, chip: name)
            let accelerometerRange = try tables.accelerometerRange(4, chip: name)
            typealias Register = ICM42600Register
            try device.write(Register.gyroConfig0, Register.map.gyroscopeRange.setting(gyroscopeRange.code, in: Register.map.gyroscopeRate.setting(rate.code, in: 0)))
            try device.write(Register.accelConfig0, Register.map.accelerometerRange.setting(accelerometerRange.code, in: Register.map.accelerometerRate.setting(rate.code, in: 0)))
            try device.write(Register.selfTestConfig, 0)
            try device.write(Register.powerManagement0, state.shadow[Register.powerManagement0])
            core.pause.wait(Self.startupTime)

            let gyroscopeOff = try selfTestAverage(gyroscope: true)
            try device.write(Register.selfTestConfig, ICM42600SelfTest.gyroscopeEnable)
            core.pause.wait(.milliseconds(200))
            let gyroscopeOn = try selfTestAverage(gyroscope: true)
            try device.write(Register.selfTestConfig, 0)
            core.pause.wait(.milliseconds(25))
            let accelerometerOff = try selfTestAverage(gyroscope: false)
            try device.write(Register.selfTestConfig, ICM42600SelfTest.accelerometerEnable)
            core.pause.wait(.milliseconds(25))
            let accelerometerOn = try selfTestAverage(gyroscope: false)
            try device.write(Register.selfTestConfig, 0)

            let gyroscopeCodes = try readBanked(Register.gyroSelfTestData)
            let accelerometerCodes = try readBanked(Register.accelSelfTestData)
            let report = ICM42600SelfTest.evaluate(
                chip: name,
                gyroscopeOffset: gyroscopeOff / gyroscopeRange.sensitivity,
                gyroscopeResponse: gyroscopeOn - gyroscopeOff, gyroscopeCodes: gyroscopeCodes,
                accelerometerResponse: accelerometerOn - accelerometerOff, accelerometerCodes: accelerometerCodes)
            return report
        }
    }

    /// Samples averaged per self-test phase (the reference driver's SELFTEST_SAMPLES_NUMBER).
    static let selfTestSamples = 200

    /// 200 samples (after one discarded) of one sensor from the burst, 1 ms apart, in counts.
    private func selfTestAverage(gyroscope: Bool) throws(SensorError) -> SIMD3<Double> {
        try core.averageDiscardingFirst(count: Self.selfTestSamples, interval: .milliseconds(1)) { () throws(SensorError) in
            AxisLayout.bigEndian.counts(try device.read(ICM42600Register.temperatureHigh, count: 14), from: gyroscope ? 8 : 2)
        }
    }

    /// Three registers of another bank: REG_BANK_SEL there, one read, back to bank 0 (also when
    /// the read fails: every other access of the driver is to bank 0).
    private func readBanked(_ location: (bank: UInt8, register: UInt8)) throws(SensorError) -> [UInt8] {
        try device.write(ICM42600Register.bankSelect, location.bank)
        let bytes: [UInt8]
        do {
            bytes = try device.read(location.register, count: 3)
        } catch {
            // The read's error is the one to report; a failing bank reset adds nothing to it.
            do { try device.write(ICM42600Register.bankSelect, 0) } catch {}
            throw error
        }
        try device.write(ICM42600Register.bankSelect, 0)
        // A short read counts as "no factory code" rather than trapping.
        return Array((bytes + [0, 0, 0]).prefix(3))
    }
}

/// Self-test decisions for the ICM-42688-P on averaged counts (pure: testable alone), as TDK's
/// reference driver (Icm426xxSelfTest.c) makes them.
package enum ICM42600SelfTest {
    /// SELF_TEST_CONFIG EN_GX | EN_GY | EN_GZ.
    static let gyroscopeEnable: UInt8 = 0x07
    /// SELF_TEST_CONFIG EN_AX | EN_AY | EN_AZ | ACCEL_ST_POWER.
    static let accelerometerEnable: UInt8 = 0x78

    /// Factory self-test value in counts: (2620 / 2^(3 − FS_SEL)) · 1.01^(code − 1), with
    /// FS_SEL 3 for the gyroscope at ±250 °/s and 2 for the accelerometer at ±4 g; 0 without a code.
    static func factoryValue(code: UInt8, fullScaleCode: Int) -> Double {
        code == 0 ? 0 : 2620 / Double(1 << (3 - fullScaleCode)) * pow(1.01, Double(code) - 1)
    }

    /// - Parameters:
    ///   - gyroscopeOffset: gyroscope output at rest without self-test, °/s (|offset| ≤ 20 °/s).
    ///   - gyroscopeResponse: self-test on − off at ±250 °/s, counts; passes above 0.5 × the
    ///     factory value, or (no factory code) at 60 °/s or more.
    ///   - accelerometerResponse: on − off at ±4 g, counts; passes strictly between 0.5 and
    ///     1.5 × the factory value, or (no factory code) within 50 … 1200 mg.
    package static func evaluate(
        chip: String, gyroscopeOffset: SIMD3<Double>, gyroscopeResponse: SIMD3<Double>, gyroscopeCodes: [UInt8],
        accelerometerResponse: SIMD3<Double>, accelerometerCodes: [UInt8]
    ) -> SelfTestReport {
        // Counts per °/s at ±250 °/s and per g at ±4 g, as the reference driver computes them.
        let countsPerDPS = 32768.0 / 250, countsPerG = 32768.0 / 4
        var axes: [SelfTestReport.Axis] = []
        for axis in 0..<3 {
            let name = "gyroscope " + axisNames[axis]
            let response = abs(gyroscopeResponse[axis])
            let factory = factoryValue(code: gyroscopeCodes[axis], fullScaleCode: 3)
            axes.append(factory == 0
                ? .init(name: name, response: response / countsPerDPS, limits: 60...Double.greatestFiniteMagnitude, unit: "°/s")
                : .init(name: name, response: response / factory, limits: 0.5.nextUp...Double.greatestFiniteMagnitude,
                        unit: "× factory value"))
        }
        for axis in 0..<3 {
            axes.append(.init(name: "gyroscope " + axisNames[axis] + " offset", response: gyroscopeOffset[axis],
                              limits: -20...20, unit: "°/s"))
        }
        for axis in 0..<3 {
            let name = "accelerometer " + axisNames[axis]
            let response = abs(accelerometerResponse[axis])
            let factory = factoryValue(code: accelerometerCodes[axis], fullScaleCode: 2)
            axes.append(factory == 0
                ? .init(name: name, response: response / countsPerG * 1000, limits: 50...1200, unit: "mg")
                : .init(name: name, response: response / factory, limits: 0.5.nextUp...1.5.nextDown, unit: "× factory value"))
        }
        return SelfTestReport(chip: chip, axes: axes)
    }
}
