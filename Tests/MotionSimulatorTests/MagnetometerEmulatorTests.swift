import I2C
import MotionSimulator
import Testing
import Timing

private let field = SIMD3(20.7, -5.3, -44.4)

@Suite struct LIS2MDLEmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<LIS2MDLEmulator>(at: I2CAddress(0x1E))

    @Test func powerOnValuesAndReset() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(address, 0x4F) == 0x40)
        #expect(try bus.readRegisters(address, 0x60, count: 4) == [0x03, 0x00, 0x00, 0xE0])
        try bus.writeRegisters(address, 0x60, [0x8C, 0x02, 0x10])
        try bus.writeRegister(address, 0x60, 0x20)  // SOFT_RST
        #expect(try bus.readRegisters(address, 0x60, count: 3) == [0x03, 0x00, 0x00])
    }

    /// 1.5 mgauss/LSB, little-endian, temperature 8 LSB/°C; hard-iron offset subtracted.
    @Test func continuousEncodingWithOffset() throws {
        let bus = makeBus(testState(fieldMicrotesla: field))
        try bus.writeRegister(address, 0x60, 0x00)  // continuous, 10 Hz
        let bytes = try bus.readRegisters(address, 0x68, count: 8)
        #expect(axesLE(bytes) == expectedLSB(field / 100, 0.0015))
        #expect(int16LE(bytes, 6) == 40)
        try bus.writeRegisters(address, 0x45, [100, 0, 0, 0, 0, 0])
        #expect(axesLE(try bus.readRegisters(address, 0x68, count: 6)).x == expectedLSB(field / 100, 0.0015).x - 100)
    }

    @Test func idleKeepsOutputsSingleMeasures() throws {
        let bus = makeBus(testState(fieldMicrotesla: field))
        clock.advance(by: 1)
        #expect(try bus.readRegisters(address, 0x67, count: 7) == [0, 0, 0, 0, 0, 0, 0])
        try bus.writeRegister(address, 0x60, 0x01)
        #expect(try bus.readRegister(address, 0x67) & 0x08 == 0x08)
        #expect(try bus.readRegister(address, 0x60) & 0x03 == 0x03)
        #expect(axesLE(try bus.readRegisters(address, 0x68, count: 6)) == expectedLSB(field / 100, 0.0015))
    }

    @Test func saturates() throws {
        let bus = makeBus(testState(fieldMicrotesla: SIMD3(6000, -6000, 0)))
        try bus.writeRegister(address, 0x60, 0x00)
        let raw = axesLE(try bus.readRegisters(address, 0x68, count: 6))
        #expect(raw.x == .max && raw.y == .min)
    }

    /// Self-test limits 15–500 mgauss per axis.
    @Test func selfTest() throws {
        for dead in [false, true] {
            let bus = makeBus(options: EmulatorOptions(deadAxes: dead ? [.magnetometer(.y)] : []))
            try bus.writeRegister(address, 0x60, 0x00)
            let before = axesLE(try bus.readRegisters(address, 0x68, count: 6))
            try bus.writeRegister(address, 0x62, 0x02)
            let after = axesLE(try bus.readRegisters(address, 0x68, count: 6))
            let pass = (0..<3).map { (15...500).contains(abs(Double(after[$0]) - Double(before[$0])) * 1.5) }
            #expect(pass == [true, !dead, true])
        }
    }
}

