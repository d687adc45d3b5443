import I2C

extension ChipDescriptor {
    /// Identification registers A–C "H43" from 0x0A, at 0x1E. No software reset: its driver
    /// takes no reset completion.
    public static let hmc5883l = ChipDescriptor(
        magnetometer: HMC5883LMagnetometer.settings, cliNames: ["hmc5883l"], addresses: [I2CAddress(0x1E)]
    ) { bus, address, pause, _ in
        HMC5883LMagnetometer(bus: bus, address: address, pause: pause)
    }
}
