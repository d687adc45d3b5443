import I2C

/// Driver for the Analog Devices ADXL345, an accelerometer alone (datasheet Rev. G): full
/// resolution (3.9 mg/LSB in every range), its 32-sample FIFO in stream mode. No gyroscope: its
/// samples carry a zero rotation rate, and the descriptor's empty gyroscope table tells every
/// layer above (``ChipDescriptor/hasGyroscope``). The configuration's gyroscope range is not used.
package final class ADXL345IMU: CoreIMUDriver, BusPlacedDriver {
    /// 100 Hz (the chip's reset rate, BW_RATE 0x0A), ±4 g.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 100, accelerometerRange: 4)

    let core: DriverCore<ADXL345Settings, IMUState<NoFIFOProgress>>
    /// DATA_FORMAT: 0x00 after power-on, FULL_RES and the range after ``configure(_:)``.
    static let configuredRegister = ADXL345Register.dataFormat

    package init(bus: any I2CBus, address: I2CAddress, pause: Pause, resetCompletion: ResetCompletion) {
        core = DriverCore(
            bus: bus, address: address, chip: ChipDescriptor.adxl345Name, .adxl345, identity: ADXL345Settings.identity,
            settings: ADXL345Settings(), pause: pause, resetCompletion: resetCompletion, configuration: defaultConfiguration,
            scale: IMUScale(accelerometerLSBPerG: ADXL345Settings.lsbPerG, gyroscopeLSBPerDPS: 1))
    }

    /// Checks DEVID; standby (POWER_CTL 0: the ADXL345 has no software reset, and the datasheet
    /// configures in standby); FIFO bypass (empties it); BW_RATE, DATA_FORMAT (FULL_RES | range);
    /// then Measure.
    func apply(_ configuration: IMUConfiguration, to state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        let name = chip.name
        if configuration.lowPassBandwidth != nil {
            throw .notSupported(chip: name, feature: "selectable low-pass bandwidth (the ADXL345's bandwidth is half its output data rate; leave it nil)")
        }
        let rate = try settings.tables.rate(configuration.outputDataRate, chip: name)
        let range = try settings.tables.accelerometerRange(configuration.accelerometerRange, chip: name)
        try device.checkIdentity(ADXL345Register.deviceID, expected: [ADXL345Settings.identity], chip: name)
        var shadow = ShadowRegisters([:])
        _ = shadow.set(RegisterField(ADXL345Register.powerControl, mask: 0xFF), 0)
        _ = shadow.set(RegisterField(ADXL345Register.fifoControl, mask: 0xFF), 0)
        _ = shadow.set(RegisterField(ADXL345Register.bandwidthRate, mask: 0x1F), rate.code)
        _ = shadow.set(RegisterField(ADXL345Register.dataFormat, mask: 0xFF), ADXL345Register.fullResolution | range.code)
        try core.write(shadow, [ADXL345Register.powerControl, ADXL345Register.fifoControl, ADXL345Register.bandwidthRate, ADXL345Register.dataFormat])
        _ = shadow.set(RegisterField(ADXL345Register.powerControl, mask: 0xFF), ADXL345Register.measure)
        try core.write(shadow, [ADXL345Register.powerControl])
        state = .configured(configuration, shadow: shadow, scale: IMUScale(accelerometerLSBPerG: range.sensitivity, gyroscopeLSBPerDPS: 1))
    }

    /// DATAX0…DATAZ1 in one read.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            let rangeCode = state.shadow[ADXL345Register.dataFormat] & 0x03
            return try device.burst(ADXL345Register.dataX0, count: ADXL345Register.sampleBytes) { bytes in
                Self.sample(AxisLayout.littleEndian.counts(bytes, from: 0), scale: state.scale, rangeCode: rangeCode)
            }
        }
    }

    /// Counts → a sample with a zero rotation rate, saturated at the range's full-resolution limit.
    static func sample(_ counts: SIMD3<Int16>, scale: IMUScale, rangeCode: UInt8) -> IMUSample {
        var sample = scale.sample(accelerometer: counts, gyroscope: .zero)
        let limit = ADXL345Settings.saturationCount(range: rangeCode)
        sample.isSaturated = (0..<3).contains { counts[$0] >= limit - 1 || counts[$0] <= -limit }
        return sample
    }

    // MARK: FIFO

    /// Stream mode: the FIFO keeps the latest 32 samples at the output data rate.
    package func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in try startFIFO(&state) }
    }

    private func startFIFO(_ state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        try device.write(ADXL345Register.fifoControl, 0)  // bypass: empties the FIFO
        try device.write(ADXL345Register.fifoControl, ADXL345Register.streamMode | 0x1F)  // stream, watermark 31 (unused)
        state.restartFIFO()
    }

    /// INT_SOURCE's Overrun (the FIFO filled: the oldest samples may have been dropped since; the
    /// FIFO is restarted and the read reports an overflow), then FIFO_STATUS's Entries, then one
    /// 6-byte read of DATAX0 per entry, each popping one. The datasheet asks 5 µs between the end
    /// of one data read and the next FIFO read; an I2C start and address byte take longer than that.
    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            if try device.read(ADXL345Register.interruptSource) & ADXL345Register.overrun != 0 {
                try startFIFO(&state)
                read.overflowed = true
                return
            }
            let entries = Int(try device.read(ADXL345Register.fifoStatus) & 0x3F)
            let (scale, rangeCode) = (state.scale, state.shadow[ADXL345Register.dataFormat] & 0x03)
            for _ in 0..<entries {
                let sample = try device.burst(ADXL345Register.dataX0, count: ADXL345Register.sampleBytes) { bytes in
                    Self.sample(AxisLayout.littleEndian.counts(bytes, from: 0), scale: scale, rangeCode: rangeCode)
                }
                read.frames.append(FIFOFrame(sampleIndex: state.fifoSamples, sample: sample))
                state.fifoSamples += 1
            }
        }
    }

    // MARK: Self-test

    /// The datasheet's self-test ("Self-Test"; Table 1): at 100 Hz, ±16 g full resolution, the
    /// mean of 10 samples with DATA_FORMAT SELF_TEST clear and then set (each after 0.1 s to
    /// settle, the first after a change discarded); the change per axis in g against Table 1's
    /// limits at VS = 2.5 V. Then the configuration is applied again.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { _ throws(SensorError) in
            let name = chip.name
            let rate = try settings.tables.rate(100, chip: name)
            let range = try settings.tables.accelerometerRange(16, chip: name)
            let format = ADXL345Register.fullResolution | range.code
            try device.write(ADXL345Register.powerControl, 0)
            try device.write(ADXL345Register.bandwidthRate, rate.code)
            try device.write(ADXL345Register.dataFormat, format)
            try device.write(ADXL345Register.powerControl, ADXL345Register.measure)
            let read = { () throws(SensorError) -> SIMD3<Int16> in
                AxisLayout.littleEndian.counts(try self.device.read(ADXL345Register.dataX0, count: ADXL345Register.sampleBytes), from: 0)
            }
            pause.wait(.milliseconds(100))
            let normal = try core.averageDiscardingFirst(count: 10, interval: .milliseconds(10), read)
            try device.write(ADXL345Register.dataFormat, format | ADXL345Register.selfTest)
            pause.wait(.milliseconds(100))
            let excited = try core.averageDiscardingFirst(count: 10, interval: .milliseconds(10), read)
            try device.write(ADXL345Register.dataFormat, format)
            let change = (excited - normal) / range.sensitivity
            let limits = ADXL345Settings.selfTestLimits
            return SelfTestReport(chip: name, axes: [
                .init(name: "accelerometer x", response: change.x, limits: limits.x, unit: "g"),
                .init(name: "accelerometer y", response: change.y, limits: limits.y, unit: "g"),
                .init(name: "accelerometer z", response: change.z, limits: limits.z, unit: "g"),
            ])
        }
    }
}
