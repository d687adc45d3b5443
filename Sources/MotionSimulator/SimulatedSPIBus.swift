import I2C
import Locking

/// One chip select of a simulated SPI controller: an emulator answering SPI frames by its own
/// datasheet's interface section (``SPIEmulator/spiFraming``), the way ``SimulatedBus`` answers
/// I2C steps. The command byte's R/W bit picks a read (the emulator's register pointer set to
/// the address, then its bytes clocked out after the command slot and any dummy bytes) or a
/// write (the address, then the data). A chip that starts on I2C (Bosch) ignores frames until
/// the first chip-select edge, and again after its soft reset; a chip told to disable its SPI
/// interface (the ICM-42600's UI_SIFS_CFG = 0b10) answers zeros from then on. Not simulated on
/// SPI: fault injection and the transaction log (``SimulatedBus``'s). Safe from any thread.
package final class SimulatedSPIBus: SPIBus {
    package let name: String
    package let device: any SimulatedDevice
    package let framing: SPIFraming
    private struct State {
        /// Off for a chip still on I2C (waiting for its chip-select edge).
        var spiEnabled: Bool
        /// The chip was told to disable SPI.
        var spiDisabled = false
        var transferCount = 0
    }
    private let state: Locked<State>

    /// - Parameters:
    ///   - framing: the chip's SPI framing as its datasheet gives it (the emulator's own, not a
    ///     driver's descriptor).
    package init(name: String = "simulated-spi0.0", device: any SimulatedDevice, framing: SPIFraming) {
        self.name = name
        self.device = device
        self.framing = framing
        state = Locked(State(spiEnabled: framing.spiEnable == nil))
    }

    /// The emulator on a chip select of its own, framed as its datasheet says; nil for an
    /// emulator whose chip has no SPI interface emulated.
    package convenience init?(name: String = "simulated-spi0.0", emulator: any SimulatedDevice) {
        guard let framing = (type(of: emulator) as? any SPIEmulator.Type)?.spiFraming else { return nil }
        self.init(name: name, device: emulator, framing: framing)
    }

    /// Transfers run since the device was made.
    package var transferCount: Int { state.withLock { $0.transferCount } }

    package func transfer(_ bytes: [UInt8]) throws(I2CError) -> [UInt8] {
        guard let command = bytes.first else { return [] }
        return state.withLock { state in
            state.transferCount += 1
            guard state.spiEnabled, !state.spiDisabled else {
                state.spiEnabled = true  // the chip-select edge at the end of this frame
                return Array(repeating: 0, count: bytes.count)
            }
            let register = command & ~framing.readBit & ~framing.multipleBit
            if command & framing.readBit != 0 {
                let skipped = 1 + framing.readDummyBytes
                guard bytes.count > skipped else { return Array(repeating: 0, count: bytes.count) }
                device.handleWrite([register])
                return Array(repeating: 0, count: skipped) + device.handleRead(count: bytes.count - skipped)
            }
            device.handleWrite([register] + bytes.dropFirst())
            if let enable = framing.spiEnable, register == enable.resetRegister, bytes.dropFirst().first == enable.resetValue {
                state.spiEnabled = false
            }
            if let field = framing.interfaceField, register == field.register, let value = bytes.dropFirst().first {
                let selected = value & field.mask
                state.spiDisabled = selected != field.spiValue && selected != 0
            }
            return Array(repeating: 0, count: bytes.count)
        }
    }
}

/// An emulator whose chip has an SPI interface, framed as its datasheet's interface section says.
package protocol SPIEmulator: SimulatedDevice {
    static var spiFraming: SPIFraming { get }
}

extension LSM6Emulator: SPIEmulator {
    /// DS12814 §6.2 "SPI bus interface" (and each LSM6 datasheet's §6.2): bit 0 of the first byte
    /// is RW (1 = read), bits 1–7 the address; consecutive registers follow while CTRL3_C IF_INC
    /// is set (its reset value); no dummy byte.
    package static var spiFraming: SPIFraming { SPIFraming(readBit: 0x80) }
}

extension ICM42688Emulator: SPIEmulator {
    /// DS-000347 §9 "Digital interface" (SPI): the first byte's MSB is the read bit, the 7-bit
    /// address below it, no dummy byte; INTF_CONFIG0 (0x4C) UI_SIFS_CFG, bits 1:0, 0b10 disables
    /// the SPI interface and 0b11 the I2C one (§14, INTF_CONFIG0).
    package static var spiFraming: SPIFraming {
        SPIFraming(readBit: 0x80, interfaceField: .init(register: 0x4C, mask: 0b11, spiValue: 0b11))
    }
}

extension BMI160Emulator: SPIEmulator {
    /// BST-BMI160-DS000 §3.2.1 "Interface": I2C after power-on, SPI from the first rising edge of
    /// CSB (a dummy read of register 0x7F is the usual edge), until the CMD (0x7E) soft reset
    /// 0xB6; §3.2.2 "SPI interface": the first byte's bit 7 is RW (1 = read), no dummy byte.
    package static var spiFraming: SPIFraming {
        SPIFraming(readBit: 0x80, spiEnable: .init(register: 0x7F, resetRegister: 0x7E, resetValue: 0xB6))
    }
}
