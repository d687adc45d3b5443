/// Unit conversions and the output-register encoding shared by the chip models.
enum Encoding {
    /// Standard gravity, m/s² (the accelerometers' "g").
    static let gravity = PhysicalState.standardGravity
    /// Degrees per radian (gyroscope sensitivities are given in dps).
    static let degreesPerRadian = 180 / Double.pi
    /// Microtesla per gauss.
    static let microteslaPerGauss = 100.0

    /// A value in LSB as the chip's ADC gives it: rounded to the nearest LSB, clamped to the
    /// signed 16-bit output range (saturation at full scale).
    static func int16(_ lsb: Double) -> Int16 {
        guard lsb.isFinite else { return lsb > 0 ? .max : .min }
        return Int16(max(Double(Int16.min), min(Double(Int16.max), lsb.rounded())))
    }

    /// `value / sensitivity` per axis, quantized to int16.
    static func counts(_ value: SIMD3<Double>, perLSB sensitivity: Double) -> SIMD3<Int16> {
        SIMD3(int16(value.x / sensitivity), int16(value.y / sensitivity), int16(value.z / sensitivity))
    }

    static func littleEndian(_ value: Int16) -> InlineBytes {
        let bits = UInt16(bitPattern: value)
        return InlineBytes(UInt8(bits & 0xFF), UInt8(bits >> 8))
    }

    static func bigEndian(_ value: Int16) -> InlineBytes {
        let bits = UInt16(bitPattern: value)
        return InlineBytes(UInt8(bits >> 8), UInt8(bits & 0xFF))
    }

    /// The three axes, each little-endian: X_L, X_H, Y_L, Y_H, Z_L, Z_H.
    static func littleEndian(_ value: SIMD3<Int16>) -> InlineBytes {
        littleEndian(value.x) + littleEndian(value.y) + littleEndian(value.z)
    }

    /// The three axes, each big-endian: X_H, X_L, Y_H, Y_L, Z_H, Z_L.
    static func bigEndian(_ value: SIMD3<Int16>) -> InlineBytes {
        bigEndian(value.x) + bigEndian(value.y) + bigEndian(value.z)
    }

    /// Zeroes the axes of `value` that are declared dead for this sensor.
    static func masking(
        _ value: SIMD3<Double>, deadAxes: Set<SensorAxis>, _ sensor: (SensorAxis.Axis) -> SensorAxis
    ) -> SIMD3<Double> {
        var result = value
        for axis in SensorAxis.Axis.allCases where deadAxes.contains(sensor(axis)) {
            result[axis.rawValue] = 0
        }
        return result
    }
}

extension SIMD3 where Scalar == Double {
    /// x, y, z from `value(0)`, `value(1)`, `value(2)` (without the array of a `map`).
    init(perAxis value: (Int) -> Double) {
        self.init(value(0), value(1), value(2))
    }
}

/// Up to 32 bytes held in place, not on the heap: an output block or a FIFO frame as the chip
/// models build it for every sample (an array each time would be an allocation per sample).
/// Bytes past the 32nd are dropped (no model builds a longer block).
struct InlineBytes: RandomAccessCollection, Sendable, Equatable {
    private var storage = SIMD32<UInt8>()
    private(set) var count = 0

    init() {}

    init(_ first: UInt8, _ second: UInt8) {
        append(first)
        append(second)
    }

    init<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        append(contentsOf: bytes)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }
    subscript(position: Int) -> UInt8 { storage[position] }

    mutating func append(_ byte: UInt8) {
        guard count < storage.scalarCount else { return }
        storage[count] = byte
        count += 1
    }

    mutating func append<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) {
        for byte in bytes { append(byte) }
    }

    static func + (lhs: InlineBytes, rhs: InlineBytes) -> InlineBytes {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }

    static func += (lhs: inout InlineBytes, rhs: InlineBytes) {
        lhs.append(contentsOf: rhs)
    }

    static func == (lhs: InlineBytes, rhs: InlineBytes) -> Bool {
        lhs.elementsEqual(rhs)
    }
}

/// The output-data-rate clock of one sensor, running on the chip's own oscillator.
///
/// Tick `k` after the sensor started falls at `origin + k · period / (1 + drift·10⁻⁶)` in
/// simulation time; ``advance(to:keepingLast:_:)`` reports the ticks due since the last call.
struct SampleTicker: Sendable {
    let driftPPM: Double
    /// Nominal rate in Hz; nil when the sensor is off.
    private(set) var rate: Double?
    private var origin = 0.0
    private var nextTick = 1

    init(driftPPM: Double) { self.driftPPM = driftPPM }

    private var period: Double? {
        rate.map { 1 / ($0 * (1 + driftPPM * 1e-6)) }
    }

    /// Starts (or restarts, with a new phase) at `rate` Hz from `time`; nil stops. Keeps the phase
    /// when the rate does not change.
    mutating func set(rate newRate: Double?, at time: Double) {
        guard newRate != rate else { return }
        rate = newRate
        origin = time
        nextTick = 1
    }

    /// Calls `body` with the time of each tick due by `time`, in order; when more than `limit`
    /// are due only the last `limit` are reported. Returns how many ticks were due in all.
    @discardableResult
    mutating func advance(to time: Double, keepingLast limit: Int = .max, _ body: (Double) -> Void = { _ in }) -> Int {
        guard let period else { return 0 }
        // A millionth of a period of tolerance absorbs rounding in the caller's accumulated time.
        let lastDue = Int(((time - origin) / period + 1e-6).rounded(.down))
        guard lastDue >= nextTick else { return 0 }
        let due = lastDue - nextTick + 1
        let first = max(nextTick, lastDue - max(0, limit) + 1)
        if first <= lastDue {
            for tick in first...lastDue { body(origin + Double(tick) * period) }
        }
        nextTick = lastDue + 1
        return due
    }
}
