@testable import Motion
import MotionSimulation
import MotionSimulator
import Sensors
import Testing
import Timing

/// The BMI160 through the whole stack on the simulated board: found at 0x68 by its CHIP_ID and
/// configured at its defaults, with the board's QMC5883L (its FIFO: `FIFOSamplingTests`).
@Suite struct BMI160StackTests {
    @Test func theManagerFindsAndConfiguresTheBMI160() throws {
        let manager = try MotionManager(
            source: .simulated(Simulation(scenario: "rest", imu: .bmi160, sensorErrors: false)), clock: VirtualClock(), calibrationStore: nil)
        let chips = try #require(manager.chipSettings)
        #expect(chips.imu.name == "BMI160" && chips.imu.address.rawValue == 0x68 && chips.imu.family == .bmi160)
        #expect(chips.imuConfiguration == IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500))
        #expect(chips.magnetometer?.name == "QMC5883L")
        #expect(abs(manager.shortestUpdateInterval - 1.0 / 200) < 1e-12)
    }
}
