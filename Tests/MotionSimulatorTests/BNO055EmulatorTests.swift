import Fusion
import I2C
import MotionSimulator
import Testing
import Timing

/// BNO055 registers from the datasheet BST-BNO055-DS000 §4.2–4.3, written here for the test.
private enum Reg {
    static let chipID: UInt8 = 0x00, pageID: UInt8 = 0x07, accData: UInt8 = 0x08, quaternion: UInt8 = 0x20
    static let stResult: UInt8 = 0x36, sysStatus: UInt8 = 0x39, unitSel: UInt8 = 0x3B
    static let oprMode: UInt8 = 0x3D, sysTrigger: UInt8 = 0x3F, axisMapConfig: UInt8 = 0x41, axisMapSign: UInt8 = 0x42
    // Page 1
    static let accConfig: UInt8 = 0x08, gyrConfig0: UInt8 = 0x0A
}

private let bno = I2CAddress(0x28)

@Suite struct BNO055EmulatorTests {
    let clock = VirtualClock()

    func bus(_ source: any PhysicalSource = testState(), options: EmulatorOptions = .init()) -> SimulatedBus {
        busWith(BNO055Emulator(source: source, now: { [clock] in clock.now }, options: options), at: 0x28, clock: clock)
    }

    @Test func identityAndPowerOnState() throws {
        let bus = bus()
        #expect(try bus.readRegisters(bno, Reg.chipID, count: 4) == [0xA0, 0xFB, 0x32, 0x0F])
        #expect(try bus.readRegister(bno, Reg.oprMode) == 0x00)   // CONFIG
        #expect(try bus.readRegister(bno, Reg.stResult) == 0x0F)  // power-on self-test passed
        #expect(try bus.readRegisters(bno, Reg.accData, count: 32) == Array(repeating: 0, count: 32), "no data in CONFIG mode")
        try bus.writeRegister(bno, Reg.chipID, 0x12)  // read-only
        #expect(try bus.readRegister(bno, Reg.chipID) == 0xA0)
    }

    /// AMG mode, UNIT_SEL 0: 100 LSB per m/s², 16 per µT, 16 per °/s; no quaternion outside fusion.
    @Test func amgEncodesEverySensor() throws {
        let bus = bus()
        try bus.writeRegister(bno, Reg.oprMode, 0x07)
        #expect(try bus.readRegister(bno, Reg.sysStatus) == 6)   // running without fusion
        let bytes = try bus.readRegisters(bno, Reg.accData, count: 32)
        let g = PhysicalState.standardGravity
        #expect(axesLE(bytes, from: 0) == expectedLSB(SIMD3(0.25, -0.5, 1) * g, 0.01))
        #expect(axesLE(bytes, from: 6) == expectedLSB(SIMD3(20.7, -5.3, -44.4), 1.0 / 16))
        #expect(axesLE(bytes, from: 12) == expectedLSB(SIMD3(10, -20, 30), 1.0 / 16))
        #expect(Array(bytes[24..<32]) == Array(repeating: 0, count: 8))
    }

    /// UNIT_SEL: mg (1 LSB = 1 mg) and rad/s (900 LSB = 1 rad/s), taken in CONFIG mode only.
    @Test func unitSelection() throws {
        let bus = bus()
        try bus.writeRegister(bno, Reg.unitSel, 0x03)
        try bus.writeRegister(bno, Reg.oprMode, 0x07)
        try bus.writeRegister(bno, Reg.unitSel, 0x00)  // ignored outside CONFIG
        #expect(try bus.readRegister(bno, Reg.unitSel) == 0x03)
        let bytes = try bus.readRegisters(bno, Reg.accData, count: 32)
        #expect(axesLE(bytes, from: 0) == SIMD3(250, -500, 1000))
        #expect(axesLE(bytes, from: 12) == expectedLSB(SIMD3(10, -20, 30) * .pi / 180, 1.0 / 900))
    }

