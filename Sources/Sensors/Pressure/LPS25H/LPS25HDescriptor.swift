import I2C

extension ChipDescriptor {
    /// WHO_AM_I 0x0F reads 0xBD (LPS25H datasheet DocID023722 §7; Linux `st_pressure_core.c`
    /// `.wai = 0xbd`), at 0x5C (SA0 low, the Raspberry Pi Sense HAT's) or 0x5D (SA0 high) (§5.2.1).
    package static let lps25h = ChipDescriptor(
        barometer: "LPS25H", cliNames: ["lps25h"], family: .lps25h,
        identity: ChipIdentity(register: LPS25H.Register.whoAmI, value: [LPS25H.identity], addresses: [I2CAddress(0x5C), I2CAddress(0x5D)]),
        make: { bus, address, pause in LPS25H(bus: bus, address: address, pause: pause) })
}
