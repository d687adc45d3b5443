import I2C

extension ChipDescriptor {
    /// WHO_AM_I 0x0F reads 0xB1 (LPS22HB datasheet DocID027083; Linux `st_pressure_core.c`
    /// `.wai = 0xb1`), at 0x5C (SA0 low) or 0x5D (SA0 high).
    package static let lps22hb = lps22(.lps22hb, cliName: "lps22hb")

    /// WHO_AM_I 0x0F reads 0xB3 (LPS22HH datasheet DS12503; Linux `st_pressure_core.c`
    /// `.wai = 0xb3`), at 0x5C or 0x5D.
    package static let lps22hh = lps22(.lps22hh, cliName: "lps22hh")

    private static func lps22(_ model: LPS22.Model, cliName: String) -> ChipDescriptor {
        ChipDescriptor(
            barometer: model.name, cliNames: [cliName], family: .lps22,
            identity: ChipIdentity(register: LPS22.Register.whoAmI, value: [model.identity], addresses: [I2CAddress(0x5C), I2CAddress(0x5D)]),
            make: { bus, address, pause in LPS22(model: model, bus: bus, address: address, pause: pause) })
    }
}
