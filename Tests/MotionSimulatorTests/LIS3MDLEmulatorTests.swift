import I2C
import MotionSimulator
import Testing
import Timing

/// LIS3MDL registers from DocID024204 §6; 0x80 on the sub-address asks for auto-increment.
private enum Reg {
    static let whoAmI: UInt8 = 0x0F, ctrl1: UInt8 = 0x20, ctrl2: UInt8 = 0x21
    static let ctrl3: UInt8 = 0x22, ctrl4: UInt8 = 0x23, status: UInt8 = 0x27
    static let outX: UInt8 = 0x28, temp: UInt8 = 0x2E, intCfg: UInt8 = 0x30
    static let increment: UInt8 = 0x80
}

@Suite struct LIS3MDLEmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<LIS3MDLEmulator>(at: I2CAddress(0x1C))

    @Test func powerOnIdentityAndValues() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(address, Reg.whoAmI) == 0x3D)
        #expect(try bus.readRegisters(address, Reg.ctrl1 | Reg.increment, count: 5) == [0x10, 0x00, 0x03, 0x00, 0x00])
        #expect(try bus.readRegister(address, Reg.intCfg) == 0xE8)
    }

    @Test func autoIncrementOnlyWithSubAddressMSB() throws {
        let bus = makeBus()
        #expect(try bus.readRegisters(address, Reg.ctrl1, count: 3) == [0x10, 0x10, 0x10])
        #expect(try bus.readRegisters(address, Reg.ctrl1 | Reg.increment, count: 3) == [0x10, 0x00, 0x03])
    }

    @Test func softResetRestoresPowerOnValues() throws {
        let bus = makeBus()
        try bus.writeRegisters(address, Reg.ctrl1 | Reg.increment, [0x7C, 0x60, 0x00])
        try bus.writeRegister(address, Reg.ctrl2, 0x04)
        #expect(try bus.readRegisters(address, Reg.ctrl1 | Reg.increment, count: 3) == [0x10, 0x00, 0x03])
    }

    /// FS code → LSB/gauss (Table 2); 1 gauss = 100 µT.
    @Test(arguments: [(UInt8(0), 6842.0), (1, 3421), (2, 2281), (3, 1711)])
    func encodingAtEachRange(code: UInt8, lsbPerGauss: Double) throws {
        let field = SIMD3(20.7, -5.3, -44.4)
        let bus = makeBus(testState(fieldMicrotesla: field))
        try bus.writeRegister(address, Reg.ctrl2, code << 5)
        try bus.writeRegister(address, Reg.ctrl3, 0x00)  // continuous
        let raw = axesLE(try bus.readRegisters(address, Reg.outX | Reg.increment, count: 6))
        #expect(raw == expectedLSB(field / 100, 1 / lsbPerGauss))
    }

    @Test func saturationAndTemperature() throws {
        let bus = makeBus(testState(fieldMicrotesla: SIMD3(500, -500, 10), temperature: 35))
        try bus.writeRegister(address, Reg.ctrl1, 0x90)  // TEMP_EN, 10 Hz
        try bus.writeRegister(address, Reg.ctrl3, 0x00)
        let bytes = try bus.readRegisters(address, Reg.outX | Reg.increment, count: 8)
        #expect(int16LE(bytes, 0) == .max)
        #expect(int16LE(bytes, 2) == .min)
        #expect(int16LE(bytes, 6) == 80)  // 8 LSB/°C above 25 °C
    }

    @Test func bigEndianOption() throws {
        let field = SIMD3(20.7, -5.3, -44.4)
        let bus = makeBus(testState(fieldMicrotesla: field))
        try bus.writeRegister(address, Reg.ctrl4, 0x02)
        try bus.writeRegister(address, Reg.ctrl3, 0x00)
        #expect(axesBE(try bus.readRegisters(address, Reg.outX | Reg.increment, count: 6)) == expectedLSB(field / 100, 1 / 6842))
    }

    @Test func powerDownThenSingleConversion() throws {
        let bus = makeBus()
        clock.advance(by: 1)
        #expect(try bus.readRegisters(address, Reg.outX | Reg.increment, count: 6) == [0, 0, 0, 0, 0, 0])
        #expect(try bus.readRegister(address, Reg.status) == 0)
        try bus.writeRegister(address, Reg.ctrl3, 0x01)
        #expect(try bus.readRegister(address, Reg.status) & 0x08 == 0x08)
        #expect(try bus.readRegister(address, Reg.ctrl3) & 0x03 == 0x03)  // back to power-down
        #expect(axesLE(try bus.readRegisters(address, Reg.outX | Reg.increment, count: 6)) == expectedLSB(SIMD3(20.7, -5.3, -44.4) / 100, 1 / 6842))
        #expect(try bus.readRegister(address, Reg.status) == 0)
    }

    @Test func dataReadyAndOverrunAtOutputDataRate() throws {
        let bus = makeBus()
        try bus.writeRegister(address, Reg.ctrl3, 0x00)  // 10 Hz
        #expect(try bus.readRegister(address, Reg.status) == 0)
        clock.advance(by: 0.1)
        #expect(try bus.readRegister(address, Reg.status) == 0x0F)
        clock.advance(by: 0.1)
        #expect(try bus.readRegister(address, Reg.status) == 0xFF)
        _ = try bus.readRegisters(address, Reg.outX | Reg.increment, count: 6)
        #expect(try bus.readRegister(address, Reg.status) == 0)
    }

    /// Self-test limits at ±12 gauss (Table 2): X, Y 1–3 gauss; Z 0.1–1 gauss.
    @Test func selfTestWithinLimitsAndDeadAxisFails() throws {
        for dead in [false, true] {
            let bus = makeBus(options: EmulatorOptions(deadAxes: dead ? [.magnetometer(.x)] : []))
            try bus.writeRegister(address, Reg.ctrl2, 0x40)  // ±12 gauss
            try bus.writeRegister(address, Reg.ctrl3, 0x00)
            let before = axesLE(try bus.readRegisters(address, Reg.outX | Reg.increment, count: 6))
            try bus.writeRegister(address, Reg.ctrl1, 0x11)
            let after = axesLE(try bus.readRegisters(address, Reg.outX | Reg.increment, count: 6))
            let change = (0..<3).map { abs(Double(after[$0]) - Double(before[$0])) / 2281 }
            #expect((1...3).contains(change[0]) == !dead)
            #expect((1...3).contains(change[1]))
            #expect((0.1...1).contains(change[2]))
        }
    }
}
