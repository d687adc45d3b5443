import I2C

/// Driver for the ST LSM6DS3, LSM6DS3TR-C/DSL/DSM, LSM6DSO/DSOX, LSM6DSO32, LSM6DSR and LSM6DSV16X.
package final class LSM6IMU: STIMUDriver {
    /// 208 Hz (LSM6DSV16X: 240 Hz), ±4 g, ±500 °/s.
    package let defaultConfiguration: IMUConfiguration
    /// The model's register layout (``LSM6Settings/layout``).
    var layout: STRegisterLayout { settings.layout }

    let core: DriverCore<LSM6Settings, IMUState<TaggedFIFOProgress>>
    /// CTRL1_XL (0x10): 0x00 after a reset, the rate and range after ``configure(_:)``.
    static let configuredRegister = LSM6Register.ctrl1XL

    /// What the tagged FIFO read carries over: a word waiting for its partner from the same time
    /// slot, and the last timestamp word.
    struct TaggedFIFOProgress: FIFOProgress {
        var pendingWord: TaggedWord?
        var timestamp: FIFOTimestamp?
    }

    struct TaggedWord {
        var isAccelerometer: Bool
        var slot: UInt8
        var vector: SIMD3<Int16>
    }

    static let fifoChunkFrames = 8

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x6A), model: LSM6Model, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        let settings = LSM6Settings.settings(for: model)
        let defaultConfiguration = IMUConfiguration(outputDataRate: settings.defaultRate, accelerometerRange: 4, gyroscopeRange: 500)
        self.defaultConfiguration = defaultConfiguration
        core = DriverCore(bus: bus, address: address, chip: model.rawValue, .lsm6, identity: settings.identity, settings: settings, pause: pause,
                          resetCompletion: resetCompletion, configuration: defaultConfiguration, scale: IMUScale(accelerometerLSBPerG: 1, gyroscopeLSBPerDPS: 1))
    }

    static func vector<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ offset: Int) -> SIMD3<Int16> where Bytes.Index == Int {
        AxisLayout.littleEndian.counts(bytes, from: offset)
    }

    // MARK: FIFO

    /// Continuous mode at the output data rate, accelerometer and gyroscope in every frame.
    package func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in
            try startFIFO(&state)
        }
    }

    private func startFIFO(_ state: inout IMUState<TaggedFIFOProgress>) throws(SensorError) {
        let rateField = layout.map.accelerometerRate
        let rateCode = rateField.code(in: state.shadow[rateField.address])
        switch settings.fifo {
        case .pattern:
            try device.write(0x0A, 0x00)  // FIFO_CTRL5: bypass (empties the FIFO)
            try device.write(0x08, 0x09)  // FIFO_CTRL3: DEC_FIFO_GYRO = DEC_FIFO_XL = 001 (no decimation)
            try device.write(0x0A, rateCode << 3 | 0b110)  // ODR_FIFO, FIFO_MODE continuous
        case .tagged(let registers):
            try device.write(0x0A, 0x00)  // FIFO_CTRL4: bypass (empties the FIFO)
            try device.write(0x09, rateCode << 4 | rateCode)  // FIFO_CTRL3: BDR_GY, BDR_XL (the ODR codes)
            // TIMESTAMP_EN (``LSM6TaggedFIFORegisters``); FIFO_CTRL4 DEC_TS_BATCH = 01 (bits 7:6: a
            // timestamp word in every batch time slot) and FIFO_MODE continuous (kernel
            // st_lsm6dsx_core.c ts_settings: timer_en, decimator 0x0a GENMASK(7, 6)). The whole
            // register is written: its other bits are 0 after the configuration's reset.
            try device.write(registers.timestampEnable.register, registers.timestampEnable.bit)
            try device.write(0x0A, 0b01 << 6 | 0b110)
        }
        state.restartFIFO()
    }

    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            switch settings.fifo {
            case .pattern(let unreadHighMask): try readPatternFIFO(&state, unreadHighMask: unreadHighMask, into: &read)
            case .tagged(let registers): try readTaggedFIFO(&state, registers, into: &read)
            }
        }
    }

    /// FIFO_STATUS1…4 in one read: unread words, OVER_RUN, and the pattern position of the next
    /// word (0 = gyro x). Whole 6-word frames are read from FIFO_DATA_OUT_L (0x3E).
    private func readPatternFIFO(_ state: inout IMUState<TaggedFIFOProgress>, unreadHighMask: UInt8, into read: inout FIFORead) throws(SensorError) {
        let (overrun, unreadWords, position) = try device.burst(0x3A, count: 4) { status in
            (status[1] & 0x40 != 0, Int(status[1] & unreadHighMask) << 8 | Int(status[0]), (Int(status[3]) & 0x03) << 8 | Int(status[2]))
        }
        if overrun {
            try startFIFO(&state)
            read.overflowed = true
            return
        }
        var unread = unreadWords
        if position != 0, unread > 0 {
            // Realign to the start of a frame: the driver only ever reads whole frames, so this
            // happens only after a partial read by someone else.
            let skip = min(6 - position % 6, unread)
            try device.burst(0x3E, count: skip * 2) { _ in }
            unread -= skip
        }
        // With IF_INC the register pointer rolls back from FIFO_DATA_OUT_H to _L, so consecutive
        // words come out of one read.
        let scale = state.scale
        try device.readFIFOFrames(
            unread / 6, from: 0x3E, frameSize: LSM6FIFOLayout.patternFrameBytes, chunkFrames: Self.fifoChunkFrames, nextIndex: &state.fifoSamples,
            into: &read.frames
        ) { bytes, base in
            scale.sample(accelerometer: Self.vector(bytes, base + 6), gyroscope: Self.vector(bytes, base))
        }
    }

    /// FIFO_STATUS1/2: unread words (DIFF_FIFO) and FIFO_OVR_IA (bit 6). Each word at
    /// FIFO_DATA_OUT_TAG (0x78) is TAG_SENSOR (7:3: 0x01 gyro, 0x02 accel), TAG_CNT (2:1),
    /// parity, then x, y, z. A gyro word and an accel word with the same TAG_CNT form a frame.
    private func readTaggedFIFO(
        _ state: inout IMUState<TaggedFIFOProgress>, _ registers: LSM6TaggedFIFORegisters, into read: inout FIFORead
    ) throws(SensorError) {
        let (overrun, words) = try device.burst(registers.status, count: 2) { status in
            (status[1] & 0x40 != 0, Int(status[1] & registers.levelHighMask) << 8 | Int(status[0]))
        }
        if overrun {
            try startFIFO(&state)
            read.overflowed = true
            return
        }
        // With IF_INC the pointer rolls back from FIFO_DATA_OUT_Z_H (0x7E) to the tag (0x78).
        let wordBytes = LSM6FIFOLayout.taggedWordBytes
        try device.readFIFOChunks(words, from: 0x78, itemSize: wordBytes, chunkItems: Self.fifoChunkFrames * 2) { bytes, word in
            let tag = bytes[word * wordBytes]
            let sensor = tag >> 3
            if sensor == Self.timestampTag {
                state.fifo.timestamp = Self.unwrap(timestampWord: bytes, at: word * wordBytes + 1, after: state.fifo.timestamp, lsb: registers.timestampLSB)
                return true
            }
            guard sensor == 0x01 || sensor == 0x02 else { return true }
            let current = TaggedWord(isAccelerometer: sensor == 0x02, slot: (tag >> 1) & 0x03,
                                     vector: Self.vector(bytes, word * wordBytes + 1))
            if let pending = state.fifo.pendingWord, pending.slot == current.slot,
               pending.isAccelerometer != current.isAccelerometer {
                let (accelerometer, gyroscope) = current.isAccelerometer
                    ? (current.vector, pending.vector) : (pending.vector, current.vector)
                // The slot's timestamp word comes before its data (same TAG_CNT).
                let chipTime = state.fifo.timestamp.flatMap { $0.slot == current.slot ? $0.seconds : nil }
                read.frames.append(FIFOFrame(
                    sampleIndex: state.fifoSamples,
                    sample: state.scale.sample(accelerometer: accelerometer, gyroscope: gyroscope), chipTime: chipTime))
                state.fifoSamples += 1
                state.fifo.pendingWord = nil
            } else {
                state.fifo.pendingWord = current
            }
            return true
        }
        read.chipClockWrap = registers.timestampWrap
    }

    /// TAG_SENSOR of a timestamp word (DS12814 FIFO tag table; kernel ST_LSM6DSX_TS_TAG 0x04).
    static let timestampTag: UInt8 = 0x04
    // The TIMESTAMP LSB and the counter's wrap: ``LSM6TaggedFIFORegisters``.

    /// The last timestamp word: its TAG_CNT, raw counter, and seconds unwrapped since the FIFO started.
    struct FIFOTimestamp {
        var slot: UInt8
        var raw: UInt32
        var seconds: Double
    }

    /// A timestamp word (TIMESTAMP[31:0] little-endian at `base`), unwrapped against the last one:
    /// the counter only grows, so the step is the difference modulo 2³² (one wrap takes a day or
    /// more; the FIFO would overflow and restart long before two). `lsb`: seconds per count.
    static func unwrap(timestampWord bytes: UnsafeRawBufferPointer, at base: Int, after last: FIFOTimestamp?, lsb timestampLSB: Double) -> FIFOTimestamp {
        let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[base + $1]) << (8 * $1) }
        let slot = (bytes[base - 1] >> 1) & 0x03
        var seconds = Double(raw) * timestampLSB
        if let last {
            seconds = last.seconds + Double(raw &- last.raw) * timestampLSB
        }
        return FIFOTimestamp(slot: slot, raw: raw, seconds: seconds)
    }

}

/// Self-test decision for the ST IMUs, LSM6 family and LSM9DS1 (pure: testable alone).
package enum LSM6SelfTest {
    /// Responses: accelerometer in mg, gyroscope in °/s, each |self-test on − off| per axis.
    package static func evaluate(
        chip: String, accelerometerResponse: SIMD3<Double>, gyroscopeResponse: SIMD3<Double>,
        accelerometerLimits: ClosedRange<Double>, gyroscopeLimits: ClosedRange<Double>
    ) -> SelfTestReport {
        let accelerometer = (0..<3).map {
            SelfTestReport.Axis(name: "accelerometer " + axisNames[$0], response: abs(accelerometerResponse[$0]),
                                limits: accelerometerLimits, unit: "mg")
        }
        let gyroscope = (0..<3).map {
            SelfTestReport.Axis(name: "gyroscope " + axisNames[$0], response: abs(gyroscopeResponse[$0]),
                                limits: gyroscopeLimits, unit: "°/s")
        }
        return SelfTestReport(chip: chip, axes: accelerometer + gyroscope)
    }
}
