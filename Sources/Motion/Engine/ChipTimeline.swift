/// Numbers FIFO samples by the chip's own timestamps, on one line that survives FIFO restarts.
///
/// A FIFO's sample indices start again whenever the FIFO does (an overflow, a restart); the chip's
/// timestamp counter runs on. A sample's chip time divided by the nominal sample period is its
/// position on the chip's clock (in periods; fractional where the sampling phase moved, e.g. when
/// a restart started batching afresh), so ``SampleTimeEstimator`` can keep what it learnt about
/// the chip's clock across a restart, and samples the chip never delivered leave gaps instead of
/// shifting the rest.
///
/// The counter wraps (every `wrap` seconds, 65.5 ms on the ICM-42688-P). Within a read the driver
/// unwraps from frame to frame; across reads, and after a restart, the whole wraps come from the
/// host's clock: the newest sample's chip time advanced about as much as the host's time did
/// since the last read (the chip's clock is off by ppm, the sample by at most a period), which
/// is unambiguous while that error stays under half a wrap.
package struct ChipTimeline: Sendable {
    package let nominalPeriod: Double
    /// The counter's wrap period, seconds; nil for chip times that never wrap.
    package let wrap: Double?
    /// Chip time of the first sample: index 0.
    private var zero: Double?
    /// The newest sample's chip time (unwrapped) and the host time of the read that brought it.
    private var last: (chipTime: Double, readTime: Double)?
    /// The whole wraps added to the chip times of the read last observed.
    private var offset = 0.0

    package init(nominalPeriod: Double, wrap: Double?) {
        self.nominalPeriod = nominalPeriod
        self.wrap = wrap
    }

    /// Takes one read's samples, given the chip times of its first and newest sample (as the
    /// driver unwrapped them within the read) and the host time of the read; then
    /// ``position(of:)`` places each of its samples.
    package mutating func observeRead(first: Double, newest: Double, readAt time: Double) {
        offset = 0
        if let wrap, let last {
            let expected = last.chipTime + (time - last.readTime)
            offset = ((expected - newest) / wrap).rounded() * wrap
        }
        if zero == nil { zero = first + offset }
        last = (newest + offset, time)
    }

    /// The position on the chip's clock (sample periods since the first sample) of a sample of
    /// the read last observed, from its chip time.
    package func position(of chipTime: Double) -> Double {
        (chipTime + offset - (zero ?? chipTime + offset)) / nominalPeriod
    }
}
