import Foundation
import Testing
@testable import motionctl

/// The Sense HAT's LSM9DS1 through the built `motionctl`: probe, stream at rest, selftest, and
/// the board file by id.
@Suite struct SenseHatCommandTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("swift-motion-sensehat-\(UUID().uuidString)")

    func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.path
        return try BoardsCommandTests.run(arguments, environment: environment)
    }

    @Test(arguments: [["--imu", "lsm9ds1"], ["--imu", "lsm9ds1", "--magnetometer", "lsm9ds1"]])
    func probeListsTheLSM9DS1AndItsMagnetometerAtTheirAddresses(options: [String]) throws {
        let result = try run(["probe", "--simulated"] + options)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        // The simulated board's barometer is a BMP280 whatever the IMU (the real Sense HAT's is an LPS25H at 0x5C).
        #expect(lines.dropFirst() == ["0x1C  LSM9DS1 magnetometer (LIS3MDL registers; the LSM9DS1 at 0x6A)", "0x6A  LSM9DS1", "0x76  BMP280"],
                "\(result.output)")
    }

    @Test func theLSM9DS1MagnetometerComesOnlyWithItsIMU() throws {
        let result = try run(["probe", "--simulated", "--magnetometer", "lsm9ds1"])
        #expect(result.status != 0)
        #expect(result.error.contains("--magnetometer lsm9ds1 is the LSM9DS1's own magnetometer: add --imu lsm9ds1"), "\(result.error)")
        let stream = try run(["stream", "--imu", "mpu6050", "--magnetometer", "lsm9ds1", "--count", "1"])
        #expect(stream.status != 0 && stream.error.contains("add --imu lsm9ds1"), "\(stream.error)")
    }

    @Test func streamAtRestReadsOneGOfGravity() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try run(["stream", "--imu", "lsm9ds1", "--scenario", "rest", "--count", "50"])
        #expect(result.status == 0, "\(result.error)")
        let rows = result.output.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        let header = try #require(rows.first)
        let columns = try ["acc_x_g", "acc_y_g", "acc_z_g"].map { name in try #require(header.firstIndex(of: name)) }
        #expect(rows.count == 51)
        for row in rows.dropFirst() {
            let acceleration = columns.map { Double(row[$0]) ?? .nan }
            let magnitude = acceleration.map { $0 * $0 }.reduce(0, +).squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(row)")
            #expect(acceleration[2] < -0.97, "lying face up reads z ≈ −1 g: \(row)")
        }
    }

    @Test func selftestPassesOnTheSimulatedSenseHat() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try run(["selftest", "--imu", "lsm9ds1"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("PASS  identity: LSM9DS1 at 0x6A (id [0x68]); LSM9DS1 magnetometer (LIS3MDL registers) at 0x1C (id [0x3D])"), "\(result.output)")
        #expect(result.output.contains("PASS  IMU self-test: LSM9DS1: 6 of 6 axes within limits"))
        #expect(result.output.contains("0 failed"))
    }

    @Test func theSenseHatBoardIsBuiltInAndNamedByID() throws {
        let result = try run(["boards", "show", "raspberry-pi-4b-sense-hat"])
        #expect(result.status == 0)
        #expect(result.output.contains("/dev/i2c-1") && result.output.contains("0x6A") && result.output.contains("0x1C"))
        let command = try #require(try Motionctl.parseAsRoot(["selftest", "--board", "raspberry-pi-4b-sense-hat"]) as? SelftestCommand)
        #expect(command.source.board == "raspberry-pi-4b-sense-hat")
    }
}
