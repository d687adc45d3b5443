import I2C
import MotionSimulator
import Testing
import Timing

@Suite struct SimulatedBoardTests {
    let clock = VirtualClock()

    func board(_ imu: SimulatedBoard.IMU = .lsm6dsox, imuAddress: I2CAddress? = nil,
               magnetometer: SimulatedBoard.MagnetometerChoice = .usual, magnetometerAddress: I2CAddress? = nil) -> SimulatedBoard {
        let clock = self.clock
        return SimulatedBoard(
            imu: imu, imuAddress: imuAddress, magnetometer: magnetometer, magnetometerAddress: magnetometerAddress,
            source: testState(), now: { clock.now })
    }

    @Test func defaultBoard() throws {
        let board = board()
        #expect(board.bus.respondingAddresses == [I2CAddress(0x1C), I2CAddress(0x6A)])
        #expect(try board.bus.readRegister(I2CAddress(0x6A), 0x0F) == 0x6C)
        #expect(try board.bus.readRegister(I2CAddress(0x1C), 0x0F) == 0x3D)
        #expect(board.imu.chipName == "LSM6DSOX")
        #expect(board.magnetometer?.chipName == "LIS3MDL")
        #expect(board.chips.map(\.address) == [I2CAddress(0x1C), I2CAddress(0x6A)])
    }

    @Test func mpu9250Alone() throws {
        let board = board(.mpu9250)
        #expect(board.bus.respondingAddresses == [I2CAddress(0x68)])
        #expect(board.magnetometer?.chipName == "AK8963")
        #expect(board.magnetometerAddress == I2CAddress(0x0C))
        #expect(board.chips.map(\.behindBypass) == [true, false])
        try board.bus.writeRegister(I2CAddress(0x68), 0x37, 0x02)
        #expect(board.bus.respondingAddresses == [I2CAddress(0x0C), I2CAddress(0x68)])
    }

    /// The MPU-9150: an MPU-6050 (WHO_AM_I 0x68) alone on the bus until BYPASS_EN brings its
    /// AK8975 (WIA 0x48) to 0x0C; clearing it again hides the AK8975.
    @Test func mpu9150AloneWithItsAK8975BehindTheBypass() throws {
        let board = board(.mpu9150)
        #expect(board.imu.chipName == "MPU-9150")
        #expect(board.bus.respondingAddresses == [I2CAddress(0x68)])
        #expect(try board.bus.readRegister(I2CAddress(0x68), 0x75) == 0x68)
        #expect(board.magnetometer?.chipName == "AK8975")
        #expect(board.magnetometerAddress == I2CAddress(0x0C))
        #expect(board.chips.map(\.behindBypass) == [true, false])
        try board.bus.writeRegister(I2CAddress(0x68), 0x37, 0x02)
        #expect(board.bus.respondingAddresses == [I2CAddress(0x0C), I2CAddress(0x68)])
        #expect(try board.bus.readRegister(I2CAddress(0x0C), 0x00) == 0x48)
        try board.bus.writeRegister(I2CAddress(0x68), 0x37, 0x00)
        #expect(board.bus.respondingAddresses == [I2CAddress(0x68)])
    }

    @Test func mpu6050WithQMC5883L() throws {
        let board = board(.mpu6050)
        #expect(board.bus.respondingAddresses == [I2CAddress(0x0D), I2CAddress(0x68)])
        #expect(try board.bus.readRegister(I2CAddress(0x68), 0x75) == 0x68)
        #expect(try board.bus.readRegister(I2CAddress(0x0D), 0x0D) == 0xFF)
    }

    @Test func choicesParse() {
        // `--imu` lists the emulator registry's IMUs in its order.
        #expect(SimulatedBoard.imuChoices == EmulatorRegistry.imus.map(\.chip.rawValue))
        #expect(SimulatedBoard.imuChoices == SimulatedBoard.IMU.allCases.map(\.rawValue))
        #expect(SimulatedBoard.IMU(rawValue: "mpu6050") == .mpu6050)
        #expect(SimulatedBoard.MagnetometerChoice(name: "hmc5883l") == .chip(.hmc5883l))
        #expect(SimulatedBoard.MagnetometerChoice(name: "none") == SimulatedBoard.MagnetometerChoice.none)
        #expect(SimulatedBoard.MagnetometerChoice(name: "bogus") == nil)
    }

