import I2C
import I2CMock
import MotionSimulator
@testable import Sensors
import Testing

/// MMC5983MA registers and bits from its datasheet (Rev. A, "Register Map"), written here
/// independently of the driver.
private enum MMC {
    static let xOut0: UInt8 = 0x00, status: UInt8 = 0x08, control0: UInt8 = 0x09, control1: UInt8 = 0x0A, productID: UInt8 = 0x2F
    static let tmM: UInt8 = 0x01, set: UInt8 = 0x08, reset: UInt8 = 0x10, swReset: UInt8 = 0x80
    /// 16384 counts per gauss: 163.84 per µT; null field 2¹⁷.
    static let perMicrotesla = 163.84, null = 131_072
}

/// Xout0 … XYZout2 of 18-bit counts: bits 17:10, 9:2, and 1:0 of x, y, z in XYZout2's 7:6, 5:4, 3:2.
private func outputBytes(_ counts: SIMD3<Int>) -> [UInt8] {
    var bytes: [UInt8] = []
    for axis in 0..<3 { bytes += [UInt8(counts[axis] >> 10 & 0xFF), UInt8(counts[axis] >> 2 & 0xFF)] }
    return bytes + [UInt8((counts.x & 3) << 6 | (counts.y & 3) << 4 | (counts.z & 3) << 2)]
}

/// A measurement after a pulse: `pulse`, TM_M, Meas_M_Done, the outputs.
private func measurement(_ pulse: UInt8, _ counts: SIMD3<Int>) -> [I2CExpectation] {
    [
        .write(0x30, [MMC.control0, pulse]), .write(0x30, [MMC.control0, MMC.tmM]),
        .writeRead(0x30, [MMC.status], reply: [0x11]), .writeRead(0x30, [MMC.xOut0], reply: outputBytes(counts)),
    ]
}

@Suite struct MMC5983MATests {
    /// 20, −10, 40 µT as counts from the null field, and a bridge offset of 500, −300, 1000 counts.
    static let field = SIMD3(3277, -1638, 6554)
    static let offset = SIMD3(500, -300, 1000)
    static var afterSet: SIMD3<Int> { SIMD3(repeating: MMC.null) &+ field &+ offset }
    static var afterReset: SIMD3<Int> { SIMD3(repeating: MMC.null) &- field &+ offset }

    func make(_ bus: ExpectationBus) -> MMC5983MAMagnetometer {
        MMC5983MAMagnetometer(bus: bus, address: I2CAddress(0x30), pause: .none, resetCompletion: .pollResetBit)
    }

    /// Product ID, SW_RST, BW 00, a measurement after SET and one after RESET, the next after SET
    /// started; the first sample is half their difference: the field without the bridge offset.
    @Test func configureTakesASetAndAResetMeasurementAndTheFieldIsHalfTheirDifference() throws {
        let bus = ExpectationBus([
            .writeRead(0x30, [MMC.productID], reply: [0x30]),
            .write(0x30, [MMC.control1, MMC.swReset]), .write(0x30, [MMC.control1, 0x00]),
        ] + measurement(MMC.set, Self.afterSet) + measurement(MMC.reset, Self.afterReset) + [
            .write(0x30, [MMC.control0, MMC.set]), .write(0x30, [MMC.control0, MMC.tmM]),
        ])
        let magnetometer = make(bus)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        // Not finished yet: the same reading again, nothing started.
        bus.expect([.writeRead(0x30, [MMC.status], reply: [0x10])])
        let first = try magnetometer.readSample()
        let expected = SIMD3(Double(Self.field.x), Double(Self.field.y), Double(Self.field.z)) / MMC.perMicrotesla
        #expect(close(first.field, expected, tolerance: 1e-9) && !first.isSaturated)
        #expect(first.raw?.counts == SIMD3(819, -410, 1639) && first.raw?.lsbPerMicrotesla == SIMD3(repeating: 40.96))
        // Finished (after SET): read, and the next started after RESET. The offset moved by 200
        // counts (a temperature change): the difference still cancels it.
        let drifted = Self.afterSet &+ SIMD3(repeating: 200)
        bus.expect([
            .writeRead(0x30, [MMC.status], reply: [0x11]), .writeRead(0x30, [MMC.xOut0], reply: outputBytes(drifted)),
            .write(0x30, [MMC.control0, MMC.reset]), .write(0x30, [MMC.control0, MMC.tmM]),
        ])
        #expect(close(try magnetometer.readSample().field, expected + SIMD3(repeating: 100) / MMC.perMicrotesla, tolerance: 1e-9))
        bus.expect([
            .writeRead(0x30, [MMC.status], reply: [0x11]),
            .writeRead(0x30, [MMC.xOut0], reply: outputBytes(Self.afterReset &+ SIMD3(repeating: 200))),
            .write(0x30, [MMC.control0, MMC.set]), .write(0x30, [MMC.control0, MMC.tmM]),
        ])
        #expect(close(try magnetometer.readSample().field, expected, tolerance: 1e-9))
        bus.expect([.writeRead(0x30, [MMC.productID], reply: [0x30])])
        #expect(try magnetometer.isStillConfigured())
    }

