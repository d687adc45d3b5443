import I2C
import Locking

extension ChipInfo.Family {
    package static let ms5611 = Self(rawValue: "TE MS5611")
}

/// Driver for the TE Connectivity MS5611 barometer (MS5611-01BA03; I2C address 0x77 with CSB low,
/// 0x76 with CSB high: the address ends in CSB's complement). The chip has no identity register
/// and no register map, only commands: ``configure(_:)`` resets it, reads the PROM and refuses a
/// PROM whose CRC-4 does not match (``MS5611PROM``, as Linux `ms5611_core.c` does);
/// ``readSample()`` converts D1 (pressure) and D2 (temperature) at the set oversampling, waiting
/// each conversion out, reads each with the ADC read command, and compensates them in integers
/// with the second-order temperature terms.
///
/// How ``BarometerConfiguration`` maps onto the chip: pressure and temperature oversampling are
/// the conversion commands' OSR (256, 512, 1024, 2048, 4096); the filter coefficient and `standby`
/// must be 0 (no filter; the chip converts only on command, as fast as the reads come).
package final class MS5611: BarometerDriver {
    /// The datasheet's commands (Linux `ms5611.h`: `MS5611_RESET` 0x1e, `MS5611_READ_ADC` 0x00,
    /// `MS5611_READ_PROM_WORD` 0xA0, and at OSR 4096 `MS5611_START_PRESSURE_CONV` 0x48 and
    /// `MS5611_START_TEMP_CONV` 0x58).
    enum Command {
        static let reset: UInt8 = 0x1E
        static let adcRead: UInt8 = 0x00
        static let promRead: UInt8 = 0xA0  // + 2 × word
        static let convertD1: UInt8 = 0x40  // + OSR code: pressure
        static let convertD2: UInt8 = 0x50  // + OSR code: temperature
    }
    /// OSR → command offset and the datasheet's maximum conversion time (µs): 0.60, 1.17, 2.28,
    /// 4.54, 9.04 ms.
    static let oversamplings: [Int: (offset: UInt8, microseconds: Int)] = [
        256: (0, 600), 512: (2, 1170), 1024: (4, 2280), 2048: (6, 4540), 4096: (8, 9040),
    ]
    /// The datasheet's reset time (2.8 ms), for the PROM to be reloaded.
    static let resetTime = Duration.microseconds(2800)

    /// For altitude: OSR 4096 for both (the datasheet's best resolution, 0.012 mbar, about 10 cm of
    /// air), 18.1 ms for a pair of conversions.
    package static let altitude = BarometerConfiguration(
        pressureOversampling: 4096, temperatureOversampling: 4096, filterCoefficient: 0, standby: 0)

    package let chip: ChipInfo
    private let bus: any I2CBus
    private let pause: Pause
    /// The configuration, the PROM read at configure (nil before) and the conversion commands
    /// the configuration gives, worked out once so that a reading allocates nothing.
    private let state: Locked<(configuration: BarometerConfiguration, prom: MS5611PROM?, commands: Commands)>

    /// The D1 and D2 commands of a configuration and their conversion times.
    package struct Commands: Sendable, Equatable {
        package var d1: UInt8
        package var d1Wait: Duration
        package var d2: UInt8
        package var d2Wait: Duration
    }

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x77), pause: Pause = .system) {
        self.bus = bus
        chip = ChipInfo(name: "MS5611", family: .ms5611, address: address, identity: [])
        self.pause = pause
        state = Locked((Self.altitude, nil, Commands(d1: 0, d1Wait: .zero, d2: 0, d2Wait: .zero)))
    }

    package var defaultConfiguration: BarometerConfiguration { Self.altitude }
    package var configuration: BarometerConfiguration { state.withLock { $0.configuration } }
    package var prom: MS5611PROM? { state.withLock { $0.prom } }

    /// The D1 and D2 commands and their conversion times for `configuration`, or the setting it
    /// names that the chip lacks.
    package static func commands(for configuration: BarometerConfiguration) throws(SensorError) -> Commands {
        func osr(_ value: Int, _ setting: String) throws(SensorError) -> (offset: UInt8, microseconds: Int) {
            guard let entry = oversamplings[value] else {
                throw .unsupportedSetting(chip: "MS5611", setting: setting, requested: "\(value)",
                                          supported: oversamplings.keys.sorted().map { "\($0)" })
            }
            return entry
        }
        let p = try osr(configuration.pressureOversampling, "pressure oversampling (OSR)")
        let t = try osr(configuration.temperatureOversampling, "temperature oversampling (OSR)")
        guard configuration.filterCoefficient == 0 else {
            throw .unsupportedSetting(chip: "MS5611", setting: "filter coefficient", requested: "\(configuration.filterCoefficient)",
                                      supported: ["0 (the MS5611 has no filter)"])
        }
        guard configuration.standby == 0 else {
            throw .unsupportedSetting(chip: "MS5611", setting: "standby (ms)", requested: formatValue(configuration.standby),
                                      supported: ["0 (the MS5611 converts on command)"])
        }
        return Commands(d1: Command.convertD1 + p.offset, d1Wait: .microseconds(p.microseconds),
                        d2: Command.convertD2 + t.offset, d2Wait: .microseconds(t.microseconds))
    }

    package func configure(_ configuration: BarometerConfiguration) throws(SensorError) {
        let commands = try Self.commands(for: configuration)
        try send(Command.reset)
        pause.wait(Self.resetTime)
        var words: [UInt16] = []
        for word in 0..<8 {
            words.append(try readWord(Command.promRead + UInt8(2 * word)))
        }
        let prom = MS5611PROM(words: words)
        guard prom.isValid else {
            let found = String(words[7] & 0xF, radix: 16, uppercase: true)
            let computed = String(MS5611PROM.crc4(words), radix: 16, uppercase: true)
            throw .unsupportedSetting(
                chip: chip.name, setting: "PROM CRC-4", requested: "0x\(found) in PROM word 7 (computed 0x\(computed))",
                supported: ["a PROM whose CRC matches: power-cycle the module and check its wiring (SDA/SCL pull-ups, PS pin high for I2C, CSB for the address); a PROM that still fails is damaged — replace the MS5611, or the device at \(chip.address) is not one"])
        }
        state.withLock { $0 = (configuration, prom, commands) }
    }

    package func readSample() throws(SensorError) -> PressureSample {
        let (prom, commands) = state.withLock { ($0.prom, $0.commands) }
        guard let prom else { throw .notSupported(chip: chip.name, feature: "reading before configure") }
        let d1 = try convert(commands.d1, wait: commands.d1Wait)
        let d2 = try convert(commands.d2, wait: commands.d2Wait)
        let result = prom.compensate(d1: d1, d2: d2)
        return PressureSample(pressure: Double(result.pascal), temperature: Double(result.centidegrees) / 100)
    }

    /// Starts a conversion, waits it out and reads the 24-bit result (0 when read too early: datasheet).
    private func convert(_ command: UInt8, wait: Duration) throws(SensorError) -> UInt32 {
        try send(command)
        pause.wait(wait)
        var bytes: (UInt8, UInt8, UInt8) = (0, 0, 0)
        try read(Command.adcRead, into: &bytes)
        return UInt32(bytes.0) << 16 | UInt32(bytes.1) << 8 | UInt32(bytes.2)
    }

    /// One PROM word, most significant byte first.
    private func readWord(_ command: UInt8) throws(SensorError) -> UInt16 {
        var bytes: (UInt8, UInt8) = (0, 0)
        try read(command, into: &bytes)
        return UInt16(bytes.0) << 8 | UInt16(bytes.1)
    }

    /// A one-byte command (the bus's allocation-free write).
    private func send(_ command: UInt8) throws(SensorError) {
        do { try bus.writeByte(chip.address, command) } catch { throw .bus(error) }
    }

    /// The command, then (repeated START) as many bytes as `bytes` holds, into it.
    private func read<Bytes>(_ command: UInt8, into bytes: inout Bytes) throws(SensorError) {
        let result: Result<Void, I2CError> = withUnsafeMutableBytes(of: &bytes) { buffer in
            do throws(I2CError) {
                try bus.readRegisters(chip.address, command, into: buffer)
                return .success(())
            } catch { return .failure(error) }
        }
        do { try result.get() } catch { throw .bus(error) }
    }

    /// The chip keeps no settings; a PROM that still reads with its CRC is taken as a chip still there.
    package func isStillConfigured() throws(SensorError) -> Bool {
        try readWord(Command.promRead + 14) == prom?.words[7]
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test")
    }
}
