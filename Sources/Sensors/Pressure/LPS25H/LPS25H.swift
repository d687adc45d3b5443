import I2C
import Locking

extension ChipInfo.Family {
    package static let lps25h = Self(rawValue: "ST LPS25H")
}

/// Driver for the ST LPS25H barometer (the Raspberry Pi Sense HAT's, at 0x5C; 0x5D with SA0 high:
/// LPS25H datasheet DocID023722 §5.2.1). ``configure(_:)`` checks WHO_AM_I, powers the chip down
/// (AN4450 §4.3 step 1, a clean start), writes the averaging and FIFO settings and powers it up in
/// continuous mode with block data update; ``readSample()`` reads pressure and temperature.
///
/// The chip compensates internally: PRESS_OUT is hPa × 4096 (24-bit two's complement) and
/// TEMP_OUT is 42.5 °C + count / 480 (AN4450 §4.3; Linux `st_pressure_core.c`
/// `ST_PRESS_LSB_PER_MBAR` 4096, `ST_PRESS_LSB_PER_CELSIUS` 480, `ST_PRESS_MILLI_CELSIUS_OFFSET` 42500).
///
/// How ``BarometerConfiguration`` maps onto the chip: pressure oversampling is AVGP (internal
/// averages 8, 32, 128, 512), temperature oversampling AVGT (8, 16, 32, 64), the filter coefficient
/// the FIFO mean mode's moving-average size (0 = off, 2, 4, 8, 16, 32), and `standby` the
/// measurement period of the output data rate in ms (1000 / ODR: the LPS25H has no standby setting
/// of its own).
package final class LPS25H: BarometerDriver {
    /// DocID023722 §7 register map; the same addresses as Linux `st_pressure_core.c` (LPS25H entry:
    /// `wai` 0xbd at 0x0f, ODR and power at 0x20, BDU mask 0x04, `multi_read_bit`).
    enum Register {
        static let whoAmI: UInt8 = 0x0F  // reads 0xBD
        static let resConf: UInt8 = 0x10  // AVGT 3:2, AVGP 1:0
        static let ctrlReg1: UInt8 = 0x20  // PD 7, ODR 6:4, DIFF_EN 3, BDU 2, RESET_AZ 1, SIM 0
        static let ctrlReg2: UInt8 = 0x21  // BOOT 7, FIFO_EN 6, WTM_EN 5, FIFO_MEAN_DEC 4, SWRESET 2, AUTO_ZERO 1, ONE_SHOT 0
        static let pressOutXL: UInt8 = 0x28  // PRESS_OUT_XL, _L, _H
        static let tempOutL: UInt8 = 0x2B  // TEMP_OUT_L, _H
        static let fifoCtrl: UInt8 = 0x2E  // F_MODE 7:5, WTM_POINT 4:0
    }
    static let identity: UInt8 = 0xBD
    /// §5.2.1: in I2C, the sub-address's most significant bit set makes the register address
    /// advance on a multi-byte read (Linux `st_pressure_core.c`: `multi_read_bit = true`).
    static let autoIncrement: UInt8 = 0x80
    /// RES_CONF AVGP codes 0…3: 8, 32, 128, 512 internal pressure averages.
    static let pressureAverages = [8: UInt8(0), 32: 1, 128: 2, 512: 3]
    /// RES_CONF AVGT codes 0…3: 8, 16, 32, 64 internal temperature averages.
    static let temperatureAverages = [8: UInt8(0), 16: 1, 32: 2, 64: 3]
    /// FIFO mean mode sizes and their WTM_POINT codes (LPS25HB datasheet DocID027112 §4.6 Table 9,
    /// the LPS25H's FIFO being the same: AN4450 §5.1); 0 leaves the FIFO in bypass.
    static let meanSizes = [0: UInt8(0), 2: 0b00001, 4: 0b00011, 8: 0b00111, 16: 0b01111, 32: 0b11111]
    /// CTRL_REG1 ODR codes 1…4: 1, 7, 12.5, 25 Hz (Linux `st_pressure_core.c` lists them as 1, 7, 13,
    /// 25 Hz, codes 0x01…0x04), as periods in ms.
    static let periods: [Double] = [1000, 1000.0 / 7, 80, 40]
    /// F_MODE 110: FIFO mean mode (DocID027112 §4.6).
    static let fifoMeanMode: UInt8 = 0b110 << 5
    static let powerOn: UInt8 = 0x80, blockDataUpdate: UInt8 = 0x04, fifoEnable: UInt8 = 0x40
    /// PRESS_OUT counts per hPa and TEMP_OUT counts per °C, and TEMP_OUT's 0 (AN4450 §4.3).
    static let countsPerHectopascal = 4096.0, countsPerKelvin = 480.0, temperatureOffset = 42.5

    /// For altitude: ODR 25 Hz, the most internal averaging (AVGP 512, AVGT 64: 62 µs × (512 + 64)
    /// + 975 µs = 36.7 ms per measurement, which AN4450 §6.2 gives as compatible with 25 Hz) and no
    /// FIFO mean (its 32-sample moving average would delay a climb by 0.6 s at 25 Hz).
    package static let altitude = BarometerConfiguration(
        pressureOversampling: 512, temperatureOversampling: 64, filterCoefficient: 0, standby: 40)

    package let chip: ChipInfo
    private let device: RegisterDevice
    private let state: Locked<(configuration: BarometerConfiguration, configured: Bool)>

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x5C), pause: Pause = .system) {
        device = RegisterDevice(bus: bus, address: address)
        chip = ChipInfo(name: "LPS25H", family: .lps25h, address: address, identity: [Self.identity])
        state = Locked((Self.altitude, false))
    }

    package var defaultConfiguration: BarometerConfiguration { Self.altitude }
    package var configuration: BarometerConfiguration { state.withLock { $0.configuration } }

    /// RES_CONF, FIFO_CTRL, CTRL_REG2 and CTRL_REG1 for `configuration`, or the setting it names that the chip lacks.
    package static func registers(for configuration: BarometerConfiguration) throws(SensorError)
        -> (resConf: UInt8, fifoCtrl: UInt8, ctrlReg2: UInt8, ctrlReg1: UInt8)
    {
        let avgp = try lookupCode(pressureAverages, configuration.pressureOversampling, "pressure averages (AVGP)")
        let avgt = try lookupCode(temperatureAverages, configuration.temperatureOversampling, "temperature averages (AVGT)")
        let mean = try lookupCode(meanSizes, configuration.filterCoefficient, "FIFO mean size")
        guard let odr = periods.firstIndex(of: configuration.standby) else {
            throw .unsupportedSetting(chip: "LPS25H", setting: "measurement period (ms)", requested: formatValue(configuration.standby),
                                      supported: periods.map(formatValue))
        }
        let fifo: (ctrl: UInt8, reg2: UInt8) = configuration.filterCoefficient == 0 ? (0, 0) : (fifoMeanMode | mean, fifoEnable)
        return (avgt << 2 | avgp, fifo.ctrl, fifo.reg2, powerOn | UInt8(odr + 1) << 4 | blockDataUpdate)
    }

    private static func lookupCode(_ table: [Int: UInt8], _ value: Int, _ setting: String) throws(SensorError) -> UInt8 {
        guard let code = table[value] else {
            throw .unsupportedSetting(chip: "LPS25H", setting: setting, requested: "\(value)", supported: table.keys.sorted().map { "\($0)" })
        }
        return code
    }

    package func configure(_ configuration: BarometerConfiguration) throws(SensorError) {
        let bytes = try Self.registers(for: configuration)
        try device.checkIdentity(Register.whoAmI, expected: [Self.identity], chip: chip.name)
        try device.write(Register.ctrlReg1, 0)  // power down: settings are written to a sleeping chip
        // AN4450 §5.1: the FIFO is switched on or off only while in bypass mode.
        try device.write(Register.fifoCtrl, 0)
        try device.write(Register.resConf, bytes.resConf)
        try device.write(Register.ctrlReg2, bytes.ctrlReg2)
        try device.write(Register.fifoCtrl, bytes.fifoCtrl)
        try device.write(Register.ctrlReg1, bytes.ctrlReg1)
        state.withLock { $0 = (configuration, true) }
    }

    /// Pressure and temperature as two reads: with the FIFO on, the address wraps from PRESS_OUT_H
    /// back to PRESS_OUT_XL (AN4450 §5.1 Figure 8), so one five-byte burst would not reach TEMP_OUT.
    /// Block data update keeps both from one measurement until both are read.
    package func readSample() throws(SensorError) -> PressureSample {
        guard state.withLock({ $0.configured }) else { throw .notSupported(chip: chip.name, feature: "reading before configure") }
        let rawP = try device.burst(Register.pressOutXL | Self.autoIncrement, count: 3) { Self.raw24($0[0], $0[1], $0[2]) }
        let rawT = try device.burst(Register.tempOutL | Self.autoIncrement, count: 2) { Int16(bitPattern: UInt16($0[0]) | UInt16($0[1]) << 8) }
        return Self.sample(rawPressure: rawP, rawTemperature: rawT)
    }

    /// PRESS_OUT_XL, _L, _H as the signed 24-bit count.
    static func raw24(_ xl: UInt8, _ l: UInt8, _ h: UInt8) -> Int32 {
        Int32(bitPattern: UInt32(xl) << 8 | UInt32(l) << 16 | UInt32(h) << 24) >> 8
    }

    /// Pa (hPa × 100) and °C from the counts (AN4450 §4.3).
    package static func sample(rawPressure: Int32, rawTemperature: Int16) -> PressureSample {
        PressureSample(pressure: Double(rawPressure) * 100 / countsPerHectopascal,
                       temperature: temperatureOffset + Double(rawTemperature) / countsPerKelvin)
    }

    package func isStillConfigured() throws(SensorError) -> Bool {
        let expected = try Self.registers(for: configuration).ctrlReg1
        return try device.read(Register.ctrlReg1) == expected
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test")
    }
}
