import I2C
@testable import Motion
import Testing

/// The sampler's parts alone, as values: the schedule, one sensor's fault policy, FIFO mode's
/// accounting. (`SamplerTests`, `FIFOSamplingTests` and `FaultInjectionTests` run them together in
/// the hub.)
@Suite struct SamplerPartsTests {
    let policy = SamplerPolicy()

    // MARK: - SamplingSchedule

    @Test func noConsumerIsIdle() {
        let schedule = SamplingSchedule.plan(intervals: [], prefersFIFO: false, maximumTimerRate: 100, fifoRate: 208, policy: policy)
        #expect(schedule.mode == .idle && schedule.tick == 0 && schedule.maximumBackoffTicks == 1)
    }

    @Test func theTimerServesTheShortestIntervalItCan() {
        let schedule = SamplingSchedule.plan(intervals: [0.1, 0.02, 0.05], prefersFIFO: false, maximumTimerRate: 100, fifoRate: 208, policy: policy)
        #expect(schedule.mode == .timer(interval: 0.02))
        #expect(schedule.tick == 0.02)
        #expect(schedule.maximumBackoffTicks == 13)   // 0.25 s of 20 ms ticks
    }

    @Test func belowTheTimersTickTheFIFOServes() {
        let schedule = SamplingSchedule.plan(intervals: [0.005], prefersFIFO: false, maximumTimerRate: 100, fifoRate: 208, policy: policy)
        #expect(schedule.mode == .fifo(rate: 208))
        // Read about every 20 ms, a whole number of sample periods; the backoff at most 0.25 s.
        let tick = SampleTimeEstimator.readInterval(rate: 208, near: policy.fifoReadInterval)
        #expect(schedule.tick == tick)
        #expect(schedule.maximumBackoffTicks == Int((0.25 / tick).rounded()))
    }

    @Test func aConsumerThatPrefersTheFIFOGetsItAtAnyInterval() {
        let schedule = SamplingSchedule.plan(intervals: [0.1], prefersFIFO: true, maximumTimerRate: 100, fifoRate: 104, policy: policy)
        #expect(schedule.mode == .fifo(rate: 104))
    }

    @Test func withoutAFIFOTheTimersFastestTickServes() {
        let schedule = SamplingSchedule.plan(intervals: [0.001], prefersFIFO: true, maximumTimerRate: 100, fifoRate: nil, policy: policy)
        #expect(schedule.mode == .timer(interval: 0.01))
    }

    @Test func skippedTicksAreCountedAndAClockJumpIsACount() {
        #expect(SamplingSchedule.skippedTicks(from: nil, to: 5, tick: 0.01) == 0)
        #expect(SamplingSchedule.skippedTicks(from: 1.00, to: 1.01, tick: 0.01) == 0)
        #expect(SamplingSchedule.skippedTicks(from: 1.00, to: 1.04, tick: 0.01) == 3)
        #expect(SamplingSchedule.skippedTicks(from: 1.00, to: 0.5, tick: 0.01) == 0)   // backwards: none
        #expect(SamplingSchedule.skippedTicks(from: 0, to: 1e300, tick: 0.01) == 999_999_999)
    }

    @Test func aSampleIsDueHalfAPeriodEarly() {
        // A 0.02 s consumer of a 0.01 s stream: every second sample, despite the timestamps' jitter.
        #expect(SamplingSchedule.isDue(1.0, last: nil, interval: 0.02, sampleInterval: 0.01))
        #expect(!SamplingSchedule.isDue(1.0101, last: 1.0, interval: 0.02, sampleInterval: 0.01))
        #expect(SamplingSchedule.isDue(1.0199, last: 1.0, interval: 0.02, sampleInterval: 0.01))
        #expect(SamplingSchedule.isDue(1.02, last: 1.0, interval: 0.02, sampleInterval: 0.01))
    }

    // MARK: - SensorFaults

    let nack = MotionError.bus(I2CError(.noAcknowledge, bus: "/dev/i2c-1", address: I2CAddress(0x68), detail: "read"))

    @Test func aBurstOfFailuresIsOneIncidentThenBackoffDoublesToTheLimit() {
        var faults = SensorFaults(.imu)
        faults.initialized()
        let firstFailure = faults.failed(nack, policy: policy, maximumBackoff: 8)
        #expect(firstFailure == nil)
        #expect(faults.isInitialized)
        let secondFailure = faults.failed(nack, policy: policy, maximumBackoff: 8)
        #expect(secondFailure == nil)
        // The third in a row: one incident, reported as the device being unavailable; set up again.
        guard case .deviceUnavailable? = faults.failed(nack, policy: policy, maximumBackoff: 8) else {
            Issue.record("the third failure in a row is no incident")
            return
        }
        #expect(faults.inIncident && !faults.isInitialized)
        // Backoff: 1 tick skipped, then 2, 4, 8, 8 — no second report while the incident lasts.
        var skipped: [Int] = []
        for _ in 0..<5 {
            var count = 0
            while faults.skipsTick() { count += 1 }
            skipped.append(count)
            let duringIncident = faults.failed(nack, policy: policy, maximumBackoff: 8)
            #expect(duringIncident == nil)
        }
        #expect(skipped == [1, 2, 4, 8, 8])
    }

