import Locking

/// A register chip on an SPI device, as a driver sees every bus: an ``I2CBus``. Each register
/// transaction a driver runs becomes one SPI frame by the chip's ``SPIFraming``:
///
/// - `[.write([register] + values)]` → `[command, values…]` (the R/W bit clear);
/// - `[.write([register]), .read(count: n)]` → `[command | R/W, 0 × (dummy + n)]`, the dummy
///   bytes and the command's slot dropped from the reply.
///
/// The address a driver passes is not sent (the chip select is the device) and only names the
/// chip in errors. A transaction that is not a register access (a bare read, an empty write,
/// several write steps) cannot be framed and throws `.notSupported`.
package final class SPIRegisterBus: I2CBus {
    package let device: any SPIBus
    package let framing: SPIFraming
    package var name: String { device.name }
    /// Whether the chip still needs its chip-select edge to leave I2C (``SPIFraming/spiEnable``).
    private let needsEnable: Locked<Bool>

    package init(_ device: any SPIBus, framing: SPIFraming) {
        self.device = device
        self.framing = framing
        needsEnable = Locked(framing.spiEnable != nil)
    }

    package var maximumReadLength: Int? {
        device.maximumTransferLength.map { $0 - 1 - framing.readDummyBytes }
    }

    package func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
        try enableIfNeeded(address)
        if operations.count == 1, case .write(let bytes) = operations[0], let register = bytes.first {
            var values = Array(bytes.dropFirst())
            guard let command = framing.command(register: register, read: false, dataCount: values.count) else {
                throw unaddressable(register, address)
            }
            if let field = framing.interfaceField, field.register == register, !values.isEmpty {
                values[0] = values[0] & ~field.mask | field.spiValue & field.mask
            }
            _ = try device.transfer([command] + values)
            if let enable = framing.spiEnable, register == enable.resetRegister, values.first == enable.resetValue {
                needsEnable.withLock { $0 = true }
            }
            return []
        }
        if operations.count == 2, case .write(let bytes) = operations[0], bytes.count == 1,
           case .read(let count) = operations[1], count >= 0 {
            guard let command = framing.command(register: bytes[0], read: true, dataCount: count) else {
                throw unaddressable(bytes[0], address)
            }
            let skipped = 1 + framing.readDummyBytes
            let reply = try device.transfer([command] + Array(repeating: 0, count: framing.readDummyBytes + count))
            guard reply.count == skipped + count else { throw shortRead(address, asked: count, got: max(0, reply.count - skipped)) }
            return [Array(reply.dropFirst(skipped))]
        }
        throw I2CError(
            .notSupported, bus: name, address: address,
            detail: "\(operations.map(\.description).joined(separator: ", ")) is not a register access SPI can frame",
            hint: "this chip's driver needs an I2C bus: wire it to the I2C pins and name the bus instead of the SPI device")
    }

    /// The dummy read that gives a chip starting on I2C its chip-select edge (Bosch), once after
    /// power-up and after each soft reset.
    private func enableIfNeeded(_ address: I2CAddress) throws(I2CError) {
        guard let enable = framing.spiEnable, needsEnable.withLock({ $0 }) else { return }
        guard let command = framing.command(register: enable.register, read: true, dataCount: 1) else {
            throw unaddressable(enable.register, address)
        }
        _ = try device.transfer([command] + Array(repeating: 0, count: framing.readDummyBytes + 1))
        needsEnable.withLock { $0 = false }
    }

    private func unaddressable(_ register: UInt8, _ address: I2CAddress) -> I2CError {
        I2CError(
            .invalidArgument, bus: name, address: address,
            detail: "register 0x\(String(register, radix: 16, uppercase: true)) does not fit the chip's SPI command byte",
            hint: "this register is reachable on I2C only; name the I2C bus instead of the SPI device")
    }
}
