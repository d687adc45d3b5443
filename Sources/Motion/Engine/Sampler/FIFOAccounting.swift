/// FIFO mode's bookkeeping, so that every period of the chip's clock is a delivered sample or a
/// counted drop: the chip's time of the last sample period accounted for (the last sample delivered,
/// or the last period of an outage counted), and why the next delivered sample may follow a gap (the
/// FIFO was restarted: overflow, set up again, chip reset). A gap's periods are counted with that
/// reason when the next sample arrives; an outage's as it goes on.
struct FIFOAccounting: Sendable, Equatable {
    /// The chip's time of the last period accounted for.
    private(set) var lastSample: Double?
    /// Why the next sample may follow a gap; nil: none expected.
    var gapReason: DropReason?
    /// When FIFO mode's first tick ran, from where an outage before any sample is counted.
    private var began: Double?

    /// Forgets everything: the FIFO's next start begins afresh (idle time, or the timer's mode, is no gap).
    mutating func reset() {
        self = FIFOAccounting()
    }

    /// A tick of FIFO mode at `now`: the first one marks where an outage before any sample counts from.
    mutating func ticked(at now: Double) {
        if began == nil { began = now }
    }

    /// The sample periods between the last one accounted for and a sample at `timestamp` that no
    /// sample filled, with the reason the FIFO was restarted (none seen: the chip dropped samples
    /// without saying so, counted as overflow); nil when there is no gap.
    mutating func gap(before timestamp: Double, period: Double) -> (reason: DropReason, count: Int)? {
        defer {
            lastSample = timestamp
            gapReason = nil
        }
        guard let last = lastSample, period > 0 else { return nil }
        let periods = ((timestamp - last) / period).rounded()
        guard periods.isFinite, periods > 1 else { return nil }
        return (gapReason ?? .fifoOverflow, Int(min(periods - 1, 1e9)))
    }

    /// While the IMU is out and its FIFO will be started afresh: the whole periods from the last one
    /// accounted for up to `now`, counted now, so that the counters are true during the outage and
    /// the first sample after it counts only the rest of the gap.
    mutating func outage(through now: Double, period: Double) -> Int {
        guard period > 0, let from = lastSample ?? began else { return 0 }
        let periods = ((now - from) / period).rounded(.down)
        guard periods.isFinite, periods >= 1 else { return 0 }
        let missing = Int(min(periods, 1e9))
        lastSample = from + Double(missing) * period
        return missing
    }
}
