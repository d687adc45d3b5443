/// The FIFO of the InvenSense chips (MPU-6050/6500/9150/9250, ICM-20948) as a table: the
/// register writes that start it, where the overflow shows, the writes that restart it after
/// one, and where its byte count and data are read. Frames are accelerometer then gyroscope,
/// big-endian, 6 + 6 bytes (RM-MPU-6000A §4.7 FIFO_EN, §4.30 FIFO_COUNT, §4.31 FIFO_R_W;
/// DS-000189 §8 FIFO_EN_2, FIFO_COUNTH, FIFO_R_W).
struct InvenSenseFIFO: Sendable {
    /// Written in order by ``IMUDriver/enableFIFO()``: reset, select the sensors, enable.
    var start: [(register: UInt8, value: UInt8)]
    /// The overflow flag(s), cleared by reading; after an overflow the FIFO content is
    /// misaligned and stale, so it is restarted (`restart` written in order) instead of read.
    var overflow: RegisterField
    var restart: [(register: UInt8, value: UInt8)]
    /// FIFO_COUNTH: the count's bits in its high byte (`mask`); FIFO_COUNTL follows.
    var count: RegisterField
    /// FIFO_R_W.
    var data: UInt8

    /// Bytes per frame.
    static let frameSize = 12
    /// Most frames read from FIFO_R_W in one transaction (fewer on a bus with a shorter read limit).
    static let chunkFrames = 16
}

/// An InvenSense driver whose FIFO is its ``InvenSenseFIFO`` table.
protocol InvenSenseFIFODriver: CoreIMUDriver where State == IMUState<NoFIFOProgress> {
    static var fifo: InvenSenseFIFO { get }
}

extension InvenSenseFIFODriver {
    package func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in
            for (register, value) in Self.fifo.start { try device.write(register, value) }
            state.restartFIFO()
        }
    }

    /// Reads the overflow flag, then FIFO_COUNT, then whole 12-byte frames in chunks.
    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        let fifo = Self.fifo
        try core.locked { state throws(SensorError) in
            if try device.read(fifo.overflow.address) & fifo.overflow.mask != 0 {
                for (register, value) in fifo.restart { try device.write(register, value) }
                state.restartFIFO()
                read.overflowed = true
                return
            }
            let scale = state.scale
            let bytes = try device.burst(fifo.count.address, count: 2) { count in Int(count[0] & fifo.count.mask) << 8 | Int(count[1]) }
            try device.readFIFOFrames(
                bytes / InvenSenseFIFO.frameSize, from: fifo.data, frameSize: InvenSenseFIFO.frameSize, chunkFrames: InvenSenseFIFO.chunkFrames,
                nextIndex: &state.fifoSamples, into: &read.frames
            ) { bytes, base in
                scale.sample(accelerometer: AxisLayout.bigEndian.counts(bytes, from: base),
                             gyroscope: AxisLayout.bigEndian.counts(bytes, from: base + 6))
            }
        }
    }
}
