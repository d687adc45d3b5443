/// An IMU's rate and range tables, looked up by exact match.
struct IMUTables: Sendable {
    /// Output data rate (Hz) → rate code.
    var outputDataRates: [SettingOption]
    /// Accelerometer full scale (g) → range code, sensitivity LSB/g.
    var accelerometerRanges: [SettingOption]
    /// Gyroscope full scale (°/s) → range code, sensitivity LSB/(°/s).
    var gyroscopeRanges: [SettingOption]

    /// The rate, accelerometer range and gyroscope range of `configuration`, each an exact match.
    func options(for configuration: IMUConfiguration, chip: String) throws(SensorError)
        -> (rate: SettingOption, accelerometer: SettingOption, gyroscope: SettingOption) {
        (try rate(configuration.outputDataRate, chip: chip),
         try accelerometerRange(configuration.accelerometerRange, chip: chip),
         try gyroscopeRange(configuration.gyroscopeRange, chip: chip))
    }

    /// As ``options(for:chip:)`` for a chip whose driver keeps the chip's own filtering: a
    /// requested low-pass bandwidth throws ``SensorError/notSupported(chip:feature:)``.
    func optionsWithChipFiltering(for configuration: IMUConfiguration, chip: String) throws(SensorError)
        -> (rate: SettingOption, accelerometer: SettingOption, gyroscope: SettingOption) {
        if configuration.lowPassBandwidth != nil {
            throw .notSupported(chip: chip, feature: "selectable low-pass bandwidth in this driver (leave it nil)")
        }
        return try options(for: configuration, chip: chip)
    }

    func rate(_ hertz: Double, chip: String) throws(SensorError) -> SettingOption {
        try lookup(hertz, in: outputDataRates, setting: "output data rate", unit: "Hz", chip: chip)
    }

    func accelerometerRange(_ g: Double, chip: String) throws(SensorError) -> SettingOption {
        try lookup(g, in: accelerometerRanges, setting: "accelerometer range", unit: "g", chip: chip)
    }

    func gyroscopeRange(_ degreesPerSecond: Double, chip: String) throws(SensorError) -> SettingOption {
        try lookup(degreesPerSecond, in: gyroscopeRanges, setting: "gyroscope range", unit: "°/s", chip: chip)
    }
}

/// What an IMU driver with a plain FIFO keeps under its lock: the configuration and control
/// registers it applied, the sensitivities its samples are scaled with, and the FIFO frames
/// counted since the FIFO (re)started.
struct IMUState: DriverState {
    var configuration: IMUConfiguration
    var shadow = ShadowRegisters([:])
    var scale: IMUScale
    var fifoSamples = 0
}

/// The sensitivities of the configured full scales, which turn raw counts into an ``IMUSample``.
struct IMUScale: Sendable {
    var accelerometerLSBPerG: Double
    var gyroscopeLSBPerDPS: Double

    /// Raw counts → an ``IMUSample`` in Core Motion units and sign. The chips report specific
    /// force (+1 g on z face up); Core Motion reports the opposite sign, so acceleration is
    /// negated here.
    func sample(accelerometer: SIMD3<Int16>, gyroscope: SIMD3<Int16>, temperature: Double? = nil) -> IMUSample {
        let acceleration = -SIMD3<Double>(Double(accelerometer.x), Double(accelerometer.y), Double(accelerometer.z))
            / accelerometerLSBPerG
        let rotation = SIMD3<Double>(Double(gyroscope.x), Double(gyroscope.y), Double(gyroscope.z))
            / gyroscopeLSBPerDPS * degreesToRadians
        return IMUSample(
            acceleration: acceleration, rotationRate: rotation, temperature: temperature,
            isSaturated: isAtLimit(accelerometer) || isAtLimit(gyroscope),
            raw: RawIMUReading(
                accelerometer: accelerometer, gyroscope: gyroscope,
                accelerometerLSBPerG: accelerometerLSBPerG, gyroscopeLSBPerDPS: gyroscopeLSBPerDPS))
    }
}

