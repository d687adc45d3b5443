import I2C

extension ChipInfo.Family {
    public static let qmc5883l = Self(rawValue: "QST QMC5883L")
}

extension ChipDescriptor {
    /// Chip ID 0xFF at 0x0D, at 0x0D.
    public static let qmc5883l = ChipDescriptor(
        magnetometer: QMC5883LMagnetometer.settings, cliNames: ["qmc5883l"], addresses: [I2CAddress(0x0D)]
    ) { bus, address, pause, resetCompletion in
        QMC5883LMagnetometer(bus: bus, address: address, pause: pause, resetCompletion: resetCompletion)
    }
}
