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

/// The sampler's timer (a strict `DispatchSourceTimer`, zero leeway, via `SystemClock`) against an
/// absolute `clock_nanosleep(TIMER_ABSTIME)` loop on a dedicated thread, both at `rate` Hz for
/// `seconds`, run at the same time so both see the same machine load. Deviation = the time the
/// tick ran − the time it was due.
func benchmarkTimer(rate: Double = 100, seconds: Double = 5) -> (timer: DeviationSummary, reference: DeviationSummary) {
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
    timerDone.wait()
    timer.cancel()
    referenceDone.wait()
    return (DeviationSummary(timerDeviations.withLock { $0 }), DeviationSummary(referenceDeviations.withLock { $0 }))
}
