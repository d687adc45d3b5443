/// Times samples read from a chip's FIFO by the chip's own clock.
///
/// The chip takes sample k at `t(k) = origin + period · k`, its period off the nominal by its
/// clock's drift (a few hundred ppm). A FIFO read at time `T` that finds samples up to index `K`
/// says: sample K was taken by `T`, sample K+1 was not, so
/// `T − period·(K+1) < origin ≤ T − period·K`.
///
/// - Period: every new read, paired with each of the first reads (the anchors), narrows the
///   bounds on the period; they keep narrowing as the span grows (a few ppm after a minute).
///   Bounds that contradict each other mean the chip's clock changed (temperature): the anchors
///   start again from the recent reads.
/// - Origin: the middle of its tightest bounds over a window of recent reads.
///
/// The bounds are tight only when reads fall at many different phases of the sample period: a
/// reader at a whole number of periods learns nothing new. ``readInterval(rate:near:)`` gives an
/// interval a golden-ratio fraction of a period off, so the phases spread evenly.
///
/// Measured (see `SampleTimeEstimatorTests`, `FIFOSamplingTests`): a chip 300 ppm fast read at
/// such intervals, or every 10 ms with random delays, with reads several periods late: after
/// 10 s every timestamp is within 50 µs of the time the chip took the sample.
package struct SampleTimeEstimator: Sendable {
    package let nominalPeriod: Double
    private let anchorCount: Int
    private let windowSize: Int
    private var anchors: [(time: Double, index: Double)] = []
    private var recent: [(time: Double, index: Double)] = []
    private var nextRecent = 0
    private var periodBounds: ClosedRange<Double>
    /// The estimated time of sample 0, seconds.
    package private(set) var origin: Double = .nan

    /// - Parameters:
    ///   - nominalPeriod: 1 / output data rate, seconds.
    ///   - anchorCount: how many of the first reads bound the period with each new read.
    ///   - windowSize: how many recent reads bound the origin.
    package init(nominalPeriod: Double, anchorCount: Int = 256, windowSize: Int = 256) {
        self.nominalPeriod = nominalPeriod
        self.anchorCount = anchorCount
        self.windowSize = windowSize
        self.periodBounds = Self.widestBounds(nominalPeriod)
        anchors.reserveCapacity(anchorCount)
        recent.reserveCapacity(windowSize)
    }

    /// No crystal is further than 1000 ppm off.
    private static func widestBounds(_ nominal: Double) -> ClosedRange<Double> {
        nominal * 0.999...nominal * 1.001
    }

    /// The estimated sample period of the chip, seconds.
    package var period: Double { (periodBounds.lowerBound + periodBounds.upperBound) / 2 }

    /// Records a read: at `time` (seconds) the newest sample in the FIFO had index `lastIndex`.
    package mutating func observe(readAt time: Double, lastIndex: Int) {
        observe(readAt: time, lastPosition: Double(lastIndex))
    }

    /// Records a read whose newest sample sits at `lastIndex` sample periods (not necessarily a
    /// whole number: a chip's timestamp divided by the nominal period) from sample 0; the next
    /// sample comes one period later.
    package mutating func observe(readAt time: Double, lastPosition lastIndex: Double) {
        if anchors.count < anchorCount { anchors.append((time, lastIndex)) }
        if recent.count < windowSize { recent.append((time, lastIndex)) } else { recent[nextRecent] = (time, lastIndex) }
        nextRecent = (nextRecent + 1) % windowSize

        var lowest = periodBounds.lowerBound, highest = periodBounds.upperBound
        for anchor in anchors where lastIndex - anchor.index >= 2 {
            let span = time - anchor.time
            lowest = max(lowest, span / (lastIndex - anchor.index + 1))
            highest = min(highest, span / (lastIndex - anchor.index - 1))
        }
        if lowest <= highest {
            periodBounds = lowest...highest
        } else {
            anchors = Array(recent.suffix(anchorCount))
            periodBounds = Self.widestBounds(nominalPeriod)
        }

        let period = self.period
        var lower = -Double.infinity, upper = Double.infinity
        for read in recent {
            lower = max(lower, read.time - period * (read.index + 1))
            upper = min(upper, read.time - period * read.index)
        }
        origin = lower <= upper ? (lower + upper) / 2 : upper
    }

    /// An interval near `target` seconds that is a whole number of sample periods plus the golden
    /// ratio's fraction of one, for a chip at `rate` Hz.
    package static func readInterval(rate: Double, near target: Double) -> Double {
        let fraction = (5.0.squareRoot() - 1) / 2
        let whole = max(1, (target * rate - fraction).rounded())
        return (whole + fraction) / rate
    }

    /// When sample `index` was taken (seconds), once at least one read was observed.
    package func time(ofSample index: Int) -> Double {
        time(ofPosition: Double(index))
    }

    /// When the sample `position` periods from sample 0 was taken (seconds).
    package func time(ofPosition position: Double) -> Double {
        origin + period * position
    }
}
