/// The TDK InvenSense 16-byte FIFO packet with accelerometer, gyroscope, temperature and the
/// chip's 16-bit timestamp, as two families write it: the ICM-42688-P's packet 3 (DS-000347 §6.1;
/// kernel inv_icm42600_buffer.c, struct inv_icm42600_fifo_2sensors_packet) and the ICM-45686's
/// (kernel inv_icm45600_buffer.c, struct inv_icm45600_fifo_2sensors_packet). Both have the same
/// fields at the same offsets and the same header bits (INV_ICM42600_FIFO_HEADER_* and
/// INV_ICM45600_FIFO_HEADER_* agree bit for bit: 7 end/extended header, 6 accelerometer,
/// 5 gyroscope, 3:2 timestamp, 1:0 ODR changed); they differ in byte order (the ICM-42688-P's
/// big-endian after reset, the ICM-45686's little-endian) and in the FIFO temperature's scale,
/// the two fields of a value.
struct ICMFIFOPacket: Sendable {
    /// Byte order of the axes and the timestamp.
    var byteOrder: AxisLayout
    /// FIFO temperature, 8 bit: °C = raw / this + 25.
    var temperatureLSBPerDegree: Double

    /// header, accel x/y/z, gyro x/y/z, temperature (int8), timestamp (16 bit).
    static let size = 16
    static let accelerometerOffset = 1
    static let gyroscopeOffset = 7
    static let temperatureOffset = 13
    static let timestampOffset = 14
    /// Bit 7: the ICM-42688-P's HEADER_MSG (the FIFO is empty), the ICM-45686's EXT_HEADER (a
    /// packet the kernel does not decode either: "Not yet supported"). Either way the read ends.
    static let headerEnd: UInt8 = 0x80
    /// HEADER_ACCEL, HEADER_GYRO: the packet carries the sensor's data.
    static let headerAccelerometer: UInt8 = 0x40
    static let headerGyroscope: UInt8 = 0x20
    /// HEADER_TIMESTAMP_FSYNC (bits 3:2): 10 = the packet carries the ODR timestamp (DS-000347
    /// §6.2; kernel INV_ICM42600_FIFO_HEADER_TMST_FSYNC / INV_ICM45600_FIFO_HEADER_TMST_FSYNC
    /// GENMASK(3, 2)).
    static let headerTimestampField: UInt8 = 0x0C
    static let headerOdrTimestamp: UInt8 = 0x08
    /// HEADER_ODR_ACCEL, HEADER_ODR_GYRO: the sensor's ODR differs from the previous packet's.
    static let headerRateChanged: UInt8 = 0x03
    /// A sensor not (yet) producing data reads −32768 on every axis (kernel
    /// INV_ICM42600_FIFO_DATA_INVALID, INV_ICM45600_DATA_INVALID).
    static let invalidData: Int16 = -32768
    /// Timestamp LSB, 1 µs: the ICM-42688-P's TMST_CONFIG TMST_RES = 0 (its reset value,
    /// DS-000347 §14), the ICM-45686's TMST_WOM_CONFIG TMST_RESOL = 0 (its driver writes it).
    /// The counter wraps after 65536 LSB.
    static let timestampLSB = 1e-6
    static let timestampWrap = 65536.0 * timestampLSB

    enum Content {
        /// The end marker: no more packets in this read.
        case end
        /// ODR flags after the FIFO's first packet: someone changed the rate under the driver.
        case rateChanged
        /// A packet that takes a sample slot but holds no valid sample of both sensors.
        case invalid
        /// The sample and the packet's ODR timestamp, when it carries one.
        case sample(IMUSample, timestamp: UInt16?)
    }

