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
    /// The board file the simulated board is laid out like (its first IMU and magnetometer
    /// addresses, its mount matrix); nil: the built-in `simulated` board. Set it with
    /// ``laidOut(like:)``, which also takes the chips the board names.
    package private(set) var layout: Board?

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

    /// This simulation on a board laid out like `board`: the IMU and magnetometer the board file
    /// names (`imuChip`, `magnetometerChip`; where it names none, this simulation's), at the
    /// first of the board's addresses each chip can answer at, read through the board's mount
    /// matrix.
    /// - Throws: ``MotionError/deviceNotFound(_:)`` naming the chip when the simulator has no
    ///   emulator for it or it cannot answer at any of the board's addresses.
    package func laidOut(like board: Board) throws(MotionError) -> Simulation {
        var laidOut = self
        let place = "board \(board.id)"
        if let name = board.imuChip {
            guard let imu = Self.simulatedIMU(named: name) else {
                throw .deviceNotFound("\(place) carries the IMU \(name), which the simulator cannot place; "
                    + "it emulates: \(SimulatedBoard.imuChoices.joined(separator: ", "))")
            }
            laidOut.imu = imu
        }
        guard board.imuAddresses.contains(where: laidOut.imu.possibleAddresses.contains) else {
            throw .deviceNotFound("\(place) expects its IMU at \(Self.list(board.imuAddresses)); the simulated "
                + "\(laidOut.imu.rawValue) answers only at \(Self.list(laidOut.imu.possibleAddresses))")
        }
        if let name = board.magnetometerChip {
            let key = Self.key(name)
            if key == laidOut.imu.entry.builtInMagnetometer {
                laidOut.magnetometer = .none
            } else if let chip = Self.simulatedMagnetometer(named: key) {
                laidOut.magnetometer = .chip(chip)
            } else {
                throw .deviceNotFound("\(place) carries the magnetometer \(name), which the simulator cannot place"
                    + (laidOut.imu.entry.builtInMagnetometer == nil ? "" : " next to the \(laidOut.imu.rawValue)")
                    + "; it emulates: \(SimulatedBoard.Magnetometer.allCases.map(\.rawValue).joined(separator: ", "))"
                    + ", the AK8975/AK8963/AK09916 inside the MPU-9150/MPU-9250/ICM-20948, and the BNO055's own")
            }
        }
        if let chip = laidOut.separateMagnetometer, laidOut.magnetometerAddress(on: board) == nil {
            throw .deviceNotFound("\(place) expects its magnetometer at \(Self.list(board.magnetometerAddresses)); the simulated "
                + "\(chip.rawValue) answers only at \(Self.list(chip.possibleAddresses))")
        }
        laidOut.layout = board
        return laidOut
    }

    /// The separate magnetometer chip this simulation attaches, if any.
    var separateMagnetometer: SimulatedBoard.Magnetometer? {
        switch magnetometer {
        case .usual: imu.usualMagnetometer
        case .none: nil
        case .chip(let chip): chip
        }
    }

    private func magnetometerAddress(on board: Board) -> I2CAddress? {
        separateMagnetometer.flatMap { chip in board.magnetometerAddresses.first(where: chip.possibleAddresses.contains) }
    }

    /// A chip name as the CLI and board files write it, lower case without dashes (`MPU-9150` → `mpu9150`).
    private static func key(_ name: String) -> String { name.lowercased().filter { $0.isLetter || $0.isNumber } }

    private static func list(_ addresses: [I2CAddress]) -> String { addresses.map(\.description).joined(separator: ", ") }

    /// The simulated IMU for a chip name (`LSM9DS1`, `MPU-9150`, `ICM-42688-P`, `ISM330DHCX`): a
    /// name or alias in ``MotionSimulator/EmulatorRegistry``.
    static func simulatedIMU(named name: String) -> SimulatedBoard.IMU? { SimulatedBoard.IMU(name: key(name)) }

    /// The simulated magnetometer for a chip name; the LSM9DS1's magnetic part is a LIS3MDL
    /// register map (same identity).
    static func simulatedMagnetometer(named key: String) -> SimulatedBoard.Magnetometer? { SimulatedBoard.Magnetometer(name: key) }

    /// Seconds the simulated chips have been on when the world starts: their bias walks have
    /// wandered this long, as on a board that has been running for a while. (A test's
    /// `VirtualClock` starts at 1000 s, so its chips' walks start at time 0.)
    static let poweredBefore = 1000.0

    /// The simulated board and the world behind it, started at `clock.now`.
    package func makeBoard(clock: any MotionClock) throws(MotionError) -> (board: SimulatedBoard, world: World) {
        try makeBoard(startTime: clock.now, now: { clock.now })
    }

    /// The simulated board and the world behind it, started at `startTime` (seconds), the chips
    /// reading the simulation time from `now` (for callers that keep their own virtual time).
    package func makeBoard(
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
    package func makeBoard(playing scenario: Scenario, clock: any MotionClock) -> (board: SimulatedBoard, world: World) {
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
            if imu.entry.calibratesMagnetometer {
                // The BNO055 calibrates its magnetometer itself (CALIB_STAT) and its fusion output is
                // modelled converged: its magnetometer is modelled calibrated too (noise only), so
                // that the chip's attitude and this library's can be compared without a figure-eight.
                magnetometerErrors.hardIron = .zero
                magnetometerErrors.softIron = .identity
            }
        }
        if let hardIron { magnetometerErrors.hardIron = hardIron }
        if let softIron { magnetometerErrors.softIron = softIron }
        // Fresh noise for every sample the IMU takes at the output data rate its driver sets by
        // default (the emulator registry's noiseSampleRate); held in between. The chips were
        // powered on `poweredBefore` seconds before the world starts, whatever the clock says:
        // on the system clock `startTime` is the machine's uptime, and bias walks integrated from
        // there made the first sample cost a step per 10 ms of uptime (2.3 s after 5 h in a
        // debug build; minutes after a month).
        let noiseRate = imu.entry.noiseSampleRate
        let played: any PhysicalSource = replay.map { ReplaySource($0, timeShift: startTime) } ?? world
        let source = ErrorModelSource(
            base: played, imu: imuErrors, magnetometer: magnetometerErrors, seed: seed, sampleRate: noiseRate,
            origin: startTime - Self.poweredBefore)
        let board = SimulatedBoard(
            imu: imu, imuAddress: layout.flatMap { $0.imuAddresses.first(where: imu.possibleAddresses.contains) },
            magnetometer: magnetometer, magnetometerAddress: layout.flatMap(magnetometerAddress(on:)), source: source, now: now)
        if let faults { board.bus.follow(faults, imu: board.imuAddress, magnetometer: board.magnetometerAddress, start: startTime) }
        return (board, world)
    }
}
