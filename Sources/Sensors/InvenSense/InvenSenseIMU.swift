import I2C

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Driver for the InvenSense MPU-6050, MPU-6500, MPU-9150 and MPU-9250 accelerometer + gyroscope.
///
/// The MPU-9250's AK8963 and the MPU-9150's AK8975 magnetometer appear at 0x0C on the same bus
/// once ``configure(_:)`` has set INT_PIN_CFG BYPASS_EN; drive them with ``AKMagnetometer``.
package final class InvenSenseIMU: InvenSenseFIFODriver {
    /// ±4 g, ±500 °/s, 200 Hz, gyro bandwidth 98/92 Hz.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500)

    let core: DriverCore<InvenSenseSettings, IMUState<NoFIFOProgress>>
    /// CONFIG (0x1A), whose DLPF_CFG is never 0 after ``configure(_:)`` but 0 after a reset.
    static let configuredRegister = InvenSenseRegister.config

    /// FIFO_RESET; XG, YG, ZG and ACCEL in FIFO_EN (0x78: 12-byte frames); FIFO_OFLOW_EN in
    /// INT_ENABLE; FIFO_EN. FIFO_OFLOW_INT in INT_STATUS; restarted with FIFO_EN | FIFO_RESET.
    static let fifo = InvenSenseFIFO(
        start: [(InvenSenseRegister.userControl, 0x04), (InvenSenseRegister.fifoEnable, 0x78),
                (InvenSenseRegister.interruptEnable, 0x10), (InvenSenseRegister.userControl, 0x40)],
        overflow: RegisterField(InvenSenseRegister.interruptStatus, mask: 0x10), restart: [(InvenSenseRegister.userControl, 0x44)],
        count: RegisterField(InvenSenseRegister.fifoCountHigh, mask: 0xFF), data: InvenSenseRegister.fifoData)
    static let resetPolls = 20

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x68), model: InvenSenseModel, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        let settings = InvenSenseSettings.settings(for: model)
        core = DriverCore(bus: bus, address: address, chip: model.rawValue, .invenSense, identity: settings.identity, settings: settings, pause: pause,
                          resetCompletion: resetCompletion, configuration: defaultConfiguration, scale: IMUScale(accelerometerLSBPerG: 8192, gyroscopeLSBPerDPS: 65.5))
    }

    /// The gyroscope's delay at the DLPF_CFG code last written (0 before ``configure(_:)``).
    package var outputDelay: Double {
        settings.gyroscopeDelay[InvenSenseRegister.lowPassField.code(in: core.shadow(InvenSenseRegister.config))] ?? 0
    }

    /// Identify, reset, wake, then rate, filter and ranges (RM-MPU-6000A §4.28 PWR_MGMT_1).
    func apply(_ configuration: IMUConfiguration, to state: inout IMUState<NoFIFOProgress>) throws(SensorError) {
        let name = chip.name
        let (rate, accelerometer, gyroscope) = try InvenSenseSettings.tables.options(for: configuration, chip: name)
        let lowPass = try IMUTables.lowPass(for: configuration, rate: rate.value, in: settings.lowPass, chip: name)

        try device.checkIdentity(InvenSenseRegister.whoAmI, expected: [settings.identity], chip: name)
        // DEVICE_RESET clears itself when the reset is done.
        try core.softReset(InvenSenseRegister.deviceReset, polls: Self.resetPolls, interval: .milliseconds(10))
        // SLEEP = 0, CLKSEL = 1 (PLL on the X gyro / auto-select).
        try device.write(InvenSenseRegister.powerManagement1, 0x01)

        var shadow = ShadowRegisters([:])
        let writes: [(UInt8, UInt8)] = [
            (InvenSenseRegister.sampleRateDivider, rate.code),
            (InvenSenseRegister.config, shadow.set(InvenSenseRegister.lowPassField, lowPass.code)),
            (InvenSenseRegister.gyroConfig, shadow.set(InvenSenseRegister.gyroRangeField, gyroscope.code)),
            (InvenSenseRegister.accelConfig, shadow.set(InvenSenseRegister.accelRangeField, accelerometer.code)),
        ]
        for (register, value) in writes { try device.write(register, value) }
        if let field = settings.accelerometerLowPass {
            try device.write(field.address, shadow.set(field, lowPass.code))
        }
        if let field = settings.bypassForMagnetometer {
            try device.write(field.address, shadow.set(field, 1))
        }
        state.shadow = shadow
        state.configuration = configuration
        state.scale = IMUScale(accelerometer, gyroscope)
    }

    /// One 14-byte burst from ACCEL_XOUT_H (0x3B) to GYRO_ZOUT_L (0x48): accel, temperature, gyro.
    /// Under the driver's lock, so the counts are scaled by the ranges they were read at even
    /// while another thread reconfigures.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(InvenSenseRegister.accelXHigh, count: 14) { bytes in
                let temperature = Double(int16BE(bytes, 6)) / settings.temperatureLSBPerDegree + settings.temperatureOffset
                return state.scale.sample(
                    accelerometer: Self.vector(bytes, 0), gyroscope: Self.vector(bytes, 8), temperature: temperature)
            }
        }
    }

    private static func vector<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ offset: Int) -> SIMD3<Int16> where Bytes.Index == Int {
        AxisLayout.bigEndian.counts(bytes, from: offset)
    }

    // MARK: Self-test

    /// Runs the datasheet self-test (RM-MPU-6000A §4.1–4.2 for the MPU-6050, AN-MPU-9250A-03 §3
    /// for the MPU-6500/9250), then resets and restores the configuration.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        try runSelfTest { _ throws(SensorError) in
            // 1 kHz, gyro ±250 °/s; accel ±8 g (6050) or ±2 g (6500/9250); DLPF 98/92 Hz.
            let accelRangeCode: UInt8 = settings.selfTest == .factoryTrimChange ? 0x10 : 0x00
            try device.write(InvenSenseRegister.sampleRateDivider, 0)
            try device.write(InvenSenseRegister.config, 2)
            if let field = settings.accelerometerLowPass { try device.write(field.address, 2) }
            try device.write(InvenSenseRegister.gyroConfig, 0x00)
            try device.write(InvenSenseRegister.accelConfig, accelRangeCode)
            pause.wait(.milliseconds(20))
            let normal = try averageRaw()
            try device.write(InvenSenseRegister.gyroConfig, 0xE0)  // XG_ST, YG_ST, ZG_ST
            try device.write(InvenSenseRegister.accelConfig, 0xE0 | accelRangeCode)  // XA_ST, YA_ST, ZA_ST
            pause.wait(.milliseconds(20))
            let excited = try averageRaw()
            let report: SelfTestReport
            switch settings.selfTest {
            case .factoryTrimChange:
                let trim = try device.read(0x0D, count: 4)  // SELF_TEST_X/Y/Z/A
                report = InvenSenseSelfTest.evaluateFactoryTrim(
                    chip: chip.name, accelerometerResponse: excited.accelerometer - normal.accelerometer,
                    gyroscopeResponse: excited.gyroscope - normal.gyroscope, selfTestRegisters: trim)
            case .otpRatio:
                let gyroCodes = try device.read(0x00, count: 3)  // SELF_TEST_X/Y/Z_GYRO
                let accelCodes = try device.read(0x0D, count: 3)  // SELF_TEST_X/Y/Z_ACCEL
                report = InvenSenseSelfTest.evaluateOTP(
                    chip: chip.name, accelerometerResponse: excited.accelerometer - normal.accelerometer,
                    gyroscopeResponse: excited.gyroscope - normal.gyroscope,
                    gyroscopeCodes: gyroCodes, accelerometerCodes: accelCodes)
            }
            return report
        }
    }

    /// Samples averaged per self-test phase (AN-MPU-9250A-03 §3: 200 at 1 kHz).
    static let selfTestSamples = 200

    private func averageRaw() throws(SensorError) -> (accelerometer: SIMD3<Double>, gyroscope: SIMD3<Double>) {
        var accelerometer: [SIMD3<Int16>] = []
        var gyroscope: [SIMD3<Int16>] = []
        for _ in 0..<Self.selfTestSamples {
            pause.wait(.milliseconds(1))
            let bytes = try device.read(InvenSenseRegister.accelXHigh, count: 14)
            accelerometer.append(Self.vector(bytes, 0))
            gyroscope.append(Self.vector(bytes, 8))
        }
        return (mean(accelerometer), mean(gyroscope))
    }
}

