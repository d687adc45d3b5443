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
    /// requested low-pass bandwidth throws ``SensorError/notSupported(chip:feature:)``, before the
    /// table lookups or (`checkingTablesFirst`) after them.
    func optionsWithChipFiltering(for configuration: IMUConfiguration, chip: String, checkingTablesFirst: Bool = false) throws(SensorError)
        -> (rate: SettingOption, accelerometer: SettingOption, gyroscope: SettingOption) {
        var found: (rate: SettingOption, accelerometer: SettingOption, gyroscope: SettingOption)?
        if checkingTablesFirst { found = try options(for: configuration, chip: chip) }
        if configuration.lowPassBandwidth != nil {
            throw .notSupported(chip: chip, feature: "selectable low-pass bandwidth in this driver (leave it nil)")
        }
        if let found { return found }
        return try options(for: configuration, chip: chip)
    }

    /// The low-pass filter of `configuration` from `table` (bandwidth in Hz → code): the
    /// bandwidth it asks for (an exact match), or without one the widest below the Nyquist
    /// frequency of `rate`, else the narrowest.
    static func lowPass(for configuration: IMUConfiguration, rate: Double, in table: [SettingOption], chip: String) throws(SensorError)
        -> SettingOption {
        if let bandwidth = configuration.lowPassBandwidth {
            return try lookup(bandwidth, in: table, setting: "low-pass bandwidth", unit: "Hz", chip: chip)
        }
        let belowNyquist = table.filter { $0.value < rate / 2 }.max { $0.value < $1.value }
        if let option = belowNyquist ?? table.min(by: { $0.value < $1.value }) { return option }
        throw .notSupported(chip: chip, feature: "low-pass filter")
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

extension FIFORead {
    /// Empties the frames, keeping their storage, for a read into this value.
    mutating func restart(overflowed: Bool = false) {
        frames.removeAll(keepingCapacity: true)
        self.overflowed = overflowed
        chipClockWrap = nil
        skippedFrames = 0
    }
}
