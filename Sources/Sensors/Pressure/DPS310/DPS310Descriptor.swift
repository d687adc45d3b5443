import I2C

extension ChipDescriptor {
    /// Product ID 0x0D reads 0x10 (REV_ID 1, PROD_ID 0: DPS310 datasheet register map), at 0x77
    /// (SDO high or open, the default) or 0x76 (SDO to GND). Listed after the BMP388/BMP390 in
    /// ``ChipRegistry/barometers``: on those 0x0D is the middle byte of the running sensor time, which
    /// passes through 0x10, while the DPS310's 0x00 that their CHIP_ID read meets is its pressure's
    /// top byte, 0 until a measurement and far from 0x50/0x60 for any pressure on Earth.
    package static let dps310 = ChipDescriptor(
        barometer: "DPS310", cliNames: ["dps310"], family: .dps310,
        identity: ChipIdentity(register: DPS310.Register.productID, value: [DPS310.identity], addresses: [I2CAddress(0x77), I2CAddress(0x76)]),
        make: { bus, address, pause in DPS310(bus: bus, address: address, pause: pause) })
}
