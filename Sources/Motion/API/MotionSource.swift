import Locking
import Foundation
import I2C
import LinuxI2C
import MotionSimulator
import Sensors
import Timing

/// Where a `MotionManager` gets its sensors.
public enum MotionSource: Sendable {
    /// The board this machine is (device-tree model) on its default bus — or, when a kernel
    /// driver holds its IMU (a `dtoverlay`), that driver through IIO; on a machine that is not a
    /// known board, an IIO accelerometer (laptops, tablets); else the simulated board. A line in
    /// ``MotionManager/logger`` (nowhere unless the application sets it) says which and why
    /// (``MotionSource/choose(board:bus:iio:sysfsRoot:)``); ``MotionManager/deviceName`` and
    /// ``MotionManager/simulatedHardware`` say which, too.
    case automatic
    /// A board (built-in, `BoardCatalog`, or your own file) on its default bus, or on `bus`.
    case board(Board, bus: String? = nil)
    /// One IMU of a board: at an address on an I2C bus or behind an SPI device (a board file's
    /// ``Board/imuLocations``, or your own), so that each of several managers runs on its own
    /// chip. The board's separate magnetometer goes with the board's first listed IMU (or any
    /// location on a board that lists none); another location runs without one.
    case device(Board, IMULocation)
    /// The built-in simulated board: register-level chip emulators in a simulated world. The
    /// `MotionSimulation` product makes a ``Simulation`` (its scenario, chips, replay and faults).
    case simulated(Simulation)
    /// Linux's own sensor drivers through IIO (sysfs and the buffer device): for a chip a kernel
    /// driver owns (a Raspberry Pi overlay) and for laptops, tablets and phones.
    case iio(IIOSelection = IIOSelection())
}

/// What a source resolves to: a shared sampler and what the manager needs to know about it.
struct ResolvedSource: Sendable {
    let hub: SensorHub
    let simulated: SimulatedHardware?
    let magnetometerAccuracy: MagneticFieldCalibrationAccuracy?
}

/// One sampler per device for the whole process, so managers of the same device share it (the
/// timer stops while nobody listens). Only for the system clock: a virtual clock gets its own.
private let liveSources = Locked<[String: ResolvedSource]>([:])

/// Whether the default device (``MotionSource/automatic``) has a magnetometer, once known: from
/// the first default manager of the process, else from opening the device once for the question.
private let defaultMagnetometer = Locked<Bool?>(nil)

/// Stands in when even the simulated board cannot start (a bug): every start reports the error.
private final class UnavailableDevice: MotionDevice {
    let name = "no device"
    let hasMagnetometer = false
    let maximumTimerRate = 100.0
    let error: MotionError
    init(_ error: MotionError) { self.error = error }
    func initialize() throws(MotionError) { throw error }
    func read(at timestamp: Double) throws(MotionError) -> MotionSample { throw error }
    func isStillConfigured() throws(MotionError) -> Bool { throw error }
}

extension MotionManager {
    /// The default board: this machine's, else the simulated board (see ``MotionSource/automatic``).
    public convenience init() {
        self.init(resolved: Self.resolveAutomatic(clock: SystemClock(), store: .userDefault()))
    }

    /// A manager on `source`.
    /// - Parameters:
    ///   - calibrationStore: where stored calibrations are read from, and where the magnetometer's
    ///     background calibration is saved when it has improved (nil: none applied, nothing saved).
    ///   - attitudeEstimator: the sensor fusion (see ``AttitudeEstimatorFactory``) behind device
    ///     motion (attitude, gravity, user acceleration, the bias taken off the rotation rate,
    ///     heading, magnetic accuracy) and orientation notifications, e.g. `.madgwick()`
    ///     or `.chip`. It is called with the sample rate and the chip's
    ///     latency when fusion first runs and again when they change. nil (the default): this library's
    ///     filter, ``AttitudeEstimatorFactory/standard``. A manager with its own estimator has a sampler of its own.
    /// - Throws: ``MotionError`` when the board's bus cannot be opened or no supported IMU answers.
    public convenience init(
        source: MotionSource, calibrationStore: CalibrationStore? = .userDefault(), attitudeEstimator: AttitudeEstimatorFactory? = nil
    ) throws(MotionError) {
        try self.init(source: source, clock: SystemClock(), calibrationStore: calibrationStore, attitudeEstimator: attitudeEstimator)
    }

