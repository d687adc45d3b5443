import I2C

extension ChipDescriptor {
    /// WHO_AM_I 0x40 at 0x4F, at 0x1E.
    package static let lis2mdl = ChipDescriptor(
        magnetometer: LIS2MDLMagnetometer.settings, cliNames: ["lis2mdl"], addresses: [I2CAddress(0x1E)], make: factory(LIS2MDLMagnetometer.self))
}
