/// Why a sample was not delivered.
public enum DropReason: String, Sendable, CaseIterable {
    /// The read failed even after a retry within the sample period.
    case busError = "bus error"
    /// The sampler was backing off from a device that stopped answering.
    case deviceUnavailable = "device unavailable"
    /// The chip was found reset; the sample read with it is not trusted.
    case deviceReset = "device reset"
    /// The chip's FIFO filled up before it was read (counted per lost sample).
    case fifoOverflow = "FIFO overflow"
    /// FIFO mode: samples the chip held (or would have produced) when it had to be set up again
    /// after a failure burst or a disappearance, counted per sample period of the gap.
    case resetByRecovery = "lost in recovery"
    /// The sampler did not get the processor in time and skipped a tick (machine overloaded).
    case late
    /// An `AsyncStream` consumer fell more than its buffer behind; its oldest value was dropped.
    case streamBufferFull = "stream buffer full"
}

/// What the sampler of one device has done since it started. Readable at any time, and true at
/// every moment: every sample period since sampling started is either a sample or a drop with its
/// reason (and a sample a slow stream consumer lost is counted too). A period is a tick of the
/// timer, or through the chip's FIFO a period of the chip's output data rate, up to the newest
/// sample read; while the IMU is out, up to now (its FIFO will be started afresh, so what it
/// held is lost) — only the samples waiting in the FIFO for the next read after a failed one are
/// neither yet.
public struct SamplerCounters: Sendable, Equatable, CustomStringConvertible {
    /// Ticks that produced a sample.
    public var sampled = 0
    /// Failed reads that succeeded when retried within the same period.
    public var retried = 0
    /// Ticks without a sample, by reason.
    public var dropped: [DropReason: Int] = [:]
    /// Samples delivered without a magnetometer reading on a device that has one: its
    /// magnetometer was out (gone, failing, reset) while the IMU went on; device motion ran on
    /// the accelerometer and gyroscope alone for them. Part of `sampled`, not a drop.
    public var sampledWithoutMagnetometer = 0
    /// Incidents (failure bursts, resets) after which the sampler resumed by itself.
    public var recovered = 0
    /// Incidents reported to consumers (one error per incident).
    public var incidents = 0

    public var totalDropped: Int { dropped.values.reduce(0, +) }

    public var description: String {
        let drops = dropped.isEmpty ? "0" : dropped.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        let withoutField = sampledWithoutMagnetometer > 0 ? " (\(sampledWithoutMagnetometer) without magnetometer)" : ""
        return "sampled \(sampled)\(withoutField), retried \(retried), dropped \(drops), incidents \(incidents), recovered \(recovered)"
    }
}
