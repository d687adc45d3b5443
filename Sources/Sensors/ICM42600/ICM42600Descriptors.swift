import I2C

extension ChipDescriptor {
    /// WHO_AM_I 0x47 at 0x75, at 0x68 (AP_AD0 low) or 0x69; 16-byte FIFO packets with the chip's
    /// 16-bit µs timestamp.
    package static let icm42688p = ChipDescriptor(
        imu: ICM42600Model.icm42688p.rawValue, cliNames: ["icm42688", "icm42688p"], family: .icm42600,
        identity: ChipIdentity(
            register: ICM42600Register.whoAmI, value: [ICM42600Settings.settings(for: .icm42688p).identity],
            addresses: [I2CAddress(0x68), I2CAddress(0x69)]),
        tables: ICM42600Settings.settings(for: .icm42688p).tables,
        fifo: FIFOLayout(
            bytesPerSample: ICMFIFOPacket.size,
            timestamp: FIFOTimestampFormat(lsb: ICMFIFOPacket.timestampLSB, wrap: ICMFIFOPacket.timestampWrap)),
        gyroRestLimits: GyroRestLimits(biasDPS: 0.5, noiseDensityDPS: 0.0028, source: "DS-000347 Table 1: ZRO ±0.5 °/s, 0.0028 °/s/√Hz"),
        outputDelay: .byOutputDataRate(Dictionary(uniqueKeysWithValues: ICM42600Settings.rates.map {
            ($0.value, ICM42600Settings.gyroscopeDelay(rate: $0.value))
        })),
        spi: .invenSenseICM42600
    ) { bus, address, pause, resetCompletion in
        ICM42600IMU(bus: bus, address: address, model: .icm42688p, pause: pause, resetCompletion: resetCompletion)
    }
}
