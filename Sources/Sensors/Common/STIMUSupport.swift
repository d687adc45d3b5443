/// What the ST IMUs (the LSM6 family and the LSM9DS1's accelerometer and gyroscope) share beyond
/// their addresses and field widths: WHO_AM_I at 0x0F; a control register with BDU (bit 6),
/// IF_INC (bit 2) and SW_RESET (bit 0); the rate and range of each sensor in its own control
/// register; a self-test register with ST_XL and ST_G codes; one burst from OUT_TEMP_L that holds
/// temperature (16 LSB … 256 LSB/°C, 0 at 25 °C), gyroscope and accelerometer (LSM6DS3/DSL/DSO
/// datasheets §9, LSM9DS1 DocID025715 §7; the kernel serves both with
/// drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c).
struct STRegisterLayout: Sendable {
    /// Identity, reset, and the rate and range fields the configuration writes.
    let map: IMURegisterMap
    /// CTRL3_C / CTRL_REG8: BDU, IF_INC, SW_RESET.
    let control: UInt8
    /// CTRL5_C / CTRL_REG10: ST_G and ST_XL.
    let selfTestRegister: UInt8
    /// The sample burst: its first register (OUT_TEMP_L), its length, and where the gyroscope and
    /// the accelerometer sit in it.
    let sample: (register: UInt8, length: Int, gyroscope: Int, accelerometer: Int)

    /// BDU: output registers not updated until both bytes are read; IF_INC: burst reads advance.
    static let blockDataUpdate: UInt8 = 0x40
    static let autoIncrement: UInt8 = 0x04

    /// `accelerometerControl` (CTRL1_XL / CTRL_REG6_XL) and `gyroscopeControl` (CTRL2_G /
    /// CTRL_REG1_G) each hold the ODR field at `rateMask`, and the sensor's full-scale field
    /// unless `rangeRegisters` names registers of their own (LSM6DSV16X CTRL8 / CTRL6). The
    /// configuration: SW_RESET written with IF_INC kept, 10 polls 100 µs apart; then `control`
    /// = BDU | IF_INC, the range registers, the accelerometer's control register, the
    /// gyroscope's (on the LSM9DS1 the gyroscope's rate starts both sensors: it comes last).
    init(
        whoAmI: UInt8, control: UInt8, accelerometerControl: UInt8, gyroscopeControl: UInt8, rateMask: UInt8,
        rangeMasks: (accelerometer: UInt8, gyroscope: UInt8), rangeRegisters: (accelerometer: UInt8, gyroscope: UInt8)? = nil,
        selfTestRegister: UInt8, sample: (register: UInt8, length: Int, gyroscope: Int, accelerometer: Int)
    ) {
        let ranges = rangeRegisters ?? (accelerometerControl, gyroscopeControl)
        let rangeOnly = rangeRegisters.map { [$0.accelerometer, $0.gyroscope] } ?? []
        map = IMURegisterMap(
            identityRegister: whoAmI,
            reset: SoftResetStep(field: RegisterField(control, mask: 0b0000_0001), value: Self.autoIncrement | 0x01, polls: 10,
                                 interval: .microseconds(100)),
            accelerometerRate: RegisterField(accelerometerControl, mask: rateMask),
            accelerometerRange: RegisterField(ranges.accelerometer, mask: rangeMasks.accelerometer),
            gyroscopeRate: RegisterField(gyroscopeControl, mask: rateMask), gyroscopeRange: RegisterField(ranges.gyroscope, mask: rangeMasks.gyroscope),
            fixed: [(RegisterField(control, mask: 0xFF), Self.blockDataUpdate | Self.autoIncrement)],
            writeOrder: [control] + rangeOnly + [accelerometerControl, gyroscopeControl])
        self.control = control
        self.selfTestRegister = selfTestRegister
        self.sample = sample
    }
}

/// The ST self-test of one chip: each sensor's part, the response limits (accelerometer in mg,
/// gyroscope in °/s, absolute values), and the accelerometer's own rate table where the test
/// runs it alone at a rate of its own (LSM9DS1 CTRL_REG6_XL; `nil`: the shared rate table).
struct STSelfTestPlan: Sendable {
    /// One sensor's part: the full scale and rate it runs at, its self-test code, how long it
    /// settles after each change, and the spacing of the 5 averaged samples.
    typealias Sensor = (fullScale: Double, rate: Double, selfTest: UInt8, settle: Duration, interval: Duration)
    var accelerometer: Sensor
    var gyroscope: Sensor
    var limits: (accelerometer: ClosedRange<Double>, gyroscope: ClosedRange<Double>)
    var accelerometerOnlyRates: [SettingOption]? = nil
}

/// What an ST IMU's settings table gives the shared ST code.
protocol STIMUSettings: Sendable {
    /// WHO_AM_I value.
    var identity: UInt8 { get }
    var tables: IMUTables { get }
    /// °C = raw / sensitivity + 25.
    var temperatureLSBPerDegree: Double { get }
    /// nil: the self-test is not run by this driver (``SensorError/notSupported(chip:feature:)``).
    var selfTest: STSelfTestPlan? { get }
    /// Whether ``IMUDriver/configure(_:)`` looks the rate and ranges up before it rejects a
    /// low-pass bandwidth (the LSM9DS1 driver) or after (the LSM6 driver).
    var looksUpTablesFirst: Bool { get }
}

