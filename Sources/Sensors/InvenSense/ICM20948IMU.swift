import I2C

/// Driver for the TDK InvenSense ICM-20948 accelerometer + gyroscope (WHO_AM_I 0xEA), the
/// MPU-9250's successor on today's 9-DoF breakouts (SparkFun, Adafruit).
///
/// Its registers live in four banks chosen by REG_BANK_SEL (0x7F, bits 5:4, present in every
/// bank). The driver selects bank 2 only for the rate, range and filter writes and always
/// returns to bank 0 before it lets go of its lock, so the chip is left as it powers up: with
/// WHO_AM_I, the output registers and the bypass switch in view.
///
/// The AK09916 magnetometer inside the package appears at 0x0C on the same bus once
/// ``configure(_:)`` has switched the I2C bypass on; drive it with ``AKMagnetometer`` (`.ak09916`). Its
/// axes are not the accelerometer's: DS-000189 §11.1, magnetometer y and z point opposite.
package final class ICM20948IMU: InvenSenseFIFODriver {
    /// The chip's name as ``ChipInfo/name`` gives it.
    package static let chipName = ICM20948Settings.name
    /// ±4 g, ±500 °/s, 220 Hz (gyroscope divider 4), gyroscope bandwidth 51.2 Hz.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 220, accelerometerRange: 4, gyroscopeRange: 500)

    let core: DriverCore<ICM20948Settings, IMUState<NoFIFOProgress>>
    /// PWR_MGMT_1 (bank 0): 0x01 after ``configure(_:)``, 0x41 (asleep) after a reset.
    static let configuredRegister = ICM20948Register.powerManagement1

    static let resetPolls = 20

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x68), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        core = DriverCore(bus: bus, address: address, chip: Self.chipName, .invenSense, identity: ICM20948Settings.identity, settings: ICM20948Settings(),
                          pause: pause, resetCompletion: resetCompletion, configuration: defaultConfiguration,
                          scale: IMUScale(accelerometerLSBPerG: 8192, gyroscopeLSBPerDPS: 65.5))
    }

    /// The gyroscope's delay at the GYRO_DLPFCFG the configuration selects (the default's before
    /// ``configure(_:)``): ``ICM20948Settings/gyroscopeDelay(bandwidth:)``.
    package var outputDelay: Double {
        let configuration = core.configuration
        do {
            let rate = try ICM20948Settings.tables.rate(configuration.outputDataRate, chip: chip.name)
            let lowPass = try IMUTables.lowPass(for: configuration, rate: rate.value, in: ICM20948Settings.lowPass, chip: chip.name)
            return ICM20948Settings.gyroscopeDelay(bandwidth: lowPass.value)
        } catch {
            return 0   // a configuration the chip rejects was never applied
        }
    }

    /// Bank 0; identify; reset (DS-000189 §8.2 PWR_MGMT_1: DEVICE_RESET clears itself and the
    /// bank returns to 0); wake with the auto-selected clock; I2C master off and bypass on; then
    /// in bank 2 the dividers, ranges and filters; back to bank 0.
    func apply(_ configuration: IMUConfiguration, to state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        let name = chip.name
        let (rate, accelerometer, gyroscope) = try ICM20948Settings.tables.options(for: configuration, chip: name)
        let lowPass = try IMUTables.lowPass(for: configuration, rate: rate.value, in: ICM20948Settings.lowPass, chip: name)
        let accelDivider = ICM20948Settings.accelerometerDivider(forRate: rate.value)

        try selectBank(0)
        try device.checkIdentity(ICM20948Register.whoAmI, expected: [ICM20948Settings.identity], chip: name)
        try core.softReset(ICM20948Register.deviceReset, polls: Self.resetPolls, interval: .milliseconds(10))
        var shadow = ShadowRegisters([:])
        // SLEEP = 0, CLKSEL = 1 (best available clock: the PLL once the gyroscope runs).
        try device.write(ICM20948Register.powerManagement1, shadow.set(ICM20948Register.clockSelect, 1))
        // The AK09916 hangs on the auxiliary bus. Bypass (rather than the chip's own I2C master
        // copying it into EXT_SLV_SENS_DATA) keeps it simple: the magnetometer is an ordinary
        // device at 0x0C read with one transaction per sample by the same AK driver code as the
        // MPU-9250's AK8963, with no slave programming, bank switching or master timing to get
        // wrong. I2C_MST_EN must be 0 for the bypass switch to close.
        try device.write(ICM20948Register.userControl, 0x00)
        try device.write(ICM20948Register.interruptPinConfig, shadow.set(ICM20948Register.bypassField, 1))

        try inBank(2, [
            (ICM20948Register.gyroSampleRateDivider, rate.code),
            (ICM20948Register.gyroConfig1, ICM20948Register.gyroConfig(range: gyroscope.code, lowPass: lowPass.code)),
            (ICM20948Register.accelSampleRateDivider1, UInt8(accelDivider >> 8)),
            (ICM20948Register.accelSampleRateDivider2, UInt8(accelDivider & 0xFF)),
            (ICM20948Register.accelConfig, ICM20948Register.accelConfig(range: accelerometer.code, lowPass: lowPass.code)),
        ])
        state.shadow = shadow
        state.configuration = configuration
        state.scale = IMUScale(accelerometer, gyroscope)
    }

    /// REG_BANK_SEL USER_BANK (bits 5:4).
    private func selectBank(_ bank: UInt8) throws(SensorError) {
        try device.write(ICM20948Register.bankSelect, ICM20948Register.bankField.setting(bank, in: 0))
    }

    /// One 14-byte burst in bank 0 from ACCEL_XOUT_H (0x2D) to TEMP_OUT_L (0x3A): accelerometer,
    /// gyroscope, then temperature (not the MPU order). Under the driver's lock.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(ICM20948Register.accelXHigh, count: 14) { bytes in
                let temperature = Double(int16BE(bytes, 12)) / ICM20948Settings.temperatureLSBPerDegree + ICM20948Settings.temperatureOffset
                return state.scale.sample(
                    accelerometer: AxisLayout.bigEndian.counts(bytes, from: 0),
                    gyroscope: AxisLayout.bigEndian.counts(bytes, from: 6), temperature: temperature)
            }
        }
    }

    // MARK: FIFO (DS-000189 §8: USER_CTRL, INT_ENABLE_2, INT_STATUS_2, FIFO_EN_2, FIFO_RST, FIFO_MODE, FIFO_COUNT, FIFO_R_W)

    /// FIFO_RST asserted for every FIFO then released (the bits do not clear themselves); stream
    /// mode (FIFO_MODE 0: the oldest data replaced on overflow); ACCEL, GYRO_Z, GYRO_Y, GYRO_X in
    /// FIFO_EN_2 (0x1E: 12-byte frames in the MPU family's order); FIFO_OVERFLOW_EN for FIFO 0;
    /// FIFO_EN (the I2C master stays off, so the bypass stays). Any FIFO_OVERFLOW_INT bit in
    /// INT_STATUS_2 restarts it with FIFO_RST; FIFO_COUNT has 13 bits.
    static let fifo = InvenSenseFIFO(
        start: [(ICM20948Register.fifoReset, 0x1F), (ICM20948Register.fifoReset, 0x00), (ICM20948Register.fifoMode, 0x00),
                (ICM20948Register.fifoEnable2, 0x1E), (ICM20948Register.interruptEnable2, 0x01), (ICM20948Register.userControl, 0x40)],
        overflow: RegisterField(ICM20948Register.interruptStatus2, mask: 0x1F),
        restart: [(ICM20948Register.fifoReset, 0x1F), (ICM20948Register.fifoReset, 0x00)],
        count: RegisterField(ICM20948Register.fifoCountHigh, mask: 0x1F), data: ICM20948Register.fifoData)

    // MARK: Self-test

    /// Averaged samples per self-test phase.
    static let selfTestSamples = 200

    /// Self-test: ±250 °/s and ±2 g at 1.1 kHz with the 119.5 Hz filter; average with the
    /// self-test off, then with GYRO_CONFIG_2 XGYRO/YGYRO/ZGYRO_CTEN and ACCEL_CONFIG_2
    /// AX/AY/AZ_ST_EN set; the response is the difference. The factory codes are bank 1
    /// SELF_TEST_X/Y/Z_GYRO (0x02–0x04) and SELF_TEST_X/Y/Z_ACCEL (0x0E–0x10), DS-000189 §9.
    /// DS-000189 names these registers but not the pass criterion; the MPU-6500/9250 criterion
    /// (AN-MPU-9250A-03: 0.5 ≤ response / (2620 · 1.01^(code − 1)) ≤ 1.5) is applied, as the
    /// codes use the same encoding. Then the chip is reset and the configuration restored.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { _ throws(SensorError) in
            let config = { (selfTest: UInt8) -> [(UInt8, UInt8)] in [
                (ICM20948Register.gyroSampleRateDivider, 0),
                (ICM20948Register.gyroConfig1, ICM20948Register.gyroConfig(range: 0, lowPass: 2)),
                (ICM20948Register.gyroConfig2, selfTest & 0b0011_1000),  // XGYRO_CTEN 5 … ZGYRO_CTEN 3
                (ICM20948Register.accelConfig, ICM20948Register.accelConfig(range: 0, lowPass: 2)),
                (ICM20948Register.accelConfig2, selfTest & 0b0001_1100),  // AX_ST_EN 4 … AZ_ST_EN 2
            ] }
            try inBank(2, config(0x00))
            core.pause.wait(.milliseconds(20))
            let normal = try averageRaw()
            try inBank(2, config(0xFF))
            core.pause.wait(.milliseconds(20))
            let excited = try averageRaw()
            try inBank(2, config(0x00))
            try selectBank(1)
            let gyroCodes = try device.read(ICM20948Register.selfTestXGyro, count: 3)
            let accelCodes = try device.read(ICM20948Register.selfTestXAccel, count: 3)
            try selectBank(0)
            return InvenSenseSelfTest.evaluateOTP(
                chip: chip.name, accelerometerResponse: excited.accelerometer - normal.accelerometer,
                gyroscopeResponse: excited.gyroscope - normal.gyroscope,
                gyroscopeCodes: gyroCodes, accelerometerCodes: accelCodes)
        }
    }

    /// Writes `registers` in `bank`, then selects bank 0 again.
    private func inBank(_ bank: UInt8, _ registers: [(UInt8, UInt8)]) throws(SensorError) {
        try selectBank(bank)
        do {
            for (register, value) in registers { try device.write(register, value) }
        } catch {
            // Back to bank 0 even after a failed write, so that identification (bank 0's
            // WHO_AM_I at 0x00) stays right; the write's error is the one reported.
            _ = Result { () throws(SensorError) in try selectBank(0) }
            throw error
        }
        try selectBank(0)
    }

    private func averageRaw() throws(SensorError) -> (accelerometer: SIMD3<Double>, gyroscope: SIMD3<Double>) {
        var accelerometer: [SIMD3<Int16>] = []
        var gyroscope: [SIMD3<Int16>] = []
        for _ in 0..<Self.selfTestSamples {
            core.pause.wait(.milliseconds(1))
            let bytes = try device.read(ICM20948Register.accelXHigh, count: 14)
            accelerometer.append(AxisLayout.bigEndian.counts(bytes, from: 0))
            gyroscope.append(AxisLayout.bigEndian.counts(bytes, from: 6))
        }
        return (mean(accelerometer), mean(gyroscope))
    }
}

