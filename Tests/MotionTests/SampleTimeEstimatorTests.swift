import TestSupport
import Testing
import Motion

import MotionSimulation
@Suite struct SampleTimeEstimatorTests {
    /// A chip at 416 Hz whose clock runs 300 ppm fast, read at 100 Hz by a reader that is sometimes
    /// late by several periods: after 10 s every timestamp is within 50 µs of the truth.
    @Test func timestampsFollowTheChipClockWithinFiftyMicroseconds() {
        let nominal = 1 / 416.0
        let truePeriod = nominal * (1 - 300e-6)
        let trueOrigin = 1000.000_731
        var estimator = SampleTimeEstimator(nominalPeriod: nominal)
        var generator = FixedSeedNoise(seed: 7)
        var worst = 0.0
        var read = 1000.0
        for tick in 1...6000 {
            // Reader: every 10 ms, late by up to 4 ms, and every 50th read late by 5 chip periods.
            read = 1000.0 + Double(tick) * 0.01 + generator.uniform() * 0.004 + (tick % 50 == 0 ? 5 * nominal : 0)
            let lastIndex = Int(((read - trueOrigin) / truePeriod).rounded(.down))
            estimator.observe(readAt: read, lastIndex: lastIndex)
            if tick > 1000 {   // after 10 s
                for index in max(0, lastIndex - 40)...lastIndex {
                    worst = max(worst, abs(estimator.time(ofSample: index) - (trueOrigin + truePeriod * Double(index))))
                }
            }
        }
        #expect(worst < 50e-6, "worst timestamp error \(worst * 1e6) µs")
        #expect(abs(estimator.period / truePeriod - 1) < 20e-6)
    }
}
