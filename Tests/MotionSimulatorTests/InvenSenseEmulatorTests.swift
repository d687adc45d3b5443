import Foundation
import I2C
import MotionSimulator
import Testing
import Timing

/// MPU-6050/6500/9250 registers from the register maps (RM-MPU-6000A, RM-MPU-9250A).
private enum Reg {
    static let smplrtDiv: UInt8 = 0x19, config: UInt8 = 0x1A, gyroConfig: UInt8 = 0x1B
    static let accelConfig: UInt8 = 0x1C, fifoEn: UInt8 = 0x23, intPinCfg: UInt8 = 0x37
    static let intStatus: UInt8 = 0x3A, accelXoutH: UInt8 = 0x3B, gyroXoutH: UInt8 = 0x43
    static let userCtrl: UInt8 = 0x6A, pwrMgmt1: UInt8 = 0x6B, fifoCountH: UInt8 = 0x72
    static let fifoRW: UInt8 = 0x74, whoAmI: UInt8 = 0x75
}

private let mpu = I2CAddress(0x68)

@Suite struct InvenSenseEmulatorTests {
    let clock = VirtualClock()

    func bus6050(_ source: any PhysicalSource = testState(), options: EmulatorOptions = .init()) -> SimulatedBus {
        busWith(MPU6050Emulator.self, source: source, options: options, at: 0x68, clock: clock)
    }

    func bus6500(_ source: any PhysicalSource = testState(), options: EmulatorOptions = .init()) -> SimulatedBus {
        busWith(MPU6500Emulator.self, source: source, options: options, at: 0x68, clock: clock)
    }

    @Test func powerOnIdentities() throws {
        #expect(try bus6050().readRegister(mpu, Reg.whoAmI) == 0x68)
        #expect(try bus6050().readRegister(mpu, Reg.pwrMgmt1) == 0x40)
        let at69 = busWith(MPU6050Emulator.self, at: 0x69, clock: clock)
        #expect(try at69.readRegister(I2CAddress(0x69), Reg.whoAmI) == 0x68)
        #expect(try bus6500().readRegister(mpu, Reg.whoAmI) == 0x70)
        #expect(try bus6500().readRegister(mpu, Reg.pwrMgmt1) == 0x01)
        let bus = SimulatedBus(now: { clock.now })
        MPU9250Emulator(source: testState(), now: { clock.now }).attach(to: bus)
        #expect(try bus.readRegister(mpu, Reg.whoAmI) == 0x71)
    }

    @Test func deviceResetRestoresPowerOnValues() throws {
        let bus = bus6050()
        try bus.writeRegisters(mpu, Reg.smplrtDiv, [9, 1, 0x18, 0x18])
        try bus.writeRegister(mpu, Reg.pwrMgmt1, 0x80)
        #expect(try bus.readRegisters(mpu, Reg.smplrtDiv, count: 4) == [0, 0, 0, 0])
        #expect(try bus.readRegister(mpu, Reg.pwrMgmt1) == 0x40)
    }

    @Test func asleepThenAwake() throws {
        let input = SIMD3(0.25, -0.5, 1.0)
        let bus = bus6050(testState(accelerationG: input))
        clock.advance(by: 1)
        #expect(try bus.readRegisters(mpu, Reg.accelXoutH, count: 14) == Array(repeating: 0, count: 14))
        #expect(try bus.readRegister(mpu, Reg.intStatus) == 0)
        try bus.writeRegister(mpu, Reg.pwrMgmt1, 0x01)
        #expect(axesBE(try bus.readRegisters(mpu, Reg.accelXoutH, count: 6)) == expectedLSB(input, 1.0 / 16384))
        clock.advance(by: 1.0 / 8000)
        #expect(try bus.readRegister(mpu, Reg.intStatus) & 0x01 == 0x01)  // DATA_RDY_INT
        #expect(try bus.readRegister(mpu, Reg.intStatus) == 0)            // cleared by reading
    }

