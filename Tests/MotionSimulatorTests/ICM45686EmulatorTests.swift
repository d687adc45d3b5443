import I2C
import MotionSimulator
import Testing
import Timing

/// ICM-45686 direct registers from the DS-000577 register map as the kernel's inv_icm45600.h
/// names them, and TMST_WOM_CONFIG from TDK's register header (written here independently).
private enum Reg {
    static let accelDataX: UInt8 = 0x00, tempData: UInt8 = 0x0C, pwrMgmt0: UInt8 = 0x10, int1Status0: UInt8 = 0x19
    static let accelConfig0: UInt8 = 0x1B, gyroConfig0: UInt8 = 0x1C, whoAmI: UInt8 = 0x72, misc2: UInt8 = 0x7F
    static let fifoCount: UInt8 = 0x12, fifoData: UInt8 = 0x14, int1Config0: UInt8 = 0x16, fifoConfig0: UInt8 = 0x1D
    static let fifoConfig2: UInt8 = 0x20, fifoConfig3: UInt8 = 0x21, fifoConfig4: UInt8 = 0x22, tmstWomConfig: UInt8 = 0x23
    static let iregAddress: UInt8 = 0x7C, iregData: UInt8 = 0x7E
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

    /// Both sensors low noise at `odr` (±32 g, ±4000 °/s); with `fifo`: SMC_CONTROL_0 TMST_EN
    /// (indirect 0xA258) and FIFO_CONFIG4 TMST_FSYNC_EN (timestamps in packets), FIFO_FULL
    /// reported, stream mode at the 8 KiB depth, accelerometer + gyroscope, writing on.
    func start(_ bus: SimulatedBus, odr: UInt8 = 0x05, fifo: Bool = false, timestamps: Bool = true) throws {
        try bus.writeRegister(address, Reg.gyroConfig0, odr)
        try bus.writeRegister(address, Reg.accelConfig0, odr)
        try bus.writeRegister(address, Reg.pwrMgmt0, 0x0F)
        guard fifo else { return }
        if timestamps {
            try bus.writeRegisters(address, Reg.iregAddress, [0xA2, 0x58, 0x01])
            try bus.writeRegister(address, Reg.fifoConfig4, 0x02)
        }
        try bus.writeRegister(address, Reg.int1Config0, 0x01)
        try bus.writeRegister(address, Reg.fifoConfig0, 0x40 | 0x1F)
        try bus.writeRegister(address, Reg.fifoConfig3, 0x07)
    }

    /// FIFO_COUNT: packets, little-endian.
    func fifoCount(_ bus: SimulatedBus) throws -> Int {
        let count = try bus.readRegisters(address, Reg.fifoCount, count: 2)
        return Int(count[0]) | Int(count[1]) << 8
    }

    func packets(_ bus: SimulatedBus, _ count: Int) throws -> [[UInt8]] {
        let bytes = try bus.readRegisters(address, Reg.fifoData, count: count * 16)
        return stride(from: 0, to: bytes.count, by: 16).map { Array(bytes[$0..<($0 + 16)]) }
    }

