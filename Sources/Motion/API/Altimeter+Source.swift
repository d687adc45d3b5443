import Foundation
import I2C
import Locking
import LinuxI2C
import MotionSimulator
import Sensors
import Timing

/// What an altimeter's source resolves to: the barometer's sampler, or why there is none.
struct ResolvedBarometer: Sendable {
    let hub: BarometerHub
    /// Why there is no barometer: nil when `hub` reads one.
    let missing: MotionError?
    let simulated: SimulatedHardware?
}

/// One barometer sampler per barometer for the whole process (system clock only; a virtual clock
/// gets its own), so altimeters of the same barometer share it.
private let liveBarometers = Locked<[String: ResolvedBarometer]>([:])

/// Whether the default source has a barometer, once known.
private let defaultBarometer = Locked<Bool?>(nil)

/// Stands in for a barometer that is not there: never sampled (every start is refused with the reason).
private final class MissingBarometer: BarometerDevice {
    let name = "no barometer"
    let rate = 1.0
    let error: MotionError
    init(_ error: MotionError) { self.error = error }
    func initialize() throws(MotionError) { throw error }
    func read(at timestamp: Double) throws(MotionError) -> BarometerSample { throw error }
    func isStillConfigured() throws(MotionError) -> Bool { throw error }
}

extension Altimeter {
    /// The default source's barometer: this machine's board (the barometer on its default bus),
    /// else the simulated board's BMP280, chosen as ``MotionSource/automatic`` chooses.
    public convenience init() {
        self.init(resolved: Self.resolveAutomatic(clock: SystemClock()))
    }

    /// An altimeter on `source`'s barometer.
    /// - Throws: ``MotionError`` when the board's bus cannot be opened, or
    ///   ``MotionError/sensorNotAvailable(_:)`` naming where it looked when no barometer answers
    ///   (for ``MotionSource/iio(_:)``: no IIO device with a pressure channel; the selection's
    ///   `name` picks a barometer by its driver's name, else the first is read).
    public convenience init(source: MotionSource) throws(MotionError) {
        try self.init(source: source, clock: SystemClock())
    }

    /// An altimeter whose sampler runs on `clock` (`MotionSimulation` makes one on a `VirtualClock`).
    package convenience init(source: MotionSource, clock: any MotionClock) throws(MotionError) {
        let resolved: ResolvedBarometer
        switch source {
        case .automatic: resolved = Self.resolveAutomatic(clock: clock)
        case .board(let board, let bus): resolved = try Self.resolve(board: board, busPath: bus, clock: clock)
        case .device(let board, _): resolved = try Self.resolve(board: board, busPath: nil, clock: clock)
        case .simulated(let simulation): resolved = try Self.resolve(simulation: simulation, clock: clock)
        case .iio(let selection): resolved = try Self.resolve(iio: selection, clock: clock)
        }
        if let missing = resolved.missing { throw missing }
        self.init(resolved: resolved)
    }

    static func defaultSourceHasBarometer() -> Bool {
        if let known = defaultBarometer.withLock({ $0 }) { return known }
        let answer = resolveAutomatic(clock: VirtualClock()).missing == nil
        defaultBarometer.withLock { $0 = $0 ?? answer }
        return answer
    }

    private static func resolveAutomatic(clock: any MotionClock) -> ResolvedBarometer {
        let model = BoardCatalog.readDeviceTreeModel()
        if let board = BoardCatalog.builtIn.detect(model: model), board.id != BoardCatalog.simulatedID, board.defaultBus != nil {
            do {
                let resolved = try resolve(board: board, busPath: nil, clock: clock)
                if clock is SystemClock { defaultBarometer.withLock { $0 = resolved.missing == nil } }
                return resolved
            } catch {
                Library.logger.warning("board \(board.id), but \(error); using the simulated board's barometer instead")
            }
        }
        do {
            return try resolve(simulation: Simulation(), clock: clock)
        } catch {
            Library.logger.error("the simulated board failed to start: \(error)")
            return unavailable(error, clock: clock)
        }
    }

    private static func unavailable(_ error: MotionError, clock: any MotionClock) -> ResolvedBarometer {
        ResolvedBarometer(hub: BarometerHub(device: MissingBarometer(error), clock: clock), missing: error, simulated: nil)
    }

    static func resolve(board: Board, busPath: String?, clock: any MotionClock) throws(MotionError) -> ResolvedBarometer {
        guard let path = busPath ?? board.defaultBus?.device else {
            throw .deviceNotFound("board \(board.id) names no default I2C bus; pass one")
        }
        return try shared(key: "\(board.id)|\(path)", clock: clock) { () throws(MotionError) in
            let bus: LinuxI2CBus
            do throws(I2CError) {
                bus = try LinuxI2CBus(path: path)
            } catch {
                throw .bus(error)
            }
            let addresses = board.barometerAddresses
            guard let barometer = try DriverBarometer.find(on: bus, addresses: addresses) else {
                return unavailable(.sensorNotAvailable(
                    "no supported barometer at \(addresses.map(\.description).joined(separator: ", ")) on \(path); "
                        + "check the wiring, then run `motionctl probe --bus \(path)`"), clock: clock)
            }
            return ResolvedBarometer(hub: BarometerHub(device: barometer, clock: clock), missing: nil, simulated: nil)
        }
    }

    static func resolve(simulation: Simulation, clock: any MotionClock) throws(MotionError) -> ResolvedBarometer {
        let key = simulation.settings.replay == nil ? "simulated|\(simulation)" : "replay|\(UUID())"
        return try shared(key: key, clock: clock) { () throws(MotionError) in
            let (board, world) = try simulation.makeBoard(clock: clock)
            let hardware = SimulatedHardware(board: board, world: world)
            guard let address = board.barometerAddress,
                  let barometer = try DriverBarometer.find(on: board.bus, addresses: [address], pause: .none) else {
                return ResolvedBarometer(
                    hub: BarometerHub(device: MissingBarometer(.sensorNotAvailable("the simulated board has no barometer")), clock: clock),
                    missing: .sensorNotAvailable("the simulated board has no barometer"), simulated: hardware)
            }
            return ResolvedBarometer(hub: BarometerHub(device: barometer, clock: clock), missing: nil, simulated: hardware)
        }
    }

    /// The kernel's barometer driver through IIO (``IIOBarometerDevice``).
    static func resolve(iio selection: IIOSelection, clock: any MotionClock) throws(MotionError) -> ResolvedBarometer {
        try shared(key: "iio|\(selection.root)|\(selection.name ?? "")", clock: clock) { () throws(MotionError) in
            ResolvedBarometer(hub: BarometerHub(device: try IIOBarometerDevice.find(selection), clock: clock), missing: nil, simulated: nil)
        }
    }

    /// Reuses the live sampler for `key` on the system clock, else makes one.
    private static func shared(
        key: String, clock: any MotionClock, make: () throws(MotionError) -> ResolvedBarometer
    ) throws(MotionError) -> ResolvedBarometer {
        guard clock is SystemClock else { return try make() }
        if let existing = liveBarometers.withLock({ $0[key] }) { return existing }
        let made = try make()
        guard made.missing == nil else { return made }
        return liveBarometers.withLock { barometers in
            if let existing = barometers[key] { return existing }
            barometers[key] = made
            return made
        }
    }
}
