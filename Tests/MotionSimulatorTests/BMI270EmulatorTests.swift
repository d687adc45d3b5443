import Foundation
import I2C
@testable import MotionSimulator
import Testing
import Timing

/// BMI270 registers from the datasheet BST-BMI270-DS000, written here for the test.
private enum Reg {
    static let chipID: UInt8 = 0x00, status: UInt8 = 0x03, dataAcc: UInt8 = 0x0C, dataGyr: UInt8 = 0x12
    static let sensorTime: UInt8 = 0x18, internalStatus: UInt8 = 0x21, fifoLength: UInt8 = 0x24, fifoData: UInt8 = 0x26
    static let featPage: UInt8 = 0x2F, features: UInt8 = 0x30
    static let accConf: UInt8 = 0x40, accRange: UInt8 = 0x41, gyrConf: UInt8 = 0x42, gyrRange: UInt8 = 0x43
    static let fifoConfig0: UInt8 = 0x48, fifoConfig1: UInt8 = 0x49
    static let initCtrl: UInt8 = 0x59, initAddr0: UInt8 = 0x5B, initData: UInt8 = 0x5E
    static let pwrConf: UInt8 = 0x7C, pwrCtrl: UInt8 = 0x7D, cmd: UInt8 = 0x7E
}

@Suite struct BMI270EmulatorTests: EmulatorSuite {
    let chip = EmulatorUnderTest<BMI270Emulator>(at: I2CAddress(0x68))

