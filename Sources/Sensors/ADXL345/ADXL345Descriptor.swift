import I2C

extension ChipDescriptor {
    static let adxl345Name = "ADXL345"

    /// DEVID 0xE5 at 0x00, at 0x53 (ALT ADDRESS low) or 0x1D (high) (Rev. G, "I2C"). An
    /// accelerometer alone: no gyroscope table, so no gyroscope (``hasGyroscope``); its FIFO holds
    /// 6-byte x, y, z samples without timestamps.
    ///
    /// At 0x1D an NXP MMA8452Q may sit too (not a chip of this library; its WHO_AM_I is 0x0D =
    /// 0x2A, and the ADXL345's 0x01–0x1C are reserved, "do not access", so 0x0D is not read).
    /// DEVID alone tells them apart: the MMA8452Q's register 0x00 is STATUS (ZYXOW, ZOW, YOW, XOW,
    /// ZYXDR, ZDR, YDR, XDR; MMA8452Q datasheet §6.1), where 0xE5 would have XDR and ZDR set with
    /// ZYXDR, which any new axis sample sets, clear; or F_STATUS in FIFO mode (F_OVF, F_WMRK_FLAG,
    /// F_CNT 5:0), where it would count 37 samples in a 32-sample FIFO. Neither can read 0xE5.
    package static let adxl345 = ChipDescriptor(
        imu: adxl345Name, cliNames: ["adxl345"], family: .adxl345,
        identity: ChipIdentity(
            register: ADXL345Register.deviceID, value: [ADXL345Settings.identity], addresses: [I2CAddress(0x53), I2CAddress(0x1D)]),
        tables: ADXL345Settings().tables, fifo: FIFOLayout(bytesPerSample: ADXL345Register.sampleBytes), gyroRestLimits: nil,
        gravityRestTolerance: GravityRestTolerance(
            tolerance: 0.35, source: "ADXL345 Rev. G Table 1: 0 g output of z −250…+250 mg, sensitivity 230…282 LSB/g against 256 (±10 %)"),
        outputDelay: .none(because: "an accelerometer alone: no gyroscope whose delay the attitude filter looks ahead by"),
        wiring: "CS must be high for I2C (tied low or floating, the chip listens for SPI and does not answer); SDO is ALT ADDRESS: "
            + "low for 0x53, high for 0x1D. An accelerometer alone: no gyroscope, so no device motion (`motionctl stream` without --device-motion)",
        make: factory(ADXL345IMU.self))
}
