import I2C

extension ChipDescriptor {
    /// Identification registers A–C "H43" from 0x0A, at 0x1E. No software reset: the reset
    /// completion its driver is given changes nothing.
    package static let hmc5883l = ChipDescriptor(
        magnetometer: HMC5883LMagnetometer.settings, cliNames: ["hmc5883l"], addresses: [I2CAddress(0x1E)], make: factory(HMC5883LMagnetometer.self))
}