    /// A stand-in for Bosch's configuration file: the emulator accepts only the published bytes,
    /// which live in the driver's module; this suite checks the emulator's side with the file's
    /// length and CRC-32 and uploads with both right and wrong contents.
    static func file(matching crc: Bool) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: BMI270Chip.configFileLength)
        guard crc else { return bytes }
        // Four bytes at the end chosen so the CRC-32 is the published file's: a CRC is linear,
        // so any 32 free bits can reach any value (found by solving for them below).
        bytes.replaceSubrange((bytes.count - 4)..., with: Self.crcFix(bytes.dropLast(4), target: BMI270Chip.configFileCRC32))
        return bytes
    }

    /// The four bytes that, appended to `prefix`, give the CRC-32 `target` (the standard
    /// reverse-CRC: run the register backwards through the table from the target).
    static func crcFix(_ prefix: ArraySlice<UInt8>, target: UInt32) -> [UInt8] {
        var table = [UInt32](repeating: 0, count: 256)
        for index in 0..<256 {
            var c = UInt32(index)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
            table[index] = c
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in prefix { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        // Backwards from the wanted register value: each step's top byte names the table entry.
        var wanted = ~target
        var indices = [Int](repeating: 0, count: 4)
        for step in (0..<4).reversed() {
            let index = table.firstIndex { $0 >> 24 == wanted >> 24 } ?? 0
            indices[step] = index
            wanted = ((wanted ^ table[index]) << 8)
        }
        var state = crc
        var fix: [UInt8] = []
        for index in indices {
            let byte = UInt8((UInt32(index) ^ state) & 0xFF)
            fix.append(byte)
            state = table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8)
        }
        return fix
    }

    /// INIT_CTRL = 0, `file` in 64-byte bursts behind INIT_ADDR, INIT_CTRL = 1.
    func upload(_ file: [UInt8], on bus: SimulatedBus, powerSave: Bool = false) throws {
        try bus.writeRegister(address, Reg.pwrConf, powerSave ? 0x03 : 0x00)
        try bus.writeRegister(address, Reg.initCtrl, 0x00)
        for start in stride(from: 0, to: file.count, by: 64) {
            try bus.writeRegisters(address, Reg.initAddr0, [UInt8((start / 2) & 0x0F), UInt8((start / 2) >> 4)])
            try bus.writeRegisters(address, Reg.initData, Array(file[start..<(start + 64)]))
        }
        try bus.writeRegister(address, Reg.initCtrl, 0x01)
    }

    @Test func theCRCOfTheStandInIsThePublishedFilesOrNot() {
        #expect(BMI270Chip.crc32(Self.file(matching: true)) == BMI270Chip.configFileCRC32)
        #expect(BMI270Chip.crc32(Self.file(matching: false)) != BMI270Chip.configFileCRC32)
        #expect(BMI270Chip.crc32(Array("123456789".utf8)) == 0xCBF4_3926)  // the CRC-32 check value
    }

    @Test func powerOnValues() throws {
        let bus = makeBus()
        clock.advance(by: 1)
        #expect(try bus.readRegister(address, Reg.chipID) == 0x24)
        #expect(try bus.readRegister(address, Reg.internalStatus) == 0x00)  // not_init
        #expect(try bus.readRegisters(address, Reg.accConf, count: 4) == [0xA8, 0x02, 0xA9, 0x00])
        #expect(try bus.readRegisters(address, Reg.fifoConfig0, count: 2) == [0x02, 0x10])
        #expect(try bus.readRegisters(address, Reg.pwrConf, count: 2) == [0x03, 0x00])
        #expect(try bus.readRegister(address, 0x75) == 0x00)  // reserved: not an MPU's WHO_AM_I
    }

    @Test func theEngineStartsOnlyOnTheRightFile() throws {
        let bus = makeBus()
        try upload(Self.file(matching: false), on: bus)
        #expect(try bus.readRegister(address, Reg.internalStatus) == 0x02)  // init_err
        try upload(Self.file(matching: true), on: bus)
        #expect(try bus.readRegister(address, Reg.internalStatus) == 0x01)  // init_ok
        try bus.writeRegister(address, Reg.cmd, 0xB6)  // soft reset: the file is gone
        #expect(try bus.readRegister(address, Reg.internalStatus) == 0x00)
    }

    @Test func anUploadWithAdvancedPowerSaveOnOrTwiceToOnePlaceFails() throws {
        let bus = makeBus()
        try upload(Self.file(matching: true), on: bus, powerSave: true)
        #expect(try bus.readRegister(address, Reg.internalStatus) == 0x02)
        // Every burst without INIT_ADDR: the second lands where the first ended, and so on, but
        // one INIT_ADDR back to 0 after the end writes a place twice.
        let file = Self.file(matching: true)
        try bus.writeRegister(address, Reg.pwrConf, 0x00)
        try bus.writeRegister(address, Reg.initCtrl, 0x00)
        try bus.writeRegisters(address, Reg.initData, file)
        try bus.writeRegisters(address, Reg.initAddr0, [0, 0])
        try bus.writeRegisters(address, Reg.initData, [file[0]])
        try bus.writeRegister(address, Reg.initCtrl, 0x01)
        #expect(try bus.readRegister(address, Reg.internalStatus) == 0x02)
    }

    @Test func sensorsSampleOnlyOnceInitialised() throws {
        let bus = makeBus(testState(accelerationG: SIMD3(0.25, -0.5, 1), rateDPS: SIMD3(10, -20, 30)))
        try bus.writeRegister(address, Reg.pwrCtrl, 0x0E)
        clock.advance(by: 0.1)
        #expect(try bus.readRegisters(address, Reg.dataAcc, count: 12) == Array(repeating: 0, count: 12))
        try upload(Self.file(matching: true), on: bus)
        try bus.writeRegister(address, Reg.pwrCtrl, 0x0E)
        clock.advance(by: 0.1)
        #expect(try bus.readRegister(address, Reg.status) & 0xC0 == 0xC0)
        let bytes = try bus.readRegisters(address, Reg.dataAcc, count: 12)
        // Reset ranges: ±8 g (4096 LSB/g), ±2000 °/s (16.4 LSB/(°/s)); accelerometer first.
        #expect(axesLE(bytes) == expectedLSB(SIMD3(0.25, -0.5, 1), 1 / 4096.0))
        #expect(axesLE(bytes, from: 6) == expectedLSB(SIMD3(10, -20, 30), 1 / 16.4))
        #expect(try bus.readRegister(address, Reg.status) & 0xC0 == 0)  // cleared by the read
    }

    /// Header-mode FIFO: frames 0x8C with gyroscope then accelerometer, then past the fill level
    /// the sensortime frame (0x44 and 24 bits) of the last frame, then 0x80.
    @Test func fifoHeaderFramesAndSensortime() throws {
        let bus = makeBus()
        try upload(Self.file(matching: true), on: bus)
        try bus.writeRegister(address, Reg.gyrConf, 0xA9)   // 200 Hz
        try bus.writeRegister(address, Reg.accConf, 0xA9)
        try bus.writeRegister(address, Reg.fifoConfig1, 0xD0)  // gyr, acc, header
        try bus.writeRegister(address, Reg.pwrCtrl, 0x0E)
        clock.advance(by: 0.0501)  // 10 frames at 200 Hz
        let lengthBytes = try bus.readRegisters(address, Reg.fifoLength, count: 2)
        let length = Int(lengthBytes[0]) | Int(lengthBytes[1] & 0x3F) << 8
        #expect(length == 10 * 13)
        let bytes = try bus.readRegisters(address, Reg.fifoData, count: length + 5)
        for frame in 0..<10 { #expect(bytes[frame * 13] == 0x8C) }
        #expect(bytes[length] == 0x44)
        // SENSORTIME counts the simulation time, 24 bits of 39.0625 µs (655.36 s): the last frame's
        // is within one 200 Hz period before now.
        let sensorTime = Double(UInt32(bytes[length + 1]) | UInt32(bytes[length + 2]) << 8 | UInt32(bytes[length + 3]) << 16) * 39.0625e-6
        let now = clock.now.truncatingRemainder(dividingBy: 655.36)
        #expect(sensorTime <= now + 39.0625e-6 && sensorTime > now - 0.005 - 39.0625e-6, "\(sensorTime) \(now)")
        #expect(bytes[length + 4] == 0x80)
    }

    /// The step counter's enable (page 6, byte 3 bit 4) and count (page 0, bytes 0…3): a jolt above
    /// 1.15 g is a step, at most one per 0.25 s.
    @Test func stepCounterFeaturePages() throws {
        struct Jolts: PhysicalSource {
            func state(at time: Double) -> PhysicalState {
                var state = PhysicalState.flatAtRest(time: time)
                if time >= 0.25, (time - 0.25).truncatingRemainder(dividingBy: 0.5) < 0.05 { state.specificForce.z *= 1.3 }
                return state
            }
        }
        let bus = makeBus(Jolts())
        try upload(Self.file(matching: true), on: bus)
        try bus.writeRegister(address, Reg.pwrCtrl, 0x04)  // accelerometer, 100 Hz
        try bus.writeRegister(address, Reg.featPage, 6)
        var page = try bus.readRegisters(address, Reg.features, count: 16)
        page[3] |= 0x10
        try bus.writeRegisters(address, Reg.features, page)
        clock.advance(by: 2.2)  // jolts at 0.25, 0.75, 1.25 and 1.75 s
        try bus.writeRegister(address, Reg.featPage, 0)
        let count = try bus.readRegisters(address, Reg.features, count: 4)
        #expect(count == [4, 0, 0, 0])
        try bus.writeRegister(address, Reg.featPage, 6)
        #expect(try bus.readRegister(address, Reg.features + 3) & 0x10 != 0)  // the page kept the enable
    }
}
