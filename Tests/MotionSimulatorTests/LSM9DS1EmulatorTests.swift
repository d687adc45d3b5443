import I2C
import MotionSimulator
import Testing
import Timing

/// LSM9DS1 accelerometer/gyroscope registers, written again from the datasheet (DocID025715 §6–7).
private enum Reg {
    static let whoAmI: UInt8 = 0x0F, ctrlReg1G: UInt8 = 0x10, outTemp: UInt8 = 0x15, status: UInt8 = 0x17
    static let outG: UInt8 = 0x18, ctrlReg4: UInt8 = 0x1E, ctrlReg6XL: UInt8 = 0x20, ctrlReg8: UInt8 = 0x22
    static let ctrlReg9: UInt8 = 0x23, ctrlReg10: UInt8 = 0x24, outXL: UInt8 = 0x28, fifoCtrl: UInt8 = 0x2E
    static let fifoSrc: UInt8 = 0x2F
}

private let imu = I2CAddress(0x6A)

@Suite struct LSM9DS1EmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<LSM9DS1Emulator>(at: imu)

    @Test func powerOnIdentitySoftwareResetAndAutoIncrement() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(imu, Reg.whoAmI) == 0x68)
        #expect(try bus.readRegisters(imu, Reg.ctrlReg4, count: 2) == [0x38, 0x38])
        #expect(try bus.readRegister(imu, Reg.ctrlReg8) == 0x04)  // IF_ADD_INC
        try bus.writeRegisters(imu, Reg.ctrlReg1G, [0x68, 0x03])
        try bus.writeRegister(imu, Reg.ctrlReg8, 0x05)  // SW_RESET
        #expect(try bus.readRegisters(imu, Reg.ctrlReg1G, count: 2) == [0, 0])
        try bus.writeRegister(imu, Reg.ctrlReg8, 0x00)  // IF_ADD_INC off: the same register again
        #expect(try bus.readRegisters(imu, Reg.whoAmI, count: 3) == [0x68, 0x68, 0x68])
    }

    /// ±2000 °/s (FS_G 11) 70 mdps/LSB, ±16 g (FS_XL 01) 0.732 mg/LSB, 16 LSB/°C around 25 °C.
    @Test func encodesAtTheConfiguredScales() throws {
        let bus = makeBus()
        try bus.writeRegister(imu, Reg.ctrlReg6XL, 0x68)  // FS_XL 01
        try bus.writeRegister(imu, Reg.ctrlReg1G, 0x78)   // 119 Hz, FS_G 11
        clock.advance(by: 1)
        #expect(try bus.readRegister(imu, Reg.status) & 0b111 == 0b111)  // TDA GDA XLDA
        let bytes = try bus.readRegisters(imu, Reg.outTemp, count: 25)
        #expect(int16LE(bytes, 0) == 80)                              // 30 °C
        #expect(int16LE(bytes, 3) == Int16((10 / 0.070).rounded()))   // 10 °/s
        #expect(int16LE(bytes, 19) == Int16((250 / 0.732).rounded())) // 0.25 g
        #expect(int16LE(bytes, 23) == Int16((1000 / 0.732).rounded()))
        #expect(try bus.readRegister(imu, Reg.status) & 0b111 == 0)  // cleared by reading the outputs
    }

    /// Accelerometer alone (ODR_G 000, ODR_XL 010 = 50 Hz): the gyroscope output stays 0.
    @Test func accelerometerOnlyMode() throws {
        let bus = makeBus()
        try bus.writeRegister(imu, Reg.ctrlReg6XL, 0x40)
        clock.advance(by: 1)
        let bytes = try bus.readRegisters(imu, Reg.outG, count: 22)
        #expect(int16LE(bytes, 0) == 0 && int16LE(bytes, 4) == 0)
        #expect(int16LE(bytes, 20) == Int16((1000 / 0.061).rounded()))
    }

    /// Continuous mode: a level per ODR tick, shown in the output registers, leaving after
    /// OUT_Z_H_XL; FSS counts them; after 32 levels the oldest is overwritten and OVRN rises;
    /// bypass empties the FIFO. (FTH, bit 7, is masked out: with FTH[4:0] = 0 it is set whenever
    /// the FIFO holds anything.)
    @Test func fifoLevelsOverrunAndBypass() throws {
        let bus = makeBus()
        try bus.writeRegister(imu, Reg.ctrlReg1G, 0x60)  // 119 Hz
        try bus.writeRegister(imu, Reg.ctrlReg9, 0x02)   // FIFO_EN
        try bus.writeRegister(imu, Reg.fifoCtrl, 0xC0)   // continuous
        clock.advance(by: 5.5 / 119)
        #expect(try bus.readRegister(imu, Reg.fifoSrc) & 0x7F == 5)
        _ = try bus.readRegisters(imu, Reg.outG, count: 6)
        #expect(try bus.readRegister(imu, Reg.fifoSrc) & 0x7F == 5, "the gyroscope set alone does not advance the FIFO")
        _ = try bus.readRegisters(imu, Reg.outXL, count: 6)
        #expect(try bus.readRegister(imu, Reg.fifoSrc) & 0x7F == 4)
        clock.advance(by: 40 / 119.0)
        #expect(try bus.readRegister(imu, Reg.fifoSrc) & 0x7F == 0x40 | 32)  // OVRN, FSS 32
        _ = try bus.readRegisters(imu, Reg.outXL, count: 6)
        #expect(try bus.readRegister(imu, Reg.fifoSrc) & 0x7F == 31)
        try bus.writeRegister(imu, Reg.fifoCtrl, 0x00)  // bypass
        #expect(try bus.readRegister(imu, Reg.fifoSrc) & 0x7F == 0)
    }

    @Test func selfTestDeflectsAndADeadAxisReadsZero() throws {
        let bus = makeBus(testState(accelerationG: .zero, rateDPS: .zero), options: EmulatorOptions(deadAxes: [.gyroscope(.y)]))
        try bus.writeRegister(imu, Reg.ctrlReg1G, 0x98)   // 238 Hz, ±2000 °/s
        try bus.writeRegister(imu, Reg.ctrlReg10, 0x05)   // ST_G, ST_XL
        clock.advance(by: 1)
        let gyroscope = try bus.readRegisters(imu, Reg.outG, count: 6)
        #expect(int16LE(gyroscope, 0) > Int16(200 / 0.070) && int16LE(gyroscope, 0) < Int16(800 / 0.070))
        #expect(int16LE(gyroscope, 2) == 0)
        let accelerometer = try bus.readRegisters(imu, Reg.outXL, count: 6)
        #expect(int16LE(accelerometer, 0) > Int16(70 / 0.061))
    }
}
