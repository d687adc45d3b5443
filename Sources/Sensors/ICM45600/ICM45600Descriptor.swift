import I2C

extension ChipDescriptor {
    static let icm45686Name = "ICM-45686"

    /// WHO_AM_I 0xE9 at 0x72, at 0x68 (AP_AD0 low) or 0x69 (DS-000577 register map; kernel inv_icm45600.h
    /// INV_ICM45600_REG_WHOAMI, INV_ICM45600_WHOAMI_ICM45686). Read after 0x75 has shown the device
    /// is no MPU and no ICM-42688 (on an ICM-45686, 0x75 is no identity register) and before 0x00:
    /// on the ICM-45686, 0x00 is ACCEL_DATA_X1_UI, live data that may read the BMI160's, BMI270's
    /// or ICM-20948's identity byte. 16-byte FIFO packets with the chip's 16-bit µs timestamp.
    package static let icm45686 = ChipDescriptor(
        imu: icm45686Name, cliNames: ["icm45686"], family: .icm45600,
        identity: ChipIdentity(
            register: ICM45600Register.whoAmI, value: [ICM45600Settings.icm45686Identity], addresses: [I2CAddress(0x68), I2CAddress(0x69)]),
        tables: ICM45600Settings().tables,
        fifo: FIFOLayout(
            bytesPerSample: ICMFIFOPacket.size, timestamp: FIFOTimestampFormat(lsb: ICMFIFOPacket.timestampLSB, wrap: ICMFIFOPacket.timestampWrap)),
        gyroRestLimits: nil,
        outputDelay: .none(because: "DS-000577's UI filter tables were not reachable; no group delay is claimed"),
        spi: .invenSenseICM45600,
        wiring: "AP_AD0 low for 0x68, high for 0x69; AP_CS high for I2C",
        make: factory(ICM45600IMU.self))
}