/// ICM-20948 register map (DS-000189 rev 1.3 §7, §8 bank 0, §10 bank 2).
enum ICM20948Register {
    // Bank 0
    static let whoAmI: UInt8 = 0x00  // 0xEA
    static let userControl: UInt8 = 0x03  // USER_CTRL: DMP_EN 7, FIFO_EN 6, I2C_MST_EN 5
    static let powerManagement1: UInt8 = 0x06  // DEVICE_RESET 7, SLEEP 6, CLKSEL 2:0
    static let powerManagement2: UInt8 = 0x07  // DISABLE_ACCEL 5:3, DISABLE_GYRO 2:0
    static let interruptPinConfig: UInt8 = 0x0F  // INT_PIN_CFG: BYPASS_EN 1
    static let interruptEnable2: UInt8 = 0x12  // INT_ENABLE_2: FIFO_OVERFLOW_EN 4:0
    static let interruptStatus2: UInt8 = 0x1C  // INT_STATUS_2: FIFO_OVERFLOW_INT 4:0 (cleared by reading)
    static let accelXHigh: UInt8 = 0x2D  // ACCEL 0x2D–0x32, GYRO 0x33–0x38, TEMP 0x39–0x3A, big-endian
    static let fifoEnable2: UInt8 = 0x67  // FIFO_EN_2: ACCEL 4, GYRO_Z 3, GYRO_Y 2, GYRO_X 1, TEMP 0
    static let fifoReset: UInt8 = 0x68  // FIFO_RST: FIFO_RESET 4:0
    static let fifoMode: UInt8 = 0x69  // FIFO_MODE: 0 stream, 1 snapshot
    static let fifoCountHigh: UInt8 = 0x70  // FIFO_COUNTH (bits 4:0), FIFO_COUNTL
    static let fifoData: UInt8 = 0x72  // FIFO_R_W
    // Bank 2
    static let gyroSampleRateDivider: UInt8 = 0x00  // GYRO_SMPLRT_DIV: 1.1 kHz / (1 + divider)
    static let gyroConfig1: UInt8 = 0x01  // GYRO_DLPFCFG 5:3, GYRO_FS_SEL 2:1, GYRO_FCHOICE 0
    static let accelSampleRateDivider1: UInt8 = 0x10  // ACCEL_SMPLRT_DIV 11:8
    static let accelSampleRateDivider2: UInt8 = 0x11  // ACCEL_SMPLRT_DIV 7:0: 1.125 kHz / (1 + divider)
    static let gyroConfig2: UInt8 = 0x02  // XGYRO_CTEN 5, YGYRO_CTEN 4, ZGYRO_CTEN 3
    static let accelConfig: UInt8 = 0x14  // ACCEL_DLPFCFG 5:3, ACCEL_FS_SEL 2:1, ACCEL_FCHOICE 0
    static let accelConfig2: UInt8 = 0x15  // AX_ST_EN_REG 4, AY_ST_EN_REG 3, AZ_ST_EN_REG 2
    // Bank 1
    static let selfTestXGyro: UInt8 = 0x02  // SELF_TEST_X/Y/Z_GYRO 0x02–0x04
    static let selfTestXAccel: UInt8 = 0x0E  // SELF_TEST_X/Y/Z_ACCEL 0x0E–0x10
    // Every bank
    static let bankSelect: UInt8 = 0x7F  // REG_BANK_SEL: USER_BANK 5:4

