import I2C
import Locking

extension ChipInfo.Family {
    package static let bmp280 = Self(rawValue: "Bosch BMP280")
}

/// Driver for the Bosch BMP280 barometer (0x76 with SDO low, 0x77 with SDO high: BST-BMP280-DS001
/// §5.2), and for the BME280 (``Model/bme280``), which keeps the BMP280's registers, trimming block
/// and compensation for pressure and temperature and adds a humidity channel. ``configure(_:)``
/// checks the chip ID, soft-resets, reads the trimming parameters and starts normal mode;
/// ``readSample()`` reads 0xF7…0xFC in one burst (§3.9: a burst keeps pressure and temperature
/// from one measurement) and compensates them (``BMP280Calibration``).
package final class BMP280: BarometerDriver {
    /// What tells the chips of this register map apart.
    package struct Model: Sendable {
        package var name: String
        package var family: ChipInfo.Family
        /// CHIP_ID at 0xD0.
        package var identity: UInt8
        /// ctrl_hum (0xF2) is written before ctrl_meas (the BME280: its DS §5.4.3 makes a ctrl_hum
        /// change take effect only with the next ctrl_meas write); nil for a chip without one.
        package var ctrlHum: UInt8?
        /// The t_sb codes' standby times, ms.
        package var standbys: [Double]

        package static let bmp280 = Model(name: "BMP280", family: .bmp280, identity: BMP280.identity, ctrlHum: nil, standbys: BMP280.standbys)
    }

    /// §4.2 memory map; the same values as Linux `drivers/iio/pressure/bmp280.h`
    /// (`BMP280_REG_ID`, `BMP280_REG_RESET`, `BMP280_REG_COMP_TEMP_START`, `BMP280_REG_CTRL_MEAS`,
    /// `BMP280_REG_CONFIG`, `BMP280_REG_PRESS_MSB`, `BMP280_CHIP_ID`, `BMP280_CMD_SOFT_RESET`).
    enum Register {
        static let chipID: UInt8 = 0xD0  // reads 0x58 (§4.3.1)
        static let reset: UInt8 = 0xE0  // 0xB6 resets (§4.3.2)
        static let calibration: UInt8 = 0x88  // 0x88…0x9F, 24 bytes (§3.11.2)
        static let ctrlMeas: UInt8 = 0xF4  // osrs_t 7:5, osrs_p 4:2, mode 1:0 (§4.3.4)
        static let config: UInt8 = 0xF5  // t_sb 7:5, filter 4:2 (§4.3.5)
        static let pressureMSB: UInt8 = 0xF7  // press msb, lsb, xlsb, temp msb, lsb, xlsb (§4.3.6, §4.3.7)
        static let ctrlHum: UInt8 = 0xF2  // BME280 only: osrs_h 2:0 (BST-BME280-DS002 §5.4.3)
    }
    static let identity: UInt8 = 0x58
    static let resetCommand: UInt8 = 0xB6
    static let calibrationCount = 24
    /// §3.3.1 Table 21 / §3.3.2 Table 22: osrs_x codes 1…5 give ×1…×16.
    static let oversamplings = [1: UInt8(1), 2: 2, 4: 3, 8: 4, 16: 5]
    /// §3.3.3 Table 6: filter codes 0…4 give off, 2, 4, 8, 16.
    static let filters = [0: UInt8(0), 2: 1, 4: 2, 8: 3, 16: 4]
    /// §3.6.3 Table 11: t_sb codes 0…7, ms.
    static let standbys: [Double] = [0.5, 62.5, 125, 250, 500, 1000, 2000, 4000]
    /// §3.5.1 / §3.8: normal mode, mode bits 11.
    static let normalMode: UInt8 = 0b11
    /// §2.7 Table 2: the start-up time after a reset, 2 ms.
    static let startUp = Duration.milliseconds(2)

    /// §3.4 Table 7's "indoor navigation" settings: normal mode, pressure ×16, temperature ×2,
    /// IIR coefficient 16, standby 0.5 ms (ODR 26.3 Hz, RMS noise 1.6 cm).
    package static let indoorNavigation = BarometerConfiguration(
        pressureOversampling: 16, temperatureOversampling: 2, filterCoefficient: 16, standby: 0.5)

    package let chip: ChipInfo
    package let model: Model
    private let device: RegisterDevice
    private let pause: Pause
    private let state: Locked<(configuration: BarometerConfiguration, calibration: BMP280Calibration?)>

    package init(model: Model = .bmp280, bus: any I2CBus, address: I2CAddress = I2CAddress(0x76), pause: Pause = .system) {
        device = RegisterDevice(bus: bus, address: address)
        chip = ChipInfo(name: model.name, family: model.family, address: address, identity: [model.identity])
        self.model = model
        self.pause = pause
        state = Locked((Self.indoorNavigation, nil))
    }

    package var defaultConfiguration: BarometerConfiguration { Self.indoorNavigation }
    package var configuration: BarometerConfiguration { state.withLock { $0.configuration } }
    /// The trimming parameters read by the last ``configure(_:)``; nil before it.
    package var calibration: BMP280Calibration? { state.withLock { $0.calibration } }

    /// The ctrl_meas and config bytes for `configuration`, or the setting it names that the chip lacks.
    package static func registers(for configuration: BarometerConfiguration, model: Model = .bmp280) throws(SensorError)
        -> (ctrlMeas: UInt8, config: UInt8)
    {
        func code(_ table: [Int: UInt8], _ value: Int, _ setting: String) throws(SensorError) -> UInt8 {
            guard let code = table[value] else {
                throw .unsupportedSetting(chip: model.name, setting: setting, requested: "\(value)",
                                          supported: table.keys.sorted().map { "\($0)" })
            }
            return code
        }
        let osrsP = try code(oversamplings, configuration.pressureOversampling, "pressure oversampling")
        let osrsT = try code(oversamplings, configuration.temperatureOversampling, "temperature oversampling")
        let filter = try code(filters, configuration.filterCoefficient, "IIR filter coefficient")
        guard let standby = model.standbys.firstIndex(of: configuration.standby) else {
            throw .unsupportedSetting(chip: model.name, setting: "standby (ms)", requested: formatValue(configuration.standby),
                                      supported: model.standbys.map(formatValue))
        }
        return (osrsT << 5 | osrsP << 2 | normalMode, UInt8(standby) << 5 | filter << 2)
    }

    package func configure(_ configuration: BarometerConfiguration) throws(SensorError) {
        let bytes = try Self.registers(for: configuration, model: model)
        try device.checkIdentity(Register.chipID, expected: [model.identity], chip: chip.name)
        try device.write(Register.reset, Self.resetCommand)
        pause.wait(Self.startUp)
        let calibration = BMP280Calibration(registers: try device.read(Register.calibration, count: Self.calibrationCount))
        guard calibration.p1 != 0 else {
            throw .unsupportedSetting(chip: chip.name, setting: "trimming parameter dig_P1", requested: "0",
                                      supported: ["1…65535 (the factory value; a chip reading 0 is damaged or not a \(chip.name))"])
        }
        // §5.4.6: config is written while the chip sleeps (after the reset), then ctrl_meas starts normal mode.
        try device.write(Register.config, bytes.config)
        if let ctrlHum = model.ctrlHum { try device.write(Register.ctrlHum, ctrlHum) }
        try device.write(Register.ctrlMeas, bytes.ctrlMeas)
        state.withLock { $0 = (configuration, calibration) }
    }

    package func readSample() throws(SensorError) -> PressureSample {
        guard let calibration else { throw .notSupported(chip: chip.name, feature: "reading before configure") }
        let (rawP, rawT) = try device.burst(Register.pressureMSB, count: 6) { bytes in
            (Self.raw20(bytes[0], bytes[1], bytes[2]), Self.raw20(bytes[3], bytes[4], bytes[5]))
        }
        // configure refused dig_P1 == 0, the one case the compensation has no value for.
        guard let sample = calibration.compensate(rawPressure: rawP, rawTemperature: rawT) else {
            throw .notSupported(chip: chip.name, feature: "compensation with dig_P1 = 0")
        }
        return sample
    }

    /// §3.11.3: msb, lsb and the top four bits of xlsb make the 20-bit reading.
    static func raw20(_ msb: UInt8, _ lsb: UInt8, _ xlsb: UInt8) -> Int32 {
        Int32(msb) << 12 | Int32(lsb) << 4 | Int32(xlsb >> 4)
    }

    /// §3.8.1: the typical measurement time is 1 + 2·osrs_t + (2·osrs_p + 0.5) ms; in normal
    /// mode the standby t_sb follows it (§3.6.3). Indoor navigation: 37.5 + 0.5 ms, 26.3 Hz (Table 7).
    package var outputDataRate: Double? {
        let settings = configuration
        let measurement = 1 + 2 * Double(settings.temperatureOversampling) + 2 * Double(settings.pressureOversampling) + 0.5
        return 1000 / (measurement + settings.standby)
    }

    package func isStillConfigured() throws(SensorError) -> Bool {
        let expected = try Self.registers(for: configuration, model: model).ctrlMeas
        return try device.read(Register.ctrlMeas) == expected
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test")
    }
}
