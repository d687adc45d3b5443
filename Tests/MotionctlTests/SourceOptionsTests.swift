import ArgumentParser
import CommandSupport
import Foundation
import I2C
import Motion
import MotionSimulation
import MotionSimulator
import Sensors
import Testing
import Timing
@testable import motionctl

/// The source options every sensor-reading command shares.
struct SourceOptionsTests {
    @Test func aBusNumberIsItsDeviceNode() {
        #expect(BoardCatalog.busDevice("1") == "/dev/i2c-1")
        #expect(BoardCatalog.busDevice("/dev/i2c-3") == "/dev/i2c-3")
    }

    /// `--simulated --board ID` (any command: stream, selftest, …): the simulated board laid out
    /// like the board file, its chips at its addresses; a board naming no chips keeps `--imu`.
    @Test func simulatedWithABoardIsLaidOutLikeIt() throws {
        guard case .simulated(let hat) = try SourceOptions.parse(["--simulated", "--board", "raspberry-pi-4b-sense-hat"]).source() else {
            Issue.record("expected the simulated board")
            return
        }
        #expect(hat.imu == .lsm9ds1 && hat.magnetometer == .chip(.lis3mdl) && hat.layout?.id == "raspberry-pi-4b-sense-hat")
        guard case .simulated(let pi) = try SourceOptions.parse(["--imu", "mpu9150", "--board", "raspberry-pi-4b"]).source() else {
            Issue.record("expected the simulated board")
            return
        }
        #expect(pi.imu == .mpu9150 && pi.layout?.id == "raspberry-pi-4b")
        let manager = try MotionManager(source: .simulated(hat), clock: VirtualClock(), calibrationStore: nil)
        let board = try #require(manager.simulatedHardware).board
        #expect(board.imuAddress == I2CAddress(0x6A) && board.magnetometerAddress == I2CAddress(0x1C))
    }

    @Test func simulatedChoicesImplyTheSimulatedBoard() throws {
        for arguments in [["--board", "simulated"], ["--magnetometer", "none"], ["--imu", "MPU6050"], ["--scenario", "flip"]] {
            #expect(try SourceOptions.parse(arguments).isSimulated, "\(arguments)")
        }
        #expect(try !SourceOptions.parse(["--board", "raspberry-pi-5", "--bus", "1"]).isSimulated)
    }

    /// `--imu ism330dhcx`: the ISM330DHCX is the LSM6DSR to this library (WHO_AM_I 0x6B, one
    /// register map), so it picks the LSM6DSR emulator; other registry aliases likewise.
    @Test func imuAliasesPickTheirEmulator() throws {
        for (name, imu) in [("ism330dhcx", SimulatedBoard.IMU.lsm6dsr), ("ICM42688P", .icm42688), ("lsm6dso", .lsm6dsox)] {
            guard case .simulated(let simulation) = try SourceOptions.parse(["--imu", name]).source() else {
                Issue.record("expected the simulated board for --imu \(name)")
                continue
            }
            #expect(simulation.imu == imu, "--imu \(name)")
        }
        #expect(throws: (any Error).self) { _ = try SourceOptions.parse(["--imu", "ism330"]) }
    }

    @Test func aBusAloneOnAnUnknownMachineScansTheUsualAddresses() throws {
        guard BoardCatalog.builtIn.detectMachine() == nil else { return }   // a known board uses its own file
        guard case .board(let board, let bus) = try SourceOptions.parse(["--bus", "7"]).source() else {
            Issue.record("expected a board")
            return
        }
        #expect(board.id == "unknown" && bus == "/dev/i2c-7")
        // Every address an IMU or magnetometer the registry knows can sit at, the BNO055's 0x28/0x29
        // included; the barometers' (0x76/0x77) are the altimeter's to scan.
        #expect(board.imuAddresses == ChipRegistry.imuScanAddresses && board.magnetometerAddresses == ChipRegistry.magnetometerScanAddresses)
        #expect(Set(board.imuAddresses + board.magnetometerAddresses) == Set(ChipRegistry.usualAddresses).subtracting(ChipRegistry.barometerScanAddresses))
        #expect(throws: CommandFailure.self) { try SourceOptions.parse([]).source(fallBackToSimulation: false) }
    }

    @Test func contradictionsAreRefused() {
        for arguments in [["--simulated", "--bus", "1"], ["--bus", "1", "--real-time"], ["--board", "raspberry-pi-5", "--real-time"], ["--magnetometer", "ak09916"]] {
            #expect(throws: (any Error).self, "\(arguments)") { _ = try SourceOptions.parse(arguments) }
        }
    }

