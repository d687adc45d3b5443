import ArgumentParser
import CommandSupport
import FileAccess
import Foundation
import Fusion
import I2C
import Motion
import MotionSimulation
import MotionSimulator
import Timing

/// Where a command gets its sensors and which clock it runs on: this machine's board, a named
/// board or board file, or the simulated board. Shared by every command that reads sensors.
///
/// Time: the simulated board runs in virtual time (as fast as the machine goes, the same every
/// run) unless `--real-time` is given; a real board always runs in real time.
struct SourceOptions: ParsableArguments {
    /// Where sensors come from (`--source`).
    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case auto, i2c, iio, simulated
    }

    @Option(help: "Where sensors come from: auto (swift-motion's I2C driver when the IMU is free; Linux's own driver through IIO when a kernel driver holds it or the machine is not a known board), i2c, iio, simulated.")
    var source: Kind = .auto

    @Option(help: "The IIO devices directory (default /sys/bus/iio/devices, or $MOTION_IIO_ROOT).")
    var iioRoot: String?

    @Option(help: "With IIO: only the device with this name, e.g. mpu6050, lsm6dsox, accel_3d (`motionctl probe` lists them).")
    var iioDevice: String?

    @Flag(help: "Use the simulated board (register-level chip emulators in a simulated world).")
    var simulated = false

    @Option(help: "Simulated motion; implies --simulated. `--scenario list` names them.")
    var scenario: String?

    @Option(help: "Simulated IMU: \(SimulatedBoard.imuChoices.joined(separator: ", ")) (also \(SimulatedBoard.imuAliases.joined(separator: ", "))); implies --simulated.")
    var imu: String?

    @Option(help: "Simulated magnetometer: \(SimulatedBoard.magnetometerChoices.joined(separator: ", ")); implies --simulated.")
    var magnetometer: String?

    @Option(help: "Simulated barometer: \(SimulatedBoard.Barometer.allCases.map(\.rawValue).joined(separator: ", ")), none (default bmp280); implies --simulated.")
    var barometer: String?

    @Option(help: "Play a recording (a CSV file from `motionctl record`) through the simulated board instead of a scenario; implies --simulated.")
    var replay: String?

    @Option(help: "Faults the simulated bus injects, e.g. imu:nack*12@2,mag:vanish+3@5,imu:eio*1@1/0.5 (SENSOR:KIND@SECONDS[/EVERY]; kinds nack|eio|timeout[*N], reset, vanish[+S]); implies --simulated.")
    var faults: String?

    @Option(parsing: .unconditional, help: "Seed of the simulated sensor noise (0 to 2^64 - 1).", transform: OptionRange.seed)
    var seed: UInt64 = 1

    @Flag(help: "With the simulated board, play on the system clock instead of virtual time.")
    var realTime = false

    @Option(help: "A built-in board id (`motionctl boards`) or the path of your own board file. With --simulated: the simulated board laid out like it (the chips it names at its addresses, its mount matrix).")
    var board: String?

    @Option(parsing: .unconditional, help: "The I2C bus: a device node such as /dev/i2c-1, or just its number (default: the board's).")
    var bus: String?

    @Option(help: "The IMU's I2C address on the bus (e.g. 0x6A): a manager on that chip alone, for a board with several (`motionctl probe` lists them).")
    var address: String?

    @Option(help: "The SPI device the IMU sits behind, /dev/spidevB.C (bus B, chip select C; e.g. /dev/spidev0.0). With --simulated: the simulated IMU on SPI.")
    var spi: String?

    var isSimulated: Bool {
        simulated || source == .simulated || scenario != nil || imu != nil || magnetometer != nil || barometer != nil || replay != nil || faults != nil
            || board == BoardCatalog.simulatedID
    }

    func validate() throws {
        for (option, value) in [("--board", board), ("--bus", bus), ("--replay", replay), ("--faults", faults)] where value?.isEmpty == true {
            throw ValidationError("\(option) is empty: pass " + (option == "--bus" ? "a bus such as /dev/i2c-1 or 1" : option == "--board"
                ? "a board id (`motionctl boards`) or the path of a board file" : "the path of a CSV file written by `motionctl record`"))
        }
        if source == .iio, isSimulated || board != nil || bus != nil {
            throw ValidationError("--source iio reads Linux's own drivers: it excludes --board/--bus and the simulation options")
        }
        if source == .i2c, isSimulated || iioDevice != nil {
            throw ValidationError("--source i2c excludes --iio-device and the simulation options")
        }
        if iioRoot?.isEmpty == true || iioDevice?.isEmpty == true {
            throw ValidationError("--iio-root and --iio-device need a value: a directory such as /sys/bus/iio/devices, a device name such as mpu6050")
        }
        if isSimulated, bus != nil {
            throw ValidationError("--simulated/--scenario/--imu/--magnetometer/--replay and --bus exclude each other: pick one "
                + "(--simulated --board ID lays the simulated board out like a board file)")
        }
        if address != nil, spi != nil {
            throw ValidationError("--address (I2C) and --spi name the IMU's place two ways: pass one")
        }
        if spi != nil, bus != nil {
            throw ValidationError("--spi puts the IMU on SPI; --bus names an I2C bus: pass --spi alone (the board's magnetometer stays on its default I2C bus)")
        }
        if let address, Self.parseAddress(address) == nil {
            throw ValidationError("--address \(address) is not an I2C address: write a 7-bit address between 0x08 and 0x77 in hex, e.g. 0x6A")
        }
        if let spi, !Self.isSPIDevice(spi) {
            throw ValidationError("--spi \(spi) is not an SPI device: write /dev/spidevB.C (bus B, chip select C), e.g. /dev/spidev0.0; "
                + "`ls /dev/spidev*` lists them (none: enable SPI, see `motionctl doctor`)")
        }
        if source == .iio, address != nil || spi != nil {
            throw ValidationError("--source iio reads Linux's own drivers: it excludes --address and --spi")
        }
        try OptionRange.checkBus(bus)
        try OptionRange.checkIIORoot(iioRoot)
        if let faults {
            let plan: FaultPlan
            do { plan = try FaultPlan(parsing: faults) } catch { throw ValidationError("--faults: \(error)") }
            if spi != nil, let fault = plan.faults.first(where: { $0.sensor == .imu }) {
                throw ValidationError(
                    "--faults: \(FaultPlan([fault])) is injected on the simulated I2C bus, and the IMU behind --spi is not on it: drop the imu: fault or --spi")
            }
            // A fault for a chip that is not there would be silently ignored.
            let simulatedIMU = imu.flatMap(SimulatedBoard.IMU.init(name:)) ?? .lsm6dsox
            let imuHasOne = simulatedIMU.entry.builtInMagnetometer != nil || simulatedIMU.entry.magnetometerDie != nil
            if magnetometer.flatMap(SimulatedBoard.MagnetometerChoice.init(name:)) == SimulatedBoard.MagnetometerChoice.none, !imuHasOne,
               let fault = plan.faults.first(where: { $0.sensor == .mag }) {
                throw ValidationError(
                    "--faults: \(FaultPlan([fault])) is for the magnetometer, but --magnetometer none leaves the \(simulatedIMU.rawValue) without one: "
                        + "drop the mag: fault or pick a magnetometer")
            }
        }
        if replay != nil, scenario != nil {
            throw ValidationError("--replay plays a recording instead of a scenario: pass one of --replay and --scenario")
        }
        // Without --board or --bus the command may fall back to the simulated board, where
        // --real-time applies; on a real board it changes nothing (real boards run in real time).
        if realTime, !isSimulated, board != nil || bus != nil {
            throw ValidationError("--real-time is for the simulated board; a real board (--board/--bus) always runs in real time")
        }
        if let scenario, !isListRequest, Scenario.named(scenario) == nil {
            throw ValidationError("no scenario named \"\(scenario)\"; choose one of: \(Scenario.all.map(\.name).joined(separator: ", "))")
        }
        if let imu { _ = try Self.simulatedIMU(named: imu) }
        if let barometer, barometer != "none", SimulatedBoard.Barometer(rawValue: barometer.lowercased()) == nil {
            throw ValidationError(
                "no simulated barometer named \"\(barometer)\"; choose one of: \(SimulatedBoard.Barometer.allCases.map(\.rawValue).joined(separator: ", ")), none")
        }
        if let magnetometer { _ = try Self.simulatedMagnetometer(named: magnetometer, imu: imu) }
    }

    /// `--scenario list` (or `help`).
    private var isListRequest: Bool { scenario == "list" || scenario == "help" }

    /// Prints the scenarios and returns true when `--scenario list` was given.
    func listScenariosIfAsked() -> Bool {
        guard isListRequest else { return false }
        for scenario in Scenario.all { print("\(scenario.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(scenario.summary)") }
        return true
    }

    /// The simulated board's settings; with --replay, the recording read (an error names the
    /// file and what is wrong with it).
    func simulation(defaultScenario: String) throws -> Simulation {
        var recording: Recording?
        if let replay {
            let what = "a CSV file written by `motionctl record`"
            do {
                recording = try Recording(csv: String(decoding: try FileContents.read(replay, what: what, limit: FileContents.Limit.recording), as: UTF8.self))
            } catch let failure as FileContents.Failure {
                throw CommandFailure(message: "--replay \(replay) \(failure.problem): \(failure.fix)")
            } catch {
                throw CommandFailure(message: "--replay \(replay): \(error) (pass \(what))")
            }
        }
        var simulation = Simulation(
            scenario: scenario ?? defaultScenario, imu: imu.flatMap { SimulatedBoard.IMU(name: $0) } ?? .lsm6dsox,
            magnetometer: magnetometer.flatMap(SimulatedBoard.MagnetometerChoice.init(name:)) ?? .usual, seed: seed, replay: recording,
            faults: try faults.map { text in
                do { return try FaultPlan(parsing: text) } catch { throw CommandFailure(message: "--faults: \(error)") }
            })
        if let barometer { simulation.barometer = SimulatedBoard.Barometer(rawValue: barometer.lowercased()) }
        // --simulated --spi/--address: the one IMU at that place, on the board file or the built-in layout.
        if spi != nil || address != nil {
            let layout = try board.map(Self.resolveBoard) ?? BoardCatalog.builtIn.board(id: BoardCatalog.simulatedID)
            guard let layout, let location = imuLocation(bus: nil, board: layout) else {
                throw CommandFailure(message: "the built-in simulated board file is missing")
            }
            do {
                return try simulation.laidOut(like: layout, imu: location)
            } catch {
                throw CommandFailure(message: "--simulated \(spi.map { "--spi \($0)" } ?? "--address \(address ?? "")"): \(error)")
            }
        }
        // --simulated --board NAME: the simulated board laid out like that board file.
        guard let board, board != BoardCatalog.simulatedID else { return simulation }
        let layout = try Self.resolveBoard(board)
        do {
            return try simulation.laidOut(like: layout)
        } catch {
            throw CommandFailure(message: "--simulated --board \(board): \(error)")
        }
    }

    /// The chosen source. Without --board or --simulated: this machine's board; on a machine that
    /// is not a known board, with --bus, every address a supported chip can sit at on that bus;
    /// without, the simulated board (saying so on standard error) when `fallBackToSimulation`,
    /// else an error naming the fix.
    func source(defaultScenario: String = "six-faces", fallBackToSimulation: Bool = true) throws -> MotionSource {
        if isSimulated { return .simulated(try simulation(defaultScenario: defaultScenario)) }
        let iio = iioSelection
        if source == .iio { return .iio(iio) }
        let busDevice = bus.map(BoardCatalog.busDevice)
        let named = try board.map(Self.resolveBoard) ?? BoardCatalog.builtIn.detectMachine() ?? busDevice.map { _ in Self.unknownBoard }
        if let location = imuLocation(bus: busDevice, board: named) { return .device(named ?? Self.unknownBoard, location) }
        if source == .i2c, let named { return .board(named, bus: busDevice) }
        if source == .auto, let choice = MotionSource.choose(board: named, bus: busDevice, iio: iio) {
            // Said whenever it is not the plain I2C case, so a person sees why IIO was used.
            if case .iio = choice.source { printError("source: \(choice.reason)") }
            return choice.source
        }
        let model = BoardCatalog.readDeviceTreeModel() ?? "none"
        guard fallBackToSimulation else {
            throw CommandFailure(
                message: "this machine is not a known board (device-tree model: \(model)) and has no IIO accelerometer: name it with --board ID|FILE "
                    + "(`motionctl boards` lists the ids), give its --bus, or use --simulated")
        }
        printError("not a known board (device-tree model: \(model)), no IIO accelerometer and no --board or --bus given: using the simulated board")
        return .simulated(try simulation(defaultScenario: defaultScenario))
    }

    /// `--spi DEVICE` or `--address HEX` (on `bus`, else the board's default I2C bus); nil when neither is given.
    func imuLocation(bus: String?, board: Board?) -> IMULocation? {
        if let spi { return .spi(device: spi) }
        guard let address = address.flatMap(Self.parseAddress) else { return nil }
        let simulatedBus = BoardCatalog.builtIn.board(id: BoardCatalog.simulatedID)?.defaultBus?.device
        return .i2c(bus: bus ?? board?.defaultBus?.device ?? simulatedBus ?? "/dev/i2c-1", address: address)
    }

    /// `0x6A` (or `6a`) as a 7-bit address from 0x08 to 0x77; nil otherwise.
    static func parseAddress(_ text: String) -> UInt8? {
        let digits = text.lowercased().hasPrefix("0x") ? text.dropFirst(2) : Substring(text)
        guard let value = UInt8(digits, radix: 16), (0x08...0x77).contains(value) else { return nil }
        return value
    }

    /// `/dev/spidevB.C`.
    static func isSPIDevice(_ path: String) -> Bool {
        guard path.hasPrefix("/dev/spidev") else { return false }
        let numbers = path.dropFirst("/dev/spidev".count).split(separator: ".", omittingEmptySubsequences: false)
        return numbers.count == 2 && numbers.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    /// `--iio-root` (else `$MOTION_IIO_ROOT`, else the kernel's directory) and `--iio-device`.
    var iioSelection: IIOSelection {
        let root = iioRoot ?? ProcessInfo.processInfo.environment["MOTION_IIO_ROOT"].flatMap { $0.isEmpty ? nil : $0 }
        return IIOSelection(root: root ?? IIOSelection().root, name: iioDevice)
    }

    /// A bus on a machine that is not a known board: the registry's scan (every address a
    /// supported chip can sit at), the chips' axes taken as the device's.
    static let unknownBoard = Board(name: "unknown board", id: "unknown", match: [], i2cBuses: [], mountMatrix: .identity, setup: "")

    /// Opens a manager on the chosen source (see ``source(defaultScenario:fallBackToSimulation:)``)
    /// with the clock of the one rule: the simulated board in virtual time unless `--real-time`
    /// or `virtualTime` is false (`live`), a real board in real time.
    /// `calibrationStore: nil` reads the chips without stored calibrations.
    func open(
        defaultScenario: String = "six-faces", fallBackToSimulation: Bool = true, virtualTime: Bool = true,
        calibrationStore: CalibrationStore? = .userDefault()
    ) throws -> OpenedSource {
        try opener(defaultScenario: defaultScenario, fallBackToSimulation: fallBackToSimulation, virtualTime: virtualTime, calibrationStore: calibrationStore)
            .open()
    }

    /// What ``open(defaultScenario:fallBackToSimulation:virtualTime:calibrationStore:)`` opens,
    /// resolved now and opened later (and again: each ``SourceOpener/open()`` is a new manager).
    func opener(
        defaultScenario: String = "six-faces", fallBackToSimulation: Bool = true, virtualTime: Bool = true,
        calibrationStore: CalibrationStore? = .userDefault()
    ) throws -> SourceOpener {
        // Ctrl-C from here on ends the command the one way (Interruption), even before it loops.
        Interruption.watch()
        let source = try source(defaultScenario: defaultScenario, fallBackToSimulation: fallBackToSimulation)
        return SourceOpener(source: source, virtualTime: virtualTime && !realTime, calibrationStore: calibrationStore)
    }

    /// A built-in board id or a board file (`BoardCatalog.resolve`).
    static func resolveBoard(_ name: String) throws -> Board {
        do {
            return try BoardCatalog.resolve(name)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
    }

    /// `--imu NAME`: a name or alias of the emulator registry (`ism330dhcx` is the `lsm6dsr`).
    static func simulatedIMU(named name: String) throws -> SimulatedBoard.IMU {
        guard let imu = SimulatedBoard.IMU(name: name) else {
            throw ValidationError("no simulated IMU named \"\(name)\"; choose one of: \(SimulatedBoard.imuChoices.joined(separator: ", "))")
        }
        return imu
    }

    /// `--magnetometer NAME` next to `--imu IMU` (the default IMU when nil). An IMU's own
    /// magnetometer die (the LSM9DS1's) is part of that IMU: named next to another IMU it is
    /// refused, not quietly turned into a separate chip with its register map (a LIS3MDL).
    static func simulatedMagnetometer(named name: String, imu: String?) throws -> SimulatedBoard.MagnetometerChoice {
        guard let choice = SimulatedBoard.MagnetometerChoice(name: name) else {
            throw ValidationError(
                "no simulated magnetometer named \"\(name)\"; choose one of: \(SimulatedBoard.magnetometerChoices.joined(separator: ", "))")
        }
        if let owner = SimulatedBoard.IMU(rawValue: name.lowercased()), let die = owner.entry.magnetometerDie,
           imu.flatMap(SimulatedBoard.IMU.init(name:)) != owner {
            let (ownerName, registers) = (owner.rawValue.uppercased(), die.registers.rawValue.uppercased())
            throw ValidationError(
                "--magnetometer \(owner.rawValue) is the \(ownerName)'s own magnetometer: add --imu \(owner.rawValue) "
                    + "(or name \(die.registers.rawValue) for a separate \(registers))")
        }
        return choice
    }
}

/// A resolved source, ready to open managers on.
struct SourceOpener: Sendable {
    let source: MotionSource
    /// The simulated board runs on a virtual clock of its own.
    let virtualTime: Bool
    let calibrationStore: CalibrationStore?

    func open() throws -> OpenedSource {
        var virtualClock: VirtualClock?
        var scenarioLength: Double?
        if case .simulated(let simulation) = source {
            if virtualTime { virtualClock = VirtualClock() }
            scenarioLength = simulation.replay?.samples.last?.time ?? Scenario.named(simulation.scenario)?.script.duration
        }
        do {
            let manager = try MotionManager(source: source, clock: virtualClock ?? SystemClock(), calibrationStore: calibrationStore)
            return OpenedSource(source: source, manager: manager, virtualClock: virtualClock, scenarioLength: scenarioLength)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
    }
}

extension SourceOpener {
    /// The same source for a calibration: read without stored calibrations; the simulated board
    /// (resolved once, so a fallback is announced once) plays `scenario` unless it replays a recording.
    func forCalibration(scenario: String, virtualTime: Bool) -> SourceOpener {
        guard case .simulated(var simulation) = source else {
            return SourceOpener(source: source, virtualTime: false, calibrationStore: nil)
        }
        simulation.scenario = scenario
        return SourceOpener(source: .simulated(simulation), virtualTime: virtualTime, calibrationStore: nil)
    }
}

/// A manager and, in virtual time, the clock to advance.
struct OpenedSource {
    /// What the options resolved to.
    let source: MotionSource
    let manager: MotionManager
    /// Set when the run is in virtual time.
    let virtualClock: VirtualClock?
    /// Seconds of the scenario the simulated board plays; nil on a real board.
    let scenarioLength: Double?

    var clock: any MotionClock { virtualClock ?? SystemClock() }

    /// Runs until done, `duration` seconds of this run's clock, or Ctrl-C.
    func runner(duration: Double?) -> UpdateRunner { UpdateRunner(virtualClock: virtualClock, duration: duration) }
}

extension MotionManager {
    /// Said at the end of a run (on standard error) when the background calibration could not be
    /// saved, so that a full disk or a read-only store is not silent.
    func reportBackgroundSaveFailure() {
        if let failure = backgroundCalibrationSaveError { printError("warning: the background magnetometer calibration was not saved: \(failure)") }
    }
}
