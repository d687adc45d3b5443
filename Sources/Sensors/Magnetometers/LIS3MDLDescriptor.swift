import I2C

extension ChipDescriptor {
    /// WHO_AM_I 0x3D at 0x0F, at 0x1C (SA1 low) or 0x1E; also the LSM9DS1's magnetometer, which
    /// answers the same.
    package static let lis3mdl = ChipDescriptor(
        magnetometer: LIS3MDLMagnetometer.settings, cliNames: ["lis3mdl"], addresses: [I2CAddress(0x1C), I2CAddress(0x1E)],
        make: factory(LIS3MDLMagnetometer.self))
}
