import I2C

extension ChipInfo.Family {
    package static let bme280 = Self(rawValue: "Bosch BME280")
}

extension BMP280.Model {
    /// The Bosch BME280 (BST-BME280-DS002): CHIP_ID 0xD0 reads 0x60 (§5.4.1; Linux `bmp280.h`
    /// `BME280_CHIP_ID`). Its pressure and temperature are the BMP280's: the same registers
    /// (0x88…0x9F trimming, 0xF4 ctrl_meas, 0xF5 config, 0xF7…0xFC readings: §5.3 memory map) and
    /// the same integer compensation (§4.2.3 gives the BMP280's formulas).
    ///
    /// Humidity is explicitly not read: ctrl_hum (0xF2) is written 0x00, osrs_h "skipped" (§5.4.3),
    /// so the chip spends no conversion time on it and 0xFD/0xFE hold 0x8000; a ``PressureSample``
    /// has no humidity, and Core Motion's altimeter none either.
    ///
    /// The standby codes 110 and 111 are 10 and 20 ms here, where the BMP280 has 2 and 4 s (§5.4.6
    /// Table 27).
    package static let bme280 = BMP280.Model(
        name: "BME280", family: .bme280, identity: 0x60, ctrlHum: 0x00,
        standbys: [0.5, 62.5, 125, 250, 500, 1000, 10, 20])
}

extension ChipDescriptor {
    /// CHIP_ID 0xD0 reads 0x60, at 0x76 (SDO to GND) or 0x77 (SDO to VDDIO) (BST-BME280-DS002
    /// §5.4.1, §6.2). The settings for altitude are the BMP280's "indoor navigation" ones, which
    /// the BME280 datasheet recommends too (§3.5.3: normal mode, pressure ×16, temperature ×2,
    /// IIR 16, standby 0.5 ms; its humidity ×1 is skipped here, see ``BMP280/Model/bme280``).
    package static let bme280 = ChipDescriptor(
        barometer: "BME280", cliNames: ["bme280"], family: .bme280,
        identity: ChipIdentity(register: BMP280.Register.chipID, value: [BMP280.Model.bme280.identity],
                               addresses: [I2CAddress(0x76), I2CAddress(0x77)]),
        make: { bus, address, pause in BMP280(model: .bme280, bus: bus, address: address, pause: pause) })
}
