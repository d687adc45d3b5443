/// The BMI160's FIFO in header mode with sensortime (datasheet BST-BMI160-DS000 §2.5 FIFO;
/// values also in Bosch's BMI160 SensorAPI bmi160_defs.h, BMI160_FIFO_*).
enum BMI160FIFO {
    /// FIFO_CONFIG_1 (0x47) bits (§2.11 FIFO_CONFIG): fifo_gyr_en bit 7, fifo_acc_en bit 6,
    /// fifo_mag_en bit 5, fifo_header_en bit 4, fifo_tag_int1_en bit 3, fifo_tag_int2_en bit 2,
    /// fifo_time_en bit 1.
    static let gyroscopeEnable: UInt8 = 0x80
    static let accelerometerEnable: UInt8 = 0x40
    static let headerEnable: UInt8 = 0x10
    static let timeEnable: UInt8 = 0x02
    /// What the driver runs: gyroscope and accelerometer in every frame, each frame behind a header
    /// byte, and the sensortime frame after the last frame of a read past the fill level.
    static let configuration = gyroscopeEnable | accelerometerEnable | headerEnable | timeEnable

    /// Header byte (§2.5.1.3): fh_mode bits 7:6 (0b10 regular, 0b01 control, others reserved),
    /// fh_parm bits 5:2 (regular: which sensors the frame holds, mag bit 2, gyr bit 1, acc bit 0;
    /// control: the opcode), fh_ext bits 1:0 (regular: the INT2/INT1 tags, ignored here).
    static let headerWithoutTags: UInt8 = 0xFC
    /// Regular frame with gyroscope and accelerometer: 12 data bytes, gyroscope x, y, z then
    /// accelerometer x, y, z, 16-bit little-endian each (§2.5.1.4, the data registers' order).
    static let gyroscopeAccelerometerFrame: UInt8 = 0x8C
    /// Control frames (§2.5.1.4): skip frame (opcode 0b0000) with one byte, the number of frames
    /// the full FIFO could not take; sensortime frame (0b0001) with the 24-bit sensortime,
    /// little-endian, of the last data frame, sent once the FIFO is read past its fill level
    /// while fifo_time_en is set; FIFO input config frame (0b0010) with one byte, written when the
    /// FIFO configuration or a sensor's rate changed.
    static let skipFrame: UInt8 = 0x40
    /// The most a skip frame's one count byte holds: a count there may stand for more.
    static let skipCountLimit = 255
    static let sensorTimeFrame: UInt8 = 0x44
    static let inputConfigFrame: UInt8 = 0x48
    /// What a read past the FIFO's content returns (§2.5.1.3: a regular header without sensors,
    /// an uninitialised frame; §2.5.1.2: 0x80 when over-read).
    static let overRead: UInt8 = 0x80
    /// The sensortime frame's size: header and 3 bytes, read past the fill level.
    static let sensorTimeFrameSize = 4
    /// SENSORTIME LSB, 39.0625 µs (§2.3.1 Table 11: 25.6 kHz, bit 0), and the 24-bit counter's
    /// wrap, 655.36 s.
    static let sensorTimeLSB = 39.0625e-6
    static let sensorTimeWrap = 16_777_216 * sensorTimeLSB
    /// Bytes per header-mode frame with gyroscope and accelerometer: the header byte, then
    /// gyroscope x, y, z and accelerometer x, y, z, 16 bit little-endian each (§2.5.1.4).
    static let frameSize = 13
    /// Most frames read from FIFO_DATA in one transaction.
    static let chunkFrames = 16
}

/// What one FIFO frame of the header-mode stream is.
enum BMI160FIFOItem: Equatable {
    /// A regular frame with gyroscope and accelerometer counts.
    case sample(gyroscope: SIMD3<Int16>, accelerometer: SIMD3<Int16>)
    /// A regular frame holding other sensors than both (not configured by the driver).
    case incompleteSample
    /// A skip frame: this many frames were not written for want of room.
    case skipped(Int)
    /// The sensortime frame: the 24-bit sensortime of the last data frame.
    case sensorTime(UInt32)
    case configChanged
    /// The over-read marker: no more frames.
    case end
    /// A header of a reserved mode or opcode: the frame's length, and so the rest of the stream,
    /// is unknown.
    case unknown(header: UInt8)
}

/// Cuts the bytes of FIFO_DATA into header-mode frames, one byte at a time, so a frame may span
/// two bursts. Holds at most one frame (20 bytes with a magnetometer), inline: no allocation.
struct BMI160FIFOStream {
    private var frame = SIMD32<UInt8>()
    private var count = 0
    private var length = 0

    /// True between frames.
    var isAtFrameBoundary: Bool { count == 0 }

    /// Takes the next byte; returns the frame it completes, if any.
    mutating func take(_ byte: UInt8) -> BMI160FIFOItem? {
        if count == 0 {
            switch Self.length(header: byte) {
            case nil: return .unknown(header: byte)
            case 0: return .end
            case let length?: self.length = length
            }
        }
        frame[count] = byte
        count += 1
        guard count == length else { return nil }
        count = 0
        return item()
    }

