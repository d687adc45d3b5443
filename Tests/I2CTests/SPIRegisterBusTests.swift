import I2C
import I2CMock
import Testing

/// ``SPIRegisterBus`` against the SPI frames each family's datasheet draws, written here from
/// the datasheets' interface sections.
@Suite struct SPIRegisterBusTests {
    /// R/W in bit 7, the address below it, data after; no dummy byte (LSM6DSOX DS12814 §6.2,
    /// ICM-42688-P DS-000347 §9).
    @Test func plainReadAndWrite() throws {
        let device = SPIExpectationBus([
            .transfer([0x8F, 0x00], reply: [0xFF, 0x6C]),
            .transfer([0x12, 0x44]),
            .transfer([0xA8, 0x00, 0x00, 0x00], reply: [0x00, 0x01, 0x02, 0x03]),
        ])
        let bus = SPIRegisterBus(device, framing: SPIFraming())
        #expect(try bus.readRegister(I2CAddress(0x6A), 0x0F) == 0x6C)
        try bus.writeRegister(I2CAddress(0x6A), 0x12, 0x44)
        #expect(try bus.readRegisters(I2CAddress(0x6A), 0x28, count: 3) == [1, 2, 3])
        try device.verify()
    }

    /// The BMI270's dummy byte (datasheet §6.4): the byte after the command is not data.
    @Test func dummyByteIsDropped() throws {
        let device = SPIExpectationBus([
            .transfer([0x80, 0x00, 0x00], reply: [0x00, 0xAA, 0x24]),
            .transfer([0x8C, 0x00, 0x00, 0x00], reply: [0x00, 0xAA, 0x10, 0x20]),
            .transfer([0x7E, 0xB6]),
        ])
        let bus = SPIRegisterBus(device, framing: SPIFraming(readDummyBytes: 1))
        #expect(try bus.readRegister(I2CAddress(0x68), 0x00) == 0x24)
        #expect(try bus.readRegisters(I2CAddress(0x68), 0x0C, count: 2) == [0x10, 0x20])
        try bus.writeRegister(I2CAddress(0x68), 0x7E, 0xB6)  // writes carry no dummy byte
        try device.verify()
    }

    /// The BMI160 starts on I2C: a read of 0x7F gives it the chip-select edge before the first
    /// access and again after a soft reset (CMD 0x7E = 0xB6), and not after other commands.
    @Test func boschInterfaceSelection() throws {
        let device = SPIExpectationBus([
            .transfer([0xFF, 0x00]),
            .transfer([0x80, 0x00], reply: [0x00, 0xD1]),
            .transfer([0x7E, 0xB6]),
            .transfer([0xFF, 0x00]),
            .transfer([0x7E, 0x11]),
            .transfer([0x7E, 0x15]),
        ])
        let bus = SPIRegisterBus(device, framing: SPIFraming(spiEnable: .init(register: 0x7F, resetRegister: 0x7E, resetValue: 0xB6)))
        #expect(try bus.readRegister(I2CAddress(0x68), 0x00) == 0xD1)
        try bus.writeRegister(I2CAddress(0x68), 0x7E, 0xB6)
        try bus.writeRegister(I2CAddress(0x68), 0x7E, 0x11)
        try bus.writeRegister(I2CAddress(0x68), 0x7E, 0x15)
        try device.verify()
    }

    /// ST's magnetometers ask for an increment with the sub-address MSB on I2C and with the MS
    /// bit (bit 6) on SPI (LIS3MDL DocID024204 §5.2 "SPI bus interface": bit 0 RW, bit 1 MS).
    @Test func stMagnetometerAutoIncrement() throws {
        let device = SPIExpectationBus([
            .transfer([0xE8, 0, 0, 0, 0, 0, 0], reply: [0, 1, 2, 3, 4, 5, 6]),
            .transfer([0x8F, 0x00], reply: [0x00, 0x3D]),
            .transfer([0x60, 0x70, 0x00]),
        ])
        let bus = SPIRegisterBus(device, framing: SPIFraming(multipleBit: 0x40, i2cAutoIncrementBit: 0x80))
        #expect(try bus.readRegisters(I2CAddress(0x1C), 0x28 | 0x80, count: 6) == [1, 2, 3, 4, 5, 6])
        #expect(try bus.readRegister(I2CAddress(0x1C), 0x0F) == 0x3D)
        try bus.writeRegisters(I2CAddress(0x1C), 0x20, [0x70, 0x00])
        try device.verify()
    }

    /// The ICM-42600 keeps one host interface (INTF_CONFIG0 UI_SIFS_CFG): on SPI the bus writes
    /// "disable I2C" (0b11) where a driver wrote "disable SPI" (0b10), the other bits as written.
    @Test func interfaceFieldIsSetForSPI() throws {
        let device = SPIExpectationBus([.transfer([0x4C, 0x33]), .transfer([0x4F, 0x47])])
        let bus = SPIRegisterBus(device, framing: SPIFraming(interfaceField: .init(register: 0x4C, mask: 0b11, spiValue: 0b11)))
        try bus.writeRegister(I2CAddress(0x68), 0x4C, 0x32)
        try bus.writeRegister(I2CAddress(0x68), 0x4F, 0x47)
        try device.verify()
    }

    /// What SPI register framing cannot carry is refused by name, not sent.
    @Test func unframeableTransactionsAreRefused() throws {
        let device = SPIExpectationBus([])
        let bus = SPIRegisterBus(device, framing: SPIFraming())
        for operations: [I2COperation] in [[.read(count: 2)], [.write([])], [.write([0x01, 0x02]), .read(count: 1)]] {
            #expect(failure { () throws(I2CError) in _ = try bus.transaction(I2CAddress(0x4A), operations) } == .notSupported)
        }
        #expect(failure { () throws(I2CError) in _ = try bus.readRegister(I2CAddress(0x6A), 0x80) } == .invalidArgument)
        try device.verify()
    }

    /// A reply of the wrong length and a failing transfer keep their kind, and an unexpected
    /// transfer is reported with its bytes.
    @Test func expectationBusChecksTransfers() throws {
        let device = SPIExpectationBus([.transfer([0x8F, 0x00], reply: [0, 0]).failing(.busError)])
        let bus = SPIRegisterBus(device, framing: SPIFraming())
        #expect(failure { () throws(I2CError) in _ = try bus.readRegister(I2CAddress(0x6A), 0x0F) } == .busError)
        #expect(failure { () throws(I2CError) in try bus.writeRegister(I2CAddress(0x6A), 0x10, 0x01) } == .other)
        #expect(device.problems == ["transaction #2 transfer [0x10, 0x01] was not expected (all expectations used)"])
        device.done()
    }
}

/// The kind of error `body` threw; nil when it returned.
private func failure(_ body: () throws(I2CError) -> Void) -> I2CError.Kind? {
    do { try body() } catch { return error.kind }
    return nil
}