    /// Fusion modes fix ±4 g whatever page 1 says; AMG follows ACC_Config's range.
    @Test func fusionFixesTheRange() throws {
        let source = testState(accelerationG: SIMD3(3, 0, 0))
        let bus = bus(source)
        try bus.writeRegister(bno, Reg.pageID, 1)
        try bus.writeRegister(bno, Reg.accConfig, 0x0C)  // ±2 g
        #expect(try bus.readRegister(bno, Reg.accConfig) == 0x0C)
        try bus.writeRegister(bno, Reg.pageID, 0)
        try bus.writeRegister(bno, Reg.oprMode, 0x07)
        #expect(axesLE(try bus.readRegisters(bno, Reg.accData, count: 6)).x == Int16((2 * PhysicalState.standardGravity * 100).rounded()))
        try bus.writeRegister(bno, Reg.oprMode, 0x00)
        try bus.writeRegister(bno, Reg.oprMode, 0x0C)
        #expect(try bus.readRegister(bno, Reg.sysStatus) == 5)  // fusion running
        #expect(axesLE(try bus.readRegisters(bno, Reg.accData, count: 6)).x == Int16((3 * PhysicalState.standardGravity * 100).rounded()))
    }

    /// NDOF: the quaternion is the source's true orientation, 2^14 LSB per unit, w first.
    @Test func ndofQuaternionIsTheTruth() throws {
        var state = PhysicalState.flatAtRest()
        state.orientation = Quaternion(roll: 0.4, pitch: 0.1, yaw: -2)
        let bus = bus(ConstantSource(state))
        try bus.writeRegister(bno, Reg.oprMode, 0x0C)
        let bytes = try bus.readRegisters(bno, Reg.quaternion, count: 8)
        let q = (0..<4).map { Double(int16LE(bytes, 2 * $0)) / 16384 }
        #expect(Quaternion(w: q[0], x: q[1], y: q[2], z: q[3]).normalized.angle(to: state.orientation ?? .identity) < 5e-4)
    }

    /// AXIS_MAP_CONFIG/SIGN swap and negate axes (§3.4): x ← y, y ← x, z negated.
    @Test func axisRemap() throws {
        let bus = bus()
        try bus.writeRegister(bno, Reg.axisMapConfig, 0x21)  // z from z (10), y from x (00), x from y (01)
        try bus.writeRegister(bno, Reg.axisMapSign, 0x01)    // z negated
        try bus.writeRegister(bno, Reg.oprMode, 0x07)
        let g = PhysicalState.standardGravity
        #expect(axesLE(try bus.readRegisters(bno, Reg.accData, count: 6)) == expectedLSB(SIMD3(-0.5, 0.25, -1) * g, 0.01))
    }

    @Test func resetAndSelfTest() throws {
        let bus = bus(options: EmulatorOptions(deadAxes: [.magnetometer(.y)]))
        #expect(try bus.readRegister(bno, Reg.stResult) == 0x0D, "the magnetometer fails its power-on test")
        try bus.writeRegister(bno, Reg.oprMode, 0x0C)
        try bus.writeRegister(bno, Reg.sysTrigger, 0x20)  // RST_SYS
        #expect(try bus.readRegister(bno, Reg.oprMode) == 0x00)
        try bus.writeRegister(bno, Reg.sysTrigger, 0x01)  // Self_Test in CONFIG
        #expect(try bus.readRegister(bno, Reg.stResult) == 0x0D)
        #expect(try bus.readRegister(bno, Reg.sysTrigger) == 0x00, "trigger bits clear themselves")
    }

    /// Every 3rd read transaction returns 0xFF bytes: the Raspberry Pi's clock-stretching symptom.
    @Test func stretchedReads() throws {
        let bus = bus(options: EmulatorOptions(stretchedReadEvery: 3))
        let reads = try (0..<6).map { _ in try bus.readRegister(bno, Reg.chipID) }
        #expect(reads == [0xA0, 0xA0, 0xFF, 0xA0, 0xA0, 0xFF])
    }
}