    /// 16-byte packets (header 0x68: accelerometer, gyroscope, ODR timestamp), little-endian
    /// axes, int8 temperature at 2 LSB/°C + 25, timestamps 625 µs apart at 1.6 kHz on the chip's
    /// clock; FIFO_COUNT counts packets; an empty FIFO reads 0xFF (bit 7: no packet).
    @Test func fifoPacketsInOrderWithTimestamps() throws {
        let bus = makeBus(testState(accelerationG: SIMD3(0, 0, 1), rateDPS: SIMD3(10, 0, 0), temperature: 35))
        try start(bus, fifo: true)
        clock.advance(by: 0.00625)
        #expect(try fifoCount(bus) == 10)
        let packets = try packets(bus, 10)
        #expect(packets.allSatisfy { $0[0] == 0x68 })
        #expect(packets.allSatisfy { axesLE($0, from: 1) == SIMD3(0, 0, 1024) && axesLE($0, from: 7) == expectedLSB(SIMD3(10, 0, 0), 1 / 8.2) })
        #expect(packets.allSatisfy { Int8(bitPattern: $0[13]) == 20 })
        let timestamps = packets.map { UInt16($0[14]) | UInt16($0[15]) << 8 }
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $1 &- $0 == 625 })
        #expect(try fifoCount(bus) == 0)
        #expect(try bus.readRegisters(address, Reg.fifoData, count: 2) == [0xFF, 0xFF])
    }

    /// TMST_WOM_CONFIG TMST_RESOL (bit 5) = 1: the counter steps in 16 µs (625 µs = 39.06 counts);
    /// without TMST_EN / TMST_FSYNC_EN the packets carry no timestamp (header bits 3:2 = 00).
    @Test func timestampResolutionAndEnables() throws {
        let bus = makeBus()
        try bus.writeRegister(address, Reg.tmstWomConfig, 0x20)
        try start(bus, odr: 0x08, fifo: true)  // 200 Hz: 5000 µs = 312.5 counts of 16 µs
        clock.advance(by: 0.0201)
        let stamps = try packets(bus, 4).map { UInt16($0[14]) | UInt16($0[15]) << 8 }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { (earlier: UInt16, later: UInt16) -> Bool in
            let step = later &- earlier
            return step == 312 || step == 313
        }, "\(stamps)")
        let plain = makeBus()
        try start(plain, odr: 0x08, fifo: true, timestamps: false)
        clock.advance(by: 0.0101)
        #expect(try packets(plain, 2).allSatisfy { $0[0] == 0x60 && $0[14] == 0 && $0[15] == 0 })
    }

    /// The indirect window: IREG_ADDR (big-endian address) then IREG_DATA, the address counting up per byte.
    @Test func indirectRegistersReadBackWhatWasWritten() throws {
        let bus = makeBus()
        try bus.writeRegisters(address, Reg.iregAddress, [0xA2, 0x58, 0x11, 0x22])
        try bus.writeRegisters(address, Reg.iregAddress, [0xA2, 0x58])
        #expect(try bus.readRegister(address, Reg.iregData) == 0x11)
        #expect(try bus.readRegister(address, Reg.iregData) == 0x22)
    }

    /// A chip clock 1 % fast gives 101 packets in a second at 100 Hz, still 10 000 µs apart by its own clock.
    @Test func clockDriftAddsPackets() throws {
        let bus = makeBus(options: EmulatorOptions(clockDriftPPM: 10_000))
        try start(bus, odr: 0x09, fifo: true)
        clock.advance(by: 1)
        #expect(try fifoCount(bus) == 101)
        let stamps = try packets(bus, 101).map { UInt16($0[14]) | UInt16($0[15]) << 8 }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 &- $0 == 10_000 })
    }

    /// Stream mode keeps the newest 512 packets (8 KiB) and sets FIFO_FULL (INT1_CONFIG0
    /// FIFO_FULL_EN on), which the read clears; a flush empties it; without FIFO_FULL_EN no flag.
    @Test func streamOverflowKeepsTheNewestPackets() throws {
        let bus = makeBus()
        try start(bus, fifo: true)
        clock.advance(by: 0.5)  // 800 packets at 1.6 kHz
        #expect(try bus.readRegister(address, Reg.int1Status0) & 0x01 == 0x01)
        #expect(try bus.readRegister(address, Reg.int1Status0) & 0x01 == 0x00)
        #expect(try fifoCount(bus) == 512)
        let two = try packets(bus, 2)
        #expect(two[0][0] == 0x68 && two[1][0] == 0x68)
        #expect((UInt16(two[1][14]) | UInt16(two[1][15]) << 8) &- (UInt16(two[0][14]) | UInt16(two[0][15]) << 8) == 625)
        try bus.writeRegister(address, Reg.fifoConfig2, 0x80)  // FIFO_FLUSH
        #expect(try fifoCount(bus) == 0)
        try bus.writeRegister(address, Reg.int1Config0, 0x00)
        clock.advance(by: 0.5)
        #expect(try fifoCount(bus) == 512)
        #expect(try bus.readRegister(address, Reg.int1Status0) & 0x01 == 0x00)
    }

    /// Stop-on-full mode holds 512 packets and flags FIFO_FULL; bypass takes none; IF_EN off takes none.
    @Test func stopOnFullBypassAndWritingOff() throws {
        let bus = makeBus()
        try start(bus, fifo: true)
        try bus.writeRegister(address, Reg.fifoConfig0, 0x80 | 0x1F)  // stop on full
        clock.advance(by: 0.5)
        #expect(try fifoCount(bus) == 512)
        #expect(try bus.readRegister(address, Reg.int1Status0) & 0x01 == 0x01)
        for (config0, config3) in [(UInt8(0x1F), UInt8(0x07)), (0x5F, 0x06)] {
            try bus.writeRegister(address, Reg.fifoConfig2, 0x80)
            try bus.writeRegister(address, Reg.fifoConfig0, config0)
            try bus.writeRegister(address, Reg.fifoConfig3, config3)
            clock.advance(by: 0.01)
            #expect(try fifoCount(bus) == 0)
        }
    }

    /// A new ODR while the FIFO runs: the next packet's header flags it (HEADER_ODR_ACCEL, _GYRO).
    @Test func rateChangeIsFlaggedInTheHeader() throws {
        let bus = makeBus()
        try start(bus, odr: 0x09, fifo: true)  // 100 Hz: one packet in 10 ms
        clock.advance(by: 0.010)
        #expect(try packets(bus, 1)[0][0] == 0x68)
        try bus.writeRegister(address, Reg.gyroConfig0, 0x08)
        try bus.writeRegister(address, Reg.accelConfig0, 0x08)
        clock.advance(by: 0.005)
        #expect(try bus.readRegister(address, Reg.fifoData) == 0x6B)
    }

    /// One sensor in the FIFO: 8-byte packets (header, axes, temperature), no timestamp.
    @Test func oneSensorPackets() throws {
        let bus = makeBus(testState(accelerationG: SIMD3(0, 0, 1)))
        try start(bus, odr: 0x08, fifo: true)
        try bus.writeRegister(address, Reg.fifoConfig3, 0x03)  // accelerometer only
        try bus.writeRegister(address, Reg.fifoConfig2, 0x80)
        clock.advance(by: 0.0101)
        #expect(try fifoCount(bus) == 2)
        let bytes = try bus.readRegisters(address, Reg.fifoData, count: 16)
        #expect(bytes[0] == 0x40 && bytes[8] == 0x40 && axesLE(bytes, from: 1) == SIMD3(0, 0, 1024))
    }
}