    @Test func aSuccessEndsTheIncidentOnceAndResetsTheBackoff() {
        var faults = SensorFaults(.magnetometer)
        // An incident backed off from three times (1, 2 and 4 ticks), then a read that works.
        for _ in 0..<5 {
            _ = faults.failed(.sensor("x"), policy: policy, maximumBackoff: 64)
            while faults.skipsTick() {}
        }
        #expect(faults.inIncident)
        let ended = faults.succeeded(), endedAgain = faults.succeeded()
        #expect(ended && !endedAgain, "one recovery to count")
        #expect(faults.consecutiveFailures == 0 && !faults.inIncident)
        // A transient failure after it is just retried; the next burst backs off from 1 tick again.
        let transient = faults.failed(.sensor("x"), policy: policy, maximumBackoff: 64)
        let skipsAfterTransient = faults.skipsTick()
        #expect(transient == nil && !skipsAfterTransient)
        for _ in 0..<2 { _ = faults.failed(.sensor("x"), policy: policy, maximumBackoff: 64) }
        var skipped = 0
        while faults.skipsTick() { skipped += 1 }
        #expect(faults.inIncident && skipped == 1)
    }

    @Test func otherErrorsAreReportedAsTheyAre() {
        var faults = SensorFaults(.imu)
        var reported: MotionError?
        for _ in 0..<3 { reported = faults.failed(.sensor("bad reading"), policy: policy, maximumBackoff: 64) ?? reported }
        #expect(reported == .sensor("bad reading"))
    }

    @Test func aLostConfigurationIsAnIncidentWithoutBackoff() {
        var faults = SensorFaults(.imu)
        faults.initialized()
        faults.lostConfiguration()
        let skips = faults.skipsTick()
        #expect(faults.inIncident && !faults.isInitialized && !skips)
    }

    @Test func theConfigurationIsReadBackEveryNTicksFromTheSetUp() {
        var faults = SensorFaults(.imu)
        faults.initialized()
        var due: [Bool] = []
        for _ in 1...25 { due.append(faults.checkIsDue(every: 10)) }
        #expect(due.indices.filter { due[$0] } == [9, 19])
        faults.initialized()
        var dueAgain: [Bool] = []
        for _ in 1...9 { dueAgain.append(faults.checkIsDue(every: 10)) }
        #expect(!dueAgain.contains(true))
    }

    // MARK: - FIFOAccounting

    @Test func aGapIsCountedWithTheReasonTheFIFORestarted() {
        var fifo = FIFOAccounting()
        let firstGap = fifo.gap(before: 1.00, period: 0.01)   // the first sample: nothing before it
        #expect(firstGap == nil)
        let noGap = fifo.gap(before: 1.01, period: 0.01)
        #expect(noGap == nil)
        fifo.gapReason = .deviceReset
        let gap = fifo.gap(before: 1.05, period: 0.01)
        #expect(gap?.reason == .deviceReset && gap?.count == 3)
        // Without a restart seen, the chip dropped samples unannounced: overflow.
        let silent = fifo.gap(before: 1.08, period: 0.01)
        #expect(silent?.reason == .fifoOverflow && silent?.count == 2)
    }

    @Test func anOutageIsCountedAsItGoesOnAndTheGapAfterItOnlyForTheRest() {
        var fifo = FIFOAccounting()
        fifo.ticked(at: 2.0)
        let outageSoFar = fifo.outage(through: 2.035, period: 0.01)   // 2.00, 2.01, 2.02 periods gone
        #expect(outageSoFar == 3)
        let outageWithinAPeriod = fifo.outage(through: 2.039, period: 0.01)
        #expect(outageWithinAPeriod == 0)
        let outageLater = fifo.outage(through: 2.06, period: 0.01)
        #expect(outageLater == 3)
        fifo.gapReason = .resetByRecovery
        // The first sample after it, at 2.08: 2.07 is the one period not yet counted.
        let gap = fifo.gap(before: 2.08, period: 0.01)
        #expect(gap?.reason == .resetByRecovery && gap?.count == 1)
    }

    @Test func resetForgetsTheFIFOsPast() {
        var fifo = FIFOAccounting()
        fifo.ticked(at: 1)
        _ = fifo.gap(before: 1.5, period: 0.01)
        fifo.gapReason = .fifoOverflow
        fifo.reset()
        #expect(fifo == FIFOAccounting())
        let outageBeforeAnyTick = fifo.outage(through: 10, period: 0.01)   // no FIFO tick yet: nothing to count from
        #expect(outageBeforeAnyTick == 0)
    }
}
