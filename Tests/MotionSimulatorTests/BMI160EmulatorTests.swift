import I2C
import MotionSimulator
import Testing
import Timing

/// BMI160 registers from the datasheet BST-BMI160-DS000 §2.11, written here for the test.
private enum Reg {
    static let chipID: UInt8 = 0x00, pmuStatus: UInt8 = 0x03, dataGyr: UInt8 = 0x0C, dataAcc: UInt8 = 0x12
    static let sensorTime: UInt8 = 0x18, status: UInt8 = 0x1B, temperature: UInt8 = 0x20
    static let fifoLength: UInt8 = 0x22, fifoData: UInt8 = 0x24
    static let accConf: UInt8 = 0x40, accRange: UInt8 = 0x41, gyrConf: UInt8 = 0x42, gyrRange: UInt8 = 0x43
    static let fifoConfig1: UInt8 = 0x47, selfTest: UInt8 = 0x6D, cmd: UInt8 = 0x7E
}

private let bmi = I2CAddress(0x68)

@Suite struct BMI160EmulatorTests {
    let clock = VirtualClock()

    func bus(_ source: any PhysicalSource = testState(), options: EmulatorOptions = .init()) -> SimulatedBus {
        busWith(BMI160Emulator.self, source: source, options: options, at: 0x68, clock: clock)
    }

    /// Both sensors running: CMD 0x11 (accelerometer normal), 0x15 (gyroscope normal).
    func start(_ bus: SimulatedBus) throws {
        try bus.writeRegister(bmi, Reg.cmd, 0x11)
        try bus.writeRegister(bmi, Reg.cmd, 0x15)
    }

    @Test func powerOnValuesAndSuspendedSensors() throws {
        let bus = bus()
        clock.advance(by: 1)
        #expect(try bus.readRegister(bmi, Reg.chipID) == 0xD1)
        #expect(try bus.readRegister(bmi, Reg.pmuStatus) == 0x00)  // both suspended
        #expect(try bus.readRegisters(bmi, Reg.accConf, count: 4) == [0x28, 0x03, 0x28, 0x00])
        #expect(try bus.readRegister(bmi, Reg.fifoConfig1) == 0x10)
        #expect(try bus.readRegisters(bmi, Reg.dataGyr, count: 12) == Array(repeating: 0, count: 12))
        #expect(try bus.readRegister(bmi, 0x75) == 0x00)  // reserved: not an MPU's WHO_AM_I
    }

    @Test func powerModeCommandsShowInPMUStatusAndSoftResetUndoesThem() throws {
        let bus = bus()
        try bus.writeRegister(bmi, Reg.cmd, 0x11)
        #expect(try bus.readRegister(bmi, Reg.pmuStatus) == 0b0001_0000)
        try bus.writeRegister(bmi, Reg.cmd, 0x15)
        #expect(try bus.readRegister(bmi, Reg.pmuStatus) == 0b0001_0100)
        try bus.writeRegisters(bmi, Reg.accConf, [0x2C, 0x0C])
        try bus.writeRegister(bmi, Reg.cmd, 0xB6)
        #expect(try bus.readRegister(bmi, Reg.pmuStatus) == 0)
        #expect(try bus.readRegisters(bmi, Reg.accConf, count: 2) == [0x28, 0x03])
        try bus.writeRegister(bmi, Reg.chipID, 0x00)  // read-only
        #expect(try bus.readRegister(bmi, Reg.chipID) == 0xD1)
    }

    /// ACC_RANGE 0x03/0x05/0x08/0x0C → 16384/8192/4096/2048 LSB/g; GYR_RANGE 0…4 →
    /// 16.4…262.4 LSB/(°/s) (§1 Tables 1–2); one burst from 0x0C: gyroscope, then accelerometer.
    @Test(arguments: [(UInt8(0x03), 16384.0, UInt8(4), 262.4), (0x05, 8192, 3, 131.2), (0x08, 4096, 2, 65.6), (0x0C, 2048, 0, 16.4)])
    func encodingAtEachRange(accRange: UInt8, lsbPerG: Double, gyrRange: UInt8, lsbPerDPS: Double) throws {
        let accel = SIMD3(0.25, -0.5, 1.0), rate = SIMD3(10.0, -20, 30)
        let bus = bus(testState(accelerationG: accel, rateDPS: rate))
        try start(bus)
        try bus.writeRegister(bmi, Reg.accRange, accRange)
        try bus.writeRegister(bmi, Reg.gyrRange, gyrRange)
        bus.clearLog()
        let block = try bus.readRegisters(bmi, Reg.dataGyr, count: 12)
        #expect(bus.log.count == 1)
        #expect(axesLE(block) == expectedLSB(rate, 1 / lsbPerDPS))
        #expect(axesLE(block, from: 6) == expectedLSB(accel, 1 / lsbPerG))
    }

