import I2C
import MotionSimulator
import Testing

/// The ICM-20948 emulator and its AK09916, register by register (addresses from DS-000189 §7–13,
/// written here again).
@Suite struct ICM20948EmulatorTests {
    let imu = I2CAddress(0x68), magnetometer = I2CAddress(0x0C)

    func board() -> SimulatedBoard {
        SimulatedBoard(imu: .icm20948, source: ConstantSource(), now: { 0 })
    }

    @Test func powerOnStateAndBanks() throws {
        let board = board()
        #expect(board.imu.chipName == "ICM-20948" && board.magnetometer?.chipName == "AK09916")
        #expect(board.chips.map(\.address) == [magnetometer, imu] && board.chips.map(\.behindBypass) == [true, false])
        #expect(try board.bus.readRegister(imu, 0x00) == 0xEA)  // WHO_AM_I, bank 0
        #expect(try board.bus.readRegister(imu, 0x06) == 0x41)  // PWR_MGMT_1: asleep, auto clock
        try board.bus.writeRegister(imu, 0x7F, 0x20)  // bank 2
        #expect(try board.bus.readRegister(imu, 0x7F) == 0x20)
        #expect(try board.bus.readRegister(imu, 0x00) == 0x00)  // GYRO_SMPLRT_DIV, not WHO_AM_I
        #expect(try board.bus.readRegister(imu, 0x14) == 0x01)  // ACCEL_CONFIG: FCHOICE
        try board.bus.writeRegister(imu, 0x7F, 0x00)
        try board.bus.writeRegister(imu, 0x06, 0x80)  // DEVICE_RESET: back to bank 0, defaults
        #expect(try board.bus.readRegister(imu, 0x00) == 0xEA)
    }

    /// The AK09916 answers only with BYPASS_EN set and the I2C master off.
    @Test func magnetometerBehindTheBypass() throws {
        let board = board()
        #expect(board.bus.respondingAddresses == [imu])
        try board.bus.writeRegister(imu, 0x0F, 0x02)  // INT_PIN_CFG BYPASS_EN
        #expect(board.bus.respondingAddresses == [magnetometer, imu])
        #expect(try board.bus.readRegisters(magnetometer, 0x00, count: 2) == [0x48, 0x09])
        try board.bus.writeRegister(imu, 0x03, 0x20)  // USER_CTRL I2C_MST_EN
        #expect(board.bus.respondingAddresses == [imu])
    }

    /// The AK09916's address counter: 0x03 → 0x10, 0x18 → 0x00; single measurement and ST2.
    @Test func magnetometerSingleMeasurementAndAddressCounter() throws {
        var state = PhysicalState.flatAtRest()
        state.magneticField = SIMD3(15, 30, -45)
        let board = SimulatedBoard(imu: .icm20948, source: ConstantSource(state), now: { 0 })
        try board.bus.writeRegister(imu, 0x0F, 0x02)
        try board.bus.writeRegister(magnetometer, 0x31, 0x01)  // CNTL2: single measurement
        let bytes = try board.bus.readRegisters(magnetometer, 0x00, count: 14)
        #expect(Array(bytes[0..<5]) == [0x48, 0x09, 0x00, 0x00, 0x01])  // WIA1, WIA2, RSV1, RSV2, ST1 DRDY
        // In the AK09916's axes: y and z opposite the package's; 0.15 µT/LSB.
        let counts = (0..<3).map { Int16(bitPattern: UInt16(bytes[5 + 2 * $0]) | UInt16(bytes[6 + 2 * $0]) << 8) }
        #expect(counts == [100, -200, 300])
        #expect(bytes[12] == 0x00 && bytes[13] == 0x48)  // ST2 (no overflow), then back to WIA1
        #expect(try board.bus.readRegister(magnetometer, 0x10) == 0x00)  // DRDY cleared by the read
        #expect(try board.bus.readRegister(magnetometer, 0x31) == 0x00)  // back to power-down
    }
}
