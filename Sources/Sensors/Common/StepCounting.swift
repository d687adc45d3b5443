/// A step counter the chip runs itself (a pedometer among its embedded functions), as its
/// descriptor advertises it (``ChipDescriptor/stepCounter``): what a consumer needs to read it
/// right, from the chip's datasheet.
package struct StepCounterFeature: Sendable, Equatable {
    /// The counter's modulus: it wraps to 0 after `wrap - 1` (a 16-bit register: 65,536).
    package var wrap: Int
    /// The slowest accelerometer output data rate the counter runs at, Hz.
    package var minimumRate: Double
    /// Steps the chip holds back after a pause before its counter moves (its debounce), and adds
    /// at once when that many have come.
    package var debounceSteps: Int
    /// Where these figures come from.
    package var source: String

    package init(wrap: Int, minimumRate: Double, debounceSteps: Int, source: String) {
        self.wrap = wrap
        self.minimumRate = minimumRate
        self.debounceSteps = debounceSteps
        self.source = source
    }

    /// Steps between two readings of the counter, `earlier` then `later` (raw), across one wrap.
    package func steps(from earlier: Int, to later: Int) -> Int {
        ((later - earlier) % wrap + wrap) % wrap
    }
}

/// A driver whose chip counts steps (``ChipDescriptor/stepCounter`` says which chips do).
/// The counter runs on the chip's accelerometer whatever the host samples: the sampler reads it
/// a few times a second. A chip's reset stops it: enable it again after ``ChipDriver/configure(_:)``.
package protocol StepCountingDriver: AnyObject, Sendable {
    /// Starts the chip's step counter (it keeps counting from its current value). Throws
    /// ``SensorError/notSupported(chip:feature:)`` on a chip of the family without one.
    func enableStepCounter() throws(SensorError)
    /// The counter's raw value, 0 ..< ``StepCounterFeature/wrap``.
    func readStepCounter() throws(SensorError) -> Int
}
