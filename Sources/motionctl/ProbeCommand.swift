import ArgumentParser
import I2C
import LinuxI2C
import Motion
import MotionSimulator
import Sensors

/// `motionctl probe`: which addresses answer on which bus, and which supported chips they are
/// ("does it see my sensor?").
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "List the I2C addresses that answer (0x08–0x77), the way i2cdetect scans, and name the supported chips.",
        discussion: """
            Without --bus, scans every /dev/i2c-* bus. The scan never sends a data byte to an unknown device; \
            only at addresses where a supported chip can sit is its identity register read.
            """
    )

    @Option(help: "The bus to scan: a device node such as /dev/i2c-1, or just its number.")
    var bus: String?

    @Flag(help: "Scan the simulated board instead of a real bus.")
    var simulated = false

    @Option(help: "The simulated IMU (with --simulated): \(SimulatedBoard.imuChoices.joined(separator: ", ")).")
    var imu: String = SimulatedBoard.IMU.lsm6dsox.rawValue

    func validate() throws {
        if bus != nil && simulated {
            throw ValidationError("--bus and --simulated exclude each other: pick one")
        }
        _ = try SourceOptions.simulatedIMU(named: imu)
    }

    func run() throws {
        if simulated {
            printSimulatedBoard()
            return
        }
        let paths = bus.map { [BoardCatalog.busDevice($0)] }
            ?? LinuxI2CBus.availableBuses().map(\.path)
        guard !paths.isEmpty else {
            print("No I2C bus found: there is no /dev/i2c-* on this machine.")
            print(LinuxI2CBus.enableI2CHint + ".")
            print("")
            print("Meanwhile, this is what a probe shows on the simulated board:")
            printSimulatedBoard()
            return
        }
        var failed = false
        for path in paths {
            do {
                let bus = try LinuxI2CBus(path: path)
                let adapter = LinuxI2CBus.availableBuses().first { $0.path == bus.name }?.adapterName
                print(Self.report(busName: bus.name + (adapter.map { " (\($0))" } ?? ""), results: probeBus(bus)))
            } catch {
                print("\(error)")
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }

    private func printSimulatedBoard() {
        let board = SimulatedBoard(
            imu: SimulatedBoard.IMU(rawValue: imu.lowercased()) ?? .lsm6dsox, source: ConstantSource(.flatAtRest()), now: { 0 })
        print(Self.report(busName: "SIMULATED board (no real hardware, register-level emulators)", results: probeBus(board.bus)))
    }

    /// `<bus>: N device(s) answered` and one line per address with the chip's name; then the
    /// magnetometer inside a 9-axis IMU (MPU-9250, ICM-20948) when it did not answer itself: it
    /// sits behind the IMU's I2C bypass, which a probe never opens (that would be a write).
    static func report(busName: String, results: [ProbeResult]) -> String {
        var lines = ["\(busName): \(results.count) device(s) answered"]
        for result in results {
            lines.append("  \(result.address)  \(result.chipName ?? "unknown device (not a supported chip)")")
        }
        for result in results {
            guard let imu = result.chipName, let inside = ChipCatalog.builtInMagnetometer(inside: imu),
                  !results.contains(where: { $0.address == inside.address }) else { continue }
            lines.append("  \(inside.address)  \(inside.name) (inside the \(imu) at \(result.address), "
                + "behind its I2C bypass: answers once a driver opens it)")
        }
        return lines.joined(separator: "\n")
    }
}