@Suite struct QMC5883LEmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<QMC5883LEmulator>(at: I2CAddress(0x0D))

    @Test func identityAndSoftReset() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(address, 0x0D) == 0xFF)
        try bus.writeRegisters(address, 0x09, [0x1D, 0x40, 0x01])
        #expect(try bus.readRegisters(address, 0x09, count: 3) == [0x1D, 0x40, 0x01])
        try bus.writeRegister(address, 0x0A, 0x80)
        #expect(try bus.readRegisters(address, 0x09, count: 3) == [0, 0, 0])
    }

    /// RNG ±2 gauss: 12000 LSB/gauss; ±8 gauss: 3000 LSB/gauss.
    @Test(arguments: [(UInt8(0x00), 12000.0), (0x10, 3000)])
    func encodingAtEachRange(range: UInt8, lsbPerGauss: Double) throws {
        let bus = makeBus(testState(fieldMicrotesla: field))
        try bus.writeRegister(address, 0x09, range | 0x01)  // continuous, 10 Hz
        #expect(axesLE(try bus.readRegisters(address, 0x00, count: 6)) == expectedLSB(field / 100, 1 / lsbPerGauss))
    }

    @Test func dataReadyOverrunAndRollOver() throws {
        let bus = makeBus(testState(fieldMicrotesla: field))
        try bus.writeRegister(address, 0x0A, 0x40)  // ROL_PNT
        try bus.writeRegister(address, 0x09, 0x01)
        #expect(try bus.readRegister(address, 0x06) == 0)
        clock.advance(by: 0.1)
        #expect(try bus.readRegister(address, 0x06) == 0x01)
        clock.advance(by: 0.1)
        #expect(try bus.readRegister(address, 0x06) == 0x05)  // DOR
        let bytes = try bus.readRegisters(address, 0x00, count: 9)  // 0x00–0x06, then back to 0x00
        #expect(bytes[6] == 0x00)
        #expect(Array(bytes[7...8]) == Array(bytes[0...1]))
    }

    @Test func overflowFlag() throws {
        let bus = makeBus(testState(fieldMicrotesla: SIMD3(250, 0, 0)))
        try bus.writeRegister(address, 0x09, 0x01)
        #expect(try bus.readRegister(address, 0x06) & 0x02 == 0x02)
    }
}

@Suite struct HMC5883LEmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<HMC5883LEmulator>(at: I2CAddress(0x1E))

    /// X, Z, Y big-endian.
    func xyz(_ bytes: [UInt8]) -> SIMD3<Int16> {
        let xzy = axesBE(bytes)
        return SIMD3(xzy.x, xzy.z, xzy.y)
    }

    @Test func identityAndPowerOnValues() throws {
        let bus = makeBus()
        #expect(try bus.readRegisters(address, 0x0A, count: 3) == Array("H43".utf8))
        #expect(try bus.readRegisters(address, 0x00, count: 3) == [0x10, 0x20, 0x01])
    }

    /// GN → LSB/gauss (Table 9).
    @Test(arguments: Array(zip(UInt8(0)...7, [1370.0, 1090, 820, 660, 440, 390, 330, 230])))
    func singleMeasurementAtEachGain(gain: UInt8, lsbPerGauss: Double) throws {
        let bus = makeBus(testState(fieldMicrotesla: field))
        try bus.writeRegister(address, 0x01, gain << 5)
        try bus.writeRegister(address, 0x02, 0x01)
        #expect(try bus.readRegister(address, 0x09) & 0x01 == 0x01)
        #expect(xyz(try bus.readRegisters(address, 0x03, count: 6)) == expectedLSB(field / 100, 1 / lsbPerGauss))
    }

    @Test func overflowReadsMinus4096AndPointerRollsBack() throws {
        let bus = makeBus(testState(fieldMicrotesla: SIMD3(200, 10, 0)))
        try bus.writeRegister(address, 0x02, 0x00)  // continuous
        let bytes = try bus.readRegisters(address, 0x03, count: 8)
        #expect(xyz(bytes).x == -4096)
        #expect(xyz(bytes).y == Int16((0.1 * 1090).rounded()))
        #expect(Array(bytes[6...7]) == Array(bytes[0...1]))  // 0x08 → 0x03
    }

    @Test func partialReadLocksOutput() throws {
        let bus = makeBus()
        try bus.writeRegister(address, 0x02, 0x00)
        _ = try bus.readRegisters(address, 0x03, count: 2)
        #expect(try bus.readRegister(address, 0x09) == 0x03)  // LOCK, RDY
        _ = try bus.readRegisters(address, 0x05, count: 4)
        #expect(try bus.readRegister(address, 0x09) == 0x01)
    }

    /// Self-test with positive bias at gain 5: 243–575 LSB per axis.
    @Test func selfTest() throws {
        for dead in [false, true] {
            let bus = makeBus(testState(fieldMicrotesla: .zero), options: EmulatorOptions(deadAxes: dead ? [.magnetometer(.z)] : []))
            try bus.writeRegisters(address, 0x00, [0x71, 0xA0, 0x01])
            let raw = xyz(try bus.readRegisters(address, 0x03, count: 6))
            #expect((243...575).contains(raw.x))
            #expect((243...575).contains(raw.y))
            #expect((243...575).contains(raw.z) == !dead)
        }
    }
}