    /// AFS_SEL → 16384/8192/4096/2048 LSB/g; FS_SEL → 131/65.5/32.8/16.4 LSB/(°/s) (PS-MPU-6000A §6.1–6.2).
    @Test(arguments: [(UInt8(0), 16384.0, 131.0), (1, 8192, 65.5), (2, 4096, 32.8), (3, 2048, 16.4)])
    func encodingAtEachRange(code: UInt8, lsbPerG: Double, lsbPerDPS: Double) throws {
        let accel = SIMD3(0.25, -0.5, 1.0), rate = SIMD3(10.0, -20, 30)
        for bus in [bus6050(testState(accelerationG: accel, rateDPS: rate)), bus6500(testState(accelerationG: accel, rateDPS: rate))] {
            try bus.writeRegister(mpu, Reg.pwrMgmt1, 0x01)
            try bus.writeRegisters(mpu, Reg.gyroConfig, [code << 3, code << 3])
            let block = try bus.readBurst(mpu, Reg.accelXoutH, count: 14)
            #expect(axesBE(block) == expectedLSB(accel, 1 / lsbPerG))
            #expect(axesBE(block, from: 8) == expectedLSB(rate, 1 / lsbPerDPS))
        }
    }

    @Test func temperatureScales() throws {
        let b6050 = bus6050(), b6500 = bus6500()
        try b6050.writeRegister(mpu, Reg.pwrMgmt1, 0x01)
        // 30 °C: MPU-6050 (T − 36.53)·340; MPU-6500 (T − 21)·333.87.
        #expect(int16BE(try b6050.readRegisters(mpu, 0x41, count: 2), 0) == Int16(((30 - 36.53) * 340).rounded()))
        #expect(int16BE(try b6500.readRegisters(mpu, 0x41, count: 2), 0) == Int16(((30 - 21) * 333.87).rounded()))
    }

    @Test func saturates() throws {
        let bus = bus6050(testState(accelerationG: SIMD3(2.5, -2.5, 1), rateDPS: SIMD3(300, 0, 0)))
        try bus.writeRegister(mpu, Reg.pwrMgmt1, 0x01)
        let block = try bus.readRegisters(mpu, Reg.accelXoutH, count: 14)
        #expect(axesBE(block).x == .max)
        #expect(axesBE(block).y == .min)
        #expect(axesBE(block, from: 8).x == .max)
    }

    /// 100 Hz (DLPF_CFG 1 → 1 kHz, SMPLRT_DIV 9), FIFO_EN gyro X/Y/Z + accel: 12-byte frames.
    @Test func fifoFillsAtSampleRate() throws {
        let accel = SIMD3(0.25, -0.5, 1.0), rate = SIMD3(10.0, -20, 30)
        let bus = bus6050(testState(accelerationG: accel, rateDPS: rate))
        try bus.writeRegister(mpu, Reg.pwrMgmt1, 0x01)
        try bus.writeRegisters(mpu, Reg.smplrtDiv, [9, 1])
        try bus.writeRegister(mpu, Reg.fifoEn, 0x78)
        try bus.writeRegister(mpu, Reg.userCtrl, 0x40)
        clock.advance(by: 0.105)
        let count = try bus.readRegisters(mpu, Reg.fifoCountH, count: 2)
        #expect(Int(count[0]) << 8 | Int(count[1]) == 120)
        let bytes = try bus.readBurst(mpu, Reg.fifoRW, count: 120)
        for frame in 0..<10 {
            #expect(axesBE(bytes, from: frame * 12) == expectedLSB(accel, 1.0 / 16384))
            #expect(axesBE(bytes, from: frame * 12 + 6) == expectedLSB(rate, 1.0 / 131))
        }
        #expect(try bus.readRegisters(mpu, Reg.fifoCountH, count: 2) == [0, 0])
        #expect(try bus.readRegister(mpu, Reg.fifoRW) == bytes[119])  // empty FIFO repeats the last byte
    }

