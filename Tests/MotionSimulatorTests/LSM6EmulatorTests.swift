import I2C
import MotionSimulator
import Testing
import Timing

/// LSM6 registers, written again from the datasheets (DS12814, DS11889, LSM6DS3).
private enum Reg {
    static let whoAmI: UInt8 = 0x0F, ctrl1XL: UInt8 = 0x10, ctrl2G: UInt8 = 0x11
    static let ctrl3C: UInt8 = 0x12, ctrl5C: UInt8 = 0x14, ctrl9XL: UInt8 = 0x18
    static let status: UInt8 = 0x1E, outTemp: UInt8 = 0x20, outG: UInt8 = 0x22
    static let outA: UInt8 = 0x28, fifoStatus1: UInt8 = 0x3A, fifoStatus2: UInt8 = 0x3B
}

private let imu = I2CAddress(0x6A)
private let odr104: UInt8 = 0x40

@Suite struct LSM6DSOXEmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<LSM6DSOXEmulator>(at: imu)

    @Test func powerOnIdentityAndValues() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(imu, Reg.whoAmI) == 0x6C)
        #expect(try bus.readRegister(imu, 0x02) == 0x3F)          // PIN_CTRL
        #expect(try bus.readRegister(imu, Reg.ctrl3C) == 0x04)    // IF_INC
        #expect(try bus.readRegister(imu, Reg.ctrl9XL) == 0xE0)
        #expect(try bus.readRegisters(imu, Reg.ctrl1XL, count: 2) == [0, 0])
    }

    @Test func softwareResetRestoresPowerOnValues() throws {
        let bus = makeBus()
        try bus.writeRegisters(imu, Reg.ctrl1XL, [0x4C, 0x4C])
        try bus.writeRegister(imu, Reg.ctrl3C, 0x44)
        try bus.writeRegister(imu, Reg.ctrl3C, 0x05)  // SW_RESET
        #expect(try bus.readRegisters(imu, Reg.ctrl1XL, count: 3) == [0, 0, 0x04])
    }

    @Test func autoIncrementFollowsIF_INC() throws {
        let bus = makeBus()
        #expect(try bus.readRegisters(imu, Reg.whoAmI, count: 4) == [0x6C, 0x00, 0x00, 0x04])
        try bus.writeRegister(imu, Reg.ctrl3C, 0x00)  // IF_INC = 0
        #expect(try bus.readRegisters(imu, Reg.whoAmI, count: 3) == [0x6C, 0x6C, 0x6C])
        try bus.writeRegisters(imu, Reg.ctrl1XL, [0x40, 0x44])  // both bytes land in CTRL1_XL
        #expect(try bus.readRegister(imu, Reg.ctrl1XL) == 0x44)
        #expect(try bus.readRegister(imu, Reg.ctrl2G) == 0x00)
    }

    /// CTRL5_C ROUNDING[6:5]: circular burst over the output registers.
    @Test func roundingWrapsBurstReads() throws {
        let bus = makeBus()
        try bus.writeRegisters(imu, Reg.ctrl1XL, [odr104, odr104])
        try bus.writeRegister(imu, Reg.ctrl5C, 0x60)  // gyroscope + accelerometer
        let both = try bus.readRegisters(imu, Reg.outG, count: 24)
        #expect(Array(both[12...]) == Array(both[..<12]))
        try bus.writeRegister(imu, Reg.ctrl5C, 0x20)  // accelerometer only
        let accel = try bus.readRegisters(imu, Reg.outA, count: 12)
        #expect(Array(accel[6...]) == Array(accel[..<6]))
        try bus.writeRegister(imu, Reg.ctrl5C, 0x00)
        #expect(try bus.readRegisters(imu, Reg.outA + 5, count: 2)[1] == 0)  // 0x2E: no wrap
    }

    /// FS_XL code → mg/LSB (DS12814 Table 2).
    @Test(arguments: [(UInt8(0), 0.061), (1, 0.488), (2, 0.122), (3, 0.244)])
    func accelerometerEncodingAtEachRange(code: UInt8, mgPerLSB: Double) throws {
        let input = SIMD3(0.25, -0.5, 1.0)
        let bus = makeBus(testState(accelerationG: input))
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104 | code << 2)
        let raw = axesLE(try bus.readRegisters(imu, Reg.outA, count: 6))
        #expect(raw == expectedLSB(input, mgPerLSB / 1000))
    }

    /// FS_G code → mdps/LSB, and FS_125 (DS12814 Table 2).
    @Test(arguments: [(UInt8(0x00), 8.75), (0x04, 17.5), (0x08, 35), (0x0C, 70), (0x02, 4.375)])
    func gyroscopeEncodingAtEachRange(bits: UInt8, mdpsPerLSB: Double) throws {
        let input = SIMD3(10.0, -20, 30)
        let bus = makeBus(testState(rateDPS: input))
        try bus.writeRegister(imu, Reg.ctrl2G, odr104 | bits)
        let bytes = try bus.readRegisters(imu, Reg.outTemp, count: 8)
        #expect(axesLE(bytes, from: 2) == expectedLSB(input, mdpsPerLSB / 1000))
        #expect(int16LE(bytes, 0) == 5 * 256)  // 30 °C: 256 LSB/°C, 0 at 25 °C
    }

    @Test func saturatesAtFullScale() throws {
        let bus = makeBus(testState(accelerationG: SIMD3(3, -3, 1)))
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104)  // ±2 g
        let raw = axesLE(try bus.readRegisters(imu, Reg.outA, count: 6))
        #expect(raw.x == Int16.max)
        #expect(raw.y == Int16.min)
    }

    @Test func powerDownKeepsOutputsAndFlags() throws {
        let bus = makeBus()
        clock.advance(by: 1)
        #expect(try bus.readRegisters(imu, Reg.outTemp, count: 14) == Array(repeating: 0, count: 14))
        #expect(try bus.readRegister(imu, Reg.status) == 0)
    }

    @Test func dataReadyAtODRTicksClearedByReading() throws {
        let bus = makeBus()
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104)
        #expect(try bus.readRegister(imu, Reg.status) & 0x01 == 0)
        clock.advance(by: 1.0 / 104)
        #expect(try bus.readRegister(imu, Reg.status) & 0x05 == 0x05)  // XLDA, TDA
        _ = try bus.readRegisters(imu, Reg.outA, count: 6)
        #expect(try bus.readRegister(imu, Reg.status) & 0x01 == 0)
    }

    /// FIFO_CTRL3 BDR_XL = 104 Hz, FIFO_CTRL4 continuous; tagged words at 0x78.
    @Test func fifoFillsAtBatchRateInVirtualTime() throws {
        let input = SIMD3(0.25, -0.5, 1.0)
        let bus = makeBus(testState(accelerationG: input))
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104)
        try bus.writeRegister(imu, 0x09, 0x04)  // BDR_XL 104 Hz
        try bus.writeRegister(imu, 0x0A, 0x06)  // continuous mode
        clock.advance(by: 0.1)                  // 10.4 periods
        let status = try bus.readRegisters(imu, Reg.fifoStatus1, count: 2)
        #expect(Int(status[0]) | Int(status[1] & 0x03) << 8 == 10)
        #expect(status[1] & 0x40 == 0)

        let words = try bus.readBurst(imu, 0x78, count: 7 * 10)
        let expected = expectedLSB(input, 0.061 / 1000)
        for index in 0..<10 {
            let word = Array(words[(index * 7)..<(index * 7 + 7)])
            #expect(word[0] >> 3 == 0x02)  // accelerometer tag
            #expect(word[0].nonzeroBitCount % 2 == 0)
            #expect(axesLE(word, from: 1) == expected)
        }
        #expect(try bus.readRegister(imu, Reg.fifoStatus1) == 0)
    }

    @Test func fifoInterleavesGyroscopeAndAccelerometer() throws {
        let bus = makeBus()
        try bus.writeRegisters(imu, Reg.ctrl1XL, [odr104, odr104])
        try bus.writeRegister(imu, 0x09, 0x44)
        try bus.writeRegister(imu, 0x0A, 0x06)
        clock.advance(by: 2.5 / 104)
        #expect(try bus.readRegister(imu, Reg.fifoStatus1) == 4)
        let words = try bus.readRegisters(imu, 0x78, count: 28)
        #expect(stride(from: 0, to: 28, by: 7).map { words[$0] >> 3 } == [0x01, 0x02, 0x01, 0x02])
        // TAG_CNT advances per time slot.
        #expect(((words[0] >> 1) & 3) == ((words[7] >> 1) & 3))
        #expect(((words[14] >> 1) & 3) == ((((words[0] >> 1) & 3) + 1) & 3))
    }

    @Test func fifoOverflowsWhenNotRead() throws {
        let bus = makeBus()
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104)
        try bus.writeRegister(imu, 0x09, 0x04)
        try bus.writeRegister(imu, 0x0A, 0x01)  // FIFO mode: stops when full
        clock.advance(by: 10)                   // 1040 samples > 512
        let status = try bus.readRegisters(imu, Reg.fifoStatus1, count: 2)
        #expect(Int(status[0]) | Int(status[1] & 0x03) << 8 == 512)
        #expect(status[1] & 0x60 == 0x60)      // FIFO_OVR_IA, FIFO_FULL_IA
        #expect(status[1] & 0x08 == 0x08)      // FIFO_OVR_LATCHED
        #expect(try bus.readRegister(imu, Reg.fifoStatus2) & 0x08 == 0)  // cleared by reading

        _ = try bus.readRegisters(imu, 0x78, count: 7 * 12)
        clock.advance(by: 1)
        let after = try bus.readRegisters(imu, Reg.fifoStatus1, count: 2)
        #expect(Int(after[0]) | Int(after[1] & 0x03) << 8 == 500)  // FIFO mode stays stopped

        try bus.writeRegister(imu, 0x0A, 0x00)  // bypass empties the FIFO
        #expect(try bus.readRegister(imu, Reg.fifoStatus1) == 0)
    }

    @Test func clockDriftChangesFrameCount() throws {
        let bus = makeBus(options: EmulatorOptions(clockDriftPPM: 10_000))
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104)
        try bus.writeRegister(imu, 0x09, 0x04)
        try bus.writeRegister(imu, 0x0A, 0x06)
        clock.advance(by: 4)  // 416 nominal, 420.16 at +1 %
        let status = try bus.readRegisters(imu, Reg.fifoStatus1, count: 2)
        #expect(Int(status[0]) | Int(status[1] & 0x03) << 8 == 420)
    }

    /// Ten simulated minutes read every 100 ms: every frame due arrives exactly once.
    @Test func longRunDeliversEveryFrame() throws {
        let bus = makeBus()
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104)
        try bus.writeRegister(imu, 0x09, 0x04)
        try bus.writeRegister(imu, 0x0A, 0x06)
        var frames = 0
        for _ in 0..<6000 {
            clock.advance(by: 0.1)
            let status = try bus.readRegisters(imu, Reg.fifoStatus1, count: 2)
            let level = Int(status[0]) | Int(status[1] & 0x03) << 8
            #expect(status[1] & 0x08 == 0)
            frames += try bus.readRegisters(imu, 0x78, count: 7 * level).count / 7
        }
        #expect(frames == 104 * 600)
    }

    /// Self-test limits (DS12814 Table 2): accelerometer 50–1700 mg, gyroscope 150–700 dps at ±2000 dps.
    @Test func selfTestResponseWithinLimitsAndDeadAxisFails() throws {
        for dead in [false, true] {
            let bus = makeBus(options: EmulatorOptions(deadAxes: dead ? [.accelerometer(.y), .gyroscope(.z)] : []))
            try bus.writeRegisters(imu, Reg.ctrl1XL, [odr104, odr104 | 0x0C])
            let before = try bus.readRegisters(imu, Reg.outG, count: 12)
            try bus.writeRegister(imu, Reg.ctrl5C, 0b0101)  // ST_G positive, ST_XL positive
            let after = try bus.readRegisters(imu, Reg.outG, count: 12)
            let gyroChange = (0..<3).map { abs(Double(int16LE(after, $0 * 2)) - Double(int16LE(before, $0 * 2))) * 0.070 }
            let accelChange = (0..<3).map { abs(Double(int16LE(after, 6 + $0 * 2)) - Double(int16LE(before, 6 + $0 * 2))) * 0.061 }
            let gyroPass = gyroChange.map { (150...700).contains($0) }
            let accelPass = accelChange.map { (50...1700).contains($0) }
            #expect(gyroPass == [true, true, !dead])
            #expect(accelPass == [true, !dead, true])
        }
    }
}