    static let bankField = RegisterField(bankSelect, mask: 0b0011_0000)
    static let deviceReset = RegisterField(powerManagement1, mask: 0b1000_0000)
    static let clockSelect = RegisterField(powerManagement1, mask: 0b0000_0111)
    static let bypassField = RegisterField(interruptPinConfig, mask: 0b0000_0010)
    static let rangeField = RegisterField(0, mask: 0b0000_0110)  // FS_SEL in GYRO_CONFIG_1 and ACCEL_CONFIG
    static let lowPassField = RegisterField(0, mask: 0b0011_1000)  // DLPFCFG in both
    static let filterChoice = RegisterField(0, mask: 0b0000_0001)  // FCHOICE = 1: the DLPF is in the path

    /// GYRO_CONFIG_1 and ACCEL_CONFIG share one layout: DLPFCFG 5:3, FS_SEL 2:1, FCHOICE 0.
    static func gyroConfig(range: UInt8, lowPass: UInt8) -> UInt8 { config(range: range, lowPass: lowPass) }
    static func accelConfig(range: UInt8, lowPass: UInt8) -> UInt8 { config(range: range, lowPass: lowPass) }

    private static func config(range: UInt8, lowPass: UInt8) -> UInt8 {
        lowPassField.setting(lowPass, in: rangeField.setting(range, in: filterChoice.setting(1, in: 0)))
    }
}

