import I2C
import MotionSimulator
import Testing
import Timing

/// ICM-42688-P bank-0 registers and bits from DS-000347 §14 (written here independently).
private enum Reg {
    static let deviceConfig: UInt8 = 0x11, fifoConfig: UInt8 = 0x16, tempData1: UInt8 = 0x1D
    static let intStatus: UInt8 = 0x2D, fifoCountH: UInt8 = 0x2E, fifoData: UInt8 = 0x30
    static let signalPathReset: UInt8 = 0x4B, pwrMgmt0: UInt8 = 0x4E, gyroConfig0: UInt8 = 0x4F
    static let accelConfig0: UInt8 = 0x50, fifoConfig1: UInt8 = 0x5F, selfTestConfig: UInt8 = 0x70
    static let whoAmI: UInt8 = 0x75, bankSel: UInt8 = 0x76
}

@Suite struct ICM42688EmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<ICM42688Emulator>(at: I2CAddress(0x68))

    /// Both sensors on in low-noise mode at `odr` (the code of both CONFIG0 registers), ±16 g and ±2000 °/s.
    func start(_ bus: SimulatedBus, odr: UInt8 = 0x06, fifo: Bool = false) throws {
        try bus.writeRegister(address, Reg.gyroConfig0, odr)
        try bus.writeRegister(address, Reg.accelConfig0, odr)
        try bus.writeRegister(address, Reg.pwrMgmt0, 0x0F)
        if fifo {
            try bus.writeRegister(address, Reg.fifoConfig1, 0x07)
            try bus.writeRegister(address, Reg.fifoConfig, 0x40)  // stream
        }
    }

    func fifoCount(_ bus: SimulatedBus) throws -> Int {
        let count = try bus.readRegisters(address, Reg.fifoCountH, count: 2)
        return Int(count[0]) << 8 | Int(count[1])
    }

    @Test func powerOnValues() throws {
        let bus = makeBus()
        #expect(try bus.readRegister(address, Reg.whoAmI) == 0x47)
        #expect(try bus.readRegisters(address, Reg.pwrMgmt0, count: 3) == [0x00, 0x06, 0x06])
        // Sensors off: every data register reads −32768.
        #expect(try bus.readRegisters(address, Reg.tempData1, count: 14) == Array(repeating: [0x80, 0x00], count: 7).flatMap { $0 })
        #expect(try bus.readRegister(address, Reg.intStatus) == 0x10)  // RESET_DONE_INT, cleared by the read
        #expect(try bus.readRegister(address, Reg.intStatus) == 0x00)
        let at69 = busWith(ICM42688Emulator.self, at: 0x69, clock: clock)
        #expect(try at69.readRegister(I2CAddress(0x69), Reg.whoAmI) == 0x47)
    }

    /// Temperature, accelerometer, gyroscope in one big-endian burst; °C = raw / 132.48 + 25.
    @Test func outputRegistersFollowTheInput() throws {
        let bus = makeBus(testState(accelerationG: SIMD3(0.25, -0.5, 1), rateDPS: SIMD3(10, -20, 30), temperature: 30))
        try start(bus)
        try bus.writeRegister(address, Reg.gyroConfig0, 2 << 5 | 0x06)  // ±500 °/s
        try bus.writeRegister(address, Reg.accelConfig0, 3 << 5 | 0x06)  // ±2 g
        let block = try bus.readRegisters(address, Reg.tempData1, count: 14)
        #expect(int16BE(block, 0) == Int16((5 * 132.48).rounded()))
        #expect(axesBE(block, from: 2) == expectedLSB(SIMD3(0.25, -0.5, 1), 1.0 / 16384))
        #expect(axesBE(block, from: 8) == expectedLSB(SIMD3(10, -20, 30), 1.0 / 65.5))
    }

    @Test func softResetRestoresPowerOnValues() throws {
        let bus = makeBus()
        try start(bus, fifo: true)
        try bus.writeRegister(address, Reg.deviceConfig, 0x01)
        #expect(try bus.readRegister(address, Reg.deviceConfig) == 0)
        #expect(try bus.readRegisters(address, Reg.pwrMgmt0, count: 3) == [0x00, 0x06, 0x06])
        #expect(try bus.readRegister(address, Reg.fifoConfig) == 0)
    }

    /// Packet 3 (header 0x68: accel, gyro, ODR timestamp), in order, the timestamps 1000 µs apart
    /// at 1 kHz on the chip's clock; an empty FIFO reads 0xFF.
    @Test func fifoPacketsInOrderWithTimestamps() throws {
        let bus = makeBus(testState(accelerationG: SIMD3(0, 0, 1), rateDPS: .zero, temperature: 35))
        try start(bus, fifo: true)
        clock.advance(by: 0.010)
        #expect(try fifoCount(bus) == 10 * 16)
        let bytes = try bus.readRegisters(address, Reg.fifoData, count: 10 * 16)
        let packets = stride(from: 0, to: bytes.count, by: 16).map { Array(bytes[$0..<($0 + 16)]) }
        #expect(packets.allSatisfy { $0[0] == 0x68 })
        #expect(packets.allSatisfy { axesBE($0, from: 1) == SIMD3(0, 0, 2048) && axesBE($0, from: 7) == .zero })
        #expect(packets.allSatisfy { Int8(bitPattern: $0[13]) == Int8((10 * 2.07).rounded()) })
        let timestamps = packets.map { UInt16($0[14]) << 8 | UInt16($0[15]) }
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $1 &- $0 == 1000 })
        #expect(try fifoCount(bus) == 0)
        #expect(try bus.readRegisters(address, Reg.fifoData, count: 2) == [0xFF, 0xFF])
    }

    /// A chip clock 1 % fast gives 101 packets in a second at 100 Hz, still 10 000 µs apart by its own clock.
    @Test func clockDriftAddsPackets() throws {
        let bus = makeBus(options: EmulatorOptions(clockDriftPPM: 10_000))
        try start(bus, odr: 0x08, fifo: true)
        clock.advance(by: 1)
        #expect(try fifoCount(bus) == 101 * 16)
        let bytes = try bus.readRegisters(address, Reg.fifoData, count: 101 * 16)
        let timestamps = stride(from: 0, to: bytes.count, by: 16).map { (start: Int) -> UInt16 in UInt16(bytes[start + 14]) << 8 | UInt16(bytes[start + 15]) }
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $1 &- $0 == 10_000 })
    }

    /// Stream mode keeps the newest 128 packets (2048 bytes) and sets FIFO_FULL_INT; a flush empties it.
    @Test func streamOverflowKeepsTheNewestPackets() throws {
        let bus = makeBus()
        try start(bus, fifo: true)
        clock.advance(by: 0.200)
        #expect(try bus.readRegister(address, Reg.intStatus) & 0x02 == 0x02)
        #expect(try fifoCount(bus) == 2048)
        let bytes = try bus.readRegisters(address, Reg.fifoData, count: 2 * 16)
        #expect(bytes[0] == 0x68 && bytes[16] == 0x68)
        #expect((UInt16(bytes[30]) << 8 | UInt16(bytes[31])) &- (UInt16(bytes[14]) << 8 | UInt16(bytes[15])) == 1000)
        try bus.writeRegister(address, Reg.signalPathReset, 0x02)  // FIFO_FLUSH
        #expect(try fifoCount(bus) == 0)
    }

    /// A new ODR while the FIFO runs: the next packet's header flags it (HEADER_ODR_ACCEL, _GYRO).
    @Test func rateChangeIsFlaggedInTheHeader() throws {
        let bus = makeBus()
        try start(bus, odr: 0x08, fifo: true)
        clock.advance(by: 0.010)
        #expect(try bus.readRegister(address, Reg.fifoData) == 0x68)
        _ = try bus.readRegisters(address, Reg.fifoData, count: 15)
        try bus.writeRegister(address, Reg.gyroConfig0, 0x07)
        try bus.writeRegister(address, Reg.accelConfig0, 0x07)
        clock.advance(by: 0.005)
        #expect(try bus.readRegister(address, Reg.fifoData) == 0x6B)
    }

    /// A dead gyroscope z reads 0, self-test included; the factory codes sit in banks 1 and 2.
    @Test func deadAxisAndSelfTest() throws {
        let bus = makeBus(testState(rateDPS: SIMD3(10, -20, 30)), options: EmulatorOptions(deadAxes: [.gyroscope(.z)]))
        try start(bus)
        try bus.writeRegister(address, Reg.selfTestConfig, 0x07)
        let gyro = axesBE(try bus.readRegisters(address, Reg.tempData1 + 8, count: 6))
        #expect(gyro.z == 0 && gyro.x > Int16((10 * 16.4).rounded()))
        try bus.writeRegister(address, Reg.bankSel, 1)
        #expect(try bus.readRegisters(address, 0x5F, count: 3) == [100, 100, 100])
        try bus.writeRegister(address, Reg.bankSel, 2)
        #expect(try bus.readRegisters(address, 0x3B, count: 3) == [100, 100, 100])
        try bus.writeRegister(address, Reg.bankSel, 0)
        #expect(try bus.readRegister(address, Reg.whoAmI) == 0x47)
    }
}
