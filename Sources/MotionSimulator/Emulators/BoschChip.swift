/// What the BMI160 and BMI270 models share besides their FIFO (``BoschFIFO``): SENSORTIME, a 24-bit
/// counter of 39.0625 µs (BST-BMI160-DS000 §2.3.1 Table 11; BST-BMI270-DS000 "SENSORTIME"), and
/// data made at the faster running sensor's output data rate.
protocol BoschChip: SensingChip {
    /// The accelerometer's output data rate while it runs, Hz; nil while it does not.
    var accelRate: Double? { get }
    /// The gyroscope's, likewise.
    var gyroRate: Double? { get }
}

/// SENSORTIME's resolution, seconds per LSB, and its 24 bits.
enum BoschSensorTime {
    static let lsb = 39.0625e-6, modulus = 16_777_216.0
}

extension BoschChip {
    /// SENSORTIME at simulation `time`, counted by the chip's own (drifting) oscillator. A
    /// millionth of an LSB of tolerance: a sample taken just as the counter steps (the rates
    /// divide the same oscillator) reads the new count, not the old one by rounding.
    func sensorTime(at time: Double) -> UInt32 {
        let ticks = time * (1 + options.clockDriftPPM * 1e-6) / BoschSensorTime.lsb + 1e-6
        guard ticks.isFinite, ticks >= 0 else { return 0 }
        return UInt32(ticks.rounded(.down).truncatingRemainder(dividingBy: BoschSensorTime.modulus))
    }

    /// Data are produced at the faster running sensor's rate.
    var sampleRate: Double? {
        switch (accelRate, gyroRate) {
        case let (a?, g?): max(a, g)
        case let (a?, nil): a
        case let (nil, g?): g
        case (nil, nil): nil
        }
    }
}
