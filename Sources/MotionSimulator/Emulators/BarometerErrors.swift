/// What separates an emulated barometer's pressure from the truth besides its quantisation (the
/// whole counts of its output registers): white noise of the RMS its datasheet gives for the
/// setting in use, and an offset that moves with the die temperature, the datasheet's temperature
/// coefficient of offset (TCO). A datasheet gives the TCO as a typical band (± so many Pa/K), so
/// each seeded chip draws its own coefficient once, uniformly within that band, and is offset by
/// it times the die temperature's distance from 25 °C (the temperature the datasheets' relative
/// figures are stated at). Without a seed the chip is ideal: quantisation only.
///
/// The noise of each draw depends only on (seed, draw number, channel), as every emulator's noise
/// here does, so a run repeats exactly.
struct BarometerErrors: Sendable {
    /// Where the temperature's offset is zero, °C.
    static let referenceTemperature = 25.0

    let seed: UInt64?
    /// Distinguishes this chip model's noise from another's drawn from the same seed.
    let channel: UInt64
    /// This chip's coefficient, Pa/K (0 without a seed).
    let offsetPerKelvin: Double
    /// Pressure draws so far: the noise's index.
    private(set) var draws: Int64 = 0

    /// - Parameters:
    ///   - seed: the chip's seed; nil: an ideal chip.
    ///   - channel: the chip model's noise channel.
    ///   - temperatureCoefficient: the datasheet's TCO band, Pa/K (the coefficient is drawn within ±it).
    init(seed: UInt64?, channel: UInt64, temperatureCoefficient: Double) {
        self.seed = seed
        self.channel = channel
        if let seed {
            var generator = SplitMix64(seed: SplitMix64.mix(seed ^ channel))
            offsetPerKelvin = temperatureCoefficient * generator.next(in: -1...1)
        } else {
            offsetPerKelvin = 0
        }
    }

    /// The pressure one measurement gives, Pa: `pressure` plus this chip's temperature offset at
    /// `temperature` (°C) plus white noise of `rms` (Pa). Unseeded: `pressure`.
    mutating func measured(_ pressure: Double, temperature: Double, rms: Double) -> Double {
        guard let seed else { return pressure }
        draws += 1
        let offset = offsetPerKelvin * (temperature - Self.referenceTemperature)
        return pressure + offset + rms * SplitMix64.gaussian(seed: seed, index: draws, channel: channel)
    }
}
