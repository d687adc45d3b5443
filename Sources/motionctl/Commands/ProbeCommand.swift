import ArgumentParser
import CommandSupport
import Foundation
import I2C
import LinuxI2C
import IIO
import Motion
import MotionSimulation
import MotionTools
import MotionSimulator
import Sensors

/// `motionctl probe`: which addresses answer on which bus, and which supported chips they are
/// ("does it see my sensor?").
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "List the I2C addresses that answer (0x08–0x77), the way i2cdetect scans, and name the supported chips; list Linux's own IIO motion sensors.",
        discussion: """
            Without --bus, scans every /dev/i2c-* bus. The scan never sends a data byte to an unknown device; \
            only at addresses where a supported chip can sit is its identity register read. An address a kernel \
            driver holds (a dtoverlay) does not answer a scan: it is listed with the driver and both ways out. \
            Then every SPI device (/dev/spidev*, or --spi) with the IMU that answers behind it, and the IIO devices \
            with an accelerometer, gyroscope or magnetometer (--iio-root alone: only those). Every IMU found is \
            listed with the option that opens a manager on it alone (--address, --spi).
            """
    )

    @Option(parsing: .unconditional, help: "The bus to scan: a device node such as /dev/i2c-1, or just its number.")
    var bus: String?

    @Flag(help: "Scan the simulated board instead of a real bus.")
    var simulated = false

    @Option(help: "The simulated IMU (with --simulated): \(SimulatedBoard.imuChoices.joined(separator: ", ")) (also \(SimulatedBoard.imuAliases.joined(separator: ", "))).")
    var imu: String = SimulatedBoard.IMU.lsm6dsox.rawValue

    @Option(help: "The simulated magnetometer (with --simulated): \(SimulatedBoard.magnetometerChoices.joined(separator: ", ")).")
    var magnetometer: String = "usual"

    @Option(help: "The simulated barometer (with --simulated): \(SimulatedBoard.Barometer.allCases.map(\.rawValue).joined(separator: ", ")), none (default bmp280).")
    var barometer: String?

    @Option(help: "The SPI device to identify an IMU behind, /dev/spidevB.C (default: every /dev/spidev*). With --simulated: the simulated IMU behind it instead of on the I2C bus.")
    var spi: String?

    @Option(help: "List only the IIO motion sensors under this directory (default /sys/bus/iio/devices, or $MOTION_IIO_ROOT).")
    var iioRoot: String?

    func validate() throws {
        try OptionRange.checkBus(bus)
        try OptionRange.checkIIORoot(iioRoot)
        if iioRoot != nil && (bus != nil || simulated) {
            throw ValidationError("--iio-root lists IIO devices only: it excludes --bus and --simulated")
        }
        if bus != nil && simulated {
            throw ValidationError("--bus and --simulated exclude each other: pick one")
        }
        if let spi, !SourceOptions.isSPIDevice(spi) {
            throw ValidationError("--spi \(spi) is not an SPI device: write /dev/spidevB.C (bus B, chip select C), e.g. /dev/spidev0.0")
        }
        _ = try SourceOptions.simulatedIMU(named: imu)
        if let barometer, barometer != "none", SimulatedBoard.Barometer(rawValue: barometer.lowercased()) == nil {
            throw ValidationError(
                "no simulated barometer named \"\(barometer)\"; choose one of: \(SimulatedBoard.Barometer.allCases.map(\.rawValue).joined(separator: ", ")), none")
        }
        _ = try SourceOptions.simulatedMagnetometer(named: magnetometer, imu: imu)
    }

    func run() throws {
        if let iioRoot {
            print(Self.iioReport(root: iioRoot))
            return
        }
        if simulated {
            printSimulatedBoard()
            return
        }
        let paths = bus.map { [BoardCatalog.busDevice($0)] }
            ?? LinuxI2CBus.availableBuses().map(\.path)
        guard !paths.isEmpty else {
            // What was asked for cannot be had: the simulated board stands in, and the status says
            // so to a script (sysexits.h's EX_UNAVAILABLE).
            printError("No I2C bus found: there is no /dev/i2c-* on this machine.")
            printError(LinuxI2CBus.enableI2CHint + ".")
            printError("Meanwhile, this is what a probe shows on the simulated board (exit status \(Self.noBusStatus)):")
            printSimulatedBoard()
            throw ExitCode(Self.noBusStatus)
        }
        var failed = false
        for path in paths {
            do {
                let bus = try LinuxI2CBus(path: path)
                let adapter = LinuxI2CBus.availableBuses().first { $0.path == bus.name }?.adapterName
                print(Self.report(busName: bus.name + (adapter.map { " (\($0))" } ?? ""), results: probeBus(bus)))
                for claim in KernelDriverClaim.claims(bus: bus.name, addresses: ChipRegistry.imuScanAddresses + ChipRegistry.magnetometerScanAddresses) {
                    print("  \(claim.address)  busy: \(claim); \(claim.fix)")
                }
            } catch {
                printError("error: \(error)")
                failed = true
            }
        }
        for path in spi.map({ [$0] }) ?? Self.spiDevices() {
            do {
                print(Self.spiReport(try LinuxSPIBus(path: path)))
            } catch {
                printError("error: \(error)")
                failed = true
            }
        }
        let root = ProcessInfo.processInfo.environment["MOTION_IIO_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? IIOSelection().root
        if !IIODiscovery.devices(root: root).devices.isEmpty { print(Self.iioReport(root: root)) }
        if failed { throw ExitCode.failure }
    }

    /// The status of a probe that found no I2C bus and showed the simulated board instead:
    /// EX_UNAVAILABLE (sysexits.h, 69).
    static let noBusStatus: Int32 = 69

    /// `IIO (Linux's own drivers) at ROOT: N motion device(s)` and one line per device.
    static func iioReport(root: String) -> String {
        let (devices, problems) = IIODiscovery.devices(root: root)
        var lines = ["IIO (Linux's own sensor drivers) at \(root): \(devices.count) motion device(s)"]
        for device in devices {
            var line = "  \(device.id)  \(device.name)\(device.label.map { " (\($0))" } ?? ""): "
            line += device.groups.map { group in
                var text = group.kind.displayName
                do throws(IIOError) {
                    if let rate = try group.samplingFrequency() { text += " at \(rate.formatted(.number)) Hz" }
                } catch {
                    text += " (sampling frequency unreadable: \(error.kind.rawValue))"
                }
                return text
            }.joined(separator: ", ")
            if device.hasBuffer { line += "; buffered" }
            lines.append(line)
        }
        lines += problems.map { "  unreadable: \($0)" }
        if let sensors = IIOMotionSensors.choose(from: devices) {
            lines.append("  --source iio reads \(sensors.summary)")
        }
        return lines.joined(separator: "\n")
    }

    private func printSimulatedBoard() {
        let board = SimulatedBoard(
            imu: SimulatedBoard.IMU(name: imu) ?? .lsm6dsox,
            magnetometer: SimulatedBoard.MagnetometerChoice(name: magnetometer) ?? .usual,
            barometer: barometer.map { SimulatedBoard.Barometer(rawValue: $0.lowercased()) } ?? SimulationSettings().barometer, source: ConstantSource(.flatAtRest()), now: { 0 },
            imuSPIDevice: spi)
        print(Self.report(busName: "SIMULATED board (no real hardware, register-level emulators)", results: probeBus(board.bus)))
        if let device = board.imuSPI {
            print(Self.spiReport(device))
        } else if let spi {
            let emulated = EmulatorRegistry.imus.filter { $0.emulator is any SPIEmulator.Type }.map(\.chip.rawValue)
            print("\(spi): nothing (the simulated \(imu) has no SPI interface emulated and stays on the I2C bus; on SPI: \(emulated.joined(separator: ", ")))")
        }
    }

    /// The `/dev/spidev*` nodes, in name order.
    static func spiDevices() -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: "/dev")
        } catch {
            printError("cannot list /dev for SPI devices: \(error)")
            return []
        }
        return names.filter { $0.hasPrefix("spidev") }.sorted().map { "/dev/" + $0 }
    }

    /// `<device>: ICM-42688-P (a manager on it alone: --spi <device>)`, or that no supported IMU answers.
    static func spiReport(_ device: any SPIBus) -> String {
        do {
            guard let (chip, _) = try ChipCatalog.identify(spi: device) else {
                let chips = ChipRegistry.imus.filter { $0.spi != nil }.map(\.name).joined(separator: ", ")
                return "\(device.name): no supported IMU answers (on SPI: \(chips)); check SCLK, MOSI, MISO and the chip select"
            }
            return "\(device.name): \(chip.name) (a manager on it alone: --spi \(device.name))"
        } catch {
            return "\(device.name): \(error)"
        }
    }

    /// `<bus>: N device(s) answered` and one line per address with the chip's name; then the
    /// magnetometer inside a 9-axis IMU (MPU-9150, MPU-9250, ICM-20948) when it did not answer
    /// itself: it sits behind the IMU's I2C bypass, which the bus scan ran before. (Only an
    /// MPU-6050-looking chip gets its bypass opened by identification, to tell an MPU-9150.)
    /// Identity registers alone cannot name some magnetometers, so the IMUs found beside them do:
    /// the LSM9DS1's magnetometer answers at its own address with the LIS3MDL's identity, and an
    /// AKM chip answering where a 9-axis IMU's own magnetometer sits (its bypass already open) is
    /// that one — the AK8975 and the AK8963 have the same WIA.
    static func report(busName: String, results: [ProbeResult]) -> String {
        var lines = ["\(busName): \(results.count) device(s) answered"]
        // IMUs whose magnetometer die answers on the bus all along with another chip's identity (the LSM9DS1's, a LIS3MDL's).
        let dies = results.compactMap { result -> (imu: String, address: I2CAddress, registers: String)? in
            guard let imu = result.chipName, let packaged = ChipRegistry.descriptor(named: imu)?.packagedMagnetometer,
                  !packaged.behindBypass else { return nil }
            return (imu, result.address, packaged.chip)
        }
        let builtIn = results.compactMap { result in
            result.chipName.flatMap(ChipCatalog.builtInMagnetometer(inside:)).map { (imu: result, magnetometer: $0) }
        }
        for result in results {
            var name = result.chipName ?? "unknown device (not a supported chip)"
            if let die = dies.first(where: { $0.registers == result.chipName }) {
                name = "\(die.imu) magnetometer (\(die.registers) registers; the \(die.imu) at \(die.address))"
            } else if let inside = builtIn.first(where: { $0.magnetometer.address == result.address }), result.chipName.flatMap(AKModel.init(rawValue:)) != nil,
                      let imu = inside.imu.chipName {
                name = "\(inside.magnetometer.name) (inside the \(imu) at \(inside.imu.address); its I2C bypass is open)"
            }
            lines.append("  \(result.address)  \(name)")
        }
        let imus = results.filter { $0.chipName.flatMap(ChipRegistry.descriptor(named:))?.isIMU == true }
        if imus.count > 1 {
            lines.append("  \(imus.count) IMUs: a manager on one alone with --address \(imus.map(\.address.description).joined(separator: " or --address "))")
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
