import I2C
import MotionSimulator
import Testing
import Timing

/// ICM-45686 direct registers from the DS-000577 register map (written here independently).
private enum Reg {
    static let accelDataX: UInt8 = 0x00, tempData: UInt8 = 0x0C, pwrMgmt0: UInt8 = 0x10, int1Status0: UInt8 = 0x19
    static let accelConfig0: UInt8 = 0x1B, gyroConfig0: UInt8 = 0x1C, whoAmI: UInt8 = 0x72, misc2: UInt8 = 0x7F
}

@Suite struct ICM45686EmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<ICM45686Emulator>(at: I2CAddress(0x68))

    @Test func powerOnValues() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(address, Reg.whoAmI) == 0xE9)
        #expect(try bus.readRegister(address, Reg.pwrMgmt0) == 0x00)
        // Sensors off: every data register reads −32768 (little-endian: 0x00, 0x80).
        #expect(try bus.readRegisters(address, Reg.accelDataX, count: 12) == Array(repeating: [0x00, 0x80], count: 6).flatMap { $0 })
        #expect(try bus.readRegister(address, Reg.int1Status0) == 0x80)  // RESET_DONE, cleared by the read
        #expect(try bus.readRegister(address, Reg.int1Status0) == 0x00)
        let at69 = busWith(ICM45686Emulator.self, at: 0x69, clock: clock)
        #expect(try at69.readRegister(I2CAddress(0x69), Reg.whoAmI) == 0xE9)
    }

    /// Accelerometer, gyroscope, temperature in one little-endian burst at the ranges chosen;
    /// °C = raw / 128 + 25.
    @Test func outputRegistersFollowTheInput() throws {
        let bus = makeBus(testState(accelerationG: SIMD3(0.25, -0.5, 1), rateDPS: SIMD3(10, -20, 30), temperature: 30))
        try bus.writeRegister(address, Reg.gyroConfig0, 3 << 4 | 0x08)  // ±500 °/s, 200 Hz
        try bus.writeRegister(address, Reg.accelConfig0, 4 << 4 | 0x08)  // ±2 g, 200 Hz
        try bus.writeRegister(address, Reg.pwrMgmt0, 0x0F)  // both low noise
        let block = try bus.readRegisters(address, Reg.accelDataX, count: 14)
        #expect(axesLE(block, from: 0) == expectedLSB(SIMD3(0.25, -0.5, 1), 1.0 / 16384))
        #expect(axesLE(block, from: 6) == expectedLSB(SIMD3(10, -20, 30), 1.0 / 65.5))
        #expect(int16LE(block, 12) == 5 * 128)
        // ±32 g and ±4000 °/s: 1024 LSB/g and 8.2 LSB/(°/s).
        try bus.writeRegister(address, Reg.gyroConfig0, 0x08)
        try bus.writeRegister(address, Reg.accelConfig0, 0x08)
        let wide = try bus.readRegisters(address, Reg.accelDataX, count: 12)
        #expect(axesLE(wide, from: 0) == expectedLSB(SIMD3(0.25, -0.5, 1), 1.0 / 1024))
        #expect(axesLE(wide, from: 6) == expectedLSB(SIMD3(10, -20, 30), 1.0 / 8.2))
    }

    /// Only the sensor whose mode is on produces data; the other reads −32768.
    @Test func aSensorOffReadsInvalid() throws {
        let bus = makeBus(testState(accelerationG: SIMD3(0, 0, 1)))
        try bus.writeRegister(address, Reg.accelConfig0, 0x08)
        try bus.writeRegister(address, Reg.gyroConfig0, 0x08)
        try bus.writeRegister(address, Reg.pwrMgmt0, 0x03)  // accelerometer only
        let block = try bus.readRegisters(address, Reg.accelDataX, count: 12)
        #expect(axesLE(block, from: 0) == expectedLSB(SIMD3(0, 0, 1), 1.0 / 1024))
        #expect(axesLE(block, from: 6) == SIMD3(repeating: Int16.min))
    }

    @Test func softResetRestoresPowerOnValues() throws {
        let bus = makeBus()
        try bus.writeRegister(address, Reg.accelConfig0, 0x38)
        try bus.writeRegister(address, Reg.pwrMgmt0, 0x0F)
        _ = try bus.readRegister(address, Reg.int1Status0)
        try bus.writeRegister(address, Reg.misc2, 0x02)  // SOFT_RST
        #expect(try bus.readRegister(address, Reg.misc2) == 0x00)  // cleared itself
        #expect(try bus.readRegisters(address, Reg.pwrMgmt0, count: 1) == [0x00])
        #expect(try bus.readRegister(address, Reg.accelConfig0) == 0x00)
        #expect(try bus.readRegister(address, Reg.int1Status0) == 0x80)  // RESET_DONE
        #expect(try bus.readRegister(address, Reg.whoAmI) == 0xE9)
    }
}