extension RegisterDevice {
    /// At most `chunkFrames` frames of `frameSize` bytes, and no more than one transfer of the
    /// bus carries: a FIFO data register must not be read across the SMBus 32-byte split.
    func fifoFramesPerRead(_ chunkFrames: Int, frameSize: Int) -> Int {
        guard let limit = bus.maximumReadLength else { return chunkFrames }
        return max(1, min(chunkFrames, limit / frameSize))
    }

    /// Reads `count` whole frames of `frameSize` bytes from the FIFO data register, at most
    /// `chunkFrames` per transaction (fewer when the bus reads fewer bytes at once), numbering
    /// them from `nextIndex` on (advanced per frame), and appends them to `frames` (whose
    /// capacity a caller reusing it keeps: no allocation in a steady stream).
    func readFIFOFrames(
        _ count: Int, from register: UInt8, frameSize: Int, chunkFrames: Int, nextIndex: inout Int, into frames: inout [FIFOFrame],
        decode: (_ bytes: UnsafeRawBufferPointer, _ base: Int) -> IMUSample
    ) throws(SensorError) {
        try readFIFOChunks(count, from: register, itemSize: frameSize, chunkItems: chunkFrames) { bytes, item in
            frames.append(FIFOFrame(sampleIndex: nextIndex, sample: decode(bytes, item * frameSize)))
            nextIndex += 1
            return true
        }
    }

    /// Reads `count` FIFO items (frames, words or packets) of `itemSize` bytes from `register`,
    /// at most `chunkItems` per transaction and no more than one transfer of the bus carries,
    /// calling `body` with each chunk's bytes and the item's index in the chunk; `body` returns
    /// false to stop the read there (an end marker).
    func readFIFOChunks(
        _ count: Int, from register: UInt8, itemSize: Int, chunkItems: Int,
        _ body: (_ bytes: UnsafeRawBufferPointer, _ item: Int) throws(SensorError) -> Bool
    ) throws(SensorError) {
        var remaining = count
        let perRead = fifoFramesPerRead(chunkItems, frameSize: itemSize)
        while remaining > 0 {
            let chunk = min(remaining, perRead)
            let goOn = try burst(register, count: chunk * itemSize) { (bytes) throws(SensorError) -> Bool in
                for item in 0..<chunk where !(try body(bytes, item)) { return false }
                return true
            }
            guard goOn else { return }
            remaining -= chunk
        }
    }
}

extension RegisterDevice {
    /// The InvenSense FIFO read (MPU-6050/6500/9250, ICM-20948): FIFO_COUNT as a big-endian byte
    /// count at `countRegister` (`highMask`: the count's bits in its high byte), then whole frames
    /// of big-endian accelerometer then gyroscope axes (6 + 6 bytes) from `dataRegister`, at most
    /// `chunkFrames` per read, appended to `frames`.
    func readInvenSenseFrames(
        countRegister: UInt8, highMask: UInt8, dataRegister: UInt8, chunkFrames: Int, scale: IMUScale,
        nextIndex: inout Int, into frames: inout [FIFOFrame]
    ) throws(SensorError) {
        let bytes = try burst(countRegister, count: 2) { count in Int(count[0] & highMask) << 8 | Int(count[1]) }
        try readFIFOFrames(
            bytes / 12, from: dataRegister, frameSize: 12, chunkFrames: chunkFrames, nextIndex: &nextIndex, into: &frames
        ) { bytes, base in
            scale.sample(accelerometer: AxisLayout.bigEndian.counts(bytes, from: base),
                         gyroscope: AxisLayout.bigEndian.counts(bytes, from: base + 6))
        }
    }
}

extension FIFORead {
    /// Empties the frames, keeping their storage, for a read into this value.
    mutating func restart(overflowed: Bool = false) {
        frames.removeAll(keepingCapacity: true)
        self.overflowed = overflowed
        chipClockWrap = nil
        skippedFrames = 0
    }
}