@Suite struct LSM6DSO32EmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<LSM6DSO32Emulator>(at: imu)

    /// FS_XL code → mg/LSB for ±4/±32/±8/±16 g (DS13238 Table 2).
    @Test(arguments: [(UInt8(0), 0.122), (1, 0.976), (2, 0.244), (3, 0.488)])
    func accelerometerEncodingAtEachRange(code: UInt8, mgPerLSB: Double) throws {
        let input = SIMD3(2.5, -0.5, 1.0)
        let bus = makeBus(testState(accelerationG: input))
        #expect(try bus.readRegister(imu, Reg.whoAmI) == 0x6C)
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104 | code << 2)
        let raw = axesLE(try bus.readRegisters(imu, Reg.outA, count: 6))
        #expect(raw == expectedLSB(input, mgPerLSB / 1000))
    }
}

@Suite struct LSM6UntaggedEmulatorTests {
    let clock = VirtualClock()

    @Test func identities() throws {
        let dsl = busWith(LSM6DSLEmulator.self, at: 0x6A, clock: clock)
        #expect(try dsl.readRegister(imu, Reg.whoAmI) == 0x6A)
        #expect(try dsl.readRegister(imu, Reg.ctrl3C) == 0x04)
        let ds3 = busWith(LSM6DS3Emulator.self, at: 0x6B, clock: clock)
        #expect(try ds3.readRegister(I2CAddress(0x6B), Reg.whoAmI) == 0x69)
        #expect(try ds3.readRegisters(I2CAddress(0x6B), Reg.ctrl9XL, count: 2) == [0x38, 0x38])
    }

