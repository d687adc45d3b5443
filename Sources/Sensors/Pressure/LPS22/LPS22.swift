import I2C
import Locking

extension ChipInfo.Family {
    package static let lps22 = Self(rawValue: "ST LPS22HB/LPS22HH")
}

/// Driver for the ST LPS22HB and LPS22HH barometers (one register layout: LPS22HB datasheet
/// DocID027083 and LPS22HH datasheet DS12503 §8–§9; 0x5C with SA0 low, 0x5D with SA0 high).
/// ``configure(_:)`` checks WHO_AM_I, powers the chip down, writes CTRL_REG2 and then CTRL_REG1
/// (rate, low-pass filter, block data update); ``readSample()`` reads PRESS_OUT and TEMP_OUT in
/// one five-byte burst (IF_ADD_INC, on by default, advances the address; Linux
/// `st_pressure_core.c` reads these chips with `multi_read_bit = false`).
///
/// The chip compensates internally: PRESS_OUT is hPa × 4096 (24-bit two's complement) and TEMP_OUT
/// is °C × 100 (Linux `st_pressure_core.c`: `ST_PRESS_LSB_PER_MBAR` 4096,
/// `ST_PRESS_LPS22HB_LSB_PER_CELSIUS` 100).
///
/// How ``BarometerConfiguration`` maps onto the chip: there is no oversampling setting (both must
/// be 1), the filter coefficient is the low-pass filter's divisor of the output rate (0 = off,
/// 9 = ODR/9, 20 = ODR/20: EN_LPFP and LPFP_CFG), and `standby` is the measurement period of the
/// output data rate in ms (1000 / ODR).
package final class LPS22: BarometerDriver {
    /// What tells the LPS22HB from the LPS22HH.
    package struct Model: Sendable {
        package var name: String
        package var identity: UInt8
        /// CTRL_REG1 ODR codes 1… as periods in ms.
        package var periods: [Double]
        /// CTRL_REG2 bits written besides IF_ADD_INC (the LPS22HH's LOW_NOISE_EN).
        package var ctrlReg2Extra: UInt8

        /// WHO_AM_I 0xB1; ODR 1, 10, 25, 50, 75 Hz (codes 1…5; Linux `st_pressure_core.c` LPS22HB entry).
        package static let lps22hb = Model(name: "LPS22HB", identity: 0xB1, periods: [1000, 100, 40, 20, 1000.0 / 75], ctrlReg2Extra: 0)
        /// WHO_AM_I 0xB3; ODR 1, 10, 25, 50, 75, 100, 200 Hz (codes 1…7; Linux `st_pressure_core.c`
        /// LPS22HH entry). LOW_NOISE_EN (CTRL_REG2 bit 1) is set: its CTRL_REG2 description allows it below
        /// 100 Hz, and a write of a rate the low-noise mode does not allow is refused here.
        package static let lps22hh = Model(name: "LPS22HH", identity: 0xB3,
                                           periods: [1000, 100, 40, 20, 1000.0 / 75, 10, 5], ctrlReg2Extra: 0b10)
    }

    enum Register {
        static let whoAmI: UInt8 = 0x0F
        static let ctrlReg1: UInt8 = 0x10  // ODR 6:4, EN_LPFP 3, LPFP_CFG 2, BDU 1, SIM 0
        static let ctrlReg2: UInt8 = 0x11  // BOOT 7, IF_ADD_INC 4, SWRESET 2, (HH) LOW_NOISE_EN 1, ONE_SHOT 0
        static let pressOutXL: UInt8 = 0x28  // PRESS_OUT_XL, _L, _H, TEMP_OUT_L, _H
    }
    static let addressIncrement: UInt8 = 0x10
    static let blockDataUpdate: UInt8 = 0b10
    /// EN_LPFP and LPFP_CFG for the filter divisors (0 = off).
    static let filters = [0: UInt8(0b0000), 9: 0b1000, 20: 0b1100]
    /// PRESS_OUT counts per hPa, TEMP_OUT counts per °C.
    static let countsPerHectopascal = 4096.0, countsPerKelvin = 100.0

    /// For altitude: 25 Hz with the low-pass filter at ODR/9 (a 2.8 Hz bandwidth), block data update.
    package static let altitude = BarometerConfiguration(
        pressureOversampling: 1, temperatureOversampling: 1, filterCoefficient: 9, standby: 40)

    package let chip: ChipInfo
    package let model: Model
    private let device: RegisterDevice
    private let state: Locked<(configuration: BarometerConfiguration, configured: Bool)>

    package init(model: Model, bus: any I2CBus, address: I2CAddress = I2CAddress(0x5C), pause: Pause = .system) {
        device = RegisterDevice(bus: bus, address: address)
        chip = ChipInfo(name: model.name, family: .lps22, address: address, identity: [model.identity])
        self.model = model
        state = Locked((Self.altitude, false))
    }

    package var defaultConfiguration: BarometerConfiguration { Self.altitude }
    package var configuration: BarometerConfiguration { state.withLock { $0.configuration } }

    /// CTRL_REG2 and CTRL_REG1 for `configuration`, or the setting it names that the chip lacks.
    package static func registers(for configuration: BarometerConfiguration, model: Model) throws(SensorError)
        -> (ctrlReg2: UInt8, ctrlReg1: UInt8)
    {
        for (value, setting) in [(configuration.pressureOversampling, "pressure oversampling"),
                                 (configuration.temperatureOversampling, "temperature oversampling")] where value != 1 {
            throw .unsupportedSetting(chip: model.name, setting: setting, requested: "\(value)", supported: ["1"])
        }
        guard let filter = filters[configuration.filterCoefficient] else {
            throw .unsupportedSetting(chip: model.name, setting: "low-pass filter (ODR divisor)", requested: "\(configuration.filterCoefficient)",
                                      supported: filters.keys.sorted().map { "\($0)" })
        }
        // The LPS22HH's low-noise mode is for rates below 100 Hz (DS12503, CTRL_REG2).
        let periods = model.ctrlReg2Extra != 0 ? model.periods.prefix(5) : model.periods[...]
        guard let odr = periods.firstIndex(of: configuration.standby) else {
            throw .unsupportedSetting(chip: model.name, setting: "measurement period (ms)", requested: formatValue(configuration.standby),
                                      supported: periods.map(formatValue))
        }
        return (addressIncrement | model.ctrlReg2Extra, UInt8(odr + 1) << 4 | filter | blockDataUpdate)
    }

    package func configure(_ configuration: BarometerConfiguration) throws(SensorError) {
        let bytes = try Self.registers(for: configuration, model: model)
        try device.checkIdentity(Register.whoAmI, expected: [model.identity], chip: chip.name)
        try device.write(Register.ctrlReg1, 0)  // power-down: LOW_NOISE_EN changes only there (DS12503, CTRL_REG2)
        try device.write(Register.ctrlReg2, bytes.ctrlReg2)
        try device.write(Register.ctrlReg1, bytes.ctrlReg1)
        state.withLock { $0 = (configuration, true) }
    }

    package func readSample() throws(SensorError) -> PressureSample {
        guard state.withLock({ $0.configured }) else { throw .notSupported(chip: chip.name, feature: "reading before configure") }
        return try device.burst(Register.pressOutXL, count: 5) { bytes in
            let pressure = Int32(bitPattern: UInt32(bytes[0]) << 8 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 24) >> 8
            return Self.sample(rawPressure: pressure, rawTemperature: Int16(bitPattern: UInt16(bytes[3]) | UInt16(bytes[4]) << 8))
        }
    }

    /// Pa (hPa × 100) and °C from the counts.
    package static func sample(rawPressure: Int32, rawTemperature: Int16) -> PressureSample {
        PressureSample(pressure: Double(rawPressure) * 100 / countsPerHectopascal, temperature: Double(rawTemperature) / countsPerKelvin)
    }

    package func isStillConfigured() throws(SensorError) -> Bool {
        let expected = try Self.registers(for: configuration, model: model).ctrlReg1
        return try device.read(Register.ctrlReg1) == expected
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test")
    }
}
