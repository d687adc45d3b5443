import I2C
import Locking

extension ChipInfo.Family {
    package static let bmp3 = Self(rawValue: "Bosch BMP388/BMP390")
}

/// Driver for the Bosch BMP388 and BMP390 barometers (one register map: BST-BMP388-DS001 and
/// BST-BMP390-DS002 §4.2; 0x76 with SDO low, 0x77 with SDO high, §5.2). ``configure(_:)`` checks
/// CHIP_ID, soft-resets, reads the NVM coefficients, writes oversampling, rate and filter while the
/// chip sleeps, starts normal mode and checks ERR_REG for a refused configuration;
/// ``readSample()`` reads DATA_0…DATA_5 in one burst and compensates them in floating point as the
/// datasheet gives it (``BMP3Calibration``).
///
/// How ``BarometerConfiguration`` maps onto the chip: pressure and temperature oversampling are
/// osr_p and osr_t (×1 … ×32), the filter coefficient is the IIR filter's (0 = off, 1, 3, 7, 15,
/// 31, 63, 127: §3.4.3), and `standby` is the measurement period of the output data rate in ms
/// (5 ms × 2^odr_sel, §4.3.19: the BMP3 sets a rate, not a standby).
package final class BMP3: BarometerDriver {
    /// What tells the BMP388 from the BMP390.
    package struct Model: Sendable {
        package var name: String
        /// CHIP_ID at 0x00.
        package var identity: UInt8

        /// CHIP_ID 0x50 (BST-BMP388-DS001 §4.3.1; Linux `bmp280.h` `BMP380_CHIP_ID`).
        package static let bmp388 = Model(name: "BMP388", identity: 0x50)
        /// CHIP_ID 0x60 (BST-BMP390-DS002 §4.3.1).
        package static let bmp390 = Model(name: "BMP390", identity: 0x60)
    }

    /// §4.2 memory map; the same addresses as Linux `drivers/iio/pressure/bmp280.h` (`BMP380_REG_*`).
    enum Register {
        static let chipID: UInt8 = 0x00
        static let error: UInt8 = 0x02  // fatal_err 0, cmd_err 1, conf_err 2
        static let data: UInt8 = 0x04  // press xlsb, lsb, msb, temp xlsb, lsb, msb (0x04…0x09)
        static let powerControl: UInt8 = 0x1B  // press_en 0, temp_en 1, mode 5:4
        static let oversampling: UInt8 = 0x1C  // osr_p 2:0, osr_t 5:3
        static let outputRate: UInt8 = 0x1D  // odr_sel 4:0
        static let config: UInt8 = 0x1F  // iir_filter 3:1
        static let calibration: UInt8 = 0x31  // NVM_PAR_T1 … NVM_PAR_P11, 21 bytes
        static let command: UInt8 = 0x7E
    }
    /// §4.3.21 CMD: soft reset (Linux `BMP380_CMD_SOFT_RESET`).
    static let softReset: UInt8 = 0xB6
    /// Linux `bmp280-core.c` gives the BMP380 2 ms to start up after a reset.
    static let startUp = Duration.milliseconds(2)
    /// osr codes 0…5: ×1 … ×32 (§4.3.18).
    static let oversamplings = [1: UInt8(0), 2: 1, 4: 2, 8: 3, 16: 4, 32: 5]
    /// iir_filter codes 0…7 (§4.3.20; Linux `BMP380_FILTER_OFF` … `BMP380_FILTER_127X`).
    static let filters = [0: UInt8(0), 1: 1, 3: 2, 7: 3, 15: 4, 31: 5, 63: 6, 127: 7]
    /// odr_sel 0…17: 200 Hz / 2^n, as periods in ms (§4.3.19).
    static let periods: [Double] = (0...17).map { 5 * Double(1 << $0) }
    /// PWR_CTRL: both sensors on, normal mode (§4.3.17).
    static let normalMode: UInt8 = 0b11 << 4 | 0b11
    /// ERR_REG conf_err: the chip refused the oversampling/rate pair (§4.3.3; Linux
    /// `BMP380_ERR_CONF_MASK`, which the kernel checks after configuring too).
    static let configurationError: UInt8 = 0b100

    /// Settings for altitude: normal mode, pressure ×16, temperature ×2, 25 Hz (the datasheets'
    /// §3.5 "indoor navigation" case), IIR coefficient 3. A measurement at ×16/×2 takes 234 +
    /// 392 + 16 × 2020 + 163 + 2 × 2020 µs = 37.1 ms (§3.9.2), within the 40 ms period.
    package static let altitude = BarometerConfiguration(
        pressureOversampling: 16, temperatureOversampling: 2, filterCoefficient: 3, standby: 40)

    package let chip: ChipInfo
    package let model: Model
    private let device: RegisterDevice
    private let pause: Pause
    private let state: Locked<(configuration: BarometerConfiguration, calibration: BMP3Calibration?)>

    package init(model: Model, bus: any I2CBus, address: I2CAddress = I2CAddress(0x77), pause: Pause = .system) {
        device = RegisterDevice(bus: bus, address: address)
        chip = ChipInfo(name: model.name, family: .bmp3, address: address, identity: [model.identity])
        self.model = model
        self.pause = pause
        state = Locked((Self.altitude, nil))
    }

    package var defaultConfiguration: BarometerConfiguration { Self.altitude }
    package var configuration: BarometerConfiguration { state.withLock { $0.configuration } }
    /// The coefficients read by the last ``configure(_:)``; nil before it.
    package var calibration: BMP3Calibration? { state.withLock { $0.calibration } }

    /// OSR, ODR and CONFIG for `configuration`, or the setting it names that the chip lacks.
    package static func registers(for configuration: BarometerConfiguration, chip: String = "BMP390") throws(SensorError)
        -> (oversampling: UInt8, outputRate: UInt8, config: UInt8)
    {
        func code(_ table: [Int: UInt8], _ value: Int, _ setting: String) throws(SensorError) -> UInt8 {
            guard let code = table[value] else {
                throw .unsupportedSetting(chip: chip, setting: setting, requested: "\(value)", supported: table.keys.sorted().map { "\($0)" })
            }
            return code
        }
        let osrP = try code(oversamplings, configuration.pressureOversampling, "pressure oversampling")
        let osrT = try code(oversamplings, configuration.temperatureOversampling, "temperature oversampling")
        let filter = try code(filters, configuration.filterCoefficient, "IIR filter coefficient")
        guard let rate = periods.firstIndex(of: configuration.standby) else {
            throw .unsupportedSetting(chip: chip, setting: "measurement period (ms)", requested: formatValue(configuration.standby),
                                      supported: periods.map(formatValue))
        }
        return (osrT << 3 | osrP, UInt8(rate), filter << 1)
    }

    package func configure(_ configuration: BarometerConfiguration) throws(SensorError) {
        let bytes = try Self.registers(for: configuration, chip: chip.name)
        try device.checkIdentity(Register.chipID, expected: [model.identity], chip: chip.name)
        try device.write(Register.command, Self.softReset)
        pause.wait(Self.startUp)
        let calibration = BMP3Calibration(registers: try device.read(Register.calibration, count: BMP3Calibration.byteCount))
        guard calibration.t1 != 0 else {
            throw .unsupportedSetting(chip: chip.name, setting: "NVM coefficient NVM_PAR_T1", requested: "0",
                                      supported: ["1…65535 (the factory value; a chip reading 0 is damaged or not a \(chip.name))"])
        }
        try device.write(Register.oversampling, bytes.oversampling)
        try device.write(Register.outputRate, bytes.outputRate)
        try device.write(Register.config, bytes.config)
        try device.write(Register.powerControl, Self.normalMode)
        if try device.read(Register.error) & Self.configurationError != 0 {
            throw .unsupportedSetting(chip: chip.name, setting: "oversampling at this rate", requested:
                "pressure ×\(configuration.pressureOversampling), temperature ×\(configuration.temperatureOversampling) every \(formatValue(configuration.standby)) ms",
                supported: ["a longer period or less oversampling (the measurement must fit the period: §3.9.2)"])
        }
        state.withLock { $0 = (configuration, calibration) }
    }

    package func readSample() throws(SensorError) -> PressureSample {
        guard let calibration else { throw .notSupported(chip: chip.name, feature: "reading before configure") }
        let (rawP, rawT) = try device.burst(Register.data, count: 6) { bytes in
            (Self.raw24(bytes[0], bytes[1], bytes[2]), Self.raw24(bytes[3], bytes[4], bytes[5]))
        }
        return calibration.compensate(rawPressure: rawP, rawTemperature: rawT)
    }

    /// xlsb, lsb, msb: the unsigned 24-bit reading (§4.3.7, §4.3.8).
    static func raw24(_ xlsb: UInt8, _ lsb: UInt8, _ msb: UInt8) -> UInt32 {
        UInt32(msb) << 16 | UInt32(lsb) << 8 | UInt32(xlsb)
    }

    package func isStillConfigured() throws(SensorError) -> Bool {
        try device.read(Register.powerControl) == Self.normalMode
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test")
    }
}
