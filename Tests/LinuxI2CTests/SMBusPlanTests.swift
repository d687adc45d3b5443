import I2C
import LinuxI2C
import Testing

struct SMBusPlanTests {
    @Test func longReadIsChunkedBy32WithAdvancingRegister() {
        let steps = SMBusPlan.steps(for: [.write([0x10]), .read(count: 70)])
        #expect(steps == [
            .readBlock(register: 0x10, count: 32),
            .readBlock(register: 0x30, count: 32),
            .readBlock(register: 0x50, count: 6),
        ])
    }

    @Test func chunkOffsetsAndCounts() {
        let chunks = SMBusPlan.chunks(count: 70, from: 0x10)
        #expect(chunks.map(\.register) == [0x10, 0x30, 0x50])
        #expect(chunks.map(\.offset) == [0, 32, 64])
        #expect(chunks.map(\.count) == [32, 32, 6])
        #expect(SMBusPlan.chunks(count: 32, from: 0).count == 1)
        #expect(SMBusPlan.chunks(count: 0, from: 0).isEmpty)
    }

    @Test func registerWrapsPastFF() {
        #expect(SMBusPlan.chunks(count: 40, from: 0xF0).map(\.register) == [0xF0, 0x10])
    }

    @Test func oneByteReadUsesReadByteData() {
        #expect(SMBusPlan.steps(for: [.write([0x75]), .read(count: 1)]) == [.readByteData(register: 0x75)])
    }

    @Test func trailingSingleByteUsesByteDataTransfers() {
        #expect(SMBusPlan.steps(for: [.write([0x00]), .read(count: 33)]) == [
            .readBlock(register: 0x00, count: 32), .readByteData(register: 0x20),
        ])
        let values = (0..<33).map { UInt8($0) }
        #expect(SMBusPlan.steps(for: [.write([0x40] + values)]) == [
            .writeBlock(register: 0x40, values: Array(values[0..<32])),
            .writeByteData(register: 0x60, value: 32),
        ])
    }

    @Test func longWriteIsChunkedBy32() {
        let values = (0..<70).map { UInt8($0) }
        let steps = SMBusPlan.steps(for: [.write([0x10] + values)])
        #expect(steps == [
            .writeBlock(register: 0x10, values: Array(values[0..<32])),
            .writeBlock(register: 0x30, values: Array(values[32..<64])),
            .writeBlock(register: 0x50, values: Array(values[64..<70])),
        ])
    }

    @Test func registerWriteOfOneValueUsesWriteByteData() {
        #expect(SMBusPlan.steps(for: [.write([0x6B, 0x00])]) == [.writeByteData(register: 0x6B, value: 0x00)])
    }

    @Test func singleBytesAndQuick() {
        #expect(SMBusPlan.steps(for: [.write([0x3F])]) == [.sendByte(0x3F)])
        #expect(SMBusPlan.steps(for: [.write([])]) == [.quickWrite])
        #expect(SMBusPlan.steps(for: [.read(count: 3)]) == [.receiveByte, .receiveByte, .receiveByte])
    }

    @Test(arguments: [
        [I2COperation.write([0x00, 0x10]), .read(count: 2)],  // two-byte register address
        [.read(count: 1), .write([0x00])],
        [.write([0x00]), .read(count: 1), .read(count: 1)],
        [.write([0x00]), .write([0x01])],
        [],
    ])
    func sequencesSMBusCannotExpress(_ operations: [I2COperation]) {
        #expect(SMBusPlan.steps(for: operations) == nil)
    }

    @Test func stepsNeedTheMatchingFunctionality() {
        #expect(SMBusStep.readBlock(register: 0, count: 2).requiredFunctionality == .smbusReadI2CBlock)
        #expect(SMBusStep.writeBlock(register: 0, values: [1, 2]).requiredFunctionality == .smbusWriteI2CBlock)
        #expect(SMBusStep.quickWrite.requiredFunctionality == .smbusQuick)
        #expect(SMBusStep.receiveByte.requiredFunctionality == .smbusReadByte)
    }
}