    /// TEMPERATURE: 0 = 23 °C, 2⁻⁹ K per LSB; SENSORTIME: 39.0625 µs per LSB.
    @Test func temperatureAndSensorTime() throws {
        let bus = bus(testState(temperature: 30))
        #expect(try bus.readRegisters(bmi, Reg.temperature, count: 2) == [0x00, 0x80])  // suspended: invalid
        try start(bus)
        #expect(int16LE(try bus.readRegisters(bmi, Reg.temperature, count: 2), 0) == 7 * 512)
        func sensorTime() throws -> Int {
            let bytes = try bus.readRegisters(bmi, Reg.sensorTime, count: 3)
            return Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16
        }
        let before = try sensorTime()
        clock.advance(by: 0.5)
        #expect((try sensorTime() - before) & 0xFF_FFFF == 12800)  // 0.5 s / 39.0625 µs
    }

    /// Both sensors at 100 Hz (ODR code 8) sensing `accel` (g) and `rate` (°/s), FIFO_CONFIG_1 =
    /// `fifoConfig1`, then `seconds` (0.105 s: 10 frames), and FIFO_LENGTH.
    func fifo(_ fifoConfig1: UInt8, after seconds: Double = 0.105) throws
        -> (bus: SimulatedBus, accel: SIMD3<Double>, rate: SIMD3<Double>, length: Int) {
        let accel = SIMD3(0.25, -0.5, 1.0), rate = SIMD3(10.0, -20, 30)
        let bus = bus(testState(accelerationG: accel, rateDPS: rate))
        try start(bus)
        try bus.writeRegister(bmi, Reg.fifoConfig1, fifoConfig1)
        clock.advance(by: seconds)
        let length = try bus.readRegisters(bmi, Reg.fifoLength, count: 2)
        return (bus, accel, rate, Int(length[0]) | Int(length[1]) << 8)
    }

    /// 100 Hz (ODR code 8), FIFO_CONFIG_1 0xC0: headerless 12-byte frames gyr then acc; FIFO_DATA
    /// does not advance the register pointer; an empty FIFO reads 0x80; CMD 0xB0 flushes.
    @Test func headerlessFIFO() throws {
        let (bus, accel, rate, length) = try fifo(0xC0)
        #expect(length == 120)
        #expect(try bus.readRegister(bmi, Reg.status) & 0xC0 == 0xC0)  // drdy_acc, drdy_gyr
        bus.clearLog()
        let bytes = try bus.readRegisters(bmi, Reg.fifoData, count: 121)
        #expect(bus.log.count == 1)
        for frame in 0..<10 {
            #expect(axesLE(bytes, from: frame * 12) == expectedLSB(rate, 1 / 16.4))
            #expect(axesLE(bytes, from: frame * 12 + 6) == expectedLSB(accel, 1.0 / 16384))
        }
        #expect(bytes[120] == 0x80)
        clock.advance(by: 0.05)
        try bus.writeRegister(bmi, Reg.cmd, 0xB0)
        #expect(try bus.readRegisters(bmi, Reg.fifoLength, count: 2) == [0, 0])
    }

    /// Header mode (the reset value 0x10 plus sensors): each frame starts with 0x8C (regular
    /// frame, gyroscope and accelerometer).
    @Test func headerModeFramesAndOverflowKeepsTheNewest() throws {
        let bus = bus()
        try start(bus)
        try bus.writeRegister(bmi, Reg.fifoConfig1, 0xD0)
        clock.advance(by: 0.025)
        let frames = try bus.readRegisters(bmi, Reg.fifoData, count: 26)
        #expect(frames[0] == 0x8C && frames[13] == 0x8C)
        try bus.writeRegister(bmi, Reg.fifoConfig1, 0xC0)
        try bus.writeRegister(bmi, Reg.cmd, 0xB0)
        clock.advance(by: 2)  // 200 frames of 12 bytes: only the newest 85 fit in 1024 bytes
        let length = try bus.readRegisters(bmi, Reg.fifoLength, count: 2)
        #expect(Int(length[0]) | Int(length[1]) << 8 == 1020)
    }

