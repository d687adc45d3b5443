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
    /// them from `nextIndex` on (advanced per frame).
    func readFIFOFrames(
        _ count: Int, from register: UInt8, frameSize: Int, chunkFrames: Int, nextIndex: inout Int,
        decode: (_ bytes: [UInt8], _ base: Int) -> IMUSample
    ) throws(SensorError) -> [FIFOFrame] {
        var remaining = count
        var frames: [FIFOFrame] = []
        frames.reserveCapacity(remaining)
        let perRead = fifoFramesPerRead(chunkFrames, frameSize: frameSize)
        while remaining > 0 {
            let chunk = min(remaining, perRead)
            let bytes = try read(register, count: chunk * frameSize)
            for frame in 0..<chunk {
                frames.append(FIFOFrame(sampleIndex: nextIndex, sample: decode(bytes, frame * frameSize)))
                nextIndex += 1
            }
            remaining -= chunk
        }
        return frames
    }
}
