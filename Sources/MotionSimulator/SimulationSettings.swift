import Fusion

/// What the simulated board plays, as `MotionSimulation`'s `Simulation` names it: the chips, the
/// scenario, the noise seed, whether the chips have their datasheet errors, the board's iron, a
/// recording to replay and faults to inject.
package struct SimulationSettings: Sendable, Equatable {
    package var scenario: String
    package var imu: SimulatedBoard.IMU
    package var magnetometer: SimulatedBoard.MagnetometerChoice
    package var seed: UInt64
    package var sensorErrors: Bool
    package var hardIron: SIMD3<Double>?
    package var softIron: Matrix3?
    package var replay: Recording?
    package var faults: FaultPlan?
    /// The barometer on the board; nil for none.
    package var barometer: SimulatedBoard.Barometer? = .bmp280
    /// The SPI device the IMU sits behind (`/dev/spidev0.0`), framed as its datasheet says
    /// (``SimulatedSPIBus``); nil: on the I2C bus.
    package var imuSPIDevice: String?

    package init(
        scenario: String = "six-faces", imu: SimulatedBoard.IMU = .lsm6dsox,
        magnetometer: SimulatedBoard.MagnetometerChoice = .usual, seed: UInt64 = 1, sensorErrors: Bool = true,
        hardIron: SIMD3<Double>? = nil, softIron: Matrix3? = nil, replay: Recording? = nil, faults: FaultPlan? = nil
    ) {
        self.scenario = scenario
        self.imu = imu
        self.magnetometer = magnetometer
        self.seed = seed
        self.sensorErrors = sensorErrors
        self.hardIron = hardIron
        self.softIron = softIron
        self.replay = replay
        self.faults = faults
    }
}
