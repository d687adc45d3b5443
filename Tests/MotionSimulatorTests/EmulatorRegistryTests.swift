import I2C
import MotionSimulator
import Testing

/// The simulator's chip list: one line per chip in ``EmulatorRegistry``, read by the board, the
/// CLI names and the error-model presets.
@Suite struct EmulatorRegistryTests {
    /// Every case has exactly one line, in case order (the order `--imu` lists them in).
    @Test func oneLinePerChip() {
        #expect(EmulatorRegistry.imus.map(\.chip) == SimulatedBoard.IMU.allCases)
        #expect(EmulatorRegistry.magnetometers.map(\.chip) == SimulatedBoard.Magnetometer.allCases)
        let names = EmulatorRegistry.imus.flatMap { [$0.chip.rawValue] + $0.aliases }
        #expect(Set(names).count == names.count, "\(names)")
    }

    /// Names and aliases, case ignored; an IMU's magnetometer die by the IMU's name.
    @Test func namesAndAliases() {
        #expect(SimulatedBoard.IMU(name: "ISM330DHCX") == .lsm6dsr)
        #expect(SimulatedBoard.IMU(name: "lsm6dso") == .lsm6dsox && SimulatedBoard.IMU(name: "icm42688p") == .icm42688)
        #expect(SimulatedBoard.IMU(name: "MPU6050") == .mpu6050 && SimulatedBoard.IMU(name: "bogus") == nil)
        #expect(SimulatedBoard.imuAliases == ["lsm6dso = lsm6dsox", "ism330dhcx = lsm6dsr", "icm42688p = icm42688"])
        #expect(SimulatedBoard.Magnetometer(name: "lsm9ds1") == .lis3mdl && SimulatedBoard.Magnetometer(name: "ak8963") == nil)
        #expect(SimulatedBoard.magnetometerChoices == ["lis3mdl", "lis2mdl", "qmc5883l", "hmc5883l", "lsm9ds1", "none", "usual"])
    }

    /// What the per-chip switches said, now read from the lines.
    @Test func entriesKeepTheChipFacts() {
        #expect(SimulatedBoard.IMU.allCases.filter { $0.usualAddress == I2CAddress(0x6A) }
            == [.lsm6dsox, .lsm6dso32, .lsm6dsl, .lsm6ds3, .lsm6dsr, .lsm9ds1])
        #expect(SimulatedBoard.IMU.bno055.possibleAddresses == [I2CAddress(0x28), I2CAddress(0x29)])
        #expect(SimulatedBoard.IMU.allCases.filter { $0.usualMagnetometer == .qmc5883l } == [.mpu6050, .mpu6500, .bmi160, .icm42688])
        #expect(SimulatedBoard.IMU.allCases.filter { $0.usualMagnetometer == nil } == [.mpu9150, .mpu9250, .icm20948, .bno055])
        #expect(SimulatedBoard.IMU.lsm9ds1.usualMagnetometer == .lis3mdl)
        #expect(SimulatedBoard.Magnetometer.lis3mdl.possibleAddresses == [I2CAddress(0x1C), I2CAddress(0x1E)])
        #expect(SimulatedBoard.IMU.allCases.map(\.entry.noiseSampleRate)
            == [208, 208, 208, 208, 208, 119, 200, 200, 200, 200, 220, 200, 200, 100])
        #expect(IMUErrorModel.preset(named: "MPU-9150") == .mpu6050 && IMUErrorModel.preset(named: "ICM-42688-P") == .icm42688)
        #expect(MagnetometerErrorModel.preset(named: "hmc5883l") == nil)
    }
}
