/// How a chip family frames register access on SPI: the command byte, the dummy bytes, and what
/// the chip must be told to stay on SPI. One value per family in its `ChipDescriptor` (`spi`);
/// ``SPIRegisterBus`` applies it, so the driver's register transactions run unchanged.
///
/// Every family this library drives puts the R/W bit in the MSB of the first byte (1 = read)
/// and the register address in the bits below it, then clocks the data.
package struct SPIFraming: Sendable, Equatable {
    /// OR-ed into the first byte of a read: the R/W bit.
    package var readBit: UInt8
    /// OR-ed into the first byte of a transfer of more than one data byte, for a chip that
    /// increments its register address only when told per transfer (ST's magnetometers and
    /// barometers: the MS bit, bit 6); 0 for a chip that increments by default.
    package var multipleBit: UInt8
    /// The bit of the driver's register byte that asks an I2C auto-increment (ST's magnetometers:
    /// the sub-address MSB); on SPI it is cleared and ``multipleBit`` set instead. 0: none.
    package var i2cAutoIncrementBit: UInt8
    /// Bytes the chip sends on MISO after the command byte of a read before the first data byte
    /// (Bosch's BMI270: one).
    package var readDummyBytes: Int
    /// A chip that starts on I2C and changes to SPI at a rising edge of its chip select (Bosch):
    /// the read that gives it that edge, nil for a chip on SPI from power-on.
    package var spiEnable: SPIEnable?
    /// Bits of a register that say which host interface the chip keeps, set to the SPI value on
    /// every write to it (the ICM-42600's UI_SIFS_CFG); nil for a chip without one.
    package var interfaceField: InterfaceField?

    package init(
        readBit: UInt8 = 0x80, multipleBit: UInt8 = 0, i2cAutoIncrementBit: UInt8 = 0, readDummyBytes: Int = 0,
        spiEnable: SPIEnable? = nil, interfaceField: InterfaceField? = nil
    ) {
        self.readBit = readBit
        self.multipleBit = multipleBit
        self.i2cAutoIncrementBit = i2cAutoIncrementBit
        self.readDummyBytes = readDummyBytes
        self.spiEnable = spiEnable
        self.interfaceField = interfaceField
    }

    /// A dummy read of `register` switches the chip to SPI: once before the first transaction,
    /// and again after each write of `resetValue` to `resetRegister` (a soft reset puts the chip
    /// back on I2C).
    package struct SPIEnable: Sendable, Equatable {
        package var register: UInt8
        package var resetRegister: UInt8
        package var resetValue: UInt8

        package init(register: UInt8, resetRegister: UInt8, resetValue: UInt8) {
            self.register = register
            self.resetRegister = resetRegister
            self.resetValue = resetValue
        }
    }

    /// `mask` of `register` written as `spiValue` whatever the driver writes there.
    package struct InterfaceField: Sendable, Equatable {
        package var register: UInt8
        package var mask: UInt8
        package var spiValue: UInt8

        package init(register: UInt8, mask: UInt8, spiValue: UInt8) {
            self.register = register
            self.mask = mask
            self.spiValue = spiValue
        }
    }

    /// The first byte of a transfer to `register` (the driver's register byte) carrying
    /// `dataCount` data bytes; nil for a register SPI cannot address (above 0x7F).
    package func command(register: UInt8, read: Bool, dataCount: Int) -> UInt8? {
        var address = register
        var multiple = dataCount > 1
        if i2cAutoIncrementBit != 0, address & i2cAutoIncrementBit != 0 {
            address &= ~i2cAutoIncrementBit
            multiple = true
        }
        guard address & (readBit | multipleBit) == 0 else { return nil }
        return address | (read ? readBit : 0) | (multiple ? multipleBit : 0)
    }
}
