import ArgumentParser
import I2C
import LinuxI2C
import Motion

/// `motionctl probe`: which addresses answer on which bus ("does it see my sensor?").
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "List the I2C addresses that answer (0x08–0x77), the way i2cdetect scans.",
        discussion: "Without --bus, scans every /dev/i2c-* bus. Never sends a data byte to an unknown device."
    )

    @Option(help: "The bus to scan: a device node such as /dev/i2c-1, or just its number.")
    var bus: String?

    @Flag(help: "Scan the simulated board instead of a real bus.")
    var simulated = false

    func validate() throws {
        if bus != nil && simulated {
            throw ValidationError("--bus and --simulated exclude each other: pick one")
        }
    }

    func run() throws {
        if simulated {
            print("simulated board not available yet")
            return
        }
        let paths = bus.map { [$0.allSatisfy(\.isNumber) ? "/dev/i2c-\($0)" : $0] }
            ?? LinuxI2CBus.availableBuses().map(\.path)
        guard !paths.isEmpty else {
            print("No I2C bus found: there is no /dev/i2c-* on this machine.")
            print(LinuxI2CBus.enableI2CHint + ".")
            print("The simulated board will be shown here once it is available.")
            return
        }
        var failed = false
        for path in paths {
            do {
                printScan(of: try LinuxI2CBus(path: path))
            } catch {
                print("\(error)")
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }

    private func printScan(of bus: LinuxI2CBus) {
        let adapter = LinuxI2CBus.availableBuses().first { $0.path == bus.name }?.adapterName
        let results = probeBus(bus)
        print("\(bus.name)\(adapter.map { " (\($0))" } ?? ""): \(results.count) device(s) answered")
        for result in results {
            print("  \(result.address)" + (result.chipName.map { "  \($0)" } ?? ""))
        }
    }
}