    @Test func fifoOverflow() throws {
        let b6050 = bus6050()
        try b6050.writeRegister(mpu, Reg.pwrMgmt1, 0x01)
        try b6050.writeRegisters(mpu, Reg.smplrtDiv, [9, 1])
        try b6050.writeRegister(mpu, Reg.fifoEn, 0x78)
        try b6050.writeRegister(mpu, Reg.userCtrl, 0x40)

        let b6500 = bus6500()
        try b6500.writeRegisters(mpu, Reg.smplrtDiv, [9, 0x41])  // CONFIG FIFO_MODE: keep, DLPF 1
        try b6500.writeRegister(mpu, Reg.fifoEn, 0x78)
        try b6500.writeRegister(mpu, Reg.userCtrl, 0x40)

        clock.advance(by: 2)
        let count6050 = try b6050.readRegisters(mpu, Reg.fifoCountH, count: 2)
        #expect(Int(count6050[0]) << 8 | Int(count6050[1]) == 1024)  // oldest replaced
        #expect(try b6050.readRegister(mpu, Reg.intStatus) & 0x10 == 0x10)
        let count6500 = try b6500.readRegisters(mpu, Reg.fifoCountH, count: 2)
        #expect(Int(count6500[0] & 0x1F) << 8 | Int(count6500[1]) == 42 * 12)  // whole frames only
        #expect(try b6500.readRegister(mpu, Reg.intStatus) & 0x10 == 0x10)

        try b6050.writeRegister(mpu, Reg.userCtrl, 0x44)  // FIFO_RESET
        #expect(try b6050.readRegisters(mpu, Reg.fifoCountH, count: 2) == [0, 0])
        #expect(try b6050.readRegister(mpu, Reg.userCtrl) == 0x40)
    }

    /// MPU-6050 self-test (RM-MPU-6000A §4.1): at ±8 g and ±250 °/s the response must be within
    /// ±14 % of the factory trim computed from SELF_TEST_X…A.
    @Test func mpu6050SelfTest() throws {
        for dead in [false, true] {
            let bus = bus6050(options: EmulatorOptions(deadAxes: dead ? [.gyroscope(.y)] : []))
            try bus.writeRegister(mpu, Reg.pwrMgmt1, 0x01)
            try bus.writeRegisters(mpu, Reg.gyroConfig, [0x00, 0x10])
            let codes = try bus.readRegisters(mpu, 0x0D, count: 4)
            let gyroCodes = (0..<3).map { Double(codes[$0] & 0x1F) }
            let accelCodes: [Double] = (0..<3).map { axis in
                let high: UInt8 = (codes[axis] >> 3) & 0x1C        // XA_TEST[4:2] from bits 7:5
                let low: UInt8 = (codes[3] >> UInt8(4 - 2 * axis)) & 0x03  // XA_TEST[1:0] from SELF_TEST_A
                return Double(high | low)
            }
            let gyroTrim = gyroCodes.enumerated().map { axis, code in (axis == 1 ? -1.0 : 1) * 25 * 131 * pow(1.046, code - 1) }
            let accelTrim = accelCodes.map { 4096 * 0.34 * pow(0.92 / 0.34, ($0 - 1) / 30) }
            let before = try bus.readRegisters(mpu, Reg.accelXoutH, count: 14)
            try bus.writeRegisters(mpu, Reg.gyroConfig, [0xE0, 0xF0])
            let after = try bus.readRegisters(mpu, Reg.accelXoutH, count: 14)
            let accelPass = (0..<3).map { axis in
                let response = Double(int16BE(after, axis * 2)) - Double(int16BE(before, axis * 2))
                return abs(response / accelTrim[axis] - 1) <= 0.14
            }
            let gyroPass = (0..<3).map { axis in
                let response = Double(int16BE(after, 8 + axis * 2)) - Double(int16BE(before, 8 + axis * 2))
                return abs(response / gyroTrim[axis] - 1) <= 0.14
            }
            #expect(accelPass == [true, true, true])
            #expect(gyroPass == [true, !dead, true])
        }
    }