    /// Without --board or --bus a command may fall back to the simulated board, where --real-time
    /// applies: it is accepted there (on a real board it changes nothing).
    @Test func realTimeIsAcceptedWhereTheCommandMayFallBack() throws {
        let options = try SourceOptions.parse(["--real-time"])
        #expect(options.realTime && !options.isSimulated)
    }

    @Test func aBoardIsAnIDOrAFileAndErrorsNameTheFix() throws {
        #expect(try SourceOptions.resolveBoard("raspberry-pi-5").id == "raspberry-pi-5")
        let unknown = try #require(throws: CommandFailure.self) { try SourceOptions.resolveBoard("commodore-64") }
        #expect(unknown.message.contains("\"commodore-64\"") && unknown.message.contains("raspberry-pi-5"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{ not json".utf8)))
        let broken = try #require(throws: CommandFailure.self) { try SourceOptions.resolveBoard(path) }
        #expect(broken.message.contains(path))
    }

    @Test func streamOnTheSimulatedBoardRunsInVirtualTimeForTheScenarioLength() throws {
        let result = try BoardsCommandTests.run(["stream", "--scenario", "rest", "--rate", "10"])
        #expect(result.status == 0, "\(result.error)")
        let rows = result.output.split(separator: "\n").dropFirst()
        // `rest` lasts 60 s: 600 rows at 10 Hz.
        #expect(rows.count == 600)
    }

    /// `stream` through a magnetometer outage: as many rows as without one (its field missing for
    /// the outage), with the timer and through the FIFO; the counters on standard error say so.
    @Test(arguments: [false, true])
    func streamKeepsItsRateThroughAMagnetometerOutage(fifo: Bool) throws {
        let options = ["stream", "--scenario", "rest", "--duration", "4", "--no-barometer"] + (fifo ? ["--fifo"] : [])
        let plain = try BoardsCommandTests.run(options)
        let outage = try BoardsCommandTests.run(options + ["--faults", "mag:vanish+2@1"])
        #expect(plain.status == 0 && outage.status == 0, "\(outage.error)")
        let rows = outage.output.split(separator: "\n").dropFirst()
        #expect(rows.count == plain.output.split(separator: "\n").count - 1 && rows.count > 390, "\(rows.count)")
        let withoutField = rows.filter { $0.hasSuffix(",,,") }.count
        #expect(withoutField > 150 && rows.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 10 })
        let counters = try #require(Self.counters(outage.error), "\(outage.error)")
        #expect(counters.dropped == 0 && counters.withoutField >= withoutField, "\(outage.error)")
    }

    /// Through the FIFO an IMU outage is counted as it goes on: a 3 s stream that ends in the
    /// middle of one still accounts for every period of the chip's 208 Hz clock.
    @Test func streamThroughTheFIFOCountsAnOutageAsItGoesOn() throws {
        let result = try BoardsCommandTests.run(["stream", "--scenario", "rest", "--duration", "3", "--fifo", "--faults", "imu:vanish+5@1"])
        #expect(result.status == 0, "\(result.error)")
        let counters = try #require(Self.counters(result.error), "\(result.error)")
        // 3 s at 208 Hz, less the periods before the first sample and those still in the FIFO.
        let periods: ClosedRange<Int> = 3 * 208 - 10...3 * 208
        #expect(periods.contains(counters.sampled + counters.dropped), "\(result.error)")
        #expect(counters.dropped > 300, "\(result.error)")
    }

    /// The counters `stream` prints on standard error when it ends: samples, those without a
    /// magnetometer reading, and the drops of every reason added up.
    static func counters(_ error: String) -> (sampled: Int, withoutField: Int, dropped: Int)? {
        guard let line = error.split(separator: "\n").last(where: { $0.contains("stream stopped: sampled ") }) else { return nil }
        func leadingNumber(_ text: Substring) -> Int? { Int(text.prefix { $0.isNumber }) }
        guard let sampledText = line.split(separator: "sampled ").last, let sampled = leadingNumber(sampledText),
              let drops = line.split(separator: "dropped ").last?.split(separator: ", incidents").first else { return nil }
        let withoutField = line.split(separator: "(").dropFirst().first.flatMap(leadingNumber) ?? 0
        let dropped = drops.split(separator: ", ").compactMap(leadingNumber).reduce(0, +)
        return (sampled, withoutField, dropped)
    }

    @Test func recordAbove100HzGoesThroughTheFIFO() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try RecordCommand.parse(["--scenario", "rest", "--rate", "200", "--duration", "0.5", "--output", path]).run()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("# motionctl record: 100 samples at 200.0 Hz") })
        let times = lines.filter { !$0.hasPrefix("#") }.dropFirst().compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
        #expect(times.count == 100)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // It reads back as a simulator recording.
        #expect(try Recording(contentsOf: path).samples.count == 100)
    }
}