    /// Identity register and value of every IMU at both of its addresses.
    @Test(arguments: [
        (SimulatedBoard.IMU.lsm6dsox, UInt8(0x6A), UInt8(0x0F), UInt8(0x6C)), (.lsm6dsox, 0x6B, 0x0F, 0x6C),
        (.lsm6dso32, 0x6A, 0x0F, 0x6C), (.lsm6dso32, 0x6B, 0x0F, 0x6C),
        (.lsm6dsl, 0x6A, 0x0F, 0x6A), (.lsm6dsl, 0x6B, 0x0F, 0x6A),
        (.lsm6ds3, 0x6A, 0x0F, 0x69), (.lsm6ds3, 0x6B, 0x0F, 0x69),
        (.lsm6dsr, 0x6A, 0x0F, 0x6B), (.lsm6dsr, 0x6B, 0x0F, 0x6B),
        (.lsm6dsv16x, 0x6A, 0x0F, 0x70), (.lsm6dsv16x, 0x6B, 0x0F, 0x70),
        (.mpu6050, 0x68, 0x75, 0x68), (.mpu6050, 0x69, 0x75, 0x68),
        (.mpu6500, 0x68, 0x75, 0x70), (.mpu6500, 0x69, 0x75, 0x70),
        (.mpu9150, 0x68, 0x75, 0x68), (.mpu9150, 0x69, 0x75, 0x68),
        (.mpu9250, 0x68, 0x75, 0x71), (.mpu9250, 0x69, 0x75, 0x71),
        (.bmi160, 0x68, 0x00, 0xD1), (.bmi160, 0x69, 0x00, 0xD1),
        (.bno055, 0x28, 0x00, 0xA0), (.bno055, 0x29, 0x00, 0xA0),
    ])
    func imuIdentityAtEachAddress(imu: SimulatedBoard.IMU, address: UInt8, register: UInt8, identity: UInt8) throws {
        let board = board(imu, imuAddress: I2CAddress(address), magnetometer: .none)
        #expect(board.bus.respondingAddresses == [I2CAddress(address)])
        #expect(try board.bus.readRegister(I2CAddress(address), register) == identity)
    }

    /// Identity registers of every magnetometer at its usual addresses.
    @Test(arguments: [
        (SimulatedBoard.Magnetometer.lis3mdl, UInt8(0x1C), UInt8(0x0F), [UInt8(0x3D)]), (.lis3mdl, 0x1E, 0x0F, [0x3D]),
        (.lis2mdl, 0x1E, 0x4F, [0x40]), (.qmc5883l, 0x0D, 0x0D, [0xFF]), (.hmc5883l, 0x1E, 0x0A, [0x48, 0x34, 0x33]),
    ])
    func magnetometerIdentity(chip: SimulatedBoard.Magnetometer, address: UInt8, register: UInt8, identity: [UInt8]) throws {
        let board = board(magnetometer: .chip(chip), magnetometerAddress: I2CAddress(address))
        #expect(try board.bus.readRegisters(I2CAddress(address), register, count: identity.count) == identity)
    }

    @Test func ak8963IdentityThroughBypass() throws {
        let board = board(.mpu9250)
        try board.bus.writeRegister(I2CAddress(0x68), 0x37, 0x02)
        #expect(try board.bus.readRegister(I2CAddress(0x0C), 0x00) == 0x48)
    }

    @Test func registerImageMatchesBusReads() throws {
        let board = board()
        let image = board.imu.registerImage()
        #expect(image.count == 128)
        #expect(image[0x0F] == 0x6C)
        #expect(image[0x12] == 0x04)
        #expect(try board.bus.readRegisters(I2CAddress(0x6A), 0x00, count: 0x20) == Array(image[0..<0x20]))
    }

    /// Temperature, gyroscope and accelerometer of an LSM6 in one burst: one bus transaction.
    @Test func oneSampleIsOneTransaction() throws {
        let board = board()
        try board.bus.writeRegisters(I2CAddress(0x6A), 0x10, [0x40, 0x40])
        let sample = try board.bus.readBurst(I2CAddress(0x6A), 0x20, count: 14)
        #expect(axesLE(sample, from: 8) == expectedLSB(SIMD3(0.25, -0.5, 1.0), 0.061 / 1000))
    }
}
