extension AttitudeFilter {
    /// Tuning. One set serves every motion; the defaults are the filter's design values. Only
    /// `sensorLatency` describes the sensor and should come from its configuration. Every value
    /// chosen by looking at data is cross-validated by `motion-lab evaluate --cross-validate`
    /// (leave one kind of motion or disturbance out), which prints what it would choose instead.
    package struct Parameters: Sendable, Equatable {
        /// Time constant of the accelerometer low-pass filter in the inertial frame, s. Larger
        /// rejects more acceleration, smaller follows gyro drift faster.
        package var accelerometerTimeConstant: Double = 3.0
        /// Time constant of the magnetometer heading correction, s.
        package var magnetometerTimeConstant: Double = 15.0
        /// Estimate the gyro bias while moving (from tilt corrections).
        package var motionBiasEstimation = true
        /// Estimate the gyro bias at rest.
        package var restBiasEstimation = true
        /// Detect magnetic disturbances (norm and dip checks) and stop the heading correction.
        package var magneticDisturbanceRejection = true
        /// Initial standard deviation of the gyro bias, °/s.
        package var biasSigmaInitial: Double = 0.5
        /// Time in which the bias variance grows by (0.1 °/s)² without information, s.
        package var biasForgettingTime: Double = 100
        /// Largest bias considered, °/s (also the largest low-passed rate at rest): 2 °/s as in
        /// VQF; the sampler raises it to the chip's zero-rate tolerance while the gyroscope is not
        /// calibrated (20 °/s for an MPU-6050).
        package var biasClip: Double = 2.0
        /// Largest bias error one update acts on, °/s (at most `biasClip`). Kept at 2 °/s when
        /// `biasClip` is raised: a wider bound let the estimate chase an uncalibrated chip's
        /// scale errors while it tumbled.
        package var biasCorrectionClip: Double = 2.0
        /// Standard deviation of a bias measurement while moving, °/s.
        package var biasSigmaMotion: Double = 0.05
        /// Weight of the vertical bias component while moving: this much slower than horizontal.
        package var biasVerticalForgettingFactor: Double = 0.0001
        /// Standard deviation of a bias measurement at rest, °/s.
        package var biasSigmaRest: Double = 0.03
        /// Time the rest conditions must hold before rest is declared, s.
        package var restMinTime: Double = 1.5
        /// Time constant of the low-pass filters of the rest detector, s.
        package var restFilterTimeConstant: Double = 0.5
        /// Largest gyroscope deviation from its low-pass at rest, °/s.
        package var restGyroscopeThreshold: Double = 2.0
        /// Largest accelerometer deviation from its low-pass at rest, as a fraction of the
        /// accelerometer norm (0.051 ≈ 0.5 m/s²), so any accelerometer unit works.
        package var restAccelerometerThreshold: Double = 0.051
        /// Time constant of the low-pass on the magnetic field norm and dip, s.
        package var magneticCurrentTimeConstant: Double = 0.05
        /// Time constant with which the reference norm and dip follow the field, s.
        package var magneticReferenceTimeConstant: Double = 20
        /// Largest relative deviation of the field norm from the reference.
        package var magneticNormThreshold: Double = 0.1
        /// Largest deviation of the dip angle from the reference, degrees.
        package var magneticDipThreshold: Double = 10
        /// Time a new field must be stable (while turning) before it becomes the reference, s.
        package var magneticNewFieldTime: Double = 20
        /// Same, for the very first reference field, s.
        package var magneticNewFieldFirstTime: Double = 5
        /// Smallest rotation rate for the time above to count, °/s.
        package var magneticNewFieldMinimumRate: Double = 20
        /// Time the field must agree with the reference to end a disturbance, s.
        package var magneticMinimumUndisturbedTime: Double = 0.5
        /// Longest time the heading correction stays off during a disturbance, s. A disturbance
        /// that lasts longer may be the reference's own error (a field that differs across the
        /// room, a calibration off by a few per cent): the heading is then corrected again at a
        /// gain divided by ``magneticRejectionFactor``, but only while the field has been fixed in
        /// the earth frame (its norm, dip and heading stay put, as for a new reference) for
        /// ``magneticNewFieldFirstTime`` of turning; a field that turns with the sensor (a magnet
        /// carried with it), keeps changing, or has only been seen at rest (a magnet beside it)
        /// is never followed: the heading stays held by the gyroscope, accuracy low.
        package var magneticMaximumRejectionTime: Double = 60
        /// Gain divisor after the longest rejection time, and how much faster the rejection
        /// timer runs down than up.
        package var magneticRejectionFactor: Double = 2
        /// How long the sensors' readings lag the true motion, s: the group delay of the chip's
        /// output low-pass filter (from its datasheet, e.g. the MPU-6050's DLPF table), the same
        /// for the gyroscope and the accelerometer. The filter runs on the samples as they are and
        /// its outputs (attitude, gravity) are extrapolated this far ahead with the current
        /// rotation rate: the attitude now, not the one the sensors last saw. 0 disables.
        package var sensorLatency: Double = 0
        /// How much longer than the gyroscope the magnetometer's reading lags the motion, s: a
        /// magnetometer read between two of its own updates (or held between them, as BROAD's
        /// is: its field repeats over three samples at 285.7 Hz) is on average half its period
        /// old, and its own filter's delay differs from the gyroscope's. The field is turned back
        /// by the current rotation rate for this long before it is used (to first order,
        /// m − lag · ω × m), so that it meets the attitude of the gyroscope's instant. 0 (the
        /// default, for a sensor whose timing is not known) uses the field as it is read.
        package var magnetometerLag: Double = 0
        /// The gyroscope's rotation angle's relative error (scale and cross-axis) that
        /// ``AttitudeFilter/headingSigma`` allows for, a fraction: the background calibration's
        /// own figure for the same error (`HardIronEstimator.Parameters.rotationScaleError`, 0.5 %).
        package var headingRateScaleError: Double = 0.005

        package init() {}
    }
}
