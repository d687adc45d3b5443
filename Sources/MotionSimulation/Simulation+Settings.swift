import Fusion
import Motion
import MotionSimulator

extension Simulation {
    /// The simulated board with `imu` (and its usual magnetometer, `magnetometer`) playing
    /// `scenario`, or replaying `replay`, with the chips' datasheet noise and bias from `seed`
    /// (`sensorErrors: false`: ideal chips, only quantization), the board's iron, and `faults`
    /// injected on its bus.
    public init(
        scenario: String = "six-faces", imu: SimulatedBoard.IMU = .lsm6dsox,
        magnetometer: SimulatedBoard.MagnetometerChoice = .usual, seed: UInt64 = 1, sensorErrors: Bool = true,
        hardIron: SIMD3<Double>? = nil, softIron: Matrix3? = nil, replay: Recording? = nil, faults: FaultPlan? = nil
    ) {
        self.init(SimulationSettings(
            scenario: scenario, imu: imu, magnetometer: magnetometer, seed: seed, sensorErrors: sensorErrors,
            hardIron: hardIron, softIron: softIron, replay: replay, faults: faults))
    }

    /// A name from `Scenario.all` (`motionctl stream --scenario list` lists them).
    public var scenario: String {
        get { settings.scenario }
        set { settings.scenario = newValue }
    }

    public var imu: SimulatedBoard.IMU {
        get { settings.imu }
        set { settings.imu = newValue }
    }

    public var magnetometer: SimulatedBoard.MagnetometerChoice {
        get { settings.magnetometer }
        set { settings.magnetometer = newValue }
    }

    /// Seed of the sensor noise and bias walks: the same seed gives the same readings.
    public var seed: UInt64 {
        get { settings.seed }
        set { settings.seed = newValue }
    }

    /// Datasheet noise and bias for the chosen chips (`false`: ideal sensors, only quantization).
    public var sensorErrors: Bool {
        get { settings.sensorErrors }
        set { settings.sensorErrors = newValue }
    }

    /// The board's hard iron (µT), as nearby steel and currents would make it, in the IMU's axes
    /// (a magnetometer die with axes of its own, as in an MPU-9250, sees it in its axes); nil: the
    /// chip preset's representative board (with ``sensorErrors``) or none.
    public var hardIron: SIMD3<Double>? {
        get { settings.hardIron }
        set { settings.hardIron = newValue }
    }

    /// The board's soft iron, in the same axes; nil as for ``hardIron``.
    public var softIron: Matrix3? {
        get { settings.softIron }
        set { settings.softIron = newValue }
    }

    /// A recording to play instead of the scenario (the CSV `motionctl record` writes, or any
    /// ``Recording``): its specific force, rotation rate and field (chip axes) go through the
    /// emulated chips from the start of the run, recorded time 0 at the clock's start; after its
    /// last sample the last one holds. The recording carries its sensor's own errors, so no
    /// simulated ones are added. `SimulatedHardware.world` is then the scenario's, not the truth.
    public var replay: Recording? {
        get { settings.replay }
        set { settings.replay = newValue }
    }

    /// Faults the simulated bus injects, timed from the start of the run (``FaultPlan``).
    public var faults: FaultPlan? {
        get { settings.faults }
        set { settings.faults = newValue }
    }
}

extension Simulation {
    /// The barometer on the board (a BMP280 at 0x76 by default); nil for none.
    public var barometer: SimulatedBoard.Barometer? {
        get { settings.barometer }
        set { settings.barometer = newValue }
    }
}
