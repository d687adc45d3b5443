import Foundation
import MotionSimulation
import MotionSimulator
import Testing
import Timing
@testable import Motion

/// A board file listing two IMUs, one on I2C and one on SPI: a manager on each, each on its own
/// chip (`MotionSource.device`, `Simulation.laidOut(like:imu:)`).
@Suite struct MultiIMUBoardTests {
    static let file = """
        {"name": "Two IMUs", "id": "two-imus", "match": ["Two IMUs"],
         "i2cBuses": [{"device": "/dev/i2c-1", "sdaPin": {"header": "3", "soc": "GPIO2 (I2C1 SDA)"},
                       "sclPin": {"header": "5", "soc": "GPIO3 (I2C1 SCL)"}, "defaultSpeedHz": 100000,
                       "maxSpeedHz": 400000, "isDefault": true}],
         "magnetometerAddresses": ["0x1C"], "mountMatrix": [1, 0, 0, 0, 1, 0, 0, 0, 1], "setup": "none",
         "imus": [{"address": "0x6A", "chip": "LSM6DSOX"}, {"spi": "/dev/spidev0.0", "chip": "ICM-42688-P"}]}
        """

    static func board() throws -> Board {
        try BoardFileParser(file: "two-imus.json").board(from: Data(file.utf8), expectedID: "two-imus")
    }

    /// `count` accelerometer readings 10 ms apart on `clock`.
    static func accelerations(_ manager: MotionManager, on clock: VirtualClock, count: Int) -> [SIMD3<Double>] {
        manager.startAccelerometerUpdates()
        defer { manager.stopAccelerometerUpdates() }
        return (0..<count).compactMap { _ in
            clock.advance(by: 0.01)
            return manager.accelerometerData.map { SIMD3($0.acceleration.x, $0.acceleration.y, $0.acceleration.z) }
        }
    }

    @Test func theFileListsBothPlaces() throws {
        let board = try Self.board()
        #expect(board.imuLocations == [.i2c(bus: "/dev/i2c-1", address: 0x6A), .spi(device: "/dev/spidev0.0")])
        #expect(board.imus.map(\.chip) == ["LSM6DSOX", "ICM-42688-P"])
    }

    /// Two managers, each on its own chip: the first the LSM6DSOX at 0x6A with the board's
    /// magnetometer, the second the ICM-42688-P behind /dev/spidev0.0 without one. Each reads
    /// exactly what its chip alone on a simulated board of the same scenario and seed reads,
    /// and the two differ (their chips' datasheet errors differ).
    @Test func twoIMUsGiveTwoManagersReadingTheirOwnChips() throws {
        let board = try Self.board()
        let simulation = Simulation(scenario: "rest", seed: 7)
        var readings: [[SIMD3<Double>]] = []
        var names: [String] = []
        for location in board.imuLocations {
            let clock = VirtualClock()
            let manager = try MotionManager(
                source: .simulated(simulation.laidOut(like: board, imu: location)), clock: clock, calibrationStore: nil)
            names.append(manager.deviceName)
            readings.append(Self.accelerations(manager, on: clock, count: 50))
        }
        #expect(names.count == 2)
        #expect(names[0].hasPrefix("LSM6DSO") && names[0].contains("LIS3MDL"), "\(names)")
        #expect(names[1].hasPrefix("ICM-42688-P") && !names[1].contains("LIS3MDL"), "\(names)")
        #expect(readings.map(\.count) == [50, 50])
        #expect(readings[0] != readings[1])
        for reading in readings.joined() { #expect(abs(reading.z + 1) < 0.05 && abs(reading.x) < 0.05, "\(reading)") }

        // Each is its chip's own: the same chip alone on the built-in layout reads the same.
        for (chip, expected) in zip([SimulatedBoard.IMU.lsm6dsox, .icm42688], readings) {
            let clock = VirtualClock()
            var alone = simulation
            alone.imu = chip
            let manager = try MotionManager(source: .simulated(alone), clock: clock, calibrationStore: nil)
            #expect(Self.accelerations(manager, on: clock, count: 50) == expected, "\(chip)")
        }
    }

    /// A chip the simulator emulates only on I2C cannot be put on SPI, and says which can.
    @Test func anIMUWithoutSPIOnSPIIsRefusedByName() throws {
        var board = try Self.board()
        board.imus[1].chip = "MPU-9250"
        #expect(throws: MotionError.self) { try Simulation().laidOut(like: board, imu: .spi(device: "/dev/spidev0.0")) }
        do {
            _ = try Simulation().laidOut(like: board, imu: .spi(device: "/dev/spidev0.0"))
        } catch {
            #expect(error.description.contains("mpu9250") && error.description.contains("icm42688"), "\(error)")
        }
    }
}
