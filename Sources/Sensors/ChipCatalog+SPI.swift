import I2C

extension ChipCatalog {
    /// The IMU on an SPI device, and the register bus its driver runs on: for each SPI framing
    /// the IMUs of `chips` declare (``ChipDescriptor/spi``), in registry order, their identity
    /// registers are read through an ``SPIRegisterBus`` with that framing; the first chip whose
    /// identity reads back names the chip. A chip select with nothing behind it reads zeros or
    /// 0xFF, which name no chip: nil.
    ///
    /// The chip's ``ChipInfo/address`` is its usual I2C address: on SPI it is not sent, and names
    /// the chip in errors and in the calibration store's identity (with the SPI device's name).
    package static func identify(
        spi device: any SPIBus, lsm6dso32: Bool = false, pause: Pause = .system,
        among chips: [ChipDescriptor] = ChipRegistry.identifiable
    ) throws(SensorError) -> (chip: ChipInfo, bus: SPIRegisterBus)? {
        let onSPI = chips.filter { $0.isIMU && $0.spi != nil }
        var framings: [SPIFraming] = []
        for chip in onSPI { if let framing = chip.spi, !framings.contains(framing) { framings.append(framing) } }
        for framing in framings {
            let bus = SPIRegisterBus(device, framing: framing)
            let framed = onSPI.filter { $0.spi == framing }
            var addresses: [I2CAddress] = []
            for chip in framed { if let first = chip.identity.addresses.first, !addresses.contains(first) { addresses.append(first) } }
            for address in addresses {
                if let chip = try identify(bus: bus, address: address, lsm6dso32: lsm6dso32, pause: pause, among: framed) {
                    return (chip, bus)
                }
            }
        }
        return nil
    }
}
