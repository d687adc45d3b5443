import I2C

/// Each family's SPI framing, as its descriptor names it (``ChipDescriptor/spi``).
extension SPIFraming {
    /// ST's LSM6 family: R/W in bit 7 (1 = read), the 7-bit address below it, no dummy byte;
    /// multi-byte access increments the address while CTRL3_C IF_INC (bit 2) is set, its reset
    /// value and what the driver writes (LSM6DSOX DS12814 §6.2 "SPI bus interface" and CTRL3_C
    /// (12h); Linux st_lsm6dsx_spi.c: a plain regmap, read flag bit 7).
    package static let stLSM6 = SPIFraming()

    /// TDK InvenSense ICM-42600: R/W in bit 7, no dummy byte (DS-000347 §9 "Digital interface", SPI);
    /// INTF_CONFIG0 (0x4C) UI_SIFS_CFG, bits 1:0, is 0b11 on SPI ("disable I2C") where the driver
    /// writes 0b10 for I2C (DS-000347 §14 INTF_CONFIG0; Linux inv_icm42600_spi.c sets
    /// INV_ICM42600_INTF_CONFIG0_UI_SIFS_CFG_I2C_DIS in its bus setup, inv_icm42600_i2c.c _SPI_DIS).
    package static let invenSenseICM42600 = SPIFraming(
        interfaceField: InterfaceField(register: 0x4C, mask: 0b11, spiValue: 0b11))

    /// Bosch BMI160: R/W in bit 7, no dummy byte (Linux bmi160_spi.c: the plain SPI regmap of
    /// bmi160_regmap_config, no pad bits). It powers up on I2C and changes to SPI at a rising edge
    /// of CSB (BST-BMI160-DS000 §3.2.1 "Interface"): a read of the unused register 0x7F gives it
    /// that edge after power-up and after each soft reset, CMD (0x7E) = 0xB6 (Linux
    /// bmi160_core.c bmi160_chip_init: BMI160_REG_DUMMY read when use_spi).
    package static let boschBMI160 = SPIFraming(
        spiEnable: SPIEnable(register: 0x7F, resetRegister: 0x7E, resetValue: 0xB6))

    /// Bosch BMI270: R/W in bit 7, and one dummy byte before a read's data (BMI270 datasheet
    /// §6.4 "SPI interface"; Linux bmi270_spi.c: `.pad_bits = 8`, `.read_flag_mask = BIT(7)`).
    /// The BMI270's descriptor sets `spi: .boschBMI270`.
    package static let boschBMI270 = SPIFraming(readDummyBytes: 1)

    /// TDK InvenSense ICM-456xx: R/W in bit 7, no dummy byte (DS-000577 "SPI interface", as the
    /// ICM-42600); no interface-select field to keep (the kernel's inv_icm45600_spi.c bus setup
    /// only sets the SPI slew rate in DRIVE_CONFIG0).
    package static let invenSenseICM45600 = SPIFraming()
}