    /// MPU-6500 self-test: ST_OTP = 2620·1.01^(code−1) at ±2 g / ±250 °/s; accelerometer
    /// response / ST_OTP in 0.5–1.5, gyroscope response / ST_OTP above 0.5.
    @Test func mpu6500SelfTest() throws {
        for dead in [false, true] {
            let bus = bus6500(options: EmulatorOptions(deadAxes: dead ? [.accelerometer(.z)] : []))
            let gyroCodes = try bus.readRegisters(mpu, 0x00, count: 3)
            let accelCodes = try bus.readRegisters(mpu, 0x0D, count: 3)
            let before = try bus.readRegisters(mpu, Reg.accelXoutH, count: 14)
            try bus.writeRegisters(mpu, Reg.gyroConfig, [0xE0, 0xE0])
            let after = try bus.readRegisters(mpu, Reg.accelXoutH, count: 14)
            let accelPass = (0..<3).map { axis in
                let ratio = (Double(int16BE(after, axis * 2)) - Double(int16BE(before, axis * 2)))
                    / (2620 * pow(1.01, Double(accelCodes[axis]) - 1))
                return (0.5...1.5).contains(ratio)
            }
            let gyroPass = (0..<3).map { axis in
                (Double(int16BE(after, 8 + axis * 2)) - Double(int16BE(before, 8 + axis * 2)))
                    / (2620 * pow(1.01, Double(gyroCodes[axis]) - 1)) > 0.5
            }
            #expect(accelPass == [true, true, !dead])
            #expect(gyroPass == [true, true, true])
        }
    }

    @Test func mpu9250BypassExposesAK8963() throws {
        let clock = self.clock
        let bus = SimulatedBus(now: { clock.now })
        let chip = MPU9250Emulator(source: testState(), now: { clock.now })
        chip.attach(to: bus)
        let ak = I2CAddress(0x0C)
        #expect(bus.respondingAddresses == [mpu])
        do {
            _ = try bus.readRegister(ak, 0x00)
            Issue.record("AK8963 answered with the bypass off")
        } catch {
            #expect(error.kind == .noAcknowledge)
        }
        try bus.writeRegister(mpu, Reg.intPinCfg, 0x02)  // BYPASS_EN
        #expect(chip.isBypassEnabled)
        #expect(try bus.readRegister(ak, 0x00) == 0x48)
        #expect(bus.respondingAddresses == [ak, mpu])
        try bus.writeRegister(mpu, Reg.userCtrl, 0x20)   // I2C_MST_EN takes the auxiliary bus back
        #expect(throws: I2CError.self) { _ = try bus.readRegister(ak, 0x00) }
    }
}

/// AK8963 registers (datasheet §8).
private enum AK {
    static let wia: UInt8 = 0x00, st1: UInt8 = 0x02, hxl: UInt8 = 0x03
    static let st2: UInt8 = 0x09, cntl1: UInt8 = 0x0A, cntl2: UInt8 = 0x0B
    static let astc: UInt8 = 0x0C, asax: UInt8 = 0x10
}

private let akAddress = I2CAddress(0x0C)

