import Fusion
import I2C
import MotionSimulator
import Sensors
import Timing

/// What the built-in simulated board plays: which chips, which motion, which sensor errors.
public struct Simulation: Sendable, Equatable {
    /// A name from `Scenario.all` (`motionctl stream --scenario list` lists them).
    public var scenario: String
    public var imu: SimulatedBoard.IMU
    public var magnetometer: SimulatedBoard.MagnetometerChoice
    /// Seed of the sensor noise and bias walks: the same seed gives the same readings.
    public var seed: UInt64
    /// Datasheet noise and bias for the chosen chips (`false`: ideal sensors, only quantization).
    public var sensorErrors: Bool
    /// The board's hard iron (µT) and soft iron, as nearby steel and currents would make them, in
    /// the IMU's axes (a magnetometer die with axes of its own, as in an MPU-9250, sees them in
    /// its axes); nil: the chip preset's representative board (with `sensorErrors`) or none.
    public var hardIron: SIMD3<Double>?
    public var softIron: Matrix3?
    /// A recording to play instead of the scenario (the CSV `motionctl record` writes, or any
    /// ``Recording``): its specific force, rotation rate and field (chip axes) go through the
    /// emulated chips from the start of the run, recorded time 0 at the clock's start; after its
    /// last sample the last one holds. The recording carries its sensor's own errors, so no
    /// simulated ones are added. `SimulatedHardware.world` is then the scenario's, not the truth.
    public var replay: Recording?
    /// Faults the simulated bus injects, timed from the start of the run (``FaultPlan``).
    public var faults: FaultPlan?

    public init(
        scenario: String = "six-faces", imu: SimulatedBoard.IMU = .lsm6dsox,
        magnetometer: SimulatedBoard.MagnetometerChoice = .usual, seed: UInt64 = 1, sensorErrors: Bool = true,
        hardIron: SIMD3<Double>? = nil, softIron: Matrix3? = nil, replay: Recording? = nil, faults: FaultPlan? = nil
    ) {
        self.replay = replay
        self.faults = faults
        self.scenario = scenario
        self.imu = imu
        self.magnetometer = magnetometer
        self.seed = seed
        self.sensorErrors = sensorErrors
        self.hardIron = hardIron
        self.softIron = softIron
    }

    /// The simulated board and the world behind it, started at `clock.now`.
    public func makeBoard(clock: any MotionClock) throws(MotionError) -> (board: SimulatedBoard, world: World) {
        try makeBoard(startTime: clock.now, now: { clock.now })
    }

    /// The simulated board and the world behind it, started at `startTime` (seconds), the chips
    /// reading the simulation time from `now` (for callers that keep their own virtual time).
    public func makeBoard(
        startTime: Double, now: @escaping @Sendable () -> Double
    ) throws(MotionError) -> (board: SimulatedBoard, world: World) {
        guard let scenario = Scenario.named(scenario) else {
            let names = Scenario.all.map(\.name).joined(separator: ", ")
            throw .sensor("no simulation scenario named \"\(self.scenario)\"; choose one of: \(names)")
        }
        return makeBoard(playing: scenario, startTime: startTime, now: now)
    }

    /// The simulated board and the world behind it, started at `clock.now`, playing `scenario`
    /// (your own script) instead of the one named by ``scenario``; chips, seed and sensor errors
    /// as configured here.
    public func makeBoard(playing scenario: Scenario, clock: any MotionClock) -> (board: SimulatedBoard, world: World) {
        makeBoard(playing: scenario, startTime: clock.now, now: { clock.now })
    }

    private func makeBoard(
        playing scenario: Scenario, startTime: Double, now: @escaping @Sendable () -> Double
    ) -> (board: SimulatedBoard, world: World) {
        let world = scenario.world(startTime: startTime)
        var imuErrors = IMUErrorModel.ideal
        var magnetometerErrors = MagnetometerErrorModel.ideal
        if sensorErrors, replay == nil {
            imuErrors = IMUErrorModel.preset(named: imu.rawValue) ?? .lsm6dsox
            let magnetometerName: String? = switch magnetometer {
            case .chip(let chip): chip.rawValue
            case .usual: imu.usualMagnetometer?.rawValue
            case .none: nil
            }
            magnetometerErrors = magnetometerName.flatMap(MagnetometerErrorModel.preset(named:)) ?? .lis3mdl
        }
        if let hardIron { magnetometerErrors.hardIron = hardIron }
        if let softIron { magnetometerErrors.softIron = softIron }
        // Fresh noise for every sample the IMU takes at the output data rate its driver sets by
        // default (ST LSM6 208 Hz, LSM9DS1 119 Hz, InvenSense MPU, ICM-42688-P and Bosch 200 Hz,
        // ICM-20948 220 Hz); held in between.
        let noiseRate: Double = switch imu {
        case .mpu6050, .mpu6500, .mpu9250, .bmi160, .icm42688: 200
        case .icm20948: 220
        case .lsm6dsox, .lsm6dso32, .lsm6dsl, .lsm6ds3, .lsm6dsr: 208
        case .lsm9ds1: 119
        }
        let played: any PhysicalSource = replay.map { ReplaySource($0, timeShift: startTime) } ?? world
        let source = ErrorModelSource(base: played, imu: imuErrors, magnetometer: magnetometerErrors, seed: seed, sampleRate: noiseRate)
        let board = SimulatedBoard(imu: imu, magnetometer: magnetometer, source: source, now: now)
        if let faults { board.bus.follow(faults, imu: board.imuAddress, magnetometer: board.magnetometerAddress, start: startTime) }
        return (board, world)
    }
}
