import I2C

extension ChipDescriptor {
    /// Product ID 1 (0x2F) = 0x30, at 0x30 (MMC5983MA datasheet, "I2C interface": a fixed address).
    package static let mmc5983ma = ChipDescriptor(
        magnetometer: MMC5983MAMagnetometer.settings, cliNames: ["mmc5983ma"], addresses: [I2CAddress(0x30)],
        wiring: "a 3.3 V part (VDD 2.8–3.6 V): some breakouts have no regulator, so feed them 3.3 V, never 5 V. After power-up its "
            + "bridge needs a SET pulse before it senses the field; the driver sends one before every other measurement (SET/RESET, "
            + "which also removes the bridge offset)",
        make: factory(MMC5983MAMagnetometer.self))
}
