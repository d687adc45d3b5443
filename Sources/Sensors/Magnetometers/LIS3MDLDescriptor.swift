import I2C

extension ChipInfo.Family {
    public static let lis3mdl = Self(rawValue: "ST LIS3MDL")
}

extension ChipDescriptor {
    /// WHO_AM_I 0x3D at 0x0F, at 0x1C (SA1 low) or 0x1E; also the LSM9DS1's magnetometer, which
    /// answers the same.
    public static let lis3mdl = ChipDescriptor(
        magnetometer: LIS3MDLMagnetometer.settings, cliNames: ["lis3mdl"], addresses: [I2CAddress(0x1C), I2CAddress(0x1E)]
    ) { bus, address, pause, resetCompletion in
        LIS3MDLMagnetometer(bus: bus, address: address, pause: pause, resetCompletion: resetCompletion)
    }
}