/// The ICM-20948's tables (DS-000189 §3.1–3.2 sensitivities, §8.2 temperature, §10 bank 2
/// dividers and filters).
struct ICM20948Settings: Sendable {
    static let name = "ICM-20948"
    /// WHO_AM_I, bank 0 register 0x00.
    static let identity: UInt8 = 0xEA

    /// Output data rates (Hz) are the gyroscope's, 1.1 kHz / (1 + GYRO_SMPLRT_DIV) with a whole
    /// divider; the accelerometer's divider is the nearest for 1.125 kHz / (1 + ACCEL_SMPLRT_DIV)
    /// (``accelerometerDivider(forRate:)``). Sensitivities: ±2/4/8/16 g → 16384/8192/4096/2048
    /// LSB/g; ±250/500/1000/2000 °/s → 131/65.5/32.8/16.4 LSB/(°/s).
    static let tables = IMUTables(
        outputDataRates: [1100, 550, 275, 220, 110, 100, 55, 50, 25, 20, 10]
            .map { SettingOption(value: $0, code: UInt8(1100 / $0 - 1)) },
        accelerometerRanges: zip([2.0, 4, 8, 16], [16384.0, 8192, 4096, 2048]).enumerated()
            .map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1) },
        gyroscopeRanges: zip([250.0, 500, 1000, 2000], [131, 65.5, 32.8, 16.4]).enumerated()
            .map { SettingOption(value: $1.0, code: UInt8($0), sensitivity: $1.1) })

    /// Gyroscope 3-dB bandwidth (Hz) → GYRO_DLPFCFG with GYRO_FCHOICE = 1 (DS-000189 Table 16);
    /// the same code goes to ACCEL_DLPFCFG (Table 18: 246/246/111.4/50.4/23.9/11.5/5.7 Hz).
    static let lowPass = [196.6, 151.8, 119.5, 51.2, 23.9, 11.6, 5.7].enumerated()
        .map { SettingOption(value: $1, code: UInt8($0)) }

    /// The gyroscope's group delay, s, at a DLPF 3-dB bandwidth of `bandwidth` Hz. DS-000189
    /// gives bandwidths (Table 16) but no delays, so the delay is derived: the register map of
    /// its predecessor, whose DLPF has the same structure, tabulates both (RM-MPU-9250A §4.6,
    /// FCHOICE_B = 0: 184/92/41/20/10/5 Hz → 2.9/3.9/5.9/9.9/17.85/33.48 ms), and every row is
    /// within 0.31 ms of 1.96 ms + 1 / (2π · bandwidth): a first-order low-pass's group delay
    /// plus the sampling chain's fixed part (1.96 ms, the rows' mean). At the driver's default
    /// (51.2 Hz) that is 5.07 ms.
    static func gyroscopeDelay(bandwidth: Double) -> Double {
        guard bandwidth > 0 else { return 0 }
        return 0.00196 + 1 / (2 * Double.pi * bandwidth)
    }

    /// Temperature (§8.2 TEMP_OUT, room-temperature offset 0 LSB): °C = raw / 333.87 + 21.
    static let temperatureLSBPerDegree = 333.87
    static let temperatureOffset = 21.0

    /// ACCEL_SMPLRT_DIV (12 bit) nearest to `rate` Hz from 1.125 kHz; `rate` comes from the
    /// table, so the result is within 0…4095.
    static func accelerometerDivider(forRate rate: Double) -> UInt16 {
        let divider = (1125 / rate - 1).rounded()
        return UInt16(max(0, min(4095, divider)))
    }
}
