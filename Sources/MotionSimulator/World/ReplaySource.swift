/// Plays a ``Recording`` back as a ``PhysicalSource``, so recorded data runs through the chip
/// emulators and the whole pipeline. Before the first sample it holds the first, after the last
/// it holds the last. The air pressure is the recording's latest barometer reading at or before
/// the time (its first before it; the standard sea-level pressure without readings), so a
/// replayed barometer measures what the recorded one read.
package struct ReplaySource: PhysicalSource {
    package enum Interpolation: Sendable {
        /// The latest sample at or before t (what a chip register would hold).
        case sampleAndHold
        /// Linear between the samples around t.
        case linear
    }

    package let recording: Recording
    package let interpolation: Interpolation
    /// Added to the recorded times: recorded time r plays at source time r + timeShift.
    package let timeShift: Double
    private let times: [Double]
    private let pressureTimes: [Double]

    /// An empty recording replays as a device flat at rest.
    package init(_ recording: Recording, interpolation: Interpolation = .sampleAndHold, timeShift: Double = 0) {
        self.recording = recording.samples.isEmpty ? Recording(samples: [RecordedSample(.flatAtRest())]) : recording
        self.interpolation = interpolation
        self.timeShift = timeShift
        times = self.recording.samples.map(\.time)
        pressureTimes = self.recording.pressures.map(\.time)
    }

    /// The index of the last time in `times` at or before `t` (within the tolerance); 0 when `t`
    /// is before the first.
    private static func latest(_ times: [Double], atOrBefore t: Double) -> Int {
        var low = 0, high = times.count - 1
        if t + timeTolerance < times[0] { high = 0 }
        while low < high {
            let mid = (low + high + 1) / 2
            if times[mid] <= t + timeTolerance { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// How close to a recorded time counts as at it, s: a reader's tick at the recorded time plus
    /// the shift lands a rounding error (about 1e-13 s at 1000 s) before or after it, and the sample
    /// is its sample either way. Far below any sampling interval (a 6.6 kHz chip's is 150 µs).
    static let timeTolerance = 1e-6

    package func state(at time: Double) -> PhysicalState {
        let samples = recording.samples
        let t = time - timeShift
        // Last sample at or before t (within the tolerance).
        let low = Self.latest(times, atOrBefore: t)
        var state = samples[low].physicalState
        if !pressureTimes.isEmpty {
            state.pressure = recording.pressures[Self.latest(pressureTimes, atOrBefore: t)].pressure
        }
        if interpolation == .linear, low + 1 < samples.count, t > times[low] {
            let next = samples[low + 1]
            let span = times[low + 1] - times[low]
            let f = span > 0 ? (t - times[low]) / span : 0
            state.specificForce += f * (next.specificForce - state.specificForce)
            state.angularRate += f * (next.angularRate - state.angularRate)
            state.magneticField += f * (next.magneticField - state.magneticField)
            state.temperature += f * (next.temperature - state.temperature)
        }
        state.time = time
        return state
    }
}
