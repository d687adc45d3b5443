import MotionSimulator

extension Recording {
    /// A BROAD trial as a recording: its accelerometer (already specific force, m/s², +9.81 on z
    /// lying flat), gyroscope (rad/s) and magnetometer (µT) as the chip experiences them, the
    /// BROAD sensor axes taken as the chip axes; time is the trial's time plus `startTime`,
    /// temperature 25 °C. The optical reference and the movement flags are left out.
    package init(broad trial: BroadTrial, startTime: Double = 0) {
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
    package init(broad trial: BroadTrial, startTime: Double = 0) {
        self.init(Recording(broad: trial, startTime: startTime), interpolation: .sampleAndHold)
    }
}
