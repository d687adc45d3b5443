/// The FIFO of Bosch's BMI160 and BMI270: both datasheets describe the same frames
/// (BST-BMI160-DS000 §2.5 "FIFO", BST-BMI270-DS000 "FIFO"): headerless, each frame the enabled
/// sensors' data (gyroscope then accelerometer, 6 bytes each); or in header mode each frame led by
/// a header byte (fh_mode[7:6], fh_parm[5:2], fh_ext[1:0]): regular 0b10 with fh_parm aux[2] gyr[1]
/// acc[0], control 0b01 with opcode skip 0b0000 (one byte: frames dropped) or sensortime 0b0001
/// (24 bits, little-endian). When full the oldest whole frames make room (the FIFO keeps the newest
/// data), counted in header mode by a skip frame that then leads the FIFO and that FIFO_LENGTH
/// counts; a read past the content returns, in header mode with fifo_time_en, the sensortime frame
/// of the last frame written (once per burst), then 0x80.
///
/// The chips differ in size, registers and in which sensors a frame carries; those stay with them.
struct BoschFIFO: Sendable {
    static let regularHeader: UInt8 = 0x80, regularGyr: UInt8 = 0x08, regularAcc: UInt8 = 0x04
    static let skipHeader: UInt8 = 0x40, sensorTimeHeader: UInt8 = 0x44
    /// What a read past the FIFO's content returns (BMI160 §2.5.1.2: an empty frame reads 0x80).
    static let emptyByte: UInt8 = 0x80

    /// Bytes the FIFO holds.
    let capacity: Int
    /// The unread bytes, oldest first; in header mode a skip frame may lead them.
    private(set) var bytes: [UInt8] = []
    /// Bytes still to come of the frame whose first bytes were read already (a frame read across
    /// two bursts): frames after it are whole.
    private var frameRemaining = 0
    /// SENSORTIME when the newest frame was written: the sensortime frame's value.
    private var lastFrameSensorTime: UInt32 = 0
    /// Bytes read past the content in the current burst.
    private var overReadCount = 0

    init(capacity: Int) {
        self.capacity = capacity
        bytes.reserveCapacity(capacity + 2)
    }

    /// Power-on: empty, no frame written yet.
    mutating func reset() {
        flush()
        lastFrameSensorTime = 0
    }

    /// CMD fifo_flush: every byte gone.
    mutating func flush() {
        bytes.removeAll(keepingCapacity: true)
        frameRemaining = 0
    }

    /// Each burst starts with the register address: a new over-read.
    mutating func startBurst() { overReadCount = 0 }

    /// The bytes of one frame of `gyro` and `accel` (nil: not in the frame), led by its header in
    /// header mode.
    static func frame(gyro: SIMD3<Int16>?, accel: SIMD3<Int16>?, headerMode: Bool) -> InlineBytes {
        var frame = InlineBytes()
        if headerMode { frame.append(regularHeader | (gyro != nil ? regularGyr : 0) | (accel != nil ? regularAcc : 0)) }
        if let gyro { frame += Encoding.littleEndian(gyro) }
        if let accel { frame += Encoding.littleEndian(accel) }
        return frame
    }

    /// Appends `frame`, written at SENSORTIME `sensorTime`; when it does not fit, the oldest whole
    /// frames make room, counted in header mode by the skip frame. `frameSize` is the configured
    /// frame's length (a headerless frame's only measure).
    mutating func append(_ frame: InlineBytes, sensorTime: UInt32, headerMode: Bool, frameSize: Int) {
        while bytes.count + frame.count > capacity {
            if headerMode, !hasSkipFrame { countSkipped(0) }
            let oldest = frameRemaining + (headerMode ? 2 : 0)
            guard oldest < bytes.count else { break }
            let length = frameLength(startingWith: bytes[oldest], headerMode: headerMode, frameSize: frameSize)
            bytes.removeSubrange(oldest..<min(oldest + length, bytes.count))
            if headerMode { countSkipped(1) }
        }
        bytes += frame
        lastFrameSensorTime = sensorTime
    }

    /// A skip frame leads the whole frames (after a frame partly read).
    private var hasSkipFrame: Bool { bytes.count > frameRemaining + 1 && bytes[frameRemaining] == Self.skipHeader }

    /// Adds `frames` to the skip frame's count (one byte: it stays at 255 beyond), putting a skip
    /// frame in front of the whole frames first when there is none.
    mutating func countSkipped(_ frames: Int) {
        if !hasSkipFrame {
            bytes.insert(0, at: frameRemaining)
            bytes.insert(Self.skipHeader, at: frameRemaining)
        }
        bytes[frameRemaining + 1] = UInt8(min(255, Int(bytes[frameRemaining + 1]) + frames))
    }

    /// The length of the frame whose first byte is `first`: from its header in header mode (aux
    /// 8 bytes, gyroscope 6, accelerometer 6), `frameSize` headerless.
    private func frameLength(startingWith first: UInt8, headerMode: Bool, frameSize: Int) -> Int {
        guard headerMode else { return max(1, frameSize) }
        switch first & 0xFC {
        case Self.skipHeader: return 2
        case Self.sensorTimeHeader: return 4
        default:
            let parm = (first >> 2) & 0x0F
            return 1 + (parm & 0b100 != 0 ? 8 : 0) + (parm & 0b10 != 0 ? 6 : 0) + (parm & 0b1 != 0 ? 6 : 0)
        }
    }

    /// The next byte of FIFO_DATA; past the content, the sensortime frame of the last frame written
    /// (header mode with fifo_time_en, once per burst), then 0x80.
    mutating func readByte(headerMode: Bool, timeEnabled: Bool, frameSize: Int) -> UInt8 {
        if !bytes.isEmpty {
            let byte = bytes.removeFirst()
            frameRemaining = frameRemaining > 0
                ? frameRemaining - 1 : frameLength(startingWith: byte, headerMode: headerMode, frameSize: frameSize) - 1
            return byte
        }
        defer { overReadCount += 1 }
        guard headerMode, timeEnabled, overReadCount < 4 else { return Self.emptyByte }
        return overReadCount == 0 ? Self.sensorTimeHeader : UInt8((lastFrameSensorTime >> (8 * UInt32(overReadCount - 1))) & 0xFF)
    }

    /// FIFO_DATA without reading it.
    var first: UInt8 { bytes.first ?? Self.emptyByte }
}