extension STIMUSettings {
    var looksUpTablesFirst: Bool { false }
}

/// An ST IMU driver: configuration, sample read and self-test come from its
/// ``STRegisterLayout`` and ``STIMUSettings``; its file keeps the FIFO, which differs per chip.
protocol STIMUDriver: CoreIMUDriver where Settings: STIMUSettings {
    var layout: STRegisterLayout { get }
}

extension STIMUDriver {
    /// Identify; SW_RESET and wait for it to clear; BDU + IF_INC; rate and ranges.
    func apply(_ configuration: IMUConfiguration, to state: inout State) throws(SensorError) {
        let options = try settings.tables.optionsWithChipFiltering(
            for: configuration, chip: chip.name, checkingTablesFirst: settings.looksUpTablesFirst)
        state = try program(configuration, options, map: layout.map, identity: settings.identity)
    }

    /// One burst from OUT_TEMP_L: temperature, gyroscope, accelerometer. Under the driver's lock,
    /// so the counts are scaled by the ranges they were read at even while another thread
    /// reconfigures.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            let layout = self.layout
            return try device.burst(layout.sample.register, count: layout.sample.length) { bytes in
                state.scale.sample(
                    accelerometer: AxisLayout.littleEndian.counts(bytes, from: layout.sample.accelerometer),
                    gyroscope: AxisLayout.littleEndian.counts(bytes, from: layout.sample.gyroscope),
                    temperature: Double(int16LE(bytes, 0)) / settings.temperatureLSBPerDegree + 25)
            }
        }
    }

    /// The ST self-test (LSM6 datasheets' "self-test procedure", ST's lsm9ds1_self_test.c): the
    /// control register = BDU | IF_INC, the gyroscope and the self-test register off; then for
    /// the accelerometer and then the gyroscope, ``DriverCore/selfTestResponse(control:value:selfTestRegister:selfTest:settle:interval:read:)``
    /// at its rate and range; the responses (mg, °/s) judged by ``LSM6SelfTest``. Then resets and
    /// restores the configuration.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        guard let plan = settings.selfTest else { throw .notSupported(chip: chip.name, feature: "self-test") }
        return try runSelfTest { _ throws(SensorError) in
            let (name, layout, map) = (chip.name, self.layout, self.layout.map)
            let (accelerometer, gyroscope) = (plan.accelerometer, plan.gyroscope)
            let accelerometerRange = try settings.tables.accelerometerRange(accelerometer.fullScale, chip: name)
            let gyroscopeRange = try settings.tables.gyroscopeRange(gyroscope.fullScale, chip: name)
            var accelerometerRate: SettingOption
            if let rates = plan.accelerometerOnlyRates {
                accelerometerRate = try lookup(accelerometer.rate, in: rates, setting: "accelerometer rate", unit: "Hz", chip: name)
            } else {
                accelerometerRate = try settings.tables.rate(accelerometer.rate, chip: name)
            }
            let gyroscopeRate = try settings.tables.rate(gyroscope.rate, chip: name)

            try device.write(layout.control, STRegisterLayout.blockDataUpdate | STRegisterLayout.autoIncrement)
            try device.write(map.gyroscopeRate.address, 0)
            try device.write(layout.selfTestRegister, 0)
            let accelerometerResponse = try stSelfTestResponse(
                accelerometer, rate: map.accelerometerRate, accelerometerRate.code, range: map.accelerometerRange, accelerometerRange.code,
                offset: layout.sample.accelerometer)
            let gyroscopeResponse = try stSelfTestResponse(
                gyroscope, rate: map.gyroscopeRate, gyroscopeRate.code, range: map.gyroscopeRange, gyroscopeRange.code,
                offset: layout.sample.gyroscope)
            return LSM6SelfTest.evaluate(
                chip: name,
                accelerometerResponse: accelerometerResponse / accelerometerRange.sensitivity * 1000,
                gyroscopeResponse: gyroscopeResponse / gyroscopeRange.sensitivity,
                accelerometerLimits: plan.limits.accelerometer, gyroscopeLimits: plan.limits.gyroscope)
        }
    }

    /// One sensor's self-test response in counts, its axes read from the sample burst. A range
    /// field in a register of its own is written first; the rate's register then starts the sensor.
    private func stSelfTestResponse(
        _ sensor: STSelfTestPlan.Sensor, rate: RegisterField, _ rateCode: UInt8, range: RegisterField, _ rangeCode: UInt8, offset: Int
    ) throws(SensorError) -> SIMD3<Double> {
        let layout = self.layout
        var value = rate.setting(rateCode, in: 0)
        if range.address == rate.address {
            value = range.setting(rangeCode, in: value)
        } else {
            try device.write(range.address, range.setting(rangeCode, in: 0))
        }
        let control = rate.address
        return try core.selfTestResponse(
            control: control, value: value, selfTestRegister: layout.selfTestRegister, selfTest: sensor.selfTest,
            settle: sensor.settle, interval: sensor.interval
        ) { () throws(SensorError) in
            AxisLayout.littleEndian.counts(try device.read(layout.sample.register, count: layout.sample.length), from: offset)
        }
    }
}
