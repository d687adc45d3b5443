import I2C

extension ChipInfo.Family {
    public static let lis2mdl = Self(rawValue: "ST LIS2MDL")
}

extension ChipDescriptor {
    /// WHO_AM_I 0x40 at 0x4F, at 0x1E.
    public static let lis2mdl = ChipDescriptor(
        magnetometer: LIS2MDLMagnetometer.settings, cliNames: ["lis2mdl"], addresses: [I2CAddress(0x1E)]
    ) { bus, address, pause, resetCompletion in
        LIS2MDLMagnetometer(bus: bus, address: address, pause: pause, resetCompletion: resetCompletion)
    }
}