    /// A manager on `source` whose sampler runs on `clock` (`MotionSimulation` makes one on a
    /// `VirtualClock`: the whole stack in virtual time).
    package convenience init(
        source: MotionSource, clock: any MotionClock, calibrationStore: CalibrationStore? = .userDefault(),
        attitudeEstimator: AttitudeEstimatorFactory? = nil
    ) throws(MotionError) {
        let resolved: ResolvedSource
        switch source {
        case .automatic: resolved = Self.resolveAutomatic(clock: clock, estimator: attitudeEstimator, store: calibrationStore)
        case .board(let board, let bus): resolved = try Self.resolve(board: board, busPath: bus, clock: clock, estimator: attitudeEstimator, store: calibrationStore)
        case .device(let board, let location): resolved = try Self.resolve(board: board, location: location, clock: clock, estimator: attitudeEstimator, store: calibrationStore)
        case .simulated(let simulation): resolved = try Self.resolve(simulation: simulation, clock: clock, estimator: attitudeEstimator, store: calibrationStore)
        case .iio(let selection): resolved = try Self.resolve(iio: selection, clock: clock, estimator: attitudeEstimator)
        }
        self.init(resolved: resolved)
    }

    /// Whether the default device has a magnetometer. Asked before any default manager exists,
    /// the device is opened on a clock of its own (so not kept as the process's shared sampler
    /// of it), asked and let go; the answer is kept, so it is never opened again for this.
    static func defaultDeviceHasMagnetometer() -> Bool {
        if let known = defaultMagnetometer.withLock({ $0 }) { return known }
        let answer = resolveAutomatic(clock: VirtualClock(), store: nil).hub.device.hasMagnetometer
        defaultMagnetometer.withLock { $0 = $0 ?? answer }
        return answer
    }

    private static func resolveAutomatic(
        clock: any MotionClock, estimator: AttitudeEstimatorFactory? = nil, store: CalibrationStore?
    ) -> ResolvedSource {
        let resolved = resolveAutomaticDevice(clock: clock, estimator: estimator, store: store)
        if clock is SystemClock { defaultMagnetometer.withLock { $0 = resolved.hub.device.hasMagnetometer } }
        return resolved
    }

    private static func resolveAutomaticDevice(
        clock: any MotionClock, estimator: AttitudeEstimatorFactory?, store: CalibrationStore?
    ) -> ResolvedSource {
        let model = BoardCatalog.readDeviceTreeModel()
        let board = BoardCatalog.builtIn.detect(model: model)
        if let choice = MotionSource.choose(board: board, bus: nil) {
            do {
                let resolved: ResolvedSource
                switch choice.source {
                case .iio(let selection): resolved = try resolve(iio: selection, clock: clock, estimator: estimator)
                case .board(let board, let bus): resolved = try resolve(board: board, busPath: bus, clock: clock, estimator: estimator, store: store)
                default: throw MotionError.sensor("unexpected automatic choice \(choice.source)")
                }
                logger.info("\(choice.reason): \(resolved.hub.device.name)")
                return resolved
            } catch {
                logger.warning("\(choice.reason), but \(error); using the simulated board instead")
            }
        } else {
            logger.info("not a known board (device-tree model: \(model ?? "none")) and no IIO accelerometer; using the simulated board. Pass a board to use real sensors: `MotionManager(source: .board(...))`, `motionctl --board`")
        }
        do {
            return try resolve(simulation: Simulation(), clock: clock, estimator: estimator, store: store)
        } catch {
            logger.error("the simulated board failed to start: \(error)")
            return ResolvedSource(hub: SensorHub(device: UnavailableDevice(error), clock: clock, makeEstimator: estimator), simulated: nil, magnetometerAccuracy: nil)
        }
    }

    static func resolve(
        board: Board, busPath: String?, clock: any MotionClock, estimator: AttitudeEstimatorFactory? = nil, store: CalibrationStore?
    ) throws(MotionError) -> ResolvedSource {
        guard let path = busPath ?? board.defaultBus?.device else {
            throw .deviceNotFound("board \(board.id) names no default I2C bus; pass one")
        }
        return try shared(key: "\(board.id)|\(path)|\(store?.directory.path ?? "no calibration")", clock: clock, estimator: estimator) { () throws(MotionError) in
            let bus: LinuxI2CBus
            do throws(I2CError) {
                bus = try LinuxI2CBus(path: path)
            } catch {
                throw .bus(error)
            }
            let device = try DeviceOpener.open(bus: bus, board: board, store: store)
            return ResolvedSource(hub: SensorHub(device: device, clock: clock, makeEstimator: estimator, background: device.backgroundCalibration), simulated: nil,
                magnetometerAccuracy: device.correction.magnetometerAccuracy)
        }
    }

