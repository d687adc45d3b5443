import I2C

extension ChipDescriptor {
    /// Chip ID 0xFF at 0x0D, at 0x0D.
    package static let qmc5883l = ChipDescriptor(
        magnetometer: QMC5883LMagnetometer.settings, cliNames: ["qmc5883l"], addresses: [I2CAddress(0x0D)], make: factory(QMC5883LMagnetometer.self))
}
