import I2C
@testable import MotionTools
import MotionSimulator
import Testing

/// `probe`'s scan and identification name the BMI270 at both its addresses and the BMM150 at all
/// four of its, on the simulated bus (the BMM150 only through its identity preamble: suspended,
/// its CHIP_ID reads 0).
@Suite struct BoschProbeTests {
    @Test(arguments: [(UInt8(0x68), UInt8(0x10)), (0x69, 0x11), (0x68, 0x12), (0x69, 0x13)])
    func probeNamesBothChipsAtEachAddress(imu: UInt8, magnetometer: UInt8) {
        let board = SimulatedBoard(imu: .bmi270, imuAddress: I2CAddress(imu), magnetometer: .chip(.bmm150),
                                   magnetometerAddress: I2CAddress(magnetometer), source: ConstantSource(), now: { 0 })
        let results = probeBus(board.bus)
        #expect(results == [ProbeResult(address: I2CAddress(magnetometer), chipName: "BMM150"), ProbeResult(address: I2CAddress(imu), chipName: "BMI270")])
    }
}