    static func resolve(
        board: Board, location: IMULocation, clock: any MotionClock, estimator: AttitudeEstimatorFactory? = nil, store: CalibrationStore?
    ) throws(MotionError) -> ResolvedSource {
        let key = "\(board.id)|\(location)|\(store?.directory.path ?? "no calibration")"
        return try shared(key: key, clock: clock, estimator: estimator) { () throws(MotionError) in
            let located = board.narrowed(to: location)
            let device: DriverDevice
            switch location {
            case .i2c(let path, _):
                let bus: LinuxI2CBus
                do throws(I2CError) { bus = try LinuxI2CBus(path: path) } catch { throw .bus(error) }
                device = try DeviceOpener.open(bus: bus, board: located, store: store)
            case .spi(let path):
                let spi: LinuxSPIBus
                do throws(I2CError) { spi = try LinuxSPIBus(path: path) } catch { throw .bus(error) }
                device = try DeviceOpener.open(
                    imu: .spi(spi), magnetometerBus: magnetometerBus(of: located), board: located, store: store)
            }
            return ResolvedSource(
                hub: SensorHub(device: device, clock: clock, makeEstimator: estimator, background: device.backgroundCalibration),
                simulated: nil, magnetometerAccuracy: device.correction.magnetometerAccuracy)
        }
    }

    /// The I2C bus of the board's magnetometer for an IMU on SPI: the default bus, when this
    /// IMU has the board's magnetometer; when that bus cannot be opened the IMU runs without one,
    /// and a warning in ``MotionManager/logger`` says why.
    private static func magnetometerBus(of board: Board) -> LinuxI2CBus? {
        guard !board.magnetometerAddresses.isEmpty, let path = board.defaultBus?.device else { return nil }
        do {
            return try LinuxI2CBus(path: path)
        } catch {
            logger.warning("the IMU is on SPI and the magnetometer's bus cannot be opened (\(error)); running without a magnetometer")
            return nil
        }
    }

    static func resolve(
        simulation: Simulation, clock: any MotionClock, estimator: AttitudeEstimatorFactory? = nil, store: CalibrationStore?
    ) throws(MotionError) -> ResolvedSource {
        // A replay is never shared (its key would be the whole recording).
        let key = simulation.settings.replay == nil ? "simulated|\(simulation)" : "replay|\(UUID())"
        return try shared(key: "\(key)|\(store?.directory.path ?? "no calibration")", clock: clock, estimator: estimator) { () throws(MotionError) in
            let (board, world) = try simulation.makeBoard(clock: clock)
            guard let boardFile = simulation.layout ?? BoardCatalog.builtIn.board(id: BoardCatalog.simulatedID) else {
                throw .sensor("the built-in simulated board file is missing: \(BoardCatalog.builtInProblems)")
            }
            let device = try DeviceOpener.open(
                imu: board.imuSPI.map { .spi($0) } ?? .i2c(board.bus), magnetometerBus: board.bus,
                board: simulation.imuLocation.map(boardFile.narrowed(to:)) ?? boardFile, store: store, pause: .none,
                lsm6dso32: simulation.settings.imu == .lsm6dso32)
            return ResolvedSource(
                hub: SensorHub(device: device, clock: clock, makeEstimator: estimator, background: device.backgroundCalibration),
                simulated: SimulatedHardware(board: board, world: world),
                magnetometerAccuracy: device.correction.magnetometerAccuracy)
        }
    }

    static func resolve(iio selection: IIOSelection, clock: any MotionClock, estimator: AttitudeEstimatorFactory? = nil) throws(MotionError) -> ResolvedSource {
        try shared(key: "iio|\(selection.root)|\(selection.name ?? "")|\(selection.reading)", clock: clock, estimator: estimator) { () throws(MotionError) in
            ResolvedSource(hub: SensorHub(device: try IIOMotionDevice(selection: selection), clock: clock, makeEstimator: estimator), simulated: nil, magnetometerAccuracy: nil)
        }
    }

    /// Reuses the live sampler for `key` (system clock, this library's estimator), else makes one.
    /// The key names the calibration store too: a manager reading raw values (no store) must not
    /// share a sampler that applies calibrations.
    private static func shared(
        key: String, clock: any MotionClock, estimator: AttitudeEstimatorFactory?, make: () throws(MotionError) -> ResolvedSource
    ) throws(MotionError) -> ResolvedSource {
        guard clock is SystemClock, estimator == nil else { return try make() }
        if let existing = liveSources.withLock({ $0[key] }) { return existing }
        let made = try make()
        return liveSources.withLock { sources in
            if let existing = sources[key] { return existing }
            sources[key] = made
            return made
        }
    }
}
