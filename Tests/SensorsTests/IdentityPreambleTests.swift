import I2C
import Locking
@testable import Sensors
import Testing

/// A chip whose identity register reads 0 until it is woken (the Bosch BMM150: CHIP_ID 0x32 at
/// 0x40 reads 0 in suspend mode, until the power-control bit, 0x4B bit 0, is set and about 3 ms
/// have passed; datasheet §5.2/§5.5) is described by its descriptor's identity preamble, and
/// identification writes it, waits, then reads. The chip is a fake here, beside the registry's
/// chips but for the real BMM150 (whose own descriptor, with the same preamble, is checked last).
@Suite struct IdentityPreambleTests {
    /// A register file at 0x13 whose CHIP_ID reads 0x32 only 3 ms or more after 0x4B bit 0 was
    /// set, in the virtual time its `pause` advances; every other address does not acknowledge.
    final class SleepingMagnetometer: I2CBus {
        let name = "sleeping-magnetometer"
        static let address = I2CAddress(0x13)
        private struct State {
            var registers = [UInt8](repeating: 0, count: 256)
            var now = Duration.zero
            var poweredAt: Duration?
            var log: [String] = []
        }
        private let state = Locked(State())

        /// Advances the chip's virtual time.
        var pause: Pause { Pause { [state] duration in state.withLock { $0.now += duration; $0.log.append("wait \(duration)") } } }
        var log: [String] { state.withLock { $0.log } }

        func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
            guard address == Self.address else { throw I2CError(.noAcknowledge, bus: name, address: address, detail: "nothing here") }
            return state.withLock { state in
                var pointer = 0
                var replies: [[UInt8]] = []
                for operation in operations {
                    switch operation {
                    case .write(let bytes):
                        guard let register = bytes.first else { continue }
                        pointer = Int(register)
                        for value in bytes.dropFirst() {
                            state.registers[pointer] = value
                            state.log.append("write 0x\(String(pointer, radix: 16)) = 0x\(String(value, radix: 16))")
                            if pointer == 0x4B, value & 0x01 != 0, state.poweredAt == nil { state.poweredAt = state.now }
                            pointer += 1
                        }
                    case .read(let count):
                        let awake = state.poweredAt.map { state.now - $0 >= .milliseconds(3) } ?? false
                        replies.append((0..<count).map { offset in
                            let register = (pointer + offset) & 0xFF
                            return register == 0x40 ? (awake ? 0x32 : 0x00) : state.registers[register]
                        })
                        state.log.append("read 0x\(String(pointer, radix: 16)) × \(count)")
                    }
                }
                return replies
            }
        }
    }

    static let settings = MagnetometerSettings(
        name: "BMM150-like", family: ChipInfo.Family(rawValue: "Bosch BMM150-like"), identityRegister: 0x40, identity: [0x32],
        outputDataRates: [SettingOption(value: 10, code: 0)], ranges: [SettingOption(value: 1300, code: 0)],
        configurationRegister: 0x4C, outputRegister: 0x42, outputCount: 8)

    /// The fake's descriptor, with or without the preamble, at 0x10–0x13 (SDO and CSB2 pins).
    static func descriptor(preamble: IdentityPreamble?) -> ChipDescriptor {
        ChipDescriptor(
            magnetometer: settings, cliNames: ["bmm150like"], addresses: (0x10...0x13).map { I2CAddress($0) }, preamble: preamble,
            make: ChipDescriptor.factory(QMC5883LMagnetometer.self))
    }

    static let othersThanBMM150 = ChipRegistry.all.filter { $0.name != ChipDescriptor.bmm150.name }

    static let wake = IdentityPreamble(writes: [RegisterWrite(register: 0x4B, value: 0x01)], settle: .milliseconds(3))

    @Test func thePreambleIsWrittenAndWaitedOutBeforeTheIdentityRead() throws {
        let bus = SleepingMagnetometer()
        let chips = Self.othersThanBMM150 + [Self.descriptor(preamble: Self.wake)]
        let chip = try ChipCatalog.identify(bus: bus, address: SleepingMagnetometer.address, pause: bus.pause, among: chips)
        #expect(chip == ChipInfo(name: "BMM150-like", family: ChipInfo.Family(rawValue: "Bosch BMM150-like"), address: SleepingMagnetometer.address, identity: [0x32]))
        #expect(bus.log == ["write 0x4b = 0x1", "wait 0.003 seconds", "read 0x40 × 1"])
    }

    /// Without the preamble the same chip reads 0 and is not found: the preamble is what names it.
    @Test func withoutThePreambleTheSleepingChipIsNotFound() throws {
        let bus = SleepingMagnetometer()
        let chips = Self.othersThanBMM150 + [Self.descriptor(preamble: nil)]
        #expect(try ChipCatalog.identify(bus: bus, address: SleepingMagnetometer.address, pause: bus.pause, among: chips) == nil)
        #expect(bus.log == ["read 0x40 × 1"])
    }

    /// The registry's BMM150 carries the same preamble and is found the same way.
    @Test func theRegistrysBMM150IsWokenTheSameWay() throws {
        let bus = SleepingMagnetometer()
        let chip = try ChipCatalog.identify(bus: bus, address: SleepingMagnetometer.address, pause: bus.pause)
        #expect(chip?.name == "BMM150" && ChipDescriptor.bmm150.identity.preamble == Self.wake)
        #expect(bus.log == ["write 0x4b = 0x1", "wait 0.003 seconds", "read 0x40 × 1"])
    }

    /// Where nothing acknowledges the preamble's write, nothing is there: no read, no wait.
    @Test func nothingAtTheAddressEndsAtTheFirstWrite() throws {
        let bus = SleepingMagnetometer()
        let chips = Self.othersThanBMM150 + [Self.descriptor(preamble: Self.wake)]
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x10), pause: bus.pause, among: chips) == nil)
        #expect(bus.log.isEmpty)
    }
}
