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
        #expect(SimulatedBoard.imuAliases.starts(with: ["lsm6dso = lsm6dsox", "ism330dhcx = lsm6dsr", "icm42688p = icm42688"]))
        #expect(SimulatedBoard.Magnetometer(name: "lsm9ds1") == .lis3mdl && SimulatedBoard.Magnetometer(name: "ak8963") == nil)
        // The separate magnetometers, then the IMUs whose magnetometer die answers apart.
        let dies = EmulatorRegistry.imus.filter { $0.magnetometerDie != nil }.map(\.chip.rawValue)
        #expect(SimulatedBoard.magnetometerChoices.starts(with: SimulatedBoard.Magnetometer.allCases.map(\.rawValue) + dies))
        #expect(dies.contains("lsm9ds1"))
        #expect(SimulatedBoard.magnetometerChoices.suffix(2) == ["none", "usual"])
    }

    /// What the per-chip switches said, now read from the lines.
    @Test func entriesKeepTheChipFacts() {
        let usual: [SimulatedBoard.IMU: (address: UInt8, magnetometer: SimulatedBoard.Magnetometer?, noiseRate: Double)] = [
            .lsm6dsox: (0x6A, .lis3mdl, 208), .lsm6dso32: (0x6A, .lis3mdl, 208), .lsm6dsl: (0x6A, .lis3mdl, 208),
            .lsm6ds3: (0x6A, .lis3mdl, 208), .lsm6dsr: (0x6A, .lis3mdl, 208), .lsm9ds1: (0x6A, .lis3mdl, 119),
            .mpu6050: (0x68, .qmc5883l, 200), .mpu6500: (0x68, .qmc5883l, 200), .mpu9150: (0x68, nil, 200),
            .mpu9250: (0x68, nil, 200), .icm20948: (0x68, nil, 220), .bmi160: (0x68, .qmc5883l, 200),
            .icm42688: (0x68, .qmc5883l, 200), .bno055: (0x28, nil, 100), .bno08x: (0x4A, nil, 100),
            .lsm6dsv16x: (0x6A, .lis3mdl, 240),
        ]
        for (imu, facts) in usual {
            #expect(imu.usualAddress == I2CAddress(facts.address) && imu.usualMagnetometer == facts.magnetometer, "\(imu)")
            #expect(imu.possibleAddresses == [I2CAddress(facts.address), I2CAddress(facts.address + 1)], "\(imu)")
            #expect(imu.entry.noiseSampleRate == facts.noiseRate, "\(imu)")
        }
        #expect(SimulatedBoard.Magnetometer.lis3mdl.possibleAddresses == [I2CAddress(0x1C), I2CAddress(0x1E)])
        #expect(SimulatedBoard.Magnetometer.qmc5883l.possibleAddresses == [I2CAddress(0x0D)])
        #expect(IMUErrorModel.preset(named: "MPU-9150") == .mpu6050 && IMUErrorModel.preset(named: "ICM-42688-P") == .icm42688)
        #expect(MagnetometerErrorModel.preset(named: "hmc5883l") == nil)
    }
}
