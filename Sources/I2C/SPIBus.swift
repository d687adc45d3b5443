/// One SPI device: a chip select on a controller (`/dev/spidev0.0`), the simulator's, or a test's
/// list of expected transfers.
///
/// Like ``I2CBus`` it has one required method, ``transfer(_:)``: full duplex, chip select held
/// low for the whole frame. A register chip on SPI is reached through ``SPIRegisterBus``, which
/// frames the drivers' register transactions by the chip's ``SPIFraming``; a driver never sees
/// this protocol. Implementations run one transfer at a time and may be called from any thread.
package protocol SPIBus: AnyObject, Sendable {
    /// How a person names this device: `/dev/spidev0.0`, `simulated-spi0.0`, …
    var name: String { get }

    /// Clocks `bytes` out on MOSI while clocking as many in on MISO, chip select low throughout.
    ///
    /// - Returns: the bytes received, as many as were sent.
    /// - Throws: ``I2CError`` (the kinds are the bus layer's, whatever the bus) naming the device.
    func transfer(_ bytes: [UInt8]) throws(I2CError) -> [UInt8]

    /// The most bytes one transfer carries (spidev's `bufsiz`, 4096 by default), or nil for no limit.
    var maximumTransferLength: Int? { get }
}

extension SPIBus {
    package var maximumTransferLength: Int? { nil }
}
