import Foundation
import Testing
@testable import motion_lab

/// `StepTrace.resampled(to:)`: a uniform grid at the rate asked, each value the motion's mean over
/// the output interval (docs/steps.md), so that what lies above half the new rate does not fold
/// into the gait's band as a board's chip would not let it.
@Suite struct StepTraceResamplingTests {
    /// 10 s at 400 Hz: 1 g down plus a sine of `amplitude` g at `frequency` Hz on x.
    static func trace(frequency: Double, amplitude: Double) -> StepTrace {
        let times = (0...4000).map { Double($0) / 400 }
        return StepTrace(
            name: "synthetic", subject: "nobody", position: "hand", groundTruthSteps: 1, timestamps: times,
            accelerations: times.map { SIMD3(amplitude * sin(2 * .pi * frequency * $0), 0, -1) })
    }

    /// The largest |x| after the first second.
    static func peak(_ trace: StepTrace) -> Double {
        zip(trace.timestamps, trace.accelerations).filter { $0.0 >= 1 }.map { abs($0.1.x) }.max() ?? 0
    }

    @Test func theGridHasOneSampleATickAndKeepsGravity() {
        let resampled = Self.trace(frequency: 2, amplitude: 0.2).resampled(to: 50)
        #expect(resampled.timestamps.count == 501)
        #expect(resampled.timestamps[1] == 0.02 && resampled.timestamps[500] == 10)
        #expect(resampled.accelerations.allSatisfy { abs($0.z + 1) < 1e-9 })
    }

    /// A step's band (2 Hz) passes: over 99 % of its height at 50 Hz.
    @Test func theGaitsBandPasses() {
        #expect(Self.peak(Self.trace(frequency: 2, amplitude: 0.2).resampled(to: 50)) > 0.198)
    }

    /// 40 Hz read at 50 Hz would alias to 10 Hz at full height if taken at the ticks; the mean over
    /// each 20 ms keeps sin(0.8π)/(0.8π) ≈ 23 % of it.
    @Test func contentAboveHalfTheRateIsAttenuated() {
        let peak = Self.peak(Self.trace(frequency: 40, amplitude: 0.2).resampled(to: 50))
        #expect(peak < 0.05 && peak > 0.04, "\(peak)")
    }
}