    @Test func ds3TemperatureSensitivity() throws {
        let bus = busWith(LSM6DS3Emulator.self, at: 0x6A, clock: clock)
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104)
        #expect(int16LE(try bus.readRegisters(imu, Reg.outTemp, count: 2), 0) == 5 * 16)
    }

    /// FIFO_CTRL3 no decimation for both, FIFO_CTRL5 ODR_FIFO 104 Hz + continuous mode:
    /// gyroscope X, Y, Z then accelerometer X, Y, Z per tick, read through FIFO_DATA_OUT_L/H.
    @Test func untaggedFIFOPattern() throws {
        let accel = SIMD3(0.25, -0.5, 1.0), rate = SIMD3(10.0, -20, 30)
        let bus = busWith(LSM6DSLEmulator.self, source: testState(accelerationG: accel, rateDPS: rate), at: 0x6A, clock: clock)
        try bus.writeRegisters(imu, Reg.ctrl1XL, [odr104, odr104])
        try bus.writeRegister(imu, 0x08, 0b001_001)
        try bus.writeRegister(imu, 0x0A, 0x04 << 3 | 0b110)
        clock.advance(by: 3.5 / 104)
        let status = try bus.readRegisters(imu, Reg.fifoStatus1, count: 4)
        #expect(Int(status[0]) | Int(status[1] & 0x07) << 8 == 18)
        #expect(status[2] == 0)  // pattern index of the next word: gyroscope X
        let bytes = try bus.readRegisters(imu, 0x3E, count: 36)
        let gyro = expectedLSB(rate, 0.00875), acc = expectedLSB(accel, 0.000061)
        for set in 0..<3 {
            #expect(axesLE(bytes, from: set * 12) == gyro)
            #expect(axesLE(bytes, from: set * 12 + 6) == acc)
        }
        #expect(try bus.readRegister(imu, Reg.fifoStatus2) & 0x10 == 0x10)  // FIFO_EMPTY
    }

    @Test func untaggedFIFOOverrun() throws {
        let bus = busWith(LSM6DS3Emulator.self, at: 0x6A, clock: clock)
        try bus.writeRegister(imu, Reg.ctrl1XL, odr104)
        try bus.writeRegister(imu, 0x08, 0b000_001)
        try bus.writeRegister(imu, 0x0A, 0x04 << 3 | 0b110)
        clock.advance(by: 10)
        let status = try bus.readRegisters(imu, Reg.fifoStatus1, count: 2)
        #expect(Int(status[0]) | Int(status[1] & 0x0F) << 8 == 2046)
        #expect(status[1] & 0x60 == 0x60)
    }
}

