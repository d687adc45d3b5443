/// The baro-inertial vertical channel: altitude and vertical velocity at the IMU's rate, from the
/// accelerometer's vertical component (fast, but it drifts once integrated twice) and the
/// barometer (slow and noisy, but without drift), blended by a third-order complementary filter.
///
/// The filter is the classic one of inertial navigation's vertical channel (W. S. Widnall and
/// P. K. Sinha, "Optimizing the gains of the baro-inertial vertical channel", Journal of Guidance
/// and Control 3(2), 1980) as ArduPilot's `AP_InertialNav` described it: the error between the
/// barometer's altitude and the estimate feeds back into the position (gain k₁ = 3/τ), the
/// velocity (k₂ = 3/τ²) and an accelerometer bias (k₃ = 1/τ³), which places the error dynamics'
/// three poles at −1/τ. Below 1/τ the barometer rules; above it the accelerometer does. PX4's EKF2
/// does the same with a Kalman filter's gains.
///
/// No allocation: a value of a few doubles.
package struct VerticalChannel: Sendable, Equatable {
    /// The filter's time constant, s: how long the barometer takes to pull the estimate back.
    package var timeConstant: Double
    /// Metres, the barometer's frame (relative or above sea level, as it is given).
    package private(set) var altitude = 0.0
    /// m/s, up.
    package private(set) var verticalVelocity = 0.0
    /// The accelerometer's vertical bias the filter has learned, m/s² (subtracted from its readings).
    package private(set) var accelerationBias = 0.0
    /// False until the first barometer altitude.
    package private(set) var isInitialized = false

    private var positionBase = 0.0
    private var positionCorrection = 0.0
    private var positionError = 0.0

    /// - Parameter timeConstant: seconds; 5 s by default (ArduPilot's default for its vertical
    ///   channel, and the best of 1, 2 and 5 s on the simulated stairs: docs/altimeter.md).
    package init(timeConstant: Double = 5) {
        self.timeConstant = timeConstant
    }

    /// One IMU sample: `acceleration` is the device's vertical acceleration, up, m/s² (gravity
    /// removed: g·(user acceleration · gravity) from device motion), over `interval` seconds.
    package mutating func predict(verticalAcceleration acceleration: Double, interval: Double) {
        guard isInitialized, interval > 0, interval.isFinite, acceleration.isFinite else { return }
        let tau = timeConstant
        let (k1, k2, k3) = (3 / tau, 3 / (tau * tau), 1 / (tau * tau * tau))
        accelerationBias -= positionError * k3 * interval
        verticalVelocity += positionError * k2 * interval
        positionCorrection += positionError * k1 * interval
        let velocityIncrease = (acceleration - accelerationBias) * interval
        positionBase += (verticalVelocity + velocityIncrease / 2) * interval
        verticalVelocity += velocityIncrease
        altitude = positionBase + positionCorrection
    }

    /// One barometer altitude, m: the error the next predictions feed back.
    package mutating func correct(barometricAltitude measured: Double) {
        guard measured.isFinite else { return }
        guard isInitialized else {
            isInitialized = true
            positionBase = measured
            altitude = measured
            return
        }
        positionError = measured - altitude
    }
}