    /// Header mode with fifo_time_en (FIFO_CONFIG_1 0xD2) at 100 Hz: 13-byte frames 0x8C, gyr
    /// then acc; read past the fill level, the sensortime frame (0x44, 24-bit little-endian) of
    /// the last frame, once per burst, then 0x80. Its value lies within one period (256 LSB at
    /// 100 Hz) before SENSORTIME at the read.
    @Test func headerModeSensorTimeFrameAfterTheLastFrame() throws {
        let (bus, accel, rate, length) = try fifo(0xD2)
        #expect(length == 130)
        let bytes = try bus.readRegisters(bmi, Reg.fifoData, count: 136)
        for frame in 0..<10 {
            #expect(bytes[frame * 13] == 0x8C)
            #expect(axesLE(bytes, from: frame * 13 + 1) == expectedLSB(rate, 1 / 16.4))
            #expect(axesLE(bytes, from: frame * 13 + 7) == expectedLSB(accel, 1.0 / 16384))
        }
        #expect(bytes[130] == 0x44)
        #expect(Array(bytes[134...]) == [0x80, 0x80])
        let stamp = Int(bytes[131]) | Int(bytes[132]) << 8 | Int(bytes[133]) << 16
        let register = try bus.readRegisters(bmi, Reg.sensorTime, count: 3)
        let now = Int(register[0]) | Int(register[1]) << 8 | Int(register[2]) << 16
        #expect(now - stamp >= 0 && now - stamp < 256, "sensortime \(stamp), register \(now)")
        // The next burst past the (empty) FIFO: the same sensortime frame again.
        #expect(try bus.readRegisters(bmi, Reg.fifoData, count: 5) == Array(bytes[130..<134]) + [0x80])
        // Headerless or without fifo_time_en: 0x80 only.
        try bus.writeRegister(bmi, Reg.fifoConfig1, 0xD0)
        #expect(try bus.readRegisters(bmi, Reg.fifoData, count: 2) == [0x80, 0x80])
    }

    /// The sensortime counts the chip's own oscillator: 300 ppm fast, 100 s of simulation time
    /// read 100.03 s of sensortime (2 560 768 LSB, within one).
    @Test func sensorTimeRunsOnTheChipClock() throws {
        let bus = bus(options: EmulatorOptions(clockDriftPPM: 300))
        try start(bus)
        func sensorTime() throws -> Int {
            let bytes = try bus.readRegisters(bmi, Reg.sensorTime, count: 3)
            return Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16
        }
        let before = try sensorTime()
        clock.advance(by: 100)
        #expect(abs((try sensorTime() - before) & 0xFF_FFFF - 2_560_768) <= 1)
    }

    /// A full FIFO in header mode: 2 s at 100 Hz is 200 frames; the newest 78 stay (with the 2-byte
    /// skip frame, 1016 of 1024 bytes), led by a skip frame counting the 122 dropped.
    @Test func skipFrameCountsTheFramesAFullFIFODropped() throws {
        let (bus, _, _, length) = try fifo(0xD2, after: 2)
        #expect(length == 1016)
        let head = try bus.readRegisters(bmi, Reg.fifoData, count: 2 + 13)
        #expect(Array(head[0..<2]) == [0x40, 122])
        #expect(head[2] == 0x8C)
        let rest = try bus.readRegisters(bmi, Reg.fifoLength, count: 2)
        #expect(Int(rest[0]) | Int(rest[1]) << 8 == 77 * 13)
    }

    /// SELF_TEST: acc_self_test_enable 01 with amp high deflects each axis ±1.6 g by sign;
    /// gyr_self_test_enable sets STATUS gyr_self_test_ok unless a gyroscope axis is dead.
    @Test func selfTestBits() throws {
        let bus = bus(testState(accelerationG: .zero))
        try start(bus)
        try bus.writeRegister(bmi, Reg.accRange, 0x08)
        try bus.writeRegister(bmi, Reg.selfTest, 0x0D)
        let positive = axesLE(try bus.readRegisters(bmi, Reg.dataAcc, count: 6))
        try bus.writeRegister(bmi, Reg.selfTest, 0x09)
        let negative = axesLE(try bus.readRegisters(bmi, Reg.dataAcc, count: 6))
        #expect(positive == expectedLSB(SIMD3(repeating: 1.6), 1.0 / 4096))
        #expect(negative == expectedLSB(SIMD3(repeating: -1.6), 1.0 / 4096))
        try bus.writeRegister(bmi, Reg.selfTest, 0x10)
        #expect(try bus.readRegister(bmi, Reg.status) & 0x02 == 0x02)
        #expect(try bus.readRegister(bmi, Reg.selfTest) == 0x00)

        let broken = self.bus(options: EmulatorOptions(deadAxes: [.gyroscope(.x)]))
        try start(broken)
        try broken.writeRegister(bmi, Reg.selfTest, 0x10)
        #expect(try broken.readRegister(bmi, Reg.status) & 0x02 == 0)
    }
}
