import I2C

extension ChipDescriptor {
    /// CHIP_ID 0x00 reads 0x50, at 0x76 (SDO to GND) or 0x77 (SDO to VDDIO) (BST-BMP388-DS001
    /// §4.3.1, §5.2).
    package static let bmp388 = bmp3(.bmp388, cliName: "bmp388")

    /// CHIP_ID 0x00 reads 0x60 — the value a BME280 holds at 0xD0 — at 0x76 or 0x77
    /// (BST-BMP390-DS002 §4.3.1, §5.2). ``ChipRegistry/barometers`` lists the BMP3 chips after the
    /// BMP280/BME280, so at 0x76/0x77 CHIP_ID at 0xD0 is read before 0x00 (see there).
    package static let bmp390 = bmp3(.bmp390, cliName: "bmp390")

    private static func bmp3(_ model: BMP3.Model, cliName: String) -> ChipDescriptor {
        ChipDescriptor(
            barometer: model.name, cliNames: [cliName], family: .bmp3,
            identity: ChipIdentity(register: BMP3.Register.chipID, value: [model.identity], addresses: [I2CAddress(0x76), I2CAddress(0x77)]),
            make: { bus, address, pause in BMP3(model: model, bus: bus, address: address, pause: pause) })
    }
}
