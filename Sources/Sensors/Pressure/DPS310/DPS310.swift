import I2C
import Locking

extension ChipInfo.Family {
    package static let dps310 = Self(rawValue: "Infineon DPS310")
}

/// Driver for the Infineon DPS310 barometer (0x77 with SDO high or open, 0x76 with SDO low).
/// ``configure(_:)`` checks the product ID, soft-resets, waits for the coefficients, applies the
/// temperature workaround below, reads the coefficients and their temperature source, and starts
/// continuous pressure and temperature measurement; ``readSample()`` reads PSR_B2…TMP_B0 in one
/// burst and compensates them (``DPS310Calibration``).
///
/// Two temperature quirks:
/// - The coefficients are trimmed against one of two temperature sensors, the ASIC's or the
///   MEMS element's; COEF_SRCE (0x28) bit 7 says which, and TMP_CFG's TMP_EXT must select the same
///   one or the compensation is wrong. The driver copies the bit over (Linux `dps310.c` always
///   selects the MEMS sensor).
/// - Some chips read about 60 °C at about 20 °C. Linux `dps310.c` (`dps310_temp_workaround`)
///   applies the manufacturer's fix, through registers the datasheet does not document: when bit 1
///   of 0x32 is clear, write 0xA5 to 0x0E, 0x96 to 0x0F, 0x02 to 0x62, then 0x00 to 0x0E and 0x0F.
///   The driver does the same after every reset.
///
/// How ``BarometerConfiguration`` maps onto the chip: pressure and temperature oversampling are
/// PM_PRC and TMP_PRC (×1 … ×128), the filter coefficient must be 0 (the chip has no filter), and
/// `standby` is the measurement period in ms (1000 / PM_RATE, 1 … 128 per second; the temperature
/// is measured at the same rate).
package final class DPS310: BarometerDriver {
    /// Datasheet register map; the same addresses as Linux `dps310.c`.
    enum Register {
        static let pressure: UInt8 = 0x00  // PSR_B2 (MSB) … PSR_B0, then TMP_B2 … TMP_B0 (0x03…0x05)
        static let pressureConfig: UInt8 = 0x06  // PM_RATE 6:4, PM_PRC 3:0
        static let temperatureConfig: UInt8 = 0x07  // TMP_EXT 7, TMP_RATE 6:4, TMP_PRC 2:0
        static let measurementConfig: UInt8 = 0x08  // COEF_RDY 7, SENSOR_RDY 6, TMP_RDY 5, PRS_RDY 4, MEAS_CTRL 2:0
        static let config: UInt8 = 0x09  // T_SHIFT 3, P_SHIFT 2
        static let reset: UInt8 = 0x0C  // SOFT_RST 3:0 = 1001
        static let productID: UInt8 = 0x0D  // REV_ID 7:4, PROD_ID 3:0
        static let coefficients: UInt8 = 0x10  // 18 bytes
        static let coefficientSource: UInt8 = 0x28  // TMP_COEF_SRCE 7
    }
    static let identity: UInt8 = 0x10
    static let softReset: UInt8 = 0x09  // Linux `DPS310_RESET_MAGIC`
    static let coefficientsReady: UInt8 = 0x80, sensorReady: UInt8 = 0x40
    /// MEAS_CTRL 111: continuous pressure and temperature.
    static let continuous: UInt8 = 0b111
    static let externalTemperature: UInt8 = 0x80
    /// CFG_REG: the result shift the datasheet requires for oversampling above ×8, T_SHIFT bit 3 and
    /// P_SHIFT bit 2 (Linux `dps310.c` at 0278408 sets BIT(4), the datasheet's INT_PRS, as its
    /// `DPS310_PRS_SHIFT_EN`; Infineon's own register table puts the pressure shift at bit 2).
    static let temperatureShift: UInt8 = 0b1000, pressureShift: UInt8 = 0b100
    /// The coefficients are ready 40 ms after start-up (Linux `dps310.c` waits up to 40 ms for COEF_RDY).
    static let readyWait = Duration.milliseconds(10), readyPolls = 5
    /// The undocumented workaround of Linux `dps310.c` `dps310_temp_workaround`.
    static let workaroundCheck: UInt8 = 0x32
    static let workaround: [(UInt8, UInt8)] = [(0x0E, 0xA5), (0x0F, 0x96), (0x62, 0x02), (0x0E, 0x00), (0x0F, 0x00)]
    /// Oversampling ×1 … ×128 → PM_PRC / TMP_PRC codes 0…7.
    static let oversamplings = [1: UInt8(0), 2: 1, 4: 2, 8: 3, 16: 4, 32: 5, 64: 6, 128: 7]
    /// PM_RATE / TMP_RATE codes 0…7 (1 … 128 measurements a second) as periods in ms.
    static let periods: [Double] = (0...7).map { 1000 / Double(1 << $0) }
    /// The datasheet's pressure measurement times by PM_PRC code, ms (the same for temperature).
    static let measurementTimes: [Double] = [3.6, 5.2, 8.4, 14.8, 27.6, 53.2, 104.4, 206.8]

    /// For altitude: pressure ×16 (27.6 ms a measurement) and temperature ×1 (3.6 ms), 16 of each a
    /// second: 16 × (27.6 + 3.6) = 499 ms of every second measuring, inside the datasheet's rule
    /// that the rates times the measurement times stay below one second.
    package static let altitude = BarometerConfiguration(
        pressureOversampling: 16, temperatureOversampling: 1, filterCoefficient: 0, standby: 62.5)

    package let chip: ChipInfo
    private let device: RegisterDevice
    private let pause: Pause
    /// The configuration, the coefficients and the scale factors (kP, kT) of its oversampling.
    private let state: Locked<(configuration: BarometerConfiguration, calibration: DPS310Calibration?, kP: Double, kT: Double)>

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x77), pause: Pause = .system) {
        device = RegisterDevice(bus: bus, address: address)
        chip = ChipInfo(name: "DPS310", family: .dps310, address: address, identity: [Self.identity])
        self.pause = pause
        state = Locked((Self.altitude, nil, 1, 1))
    }

    package var defaultConfiguration: BarometerConfiguration { Self.altitude }
    package var configuration: BarometerConfiguration { state.withLock { $0.configuration } }
    package var calibration: DPS310Calibration? { state.withLock { $0.calibration } }

    /// PRS_CFG, TMP_CFG (without TMP_EXT) and CFG_REG for `configuration`, or the setting it names
    /// that the chip lacks.
    package static func registers(for configuration: BarometerConfiguration) throws(SensorError)
        -> (pressure: UInt8, temperature: UInt8, config: UInt8)
    {
        func code(_ value: Int, _ setting: String) throws(SensorError) -> UInt8 {
            guard let code = oversamplings[value] else {
                throw .unsupportedSetting(chip: "DPS310", setting: setting, requested: "\(value)",
                                          supported: oversamplings.keys.sorted().map { "\($0)" })
            }
            return code
        }
        let prc = try code(configuration.pressureOversampling, "pressure oversampling")
        let tmp = try code(configuration.temperatureOversampling, "temperature oversampling")
        guard configuration.filterCoefficient == 0 else {
            throw .unsupportedSetting(chip: "DPS310", setting: "filter coefficient", requested: "\(configuration.filterCoefficient)",
                                      supported: ["0 (the DPS310 has no filter)"])
        }
        guard let rate = periods.firstIndex(of: configuration.standby) else {
            throw .unsupportedSetting(chip: "DPS310", setting: "measurement period (ms)", requested: formatValue(configuration.standby),
                                      supported: periods.map(formatValue))
        }
        let busy = Double(1 << rate) * (measurementTimes[Int(prc)] + measurementTimes[Int(tmp)])
        guard busy < 1000 else {
            throw .unsupportedSetting(chip: "DPS310", setting: "oversampling at this rate", requested:
                "pressure ×\(configuration.pressureOversampling), temperature ×\(configuration.temperatureOversampling) every \(formatValue(configuration.standby)) ms",
                supported: ["a longer period or less oversampling (\(formatValue(busy)) ms of measuring a second; it must stay below 1000)"])
        }
        let shifts = (prc > 3 ? pressureShift : 0) | (tmp > 3 ? temperatureShift : 0)
        return (UInt8(rate) << 4 | prc, UInt8(rate) << 4 | tmp, shifts)
    }

    package func configure(_ configuration: BarometerConfiguration) throws(SensorError) {
        let bytes = try Self.registers(for: configuration)
        try device.checkIdentity(Register.productID, expected: [Self.identity], chip: chip.name)
        try device.write(Register.reset, Self.softReset)
        try waitUntilReady()
        if try device.read(Self.workaroundCheck) & 0b10 == 0 {
            for (register, value) in Self.workaround { try device.write(register, value) }
        }
        let calibration = DPS310Calibration(registers: try device.read(Register.coefficients, count: DPS310Calibration.byteCount))
        let source = try device.read(Register.coefficientSource) & Self.externalTemperature
        try device.write(Register.pressureConfig, bytes.pressure)
        try device.write(Register.temperatureConfig, source | bytes.temperature)
        try device.write(Register.config, bytes.config)
        // Linux `dps310.c`: MEAS_CFG takes a new mode only after being written 0.
        try device.write(Register.measurementConfig, 0)
        try device.write(Register.measurementConfig, Self.continuous)
        let (kP, kT) = (DPS310Calibration.scaleFactors[Int(bytes.pressure & 0x7)], DPS310Calibration.scaleFactors[Int(bytes.temperature & 0x7)])
        state.withLock { $0 = (configuration, calibration, kP, kT) }
    }

    /// Polls MEAS_CFG until COEF_RDY and SENSOR_RDY are set.
    private func waitUntilReady() throws(SensorError) {
        let ready = Self.coefficientsReady | Self.sensorReady
        for _ in 0..<Self.readyPolls {
            pause.wait(Self.readyWait)
            if try device.read(Register.measurementConfig) & ready == ready { return }
        }
        throw .resetTimeout(chip: chip.name, address: chip.address, polls: Self.readyPolls)
    }

    package func readSample() throws(SensorError) -> PressureSample {
        let (calibration, kP, kT) = state.withLock { ($0.calibration, $0.kP, $0.kT) }
        guard let calibration else { throw .notSupported(chip: chip.name, feature: "reading before configure") }
        let (rawP, rawT) = try device.burst(Register.pressure, count: 6) { b in
            (Self.raw24(b[0], b[1], b[2]), Self.raw24(b[3], b[4], b[5]))
        }
        return PressureSample(pressure: calibration.pressure(rawPressure: rawP, kP: kP, rawTemperature: rawT, kT: kT),
                              temperature: calibration.temperature(rawTemperature: rawT, kT: kT))
    }

    /// B2 (most significant), B1, B0: the signed 24-bit reading.
    static func raw24(_ b2: UInt8, _ b1: UInt8, _ b0: UInt8) -> Int32 {
        Int32(bitPattern: UInt32(b2) << 24 | UInt32(b1) << 16 | UInt32(b0) << 8) >> 8
    }

    package func isStillConfigured() throws(SensorError) -> Bool {
        try device.read(Register.measurementConfig) & 0b111 == Self.continuous
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test")
    }
}
