import I2C

extension ChipDescriptor {
    /// WHO_AM_I 0x47 at 0x75, at 0x68 (AP_AD0 low) or 0x69; 16-byte FIFO packets with the chip's
    /// 16-bit µs timestamp.
    public static let icm42688p = ChipDescriptor(
        imu: ICM42600Model.icm42688p.rawValue, cliNames: ["icm42688", "icm42688p"], family: .icm42600,
        identity: ChipIdentity(
            register: ICM42600Register.whoAmI, value: [ICM42600Settings.settings(for: .icm42688p).identity],
            addresses: [I2CAddress(0x68), I2CAddress(0x69)]),
        tables: ICM42600Settings.settings(for: .icm42688p).tables,
        fifo: FIFOLayout(
            bytesPerSample: ICM42600FIFOPacket.size,
            timestamp: FIFOTimestampFormat(lsb: ICM42600FIFOPacket.timestampLSB, wrap: ICM42600FIFOPacket.timestampWrap)),
        gyroRestLimits: GyroRestLimits(biasDPS: 0.5, noiseDensityDPS: 0.0028, source: "DS-000347 Table 1: ZRO ±0.5 °/s, 0.0028 °/s/√Hz"),
        outputDelay: .none(because: "the driver keeps the chip's reset filters (UI filter 1st order, GYRO_UI_FILT_BW 1); DS-000347 §5 tabulates the UI filter's delay per order and bandwidth, but the table was not reachable when the delays were set, so no figure is claimed (see README, Benchmarks and accuracy)")
    ) { bus, address, pause, resetCompletion in
        ICM42600IMU(bus: bus, address: address, model: .icm42688p, pause: pause, resetCompletion: resetCompletion)
    }
}
