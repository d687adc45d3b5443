/// Gathers barometer readings into one update per ``interval``: their mean pressure and
/// temperature, how much the pressure scattered, and the time of the last reading. Updates close
/// on a grid of `interval` from the first reading (not from each update's last reading), so they
/// come once per interval on average whatever the chip's rate. The mean of a second's 26 readings
/// at a BMP280's indoor-navigation rate is hardly less noisy than one reading: the chip's IIR
/// filter (coefficient 16) has correlated them over about that long already.
struct BarometerWindow: Sendable {
    /// One update's worth of readings.
    struct Summary: Sendable, Equatable {
        /// Mean pressure, Pa.
        var pressure: Double
        /// Mean die temperature, °C.
        var temperature: Double
        /// The standard deviation of the readings' pressure, Pa (0 for a single reading).
        var pressureDeviation: Double
        var count: Int
        /// When the last reading was taken, seconds since boot.
        var timestamp: Double
    }

    /// Seconds between updates.
    let interval: Double
    /// When the update being gathered closes: the first reading's time plus whole intervals.
    private var deadline: Double?
    private var count = 0
    private var pressureSum = 0.0
    private var pressureSquares = 0.0
    private var temperatureSum = 0.0
    /// The first reading's pressure: sums are taken about it, so that squares of 10⁵ Pa do not
    /// swallow the decimals.
    private var origin = 0.0

    init(interval: Double) {
        self.interval = interval
    }

    /// Adds a reading; returns the summary when it closes an update (the readings of the last
    /// `interval` seconds, this one included).
    mutating func add(_ sample: BarometerSample) -> Summary? {
        if deadline == nil {
            deadline = sample.timestamp + interval
            origin = sample.pressure
        }
        let offset = sample.pressure - origin
        count += 1
        pressureSum += offset
        pressureSquares += offset * offset
        temperatureSum += sample.temperature
        guard var next = deadline, sample.timestamp >= next - 1e-9 else { return nil }
        let n = Double(count)
        let mean = pressureSum / n
        let variance = count > 1 ? max(0, (pressureSquares - n * mean * mean) / (n - 1)) : 0
        let summary = Summary(
            pressure: origin + mean, temperature: temperatureSum / n, pressureDeviation: variance.squareRoot(),
            count: count, timestamp: sample.timestamp)
        while next <= sample.timestamp + 1e-9 { next += interval }
        self = BarometerWindow(interval: interval)
        deadline = next
        origin = sample.pressure
        return summary
    }
}
