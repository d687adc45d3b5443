import I2C

extension ChipDescriptor {
    /// No identity register: named by its PROM's CRC-4 (``IdentityCondition/promCRC4``), read
    /// with the PROM commands from 0xA0 on, at 0x77 (CSB low) or 0x76 (CSB high) (MS5611-01BA03,
    /// I2C interface). Last at those addresses: the other chips' identity registers are read first.
    package static let ms5611 = ChipDescriptor(
        barometer: "MS5611", cliNames: ["ms5611"], family: .ms5611,
        identity: ChipIdentity(register: MS5611.Command.promRead, value: [], addresses: [I2CAddress(0x77), I2CAddress(0x76)],
                               condition: .promCRC4),
        make: { bus, address, pause in MS5611(bus: bus, address: address, pause: pause) })
}
