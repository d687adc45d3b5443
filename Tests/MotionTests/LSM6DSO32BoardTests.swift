import Fusion
import I2C
import MotionSimulator
import Sensors
import Testing
@testable import Motion

/// An LSM6DSO32 answers as an LSM6DSO (WHO_AM_I 0x6C): a board file that names it makes the
import MotionSimulation
/// opener read it at its own scales (±32 g: twice the LSM6DSO's counts per g at each code).
@Suite struct LSM6DSO32BoardTests {
    static func open(imuChip: String?) throws -> DriverDevice {
        let board = SimulatedBoard(imu: .lsm6dso32, magnetometer: .none, source: ConstantSource(), now: { 1 })
        let file = Board(
            name: "HAT", id: "hat", match: [], i2cBuses: [], imuAddresses: [I2CAddress(0x6A)], magnetometerAddresses: [],
            mountMatrix: .identity, setup: "", imuChip: imuChip)
        return try DeviceOpener.open(bus: board.bus, board: file, store: nil, pause: .none)
    }

    @Test func aBoardFileNamingTheLSM6DSO32ReadsOneG() throws {
        let named = try Self.open(imuChip: "LSM6DSO32")
        #expect(named.imu.chip.name == "LSM6DSO32")
        let sample = try named.imu.readSample()
        #expect(abs(sample.acceleration.z + 1) < 0.01, "\(sample.acceleration)")
        let unnamed = try Self.open(imuChip: nil)
        #expect(unnamed.imu.chip.name != "LSM6DSO32")
    }
}
