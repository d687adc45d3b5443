import I2C

extension ChipDescriptor {
    /// CHIP_ID 0xD0 reads 0x58 (BST-BMP280-DS001 §4.3.1; Linux `bmp280.h` `BMP280_CHIP_ID`), at
    /// 0x76 (SDO to GND) or 0x77 (SDO to VDDIO) (§5.2).
    package static let bmp280 = ChipDescriptor(
        barometer: "BMP280", cliNames: ["bmp280"], family: .bmp280,
        identity: ChipIdentity(register: BMP280.Register.chipID, value: [BMP280.identity], addresses: [I2CAddress(0x76), I2CAddress(0x77)]),
        make: { bus, address, pause in BMP280(bus: bus, address: address, pause: pause) })
}
