import Fusion
import I2C
import MotionSimulator
import Sensors
import Timing

/// What the built-in simulated board plays: which chips, which motion, which sensor errors.
/// Made and read through the `MotionSimulation` product (`Simulation(scenario:imu:…)`); `Motion`
/// itself only carries it to ``MotionSource/simulated(_:)``.
public struct Simulation: Sendable, Equatable {
    /// The chips, scenario, seed, sensor errors, replay and faults (`MotionSimulation` names each).
    package var settings: SimulationSettings
    /// The board file the simulated board is laid out like (its first IMU and magnetometer
    /// addresses, its mount matrix); nil: the built-in `simulated` board. Set it with
    /// ``laidOut(like:)``, which also takes the chips the board names.
    package private(set) var layout: Board?
    /// The one IMU of ``layout`` this simulation plays (``laidOut(like:imu:)``); nil: the board's only IMU.
    package private(set) var imuLocation: IMULocation?

    package init(_ settings: SimulationSettings = SimulationSettings()) {
        self.settings = settings
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
            laidOut.settings.imu = imu
        }
        guard board.imuAddresses.contains(where: laidOut.settings.imu.possibleAddresses.contains) else {
            throw .deviceNotFound("\(place) expects its IMU at \(Self.list(board.imuAddresses)); the simulated "
                + "\(laidOut.settings.imu.rawValue) answers only at \(Self.list(laidOut.settings.imu.possibleAddresses))")
        }
        if let name = board.magnetometerChip {
            let key = Self.key(name)
            if key == laidOut.settings.imu.entry.builtInMagnetometer {
                laidOut.settings.magnetometer = .none
            } else if let chip = Self.simulatedMagnetometer(named: key) {
                laidOut.settings.magnetometer = .chip(chip)
            } else {
                throw .deviceNotFound("\(place) carries the magnetometer \(name), which the simulator cannot place"
                    + (laidOut.settings.imu.entry.builtInMagnetometer == nil ? "" : " next to the \(laidOut.settings.imu.rawValue)")
                    + "; it emulates: \(SimulatedBoard.Magnetometer.allCases.map(\.rawValue).joined(separator: ", "))"
                    + ", the AK8975/AK8963/AK09916 inside the MPU-9150/MPU-9250/ICM-20948, and the BNO055's own")
            }
        }
        if let chip = laidOut.separateMagnetometer, laidOut.magnetometerAddress(on: board) == nil {
            throw .deviceNotFound("\(place) expects its magnetometer at \(Self.list(board.magnetometerAddresses)); the simulated "
                + "\(chip.rawValue) answers only at \(Self.list(chip.possibleAddresses))")
        }
        if let barometer = board.barometer {
            guard let chip = SimulatedBoard.Barometer(rawValue: Self.key(barometer.chip)),
                  chip.entry.possibleAddresses.contains(barometer.address) else {
                throw .deviceNotFound("\(place) carries the barometer \(barometer.chip) at \(barometer.address), which the simulator cannot place; "
                    + "it emulates: \(SimulatedBoard.Barometer.allCases.map { "\($0.rawValue) at \(Self.list($0.entry.possibleAddresses))" }.joined(separator: "; "))")
            }
            laidOut.settings.barometer = chip
        }
        laidOut.layout = board
        return laidOut
    }

    /// This simulation on a board laid out like `board`, playing its IMU at `location`: the chip
    /// the board file names there (else this simulation's), at that I2C address or behind that
    /// SPI device (framed as the chip's datasheet says), with the board's magnetometer only when
    /// `location` is the board's first listed IMU. Simulations of two locations of one board
    /// play the same scenario and seed: two managers on them see the same motion through
    /// their own chips.
    /// - Throws: ``MotionError/deviceNotFound(_:)`` as ``laidOut(like:)``, and for an IMU on SPI
    ///   whose chip the simulator emulates only on I2C.
    package func laidOut(like board: Board, imu location: IMULocation) throws(MotionError) -> Simulation {
        let narrowed = board.narrowed(to: location)
        var start = self
        if narrowed.narrowedMagnetometerAddresses == [] { start.settings.magnetometer = .none }
        var laidOut = try start.laidOut(like: narrowed)
        laidOut.layout = board
        laidOut.imuLocation = location
        if case .spi(let device) = location {
            guard laidOut.settings.imu.entry.emulator is any SPIEmulator.Type else {
                throw .deviceNotFound("board \(board.id) puts the \(laidOut.settings.imu.rawValue) on \(device); the simulator emulates SPI for "
                    + EmulatorRegistry.imus.filter { $0.emulator is any SPIEmulator.Type }.map(\.chip.rawValue).joined(separator: ", "))
            }
            laidOut.settings.imuSPIDevice = device
        }
        return laidOut
    }

    /// The separate magnetometer chip this simulation attaches, if any.
    var separateMagnetometer: SimulatedBoard.Magnetometer? {
        switch settings.magnetometer {
        case .usual: settings.imu.usualMagnetometer
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
        guard let scenario = Scenario.named(settings.scenario) else {
            let names = Scenario.all.map(\.name).joined(separator: ", ")
            throw .sensor("no simulation scenario named \"\(settings.scenario)\"; choose one of: \(names)")
        }
        return makeBoard(playing: scenario, startTime: startTime, now: now)
    }

    /// The simulated board and the world behind it, started at `clock.now`, playing `scenario`
    /// (your own script) instead of the one named by the settings; chips, seed and sensor errors
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
        if settings.sensorErrors, settings.replay == nil {
            imuErrors = IMUErrorModel.preset(named: settings.imu.rawValue) ?? .lsm6dsox
            let magnetometerName: String? = switch settings.magnetometer {
            case .chip(let chip): chip.rawValue
            case .usual: settings.imu.usualMagnetometer?.rawValue
            case .none: nil
            }
            magnetometerErrors = magnetometerName.flatMap(MagnetometerErrorModel.preset(named:)) ?? .lis3mdl
            if settings.imu.entry.calibratesMagnetometer {
                // The BNO055 calibrates its magnetometer itself (CALIB_STAT) and its fusion output is
                // modelled converged: its magnetometer is modelled calibrated too (noise only), so
                // that the chip's attitude and this library's can be compared without a figure-eight.
                magnetometerErrors.hardIron = .zero
                magnetometerErrors.softIron = .identity
            }
        }
        if let hardIron = settings.hardIron { magnetometerErrors.hardIron = hardIron }
        if let softIron = settings.softIron { magnetometerErrors.softIron = softIron }
        // Fresh noise for every sample the IMU takes at the output data rate its driver sets by
        // default (the emulator registry's noiseSampleRate); held in between. The chips were
        // powered on `poweredBefore` seconds before the world starts, whatever the clock says:
        // on the system clock `startTime` is the machine's uptime, and bias walks integrated from
        // there made the first sample cost a step per 10 ms of uptime (2.3 s after 5 h in a
        // debug build; minutes after a month).
        let noiseRate = settings.imu.entry.noiseSampleRate
        let played: any PhysicalSource = settings.replay.map { ReplaySource($0, timeShift: startTime) } ?? world
        let source = ErrorModelSource(
            base: played, imu: imuErrors, magnetometer: magnetometerErrors, seed: settings.seed, sampleRate: noiseRate,
            origin: startTime - Self.poweredBefore)
        // The barometer's noise is the chip's own (its emulator's), seeded like the others'.
        let barometerSeed = settings.sensorErrors && settings.replay == nil ? settings.seed : nil
        let placed = imuLocation.flatMap { location in layout?.narrowed(to: location) } ?? layout
        // The board file's barometer address, when the barometer placed is one that answers there.
        let boardBarometerAddress = (layout?.barometer?.address)
            .flatMap { address in settings.barometer?.entry.possibleAddresses.contains(address) == true ? address : nil }
        let board = SimulatedBoard(
            imu: settings.imu, imuAddress: placed.flatMap { $0.imuAddresses.first(where: settings.imu.possibleAddresses.contains) },
            magnetometer: settings.magnetometer,
            magnetometerAddress: placed.flatMap(magnetometerAddress(on:)),
            barometer: settings.barometer, barometerAddress: boardBarometerAddress, barometerNoiseSeed: barometerSeed,
            source: source, now: now, imuSPIDevice: settings.imuSPIDevice)
        if let faults = settings.faults { board.bus.follow(faults, imu: board.imuAddress, magnetometer: board.magnetometerAddress, start: startTime) }
        return (board, world)
    }
}
