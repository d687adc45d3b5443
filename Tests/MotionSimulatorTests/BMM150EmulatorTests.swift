import I2C
@testable import MotionSimulator
import Testing
import Timing

/// BMM150 registers from the datasheet BST-BMM150-DS001 §5, written here for the test.
private enum Reg {
    static let chipID: UInt8 = 0x40, dataX: UInt8 = 0x42, rhall: UInt8 = 0x48, power: UInt8 = 0x4B, opMode: UInt8 = 0x4C
    static let repXY: UInt8 = 0x51, repZ: UInt8 = 0x52, trim: UInt8 = 0x5D
}

@Suite struct BMM150EmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<BMM150Emulator>(at: I2CAddress(0x10))

    @Test func suspendedUntilThePowerBit() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(address, Reg.chipID) == 0x00)
        #expect(try bus.readRegisters(address, Reg.trim, count: 21) == Array(repeating: 0, count: 21))
        try bus.writeRegister(address, Reg.opMode, 0x00)  // ignored in suspend
        try bus.writeRegister(address, Reg.power, 0x01)
        #expect(try bus.readRegister(address, Reg.chipID) == 0x32)
        #expect(try bus.readRegister(address, Reg.opMode) == 0x06)  // sleep
        #expect(try bus.readRegisters(address, Reg.trim, count: 21) != Array(repeating: 0, count: 21))
        try bus.writeRegister(address, Reg.repZ, 14)
        try bus.writeRegister(address, Reg.power, 0x83)  // soft reset keeps the power bit
        #expect(try bus.readRegister(address, Reg.chipID) == 0x32 && bus.readRegister(address, Reg.repZ) == 0)
        try bus.writeRegister(address, Reg.power, 0x00)
        #expect(try bus.readRegister(address, Reg.chipID) == 0x00)
    }

    /// Normal mode at 10 Hz: a measurement at once, then every 0.1 s, with the data-ready bit (RHALL LSB bit 0),
    /// cleared once the block is read; x, y 13 bits in 15:3, z 15 bits in 15:1, RHALL 14 bits in
    /// 15:2 at XYZ1 (7053) at 25 °C.
    @Test func normalModeMeasuresAtItsRate() throws {
        var state = PhysicalState.flatAtRest()
        state.temperature = 25
        let bus = makeBus(ConstantSource(state))
        try bus.writeRegister(address, Reg.power, 0x01)
        try bus.writeRegister(address, Reg.opMode, 0x00)  // normal, code 0 = 10 Hz: the first measurement at once
        #expect(try bus.readRegisters(address, Reg.dataX, count: 8)[6] & 0x01 == 1)
        clock.advance(by: 0.05)
        #expect(try bus.readRegister(address, Reg.rhall) & 0x01 == 0)  // cleared by the block read, none new yet
        clock.advance(by: 0.06)
        let bytes = try bus.readRegisters(address, Reg.dataX, count: 8)
        #expect(bytes[6] & 0x01 == 1)
        let resistance: UInt16 = UInt16(bytes[6]) >> 2 | UInt16(bytes[7]) << 6
        #expect(resistance == 7053)
        #expect(bytes[0] & 0x07 == 0 && bytes[4] & 0x01 == 0)
        #expect(try bus.readRegister(address, Reg.rhall) & 0x01 == 0)
    }

    /// The raw counts, put through Bosch's floating-point compensation as the test writes it with
    /// the trim read back from the registers, give the true field back within a count's worth.
    @Test(arguments: [15.0, 25, 40])
    func rawCountsCompensateToTheField(temperature: Double) throws {
        var state = PhysicalState.flatAtRest()
        state.magneticField = SIMD3(120, -310, 455)
        state.temperature = temperature
        let bus = makeBus(ConstantSource(state))
        try bus.writeRegister(address, Reg.power, 0x01)
        try bus.writeRegister(address, Reg.opMode, 0x02)  // forced
        #expect(try bus.readRegister(address, Reg.opMode) & 0x06 == 0x06)  // back to sleep
        let t = try bus.readRegisters(address, Reg.trim, count: 21)
        func s8(_ i: Int) -> Double { Double(Int8(bitPattern: t[i])) }
        func u16(_ i: Int) -> Double { Double(UInt16(t[i]) | UInt16(t[i + 1]) << 8) }
        func s16(_ i: Int) -> Double { Double(Int16(bitPattern: UInt16(t[i]) | UInt16(t[i + 1]) << 8)) }
        let (x1, y1, z4, x2, y2, z2, z1, xyz1, z3, xy2, xy1) = (s8(0), s8(1), s16(5), s8(7), s8(8), s16(11), u16(13), u16(15), s16(17), s8(19), Double(t[20]))
        let d = try bus.readRegisters(address, Reg.dataX, count: 8)
        let x = Double(Int16(bitPattern: UInt16(d[0]) | UInt16(d[1]) << 8) >> 3), y = Double(Int16(bitPattern: UInt16(d[2]) | UInt16(d[3]) << 8) >> 3)
        let z = Double(Int16(bitPattern: UInt16(d[4]) | UInt16(d[5]) << 8) >> 1), r = Double(UInt16(d[6]) >> 2 | UInt16(d[7]) << 6)
        let v = xyz1 * 16384 / r - 16384
        let c = xy2 * (v * v / 268_435_456) + v * xy1 / 16384
        let bx = (x * ((c + 256) * (x2 + 160)) / 8192 + x1 * 8) / 16
        let by = (y * ((c + 256) * (y2 + 160)) / 8192 + y1 * 8) / 16
        let bz = ((z - z4) * 131_072 - z3 * (r - xyz1)) / ((z2 + z1 * r / 32768) * 4) / 16
        #expect(abs(bx - 120) < 0.4 && abs(by + 310) < 0.4 && abs(bz - 455) < 0.4, "\(bx) \(by) \(bz)")
        #expect(temperature == 25 ? r == xyz1 : r != xyz1)
    }

    @Test func aFieldBeyondTheRangeReadsTheOverflowMarker() throws {
        var state = PhysicalState.flatAtRest()
        state.magneticField = SIMD3(5000, 0, 0)
        let bus = makeBus(ConstantSource(state))
        try bus.writeRegister(address, Reg.power, 0x01)
        try bus.writeRegister(address, Reg.opMode, 0x02)
        let d = try bus.readRegisters(address, Reg.dataX, count: 2)
        #expect(Int16(bitPattern: UInt16(d[0]) | UInt16(d[1]) << 8) >> 3 == -4096)
    }
}