    /// The whole frame's size in bytes from its header; 0 for the over-read marker; nil for a
    /// reserved mode or control opcode.
    static func length(header: UInt8) -> Int? {
        let header = header & BMI160FIFO.headerWithoutTags
        switch header >> 6 {
        case 0b10:
            let sensors = (header >> 2) & 0x0F
            guard sensors & 0b1000 == 0 else { return nil }
            return sensors == 0 ? 0 : 1 + (sensors & 0b100 != 0 ? 8 : 0) + (sensors & 0b10 != 0 ? 6 : 0) + (sensors & 0b1 != 0 ? 6 : 0)
        case 0b01:
            switch header {
            case BMI160FIFO.skipFrame, BMI160FIFO.inputConfigFrame: return 2
            case BMI160FIFO.sensorTimeFrame: return 1 + 3
            default: return nil
            }
        default:
            return nil
        }
    }

    private func item() -> BMI160FIFOItem {
        let header = frame[0] & BMI160FIFO.headerWithoutTags
        switch header {
        case BMI160FIFO.skipFrame: return .skipped(Int(frame[1]))
        case BMI160FIFO.inputConfigFrame: return .configChanged
        case BMI160FIFO.sensorTimeFrame: return .sensorTime(UInt32(frame[1]) | UInt32(frame[2]) << 8 | UInt32(frame[3]) << 16)
        case BMI160FIFO.gyroscopeAccelerometerFrame: return .sample(gyroscope: counts(from: 1), accelerometer: counts(from: 7))
        default: return .incompleteSample
        }
    }

    private func counts(from base: Int) -> SIMD3<Int16> {
        func word(_ offset: Int) -> Int16 { Int16(bitPattern: UInt16(frame[base + offset]) | UInt16(frame[base + offset + 1]) << 8) }
        return SIMD3(word(0), word(2), word(4))
    }
}

extension RegisterDevice {
    /// Reads a Bosch header-mode FIFO holding `filled` bytes (the BMI160's frames, which the
    /// BMI270 shares) from `dataRegister` into `read`, as ``BMI160IMU/readFIFO(into:)`` describes:
    /// whole frames in chunks, the last chunk 4 bytes past the fill level for the sensortime frame,
    /// each frame then timed by the chip's clock; skip frames counted; a stream that cannot be
    /// followed flushed (`flush`) and reported as an overflow.
    func readBoschFIFO(
        filled: Int, dataRegister: UInt8, into read: inout FIFORead, state: inout IMUState<NoFIFOProgress>,
        flush: (inout IMUState<NoFIFOProgress>) throws(SensorError) -> Void
    ) throws(SensorError) {
        /// How a FIFO read ended.
        enum End: Equatable {
            case reading
            /// The sensortime frame: the chip's 24-bit sensortime of the last frame.
            case timed(UInt32)
            /// The over-read marker, or the bytes ran out, without a sensortime frame.
            case untimed
            /// The stream cannot be followed, or the chip's count of frames dropped reached the most
            /// its skip frame holds (`skipped`, so more may have gone): the FIFO is flushed and the
            /// read reported as an overflow.
            case restart(skipped: Int)
        }
        let scale = state.scale
        var stream = BMI160FIFOStream()
        var end = End.reading
        let chunk = fifoFramesPerRead(BMI160FIFO.chunkFrames, frameSize: BMI160FIFO.frameSize) * BMI160FIFO.frameSize
        let lastChunk = bus.maximumReadLength ?? chunk + BMI160FIFO.sensorTimeFrameSize
        var below = filled  // bytes below the fill level not yet requested
        var skipped = 0
        while end == .reading {
            // Only the last chunk reads past the fill level: an earlier one would draw the
            // sensortime frame in the middle of the frames. (A bus too short for its 4 bytes
            // fails that read rather than looping.)
            let isLast = below + BMI160FIFO.sensorTimeFrameSize <= lastChunk || below == 0
            let count = isLast ? below + BMI160FIFO.sensorTimeFrameSize : min(below, chunk)
            below -= isLast ? below : count
            try burst(dataRegister, count: count) { bytes in
                for byte in bytes where end == .reading {
                    guard let item = stream.take(byte) else { continue }
                    switch item {
                    case let .sample(gyroscope, accelerometer):
                        read.frames.append(FIFOFrame(
                            sampleIndex: state.fifoSamples, sample: scale.sample(accelerometer: accelerometer, gyroscope: gyroscope)))
                        state.fifoSamples += 1
                    case .sensorTime(let ticks): end = .timed(ticks)
                    case .end: end = .untimed
                    case .skipped(let frames) where frames >= BMI160FIFO.skipCountLimit: end = .restart(skipped: frames)
                    case .skipped(let frames):
                        skipped += frames
                        state.fifoSamples += frames
                    case .configChanged where state.fifoSamples == 0: break  // the configuration the driver set
                    case .configChanged, .incompleteSample, .unknown: end = .restart(skipped: 0)
                    }
                }
            }
            if isLast, end == .reading { end = .untimed }
        }
        if skipped > 0 {
            read.overflowed = true
            read.skippedFrames = skipped
        }
        switch end {
        case .restart(let count):
            try flush(&state)
            read.restart(overflowed: true)
            read.skippedFrames = skipped + count
        case .timed(let ticks):
            let period = 1 / state.configuration.outputDataRate
            let last = Double(ticks) * BMI160FIFO.sensorTimeLSB
            let lastIndex = state.fifoSamples - 1
            for index in read.frames.indices {
                read.frames[index].chipTime = last - Double(lastIndex - read.frames[index].sampleIndex) * period
            }
            read.chipClockWrap = BMI160FIFO.sensorTimeWrap
        case .reading, .untimed:
            break
        }
    }
}