    /// The packet at `base`; `first`: the first packet since the FIFO started (its ODR flags are expected).
    func decode(_ bytes: UnsafeRawBufferPointer, at base: Int, first: Bool, scale: IMUScale) -> Content {
        let header = bytes[base]
        if header & Self.headerEnd != 0 { return .end }
        if header & Self.headerRateChanged != 0, !first { return .rateChanged }
        let both = Self.headerAccelerometer | Self.headerGyroscope
        guard header & both == both else { return .invalid }
        let accelerometer = byteOrder.counts(bytes, from: base + Self.accelerometerOffset)
        let gyroscope = byteOrder.counts(bytes, from: base + Self.gyroscopeOffset)
        let invalid = SIMD3<Int16>(repeating: Self.invalidData)
        if accelerometer == invalid || gyroscope == invalid { return .invalid }
        let temperature = Double(Int8(bitPattern: bytes[base + Self.temperatureOffset])) / temperatureLSBPerDegree + 25
        let at = base + Self.timestampOffset
        let timestamp = header & Self.headerTimestampField == Self.headerOdrTimestamp
            ? UInt16(bitPattern: byteOrder.bigEndian ? int16BE(bytes, at) : int16LE(bytes, at)) : nil
        return .sample(scale.sample(accelerometer: accelerometer, gyroscope: gyroscope, temperature: temperature), timestamp: timestamp)
    }

    /// The last timestamp read: its raw count, its frame's index and its unwrapped count of LSB
    /// since the FIFO started.
    struct Timestamp: Sendable {
        var raw: UInt16
        var index: Int
        var ticks: Double
    }

    /// What the FIFO read carries over: the last timestamp.
    struct Progress: FIFOProgress {
        var last: Timestamp?
    }

    /// Seconds on the chip clock of a 16-bit timestamp, unwrapped against the previous one: the
    /// counter advanced by its difference modulo 65536 plus the whole wraps that bring the step
    /// nearest the frames' nominal spacing (index difference × `period`). That holds at every
    /// rate, the 80 ms of 12.5 Hz (more than one 65.5 ms wrap) too, while the chip's clock is
    /// within a few percent of nominal.
    static func unwrap(_ raw: UInt16, index: Int, period: Double, _ history: inout Timestamp?) -> Double {
        var ticks = Double(raw)
        if let last = history {
            let step = Double(raw &- last.raw)
            let expected = Double(index - last.index) * period / timestampLSB
            ticks = last.ticks + step + ((expected - step) / 65536).rounded() * 65536
        }
        history = Timestamp(raw: raw, index: index, ticks: ticks)
        return ticks * timestampLSB
    }

    /// Reads `count` packets from the FIFO data register `register`, at most `chunkPackets` per
    /// transaction, in order: the end marker ends the read; an invalid packet takes its index
    /// without a frame; a sample becomes a frame with its chip time. Returns true when a packet
    /// flagged an ODR change after the first one (the caller restarts the FIFO and reports it
    /// like an overflow: the frames appended belong to the old numbering).
    func read(
        _ count: Int, from register: UInt8, chunkPackets: Int, device: RegisterDevice,
        state: inout IMUState<Progress>, into read: inout FIFORead
    ) throws(SensorError) -> Bool {
        var rateChanged = false
        try device.readFIFOChunks(count, from: register, itemSize: Self.size, chunkItems: chunkPackets) { bytes, packet in
            switch decode(bytes, at: packet * Self.size, first: state.fifoSamples == 0, scale: state.scale) {
            case .end:
                return false
            case .rateChanged:
                rateChanged = true
                return false
            case .invalid:
                state.fifoSamples += 1
            case .sample(let sample, let timestamp):
                let period = 1 / state.configuration.outputDataRate
                let chipTime = timestamp.map { Self.unwrap($0, index: state.fifoSamples, period: period, &state.fifo.last) }
                read.frames.append(FIFOFrame(sampleIndex: state.fifoSamples, sample: sample, chipTime: chipTime))
                state.fifoSamples += 1
            }
            return true
        }
        if !rateChanged { read.chipClockWrap = Self.timestampWrap }
        return rateChanged
    }
}
