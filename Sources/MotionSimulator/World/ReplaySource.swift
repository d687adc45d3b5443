/// Plays a ``Recording`` back as a ``PhysicalSource``, so recorded data runs through the chip
/// emulators and the whole pipeline. Before the first sample it holds the first, after the last
/// it holds the last.
public struct ReplaySource: PhysicalSource {
    public enum Interpolation: Sendable {
        /// The latest sample at or before t (what a chip register would hold).
        case sampleAndHold
        /// Linear between the samples around t.
        case linear
    }

    public let recording: Recording
    public let interpolation: Interpolation
    /// Added to the recorded times: recorded time r plays at source time r + timeShift.
    public let timeShift: Double
    private let times: [Double]

    /// An empty recording replays as a device flat at rest.
    public init(_ recording: Recording, interpolation: Interpolation = .sampleAndHold, timeShift: Double = 0) {
        self.recording = recording.samples.isEmpty ? Recording(samples: [RecordedSample(.flatAtRest())]) : recording
        self.interpolation = interpolation
        self.timeShift = timeShift
        times = self.recording.samples.map(\.time)
    }

    public func state(at time: Double) -> PhysicalState {
        let samples = recording.samples
        let t = time - timeShift
        // Last sample at or before t.
        var low = 0, high = times.count - 1
        if t < times[0] { high = 0 }
        while low < high {
            let mid = (low + high + 1) / 2
            if times[mid] <= t { low = mid } else { high = mid - 1 }
        }
        var state = samples[low].physicalState
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

extension Recording {
    /// A BROAD trial as a recording: its accelerometer (already specific force, m/s², +9.81 on z
    /// lying flat), gyroscope (rad/s) and magnetometer (µT) as the chip experiences them, the
    /// BROAD sensor axes taken as the chip axes; time is the trial's time plus `startTime`,
    /// temperature 25 °C. The optical reference and the movement flags are left out.
    public init(broad trial: BroadTrial, startTime: Double = 0) {
        self.init(samples: (0..<trial.count).map { i in
            RecordedSample(
                time: trial.time[i] + startTime, specificForce: trial.accelerometer[i],
                angularRate: trial.gyroscope[i], magneticField: trial.magnetometer[i])
        })
    }
}

extension ReplaySource {
    /// Plays a BROAD trial through the emulators: each recorded sample is held until the next
    /// (``Recording/init(broad:startTime:)`` says how the columns map). Read a chip exactly at
    /// the recorded times to get the recorded values back, quantized to its resolution.
    public init(broad trial: BroadTrial, startTime: Double = 0) {
        self.init(Recording(broad: trial, startTime: startTime), interpolation: .sampleAndHold)
    }
}