/// The LSM6DSV16X's self-test in CTRL10 (19h): ST_XL[1:0] and ST_G[3:2], 01 positive, 10 negative
/// (ST's lsm6dsv16x_reg.h), rates in the low nibble of CTRL1/CTRL2, ranges in CTRL8/CTRL6.
@Suite struct LSM6DSV16XSelfTestEmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<LSM6DSV16XEmulator>(at: imu)

    /// ±4 g (0.122 mg/LSB) at 60 Hz, ±2000 dps (70 mdps/LSB) at 240 Hz: positive and negative
    /// self-test move each axis by the same amount the other way, inside 50–1700 mg and
    /// 150–700 dps; a dead axis does not move.
    @Test func ctrl10MovesTheOutputsBothWays() throws {
        for dead in [false, true] {
            let bus = makeBus(options: EmulatorOptions(deadAxes: dead ? [.gyroscope(.y)] : []))
            try bus.writeRegister(imu, 0x17, 0x01)  // CTRL8 FS_XL ±4 g
            try bus.writeRegister(imu, 0x15, 0x04)  // CTRL6 FS_G ±2000 dps
            try bus.writeRegisters(imu, Reg.ctrl1XL, [0x05, 0x07])  // 60 Hz, 240 Hz
            let off = try bus.readRegisters(imu, Reg.outG, count: 12)
            var changes: [[Double]] = []
            for code: UInt8 in [0b0101, 0b1010] {  // both positive, both negative
                try bus.writeRegister(imu, 0x19, code)
                let on = try bus.readRegisters(imu, Reg.outG, count: 12)
                changes.append((0..<6).map { Double(int16LE(on, $0 * 2)) - Double(int16LE(off, $0 * 2)) })
            }
            let gyro = changes[0][0..<3].map { abs($0) * 0.070 }, accel = changes[0][3..<6].map { abs($0) * 0.122 }
            #expect(gyro.map { (150...700).contains($0) } == [true, !dead, true], "\(gyro)")
            #expect(accel.allSatisfy { (50...1700).contains($0) }, "\(accel)")
            #expect(zip(changes[0], changes[1]).allSatisfy { abs($0 + $1) <= 2 }, "\(changes)")
        }
    }
}