@Suite struct AK8963EmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<AK8963Emulator>(at: akAddress)

    func adjustment(_ bus: SimulatedBus) throws -> SIMD3<Double> {
        try bus.writeRegister(akAddress, AK.cntl1, 0x0F)  // fuse ROM access
        let asa = try bus.readRegisters(akAddress, AK.asax, count: 3)
        try bus.writeRegister(akAddress, AK.cntl1, 0x00)
        return SIMD3((0..<3).map { (Double(asa[$0]) - 128) * 0.5 / 128 + 1 })
    }

    @Test func identityAndFuseROM() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(akAddress, AK.wia) == 0x48)
        #expect(try bus.readRegisters(akAddress, AK.asax, count: 3) == [0, 0, 0])  // outside fuse mode
        #expect(try adjustment(bus) != SIMD3(repeating: 1))
    }

    /// 16-bit output 0.15 µT/LSB, 14-bit 0.6 µT/LSB; raw × adjustment = field.
    @Test(arguments: [(UInt8(0x11), 0.15), (0x01, 0.6)])
    func singleMeasurementEncoding(control: UInt8, microteslaPerLSB: Double) throws {
        let field = SIMD3(20.7, -5.3, -44.4)
        let bus = makeBus(testState(fieldMicrotesla: field))
        let adjust = try adjustment(bus)
        #expect(try bus.readRegister(akAddress, AK.st1) == 0)
        try bus.writeRegister(akAddress, AK.cntl1, control)
        #expect(try bus.readRegister(akAddress, AK.cntl1) == control & 0x10)  // back to power-down
        let bytes = try bus.readRegisters(akAddress, AK.st1, count: 8)   // ST1, data, ST2
        #expect(bytes[0] == 0x01)
        #expect(axesLE(bytes, from: 1) == expectedLSB(field / adjust, microteslaPerLSB))
        #expect(bytes[7] == control & 0x10)  // BITM, no overflow
        #expect(try bus.readRegister(akAddress, AK.st1) == 0)  // ST2 read ended the read
    }

    @Test func continuousModeDataReadyAndOverrun() throws {
        let bus = makeBus()
        try bus.writeRegister(akAddress, AK.cntl1, 0x16)  // 16-bit, continuous 2 (100 Hz)
        #expect(try bus.readRegister(akAddress, AK.st1) == 0)
        clock.advance(by: 0.01)
        #expect(try bus.readRegister(akAddress, AK.st1) == 0x01)
        clock.advance(by: 0.01)
        #expect(try bus.readRegister(akAddress, AK.st1) == 0x03)  // DOR
        _ = try bus.readRegisters(akAddress, AK.hxl, count: 7)
        #expect(try bus.readRegister(akAddress, AK.st1) == 0)

        // A data read that has not reached ST2 protects the output: the next measurement is skipped.
        _ = try bus.readRegisters(akAddress, AK.hxl, count: 2)
        clock.advance(by: 0.01)
        #expect(try bus.readRegister(akAddress, AK.st1) == 0x02)
        _ = try bus.readRegister(akAddress, AK.st2)
        clock.advance(by: 0.01)
        #expect(try bus.readRegister(akAddress, AK.st1) == 0x01)
    }

    /// The address counter wraps 0x0C → 0x00 and 0x12 → 0x10 (§7.2.3).
    @Test func addressCounterWraps() throws {
        let bus = makeBus()
        #expect(try bus.readRegisters(akAddress, AK.astc, count: 2) == [0x00, 0x48])
        try bus.writeRegister(akAddress, AK.cntl1, 0x0F)
        #expect(try bus.readRegisters(akAddress, AK.asax, count: 4) == [0xB0, 0xB1, 0xA5, 0xB0])
    }

    @Test func softResetAndOverflow() throws {
        let bus = makeBus(testState(fieldMicrotesla: SIMD3(3000, 3000, 0)))
        try bus.writeRegister(akAddress, AK.cntl1, 0x11)
        #expect(try bus.readRegister(akAddress, AK.st2) & 0x08 == 0x08)  // HOFL
        try bus.writeRegister(akAddress, AK.cntl1, 0x16)
        try bus.writeRegister(akAddress, AK.cntl2, 0x01)
        #expect(try bus.readRegisters(akAddress, AK.st1, count: 9) == Array(repeating: 0, count: 9))
        #expect(try bus.readRegister(akAddress, AK.cntl1) == 0)
    }

    /// Self-test limits (§9.4.4, 16-bit, after adjustment): X, Y −200…200; Z −3200…−800.
    @Test func selfTest() throws {
        for dead in [false, true] {
            let bus = makeBus(options: EmulatorOptions(deadAxes: dead ? [.magnetometer(.z)] : []))
            let adjust = try adjustment(bus)
            try bus.writeRegister(akAddress, AK.astc, 0x40)
            try bus.writeRegister(akAddress, AK.cntl1, 0x18)
            let raw = axesLE(try bus.readRegisters(akAddress, AK.hxl, count: 7))
            let value = SIMD3(Double(raw.x), Double(raw.y), Double(raw.z)) * adjust
            #expect((-200...200).contains(value.x))
            #expect((-200...200).contains(value.y))
            #expect((-3200 ... -800).contains(value.z) == !dead)
        }
    }
}
