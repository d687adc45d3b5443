import ArgumentParser
import Foundation
import Testing
@testable import motionctl

struct SelftestCommandTests {
    @Test func simulatedExcludesABusButTakesABoard() throws {
        #expect(throws: (any Error).self) { _ = try Motionctl.parseAsRoot(["selftest", "--simulated", "--bus", "/dev/i2c-1"]) }
        let command = try #require(try Motionctl.parseAsRoot(["selftest", "--simulated", "--board", "raspberry-pi-4b"]) as? SelftestCommand)
        #expect(command.source.isSimulated && command.source.board == "raspberry-pi-4b")
    }

    /// `--simulated --board raspberry-pi-4b-sense-hat`: the simulated board laid out like the
    /// Sense HAT's board file (its LSM9DS1 at 0x6A, the LSM9DS1's magnetometer, a LIS3MDL map, at
    /// 0x1C), and every check passes.
    @Test func passesOnTheSimulatedSenseHatBoardFile() throws {
        let result = try BoardsCommandTests.run(["selftest", "--simulated", "--board", "raspberry-pi-4b-sense-hat"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Self-test on simulated board (laid out like raspberry-pi-4b-sense-hat, lsm9ds1, virtual time)", "\(lines)")
        #expect(lines.contains { $0.hasPrefix("PASS  identity: LSM9DS1 at 0x6A (id [0x68]); LSM9DS1 magnetometer (LIS3MDL registers) at 0x1C (id [0x3D])") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("PASS  IMU self-test: LSM9DS1: 6 of 6 axes within limits") })
        #expect(lines.contains { $0.hasPrefix("PASS  magnetometer self-test: LIS3MDL: 3 of 3 axes within limits") })
        #expect(lines.last?.hasSuffix(" 0 failed, 1 skipped") == true, "\(lines)")
    }

    /// Gravity at rest is held to the chip's datasheet: an uncalibrated MPU-6050 may read 1 g ± 11 %
    /// (zero-g z ±80 mg, sensitivity ±3 %), and the simulated one, with a third of that, passes at
    /// 1.042 g; an LSM6DSOX is held to ± 3 %.
    @Test func gravityAtRestIsHeldToTheChipsDatasheet() throws {
        let mpu = try BoardsCommandTests.run(["selftest", "--imu", "mpu6050"])
        #expect(mpu.status == 0, "\(mpu.output)\(mpu.error)")
        #expect(mpu.output.contains("PASS  gravity at rest: 1.0423 g (limit: 1 g ± 11 % (PS-MPU-6000A §6.2: zero-g z ±80 mg, sensitivity ±3 %; uncalibrated))"),
                "\(mpu.output)")
        let lsm = try BoardsCommandTests.run(["selftest", "--imu", "lsm6dsox"])
        #expect(lsm.status == 0, "\(lsm.output)\(lsm.error)")
        #expect(lsm.output.contains("PASS  gravity at rest: 1.0119 g (limit: 1 g ± 3 %)"), "\(lsm.output)")
    }

    /// A board file naming chips: the simulator places them at the board's addresses, or says
    /// which chip it cannot place.
    @Test(arguments: [
        // A chip swift-motion does not know is refused by the board file's check already.
        (#""imuChip": "BMI088","#, #""BMI088" is not a chip swift-motion knows"#),
        (#""imuChip": "MPU-9150", "magnetometerChip": "AK8963","#, "the magnetometer AK8963, which the simulator cannot place next to the mpu9150"),
        (#""imuChip": "LSM6DSOX","#, "the simulated lsm6dsox answers only at 0x6A, 0x6B"),
    ])
    func aBoardFileChipTheSimulatorCannotPlaceIsNamed(chips: String, message: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selftest-board-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("my-hat.json")
        try Data(Self.boardFile(chips: chips).utf8).write(to: file)
        let result = try BoardsCommandTests.run(["selftest", "--simulated", "--board", file.path])
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("error: ") && result.error.contains(file.path), "\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    /// An MPU-9150 HAT at 0x69: both its chips placed (the AK8975 behind the bypass), identified and
    /// self-tested.
    @Test func aBoardFileWithAnMPU9150IsLaidOut() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selftest-board-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("my-hat.json")
        try Data(Self.boardFile(chips: #""imuChip": "MPU-9150", "magnetometerChip": "AK8975","#, imuAddress: "0x69", magnetometerAddress: "0x0C").utf8)
            .write(to: file)
        let result = try BoardsCommandTests.run(["selftest", "--simulated", "--board", file.path])
        // Gravity: 1.042 g with the MPU-6050's error preset, within its datasheet's ± 11 %.
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("PASS  gravity at rest: 1.0423 g (limit: 1 g ± 11 % (PS-MPU-6000A §6.2: zero-g z ±80 mg, sensitivity ±3 %; uncalibrated))"),
                "\(result.output)")
        #expect(result.output.hasPrefix("Self-test on simulated board (laid out like my-hat, mpu9150, virtual time)"), "\(result.output)")
        #expect(result.output.contains("PASS  identity: MPU-9150 at 0x69 (id [0x68]); AK8975 at 0x0C (id [0x48])"), "\(result.output)")
        #expect(result.output.contains("PASS  magnetometer self-test: AK8975: 3 of 3 axes within limits"), "\(result.output)")
        #expect(result.output.contains("PASS  IMU self-test: MPU-9150: 6 of 6 axes within limits"), "\(result.output)")
    }

    static func boardFile(chips: String, imuAddress: String = "0x68", magnetometerAddress: String = "0x1C") -> String {
        #"{"name": "My HAT", "id": "my-hat", "match": [], "i2cBuses": [{"device": "/dev/i2c-1", "sdaPin": {"header": "3", "soc": "GPIO2"}, "#
            + #""sclPin": {"header": "5", "soc": "GPIO3"}, "defaultSpeedHz": 100000, "maxSpeedHz": 400000, "isDefault": true}], "#
            + #""imuAddresses": [""# + imuAddress + #""], "magnetometerAddresses": [""# + magnetometerAddress + #""], "# + chips
            + #" "mountMatrix": [1, 0, 0, 0, 1, 0, 0, 0, 1], "setup": "A test HAT."}"#
    }

    @Test func parsesABoardAndBus() throws {
        let command = try #require(try Motionctl.parseAsRoot(["selftest", "--board", "raspberry-pi-4b", "--bus", "3"]) as? SelftestCommand)
        #expect(command.source.board == "raspberry-pi-4b")
        #expect(command.source.bus == "3")
        #expect(!command.source.simulated)
    }

    /// `selftest --simulated`: the simulated board's usual chips (an LSM6DSOX with a LIS3MDL), every
    /// check run and passed, none skipped, and the exit status 0.
    @Test func passesOnTheSimulatedBoard() throws {
        let result = try BoardsCommandTests.run(["selftest", "--simulated"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Self-test on simulated board (lsm6dsox, virtual time)", "\(lines)")
        let checks = lines.dropFirst().dropLast()
        #expect(checks.count >= 9 && checks.allSatisfy { $0.hasPrefix("PASS  ") }, "\(lines)")
        for check in ["identity", "IMU self-test", "magnetometer self-test", "FIFO read", "100 Hz delivery", "gravity at rest",
                      "gyro bias at rest", "gyro noise at rest", "orientation lying flat"] {
            #expect(checks.contains { $0.hasPrefix("PASS  \(check): ") }, "\(check): \(lines)")
        }
        #expect(checks.contains { $0.hasPrefix("PASS  identity: LSM6DSO/LSM6DSOX at 0x6A (id [0x6C]); LIS3MDL at 0x1C (id [0x3D])") }, "\(lines)")
        #expect(lines.last == "\(checks.count) passed, 0 failed, 0 skipped", "\(lines)")
    }

    @Test func aMissingBusFailsTheCommand() throws {
        let command = try SelftestCommand.parse(["--board", "raspberry-pi-4b", "--bus", "/dev/i2c-swift-motion-missing"])
        #expect(throws: ExitCode.failure) { try command.run() }
    }
}