    @Test func anEndOfTheEighteenBitRangeIsSaturation() {
        let sample = MMC5983MAMagnetometer.sample(afterSet: SIMD3(262_143, 131_072, 131_072), afterReset: SIMD3(0, 131_072, 131_072))
        #expect(sample.isSaturated && close(sample.field.x, 131_071.5 / MMC.perMicrotesla))
    }

    /// On the emulator, whose bridge carries an offset drifting with temperature (its model):
    /// one measurement after SET reads field + offset; the driver reads the field within a count,
    /// at 25 °C and at 65 °C.
    @Test func theEmulatorsBridgeOffsetIsRemovedAtEveryTemperature() throws {
        let field = SIMD3(21.3, -7.9, -43.6)
        for temperature in [25.0, 65.0] {
            var state = PhysicalState.flatAtRest()
            state.magneticField = field
            state.temperature = temperature
            let time = ManualTime(1)
            let rig = try EmulatedRig(imu: .lsm6dsox, magnetometer: .chip(.mmc5983ma), source: ConstantSource(state), time: time)
            let magnetometer = try #require(rig.magnetometer)
            time.set(1.1)
            let read = try magnetometer.readSample().field
            #expect(largestDifference(read, field) <= 1 / MMC.perMicrotesla, "\(temperature) °C: \(read)")
            // One measurement after SET, read as it is: the offset is there, and it drifts.
            try rig.board.bus.writeRegister(I2CAddress(0x30), MMC.control0, MMC.set)
            try rig.board.bus.writeRegister(I2CAddress(0x30), MMC.control0, MMC.tmM)
            let bytes = try rig.board.bus.readRegisters(I2CAddress(0x30), MMC.xOut0, count: 7)
            let counts = SIMD3((0..<3).map { Int(bytes[2 * $0]) << 10 | Int(bytes[2 * $0 + 1]) << 2 | Int(bytes[6]) >> (6 - 2 * $0) & 3 })
            let single = SIMD3(Double(counts.x - MMC.null), Double(counts.y - MMC.null), Double(counts.z - MMC.null)) / MMC.perMicrotesla
            #expect(largestDifference(single, field) > 10, "\(temperature) °C: one polarity alone reads \(single)")
        }
    }

    /// Before its first SET or RESET after power-up the emulated bridge senses no field.
    @Test func withoutASetAfterPowerUpTheEmulatorSensesNoField() throws {
        var state = PhysicalState.flatAtRest()
        state.magneticField = SIMD3(40, 0, 0)
        let board = SimulatedBoard(imu: .lsm6dsox, magnetometer: .chip(.mmc5983ma), source: ConstantSource(state), now: { 0 })
        try board.bus.writeRegister(I2CAddress(0x30), MMC.control0, MMC.tmM)
        let unset = try board.bus.readRegisters(I2CAddress(0x30), MMC.xOut0, count: 2)
        try board.bus.writeRegister(I2CAddress(0x30), MMC.control0, MMC.set)
        try board.bus.writeRegister(I2CAddress(0x30), MMC.control0, MMC.tmM)
        let set = try board.bus.readRegisters(I2CAddress(0x30), MMC.xOut0, count: 2)
        let x = { (bytes: [UInt8]) in Int(bytes[0]) << 10 | Int(bytes[1]) << 2 }
        // 40 µT is 6554 counts: the SET measurement has them, the one before has none of them.
        #expect(abs(x(set) - x(unset) - 6554) <= 4, "\(x(unset)) then \(x(set))")
    }

    @Test func identifiedAtItsAddress() throws {
        let board = SimulatedBoard(imu: .lsm6dsox, magnetometer: .chip(.mmc5983ma), source: ConstantSource(), now: { 0 })
        let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: I2CAddress(0x30)))
        #expect(chip.name == "MMC5983MA" && !chip.isIMU && chip.identity == [0x30])
        #expect(ChipRegistry.magnetometerScanAddresses.contains(I2CAddress(0x30)))
    }
}
