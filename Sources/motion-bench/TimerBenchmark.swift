import Locking
import Dispatch
import Foundation
import Timing

#if canImport(Glibc)
import Glibc
#endif

/// Percentiles of a list of deviations, in microseconds.
struct DeviationSummary: CustomStringConvertible {
    var p50: Double, p99: Double, max: Double, count: Int

    init(_ deviationsSeconds: [Double]) {
        let sorted = deviationsSeconds.map { abs($0) * 1e6 }.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? .nan : sorted[Swift.min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))]
        }
        p50 = percentile(0.50)
        p99 = percentile(0.99)
        max = sorted.last ?? .nan
        count = sorted.count
    }

    var description: String {
        String(format: "p50 %7.1f µs   p99 %7.1f µs   max %8.1f µs   (%d ticks)", p50, p99, max, count)
    }
}

/// What one timer did: how late each tick ran, and how far each interval between two ticks was
/// from the nominal one.
struct TimerDeviations {
    var lateness: DeviationSummary
    var interval: DeviationSummary

    init(late: [Double], period: Double) {
        lateness = DeviationSummary(late)
        interval = DeviationSummary(zip(late, late.dropFirst()).map { $1 - $0 })   // (t_k − t_k−1) − period
    }
}

/// The sampler's timer (`SystemClock`: a `clock_nanosleep` thread running each tick on a serial
/// queue), a strict zero-leeway `DispatchSourceTimer` (the first design), and the reference, an
/// absolute `clock_nanosleep(TIMER_ABSTIME)` loop on a dedicated thread, all at `rate` Hz for
/// `seconds` at the same time (a third of a period apart) so they see the same machine load. Lateness = the time the tick ran
/// − the time it was due; interval deviation = the delivered interval − the period.
func benchmarkTimer(rate: Double = 100, seconds: Double = 5)
    -> (timer: TimerDeviations, dispatch: TimerDeviations, reference: TimerDeviations)
{
    let interval = 1 / rate
    let ticks = Int(seconds * rate)

    // Reference: clock_nanosleep to absolute deadlines on its own thread.
    let referenceDeviations = Locked<[Double]>([])
    let referenceDone = DispatchSemaphore(value: 0)
    let thread = Thread {
        var deviations: [Double] = []
        deviations.reserveCapacity(ticks)
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let start = Double(deadline.tv_sec) + Double(deadline.tv_nsec) * 1e-9
        for k in 1...ticks {
            let due = start + Double(k) * interval
            deadline.tv_sec = Int(due.rounded(.down))
            deadline.tv_nsec = Int((due - due.rounded(.down)) * 1e9)
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
            deviations.append(SystemClock.monotonicSeconds() - due)
        }
        referenceDeviations.withLock { $0 = deviations }
        referenceDone.signal()
    }
    thread.start()

    // The three run over the same seconds, a third of a period apart, so they do not all wake at
    // the same instant and queue for the machine's two cores.
    Thread.sleep(forTimeInterval: interval / 3)

    // The sampler's timer.
    let timerDeviations = Locked<[Double]>([])
    let timerDone = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "bench.sampler", qos: .userInteractive)
    let timer = SystemClock().scheduleRepeating(every: interval, on: queue) { due in
        let late = SystemClock.monotonicSeconds() - due
        let count = timerDeviations.withLock { deviations in
            deviations.append(late)
            return deviations.count
        }
        if count == ticks { timerDone.signal() }
    }
    Thread.sleep(forTimeInterval: interval / 3)

    // A strict DispatchSourceTimer with zero leeway.
    let dispatchDeviations = Locked<[Double]>([])
    let dispatchDone = DispatchSemaphore(value: 0)
    let source = DispatchSource.makeTimerSource(flags: .strict, queue: DispatchQueue(label: "bench.dispatch", qos: .userInteractive))
    let dispatchStart = SystemClock.monotonicSeconds()
    source.setEventHandler {
        let count = dispatchDeviations.withLock { deviations in
            deviations.append(SystemClock.monotonicSeconds() - (dispatchStart + Double(deviations.count + 1) * interval))
            return deviations.count
        }
        if count == ticks { dispatchDone.signal() }
    }
    source.schedule(deadline: .now() + interval, repeating: interval, leeway: .nanoseconds(0))
    source.resume()

    timerDone.wait()
    timer.cancel()
    dispatchDone.wait()
    source.cancel()
    referenceDone.wait()
    return (TimerDeviations(late: timerDeviations.withLock { $0 }, period: interval),
            TimerDeviations(late: dispatchDeviations.withLock { $0 }, period: interval),
            TimerDeviations(late: referenceDeviations.withLock { $0 }, period: interval))
}