/// Self-test decisions for InvenSense chips, on averaged raw counts (pure: testable alone).
package enum InvenSenseSelfTest {
    /// MPU-6050 (RM-MPU-6000A §4.1): responses in counts at ±8 g / ±250 °/s; `selfTestRegisters`
    /// are SELF_TEST_X, _Y, _Z, _A (0x0D…0x10). Each axis passes when its change from factory
    /// trim, (STR − FT) / FT, is within ±14 % (PS-MPU-6000A §6.1/6.2).
    package static func evaluateFactoryTrim(
        chip: String, accelerometerResponse: SIMD3<Double>, gyroscopeResponse: SIMD3<Double>,
        selfTestRegisters: [UInt8]
    ) -> SelfTestReport {
        var axes: [SelfTestReport.Axis] = []
        for axis in 0..<3 {
            // XA_TEST = bits 7:5 of SELF_TEST_X (upper) + bits 5:4 of SELF_TEST_A (lower), etc.
            let upper = selfTestRegisters[axis] >> 5
            let lower = (selfTestRegisters[3] >> (4 - 2 * UInt8(axis))) & 0b11
            let code = Double(upper << 2 | lower)
            let trim = code == 0 ? 0 : 4096 * 0.34 * pow(0.92 / 0.34, (code - 1) / 30)
            axes.append(change(name: "accelerometer " + axisNames[axis], response: accelerometerResponse[axis], trim: trim))
        }
        for axis in 0..<3 {
            let code = Double(selfTestRegisters[axis] & 0x1F)
            // FT[Yg] is negative: the Y gyro self-test deflects the other way.
            let sign: Double = axis == 1 ? -1 : 1
            let trim = code == 0 ? 0 : sign * 25 * 131 * pow(1.046, code - 1)
            axes.append(change(name: "gyroscope " + axisNames[axis], response: gyroscopeResponse[axis], trim: trim))
        }
        return SelfTestReport(chip: chip, axes: axes)
    }

    private static func change(name: String, response: Double, trim: Double) -> SelfTestReport.Axis {
        // A zero trim code means no factory value: the axis cannot pass.
        let percent = trim == 0 ? Double.infinity : (response - trim) / trim * 100
        return SelfTestReport.Axis(name: name, response: percent, limits: -14...14, unit: "% from factory trim")
    }

    /// MPU-6500/9250 (AN-MPU-9250A-03 §3): responses in counts at ±2 g / ±250 °/s; codes from
    /// SELF_TEST_X/Y/Z_GYRO (0x00…0x02) and SELF_TEST_X/Y/Z_ACCEL (0x0D…0x0F).
    /// ST_OTP = 2620 · 1.01^(code − 1). Gyro passes when STR / ST_OTP > 0.5; accel when
    /// 0.5 ≤ STR / ST_OTP ≤ 1.5. Without an OTP value (code 0): gyro |STR| ≥ 60 °/s,
    /// accel 225 mg ≤ |STR| ≤ 675 mg.
    package static func evaluateOTP(
        chip: String, accelerometerResponse: SIMD3<Double>, gyroscopeResponse: SIMD3<Double>,
        gyroscopeCodes: [UInt8], accelerometerCodes: [UInt8]
    ) -> SelfTestReport {
        var axes: [SelfTestReport.Axis] = []
        for axis in 0..<3 {
            let name = "accelerometer " + axisNames[axis]
            let code = accelerometerCodes[axis]
            if code == 0 {
                axes.append(.init(name: name, response: abs(accelerometerResponse[axis]) / 16384 * 1000,
                                  limits: 225...675, unit: "mg"))
            } else {
                axes.append(.init(name: name, response: accelerometerResponse[axis] / otp(code),
                                  limits: 0.5...1.5, unit: "× factory value"))
            }
        }
        for axis in 0..<3 {
            let name = "gyroscope " + axisNames[axis]
            let code = gyroscopeCodes[axis]
            if code == 0 {
                axes.append(.init(name: name, response: abs(gyroscopeResponse[axis]) / 131,
                                  limits: 60...Double.greatestFiniteMagnitude, unit: "°/s"))
            } else {
                // Strictly above 0.5: the lower limit is the next representable value.
                axes.append(.init(name: name, response: gyroscopeResponse[axis] / otp(code),
                                  limits: 0.5.nextUp...Double.greatestFiniteMagnitude, unit: "× factory value"))
            }
        }
        return SelfTestReport(chip: chip, axes: axes)
    }

    private static func otp(_ code: UInt8) -> Double { 2620 * pow(1.01, Double(code) - 1) }
}
