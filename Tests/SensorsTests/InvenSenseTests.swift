import I2C
import I2CMock
import Sensors
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Register addresses from RM-MPU-6000A / RM-MPU-9250A §3, written here independently of the driver.
private enum MPU {
    static let smplrtDiv: UInt8 = 0x19, config: UInt8 = 0x1A, gyroConfig: UInt8 = 0x1B
    static let accelConfig: UInt8 = 0x1C, accelConfig2: UInt8 = 0x1D, fifoEn: UInt8 = 0x23
    static let intPinCfg: UInt8 = 0x37, intEnable: UInt8 = 0x38, intStatus: UInt8 = 0x3A
    static let accelXoutH: UInt8 = 0x3B, userCtrl: UInt8 = 0x6A, pwrMgmt1: UInt8 = 0x6B
    static let fifoCountH: UInt8 = 0x72, fifoRW: UInt8 = 0x74, whoAmI: UInt8 = 0x75
}

/// The init sequence for `model` at 0x68 with the given field codes (datasheet encodings).
private func initSequence(
    whoAmI: UInt8, divider: UInt8, dlpf: UInt8, gyroFS: UInt8, accelFS: UInt8, accelDLPF: Bool, bypass: Bool
) -> [I2CExpectation] {
    var list: [I2CExpectation] = [
        .writeRead(0x68, [MPU.whoAmI], reply: [whoAmI]),
        .write(0x68, [MPU.pwrMgmt1, 0x80]),  // DEVICE_RESET
        .writeRead(0x68, [MPU.pwrMgmt1], reply: [0]).failing(.noAcknowledge),  // busy resetting
        .writeRead(0x68, [MPU.pwrMgmt1], reply: [0xC0]),  // still resetting
        .writeRead(0x68, [MPU.pwrMgmt1], reply: [0x40]),  // reset done, asleep
        .write(0x68, [MPU.pwrMgmt1, 0x01]),  // wake, PLL clock
        .write(0x68, [MPU.smplrtDiv, divider]),
        .write(0x68, [MPU.config, dlpf]),
        .write(0x68, [MPU.gyroConfig, gyroFS << 3]),
        .write(0x68, [MPU.accelConfig, accelFS << 3]),
    ]
    if accelDLPF { list.append(.write(0x68, [MPU.accelConfig2, dlpf])) }
    if bypass { list.append(.write(0x68, [MPU.intPinCfg, 0x02])) }  // BYPASS_EN
    return list
}

private func mpu6050Init(divider: UInt8 = 4, dlpf: UInt8 = 2, gyroFS: UInt8 = 1, accelFS: UInt8 = 1) -> [I2CExpectation] {
    initSequence(whoAmI: 0x68, divider: divider, dlpf: dlpf, gyroFS: gyroFS, accelFS: accelFS, accelDLPF: false, bypass: false)
}

@Suite struct InvenSenseTests {
    @Test func mpu6050DefaultInitAndSample() throws {
        let (bus, imu) = try configured(mpu6050Init()) { InvenSenseIMU(bus: $0, model: .mpu6050, pause: .none) }
        // Face up at rest: +1 g specific force on z = 8192 LSB at ±4 g; x gyro 10 °/s = 655 LSB at ±500 °/s;
        // temperature raw -340 → 35.53 °C (raw / 340 + 36.53).
        bus.expect([.writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([0, 0, 8192, -340, 655, 0, -655]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1]))
        #expect(close(sample.rotationRate, [10 * degree, 0, -10 * degree], tolerance: 1e-3))
        #expect(close(sample.temperature ?? 0, 35.53))
        #expect(!sample.isSaturated)
        expectFinished(bus)
    }

    @Test func mpu9250EnablesBypassAndAccelFilter() throws {
        let bus = ExpectationBus(initSequence(
            whoAmI: 0x71, divider: 9, dlpf: 3, gyroFS: 3, accelFS: 3, accelDLPF: true, bypass: true))
        let imu = InvenSenseIMU(bus: bus, address: I2CAddress(0x68), model: .mpu9250, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 100, accelerometerRange: 16, gyroscopeRange: 2000, lowPassBandwidth: 41))
        // MPU-9250 temperature: raw / 333.87 + 21.
        bus.expect([.writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([2048, -2048, 0, 3339, 0, 164, 0]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [-1, 1, 0]))
        #expect(close(sample.rotationRate, [0, 10 * degree, 0]))
        #expect(close(sample.temperature ?? 0, 3339 / 333.87 + 21))
        expectFinished(bus)
    }

    /// The MPU-9150 is an MPU-6050 (WHO_AM_I 0x68, no ACCEL_CONFIG2, °C = raw / 340 + 36.53) that
    /// also sets BYPASS_EN for its AK8975; then one 14-byte read per sample.
    @Test func mpu9150InitsAsAnMPU6050WithTheBypass() throws {
        let bus = ExpectationBus(initSequence(
            whoAmI: 0x68, divider: 4, dlpf: 2, gyroFS: 1, accelFS: 1, accelDLPF: false, bypass: true))
        let imu = InvenSenseIMU(bus: bus, model: .mpu9150, pause: .none)
        #expect(imu.chip.name == "MPU-9150")
        try imu.configure(imu.defaultConfiguration)
        bus.expect([.writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([0, 0, 8192, -340, 655, 0, 0]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1]))
        #expect(close(sample.rotationRate, [10 * degree, 0, 0], tolerance: 1e-3))
        #expect(close(sample.temperature ?? 0, 35.53))
        expectFinished(bus)
    }

    /// PS-MPU-6000A §6.1/6.2: LSB/g and LSB/(°/s) at each full scale.
    @Test(arguments: [(2.0, UInt8(0), 16384.0), (4, 1, 8192), (8, 2, 4096), (16, 3, 2048)])
    func accelerometerRanges(range: Double, code: UInt8, lsbPerG: Double) throws {
        let bus = ExpectationBus(mpu6050Init(accelFS: code))
        let imu = InvenSenseIMU(bus: bus, model: .mpu6050, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 200, accelerometerRange: range, gyroscopeRange: 500))
        let half = Int16(lsbPerG / 2)
        bus.expect([.writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([half, -half, Int16(lsbPerG), 0, 0, 0, 0]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [-0.5, 0.5, -1]))
        expectFinished(bus)
    }

    @Test(arguments: [(250.0, UInt8(0), 131.0), (500, 1, 65.5), (1000, 2, 32.8), (2000, 3, 16.4)])
    func gyroscopeRanges(range: Double, code: UInt8, lsbPerDPS: Double) throws {
        let bus = ExpectationBus(mpu6050Init(gyroFS: code))
        let imu = InvenSenseIMU(bus: bus, model: .mpu6050, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: range))
        let raw = Int16((lsbPerDPS * 100).rounded())
        bus.expect([.writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([0, 0, 0, 0, raw, -raw, 0]))])
        let sample = try imu.readSample()
        #expect(close(sample.rotationRate, [100 * degree, -100 * degree, 0], tolerance: 0.01 * degree))
        expectFinished(bus)
    }

    @Test func saturationFlag() throws {
        let (bus, imu) = try configured(mpu6050Init()) { InvenSenseIMU(bus: $0, model: .mpu6050, pause: .none) }
        bus.expect([
            .writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([0, 0, 0, 0, 0, .min, 0])),
            .writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([.max, 0, 0, 0, 0, 0, 0])),
            .writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([32766, 0, 0, 0, 0, 0, 0])),
        ])
        #expect(try imu.readSample().isSaturated)
        #expect(try imu.readSample().isSaturated)
        #expect(try !imu.readSample().isSaturated)
        expectFinished(bus)
    }

    @Test func unsupportedRateListsSupportedValues() {
        let imu = InvenSenseIMU(bus: ExpectationBus([]), model: .mpu6050, pause: .none)
        let error = sensorError { () throws(SensorError) in
            try imu.configure(IMUConfiguration(outputDataRate: 300))
        }
        guard case .unsupportedSetting(_, let setting, let requested, let supported) = error else {
            Issue.record("expected unsupportedSetting, got \(String(describing: error))")
            return
        }
        #expect(setting == "output data rate")
        #expect(requested == "300 Hz")
        #expect(supported.contains("200 Hz") && supported.contains("1000 Hz"))
        #expect(error?.description.contains("not supported by MPU-6050; supported: 1000 Hz, 500 Hz") == true)
    }

    @Test func unsupportedRangeAndFilter() {
        let imu = InvenSenseIMU(bus: ExpectationBus([]), model: .mpu6500, pause: .none)
        let range = sensorError { () throws(SensorError) in
            try imu.configure(IMUConfiguration(outputDataRate: 100, accelerometerRange: 32))
        }
        #expect(range?.description == "accelerometer range 32 g is not supported by MPU-6500; supported: 2 g, 4 g, 8 g, 16 g")
        let filter = sensorError { () throws(SensorError) in
            try imu.configure(IMUConfiguration(outputDataRate: 100, lowPassBandwidth: 98))
        }
        #expect(filter?.description.contains("supported: 184 Hz, 92 Hz, 41 Hz") == true)
    }

    @Test func wrongIdentity() {
        let bus = ExpectationBus([.writeRead(0x68, [MPU.whoAmI], reply: [0x70])])
        let imu = InvenSenseIMU(bus: bus, model: .mpu6050, pause: .none)
        let error = sensorError { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
        guard case .unexpectedIdentity(_, _, 0x75, [0x68], [0x70]) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        expectFinished(bus)
    }

    @Test func resetTimeoutIsBounded() {
        var list: [I2CExpectation] = [
            .writeRead(0x68, [MPU.whoAmI], reply: [0x68]), .write(0x68, [MPU.pwrMgmt1, 0x80]),
        ]
        list += Array(repeating: .writeRead(0x68, [MPU.pwrMgmt1], reply: [0x80]), count: 20)
        let bus = ExpectationBus(list)
        let imu = InvenSenseIMU(bus: bus, model: .mpu6050, pause: .none)
        expectResetTimeout(after: 20, on: bus) { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
    }

    @Test func busErrorKeepsItsCause() {
        let bus = ExpectationBus([.writeRead(0x68, [MPU.whoAmI], reply: [0]).failing(.noAcknowledge)])
        let imu = InvenSenseIMU(bus: bus, model: .mpu6050, pause: .none)
        let error = sensorError { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
        guard case .bus(let cause) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(cause.kind == .noAcknowledge)
        #expect(cause.address == I2CAddress(0x68))
    }

    @Test func detectsSelfResetChip() throws {
        let (bus, imu) = try configured(mpu6050Init()) { InvenSenseIMU(bus: $0, model: .mpu6050, pause: .none) }
        bus.expect([
            .writeRead(0x68, [MPU.config], reply: [0x02]),
            .writeRead(0x68, [MPU.config], reply: [0x00]),  // power-on value: the chip reset itself
        ])
        #expect(try imu.isStillConfigured())
        #expect(try !imu.isStillConfigured())
        expectFinished(bus)
    }

    @Test func fifoFramesAndOverflow() throws {
        let (bus, imu) = try configured(mpu6050Init()) { InvenSenseIMU(bus: $0, model: .mpu6050, pause: .none) }
        bus.expect([
            .write(0x68, [MPU.userCtrl, 0x04]),  // FIFO_RESET
            .write(0x68, [MPU.fifoEn, 0x78]),  // XG_FIFO_EN, YG, ZG, ACCEL_FIFO_EN
            .write(0x68, [MPU.intEnable, 0x10]),  // FIFO_OFLOW_EN
            .write(0x68, [MPU.userCtrl, 0x40]),  // FIFO_EN
        ])
        try imu.enableFIFO()
        // 18 frames of 12 bytes + 5 stray bytes: 18 whole frames, read as 16 + 2.
        let frame = bigEndian([0, 0, 8192, 655, 0, 0])
        bus.expect([
            .writeRead(0x68, [MPU.intStatus], reply: [0x01]),
            .writeRead(0x68, [MPU.fifoCountH], reply: [0x00, 18 * 12 + 5]),
            .writeRead(0x68, [MPU.fifoRW], reply: Array([[UInt8]](repeating: frame, count: 16).joined())),
            .writeRead(0x68, [MPU.fifoRW], reply: frame + frame),
        ])
        let first = try imu.readFIFO()
        #expect(!first.overflowed)
        #expect(first.frames.map(\.sampleIndex) == Array(0..<18))
        #expect(close(first.frames[17].sample.acceleration, [0, 0, -1]))
        #expect(close(first.frames[17].sample.rotationRate.x, 10 * degree, tolerance: 1e-3))
        bus.expect([
            .writeRead(0x68, [MPU.intStatus], reply: [0x10]),  // FIFO_OFLOW_INT
            .write(0x68, [MPU.userCtrl, 0x44]),  // FIFO_EN | FIFO_RESET
            .writeRead(0x68, [MPU.intStatus], reply: [0x00]),
            .writeRead(0x68, [MPU.fifoCountH], reply: [0x00, 12]),
            .writeRead(0x68, [MPU.fifoRW], reply: frame),
        ])
        let overflow = try imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        #expect(try imu.readFIFO().frames.map(\.sampleIndex) == [0])
        expectFinished(bus)
    }

    /// On an SMBus-only adapter a read carries 32 bytes, and a longer one would go on at the next
    /// register addresses instead of FIFO_R_W: frames come two at a time (24 bytes).
    @Test func fifoReadsFitTheBusOnAnSMBusAdapter() throws {
        let bus = ExpectationBus(mpu6050Init(), maximumReadLength: 32)
        let imu = InvenSenseIMU(bus: bus, model: .mpu6050, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        bus.expect([
            .write(0x68, [MPU.userCtrl, 0x04]),
            .write(0x68, [MPU.fifoEn, 0x78]),
            .write(0x68, [MPU.intEnable, 0x10]),
            .write(0x68, [MPU.userCtrl, 0x40]),
        ])
        try imu.enableFIFO()
        let frame = bigEndian([0, 0, 8192, 655, 0, 0])
        bus.expect([
            .writeRead(0x68, [MPU.intStatus], reply: [0x01]),
            .writeRead(0x68, [MPU.fifoCountH], reply: [0x00, 5 * 12]),
            .writeRead(0x68, [MPU.fifoRW], reply: frame + frame),
            .writeRead(0x68, [MPU.fifoRW], reply: frame + frame),
            .writeRead(0x68, [MPU.fifoRW], reply: frame),
        ])
        #expect(try imu.readFIFO().frames.map(\.sampleIndex) == Array(0..<5))
        expectFinished(bus)
    }

    /// RM-MPU-6000A §4.1: FT for code c is 4096·0.34·(0.92/0.34)^((c−1)/30) (accel at ±8 g) and
    /// 25·131·1.046^(c−1) (gyro at ±250 °/s, negative for Y); pass within ±14 %.
    @Test func mpu6050SelfTestDecision() {
        // Accel codes: x = 0b10101 (upper 101, lower 01) = 21; gyro codes 16 for every axis.
        let registers: [UInt8] = [0b101_10000, 0b101_10000, 0b101_10000, 0b00_01_01_01]
        let accelTrim = 4096 * 0.34 * pow(0.92 / 0.34, 20.0 / 30)
        let gyroTrim = 25 * 131 * pow(1.046, 15)
        let healthy = InvenSenseSelfTest.evaluateFactoryTrim(
            chip: "MPU-6050", accelerometerResponse: SIMD3(repeating: accelTrim * 1.1),
            gyroscopeResponse: [gyroTrim * 0.9, -gyroTrim, gyroTrim], selfTestRegisters: registers)
        #expect(healthy.passed)
        #expect(healthy.axes.count == 6)
        let deadAxis = InvenSenseSelfTest.evaluateFactoryTrim(
            chip: "MPU-6050", accelerometerResponse: [accelTrim, accelTrim, 0],
            gyroscopeResponse: [gyroTrim, gyroTrim, gyroTrim], selfTestRegisters: registers)
        #expect(!deadAxis.passed)
        #expect(deadAxis.axes.filter { !$0.passed }.map(\.name) == ["accelerometer z", "gyroscope y"])
    }

    /// AN-MPU-9250A-03 §3: ST_OTP = 2620·1.01^(code−1); gyro ratio > 0.5, accel 0.5…1.5.
    @Test func mpu6500SelfTestDecision() {
        let otp = 2620 * pow(1.01, 99)  // code 100
        let report = InvenSenseSelfTest.evaluateOTP(
            chip: "MPU-6500", accelerometerResponse: [otp, otp * 1.6, 0.3 * 16384],
            gyroscopeResponse: [otp * 0.6, otp * 0.4, 70 * 131],
            gyroscopeCodes: [100, 100, 0], accelerometerCodes: [100, 100, 0])
        #expect(report.axes.map(\.passed) == [true, false, true, true, false, true])
    }

    /// The full MPU-6500 procedure on the bus: 200 samples before and after enabling self-test.
    @Test func mpu6500SelfTestProcedure() throws {
        let initList = initSequence(whoAmI: 0x70, divider: 4, dlpf: 2, gyroFS: 1, accelFS: 1, accelDLPF: true, bypass: false)
        let bus = ExpectationBus(initList)
        let imu = InvenSenseIMU(bus: bus, model: .mpu6500, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        let otp = 2620 * pow(1.01, 99)
        let response = Int16(otp.rounded())
        var list: [I2CExpectation] = [
            .write(0x68, [MPU.smplrtDiv, 0]), .write(0x68, [MPU.config, 2]), .write(0x68, [MPU.accelConfig2, 2]),
            .write(0x68, [MPU.gyroConfig, 0]), .write(0x68, [MPU.accelConfig, 0]),
        ]
        list += Array(repeating: .writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([10, 20, 16384, 0, 5, 6, 7])), count: 200)
        list += [.write(0x68, [MPU.gyroConfig, 0xE0]), .write(0x68, [MPU.accelConfig, 0xE0])]
        list += Array(repeating: .writeRead(0x68, [MPU.accelXoutH], reply: bigEndian(
            [10 + response, 20 + response, 16384 + response, 0, 5 + response, 6 + response, 7])), count: 200)
        list += [
            .writeRead(0x68, [0x00], reply: [100, 100, 100]),  // SELF_TEST_X/Y/Z_GYRO
            .writeRead(0x68, [0x0D], reply: [100, 100, 100]),  // SELF_TEST_X/Y/Z_ACCEL
        ]
        list += initList  // configuration restored
        bus.expect(list)
        let report = try imu.selfTest()
        #expect(report.axes.map(\.passed) == [true, true, true, true, true, false])  // dead gyro z
        expectFinished(bus)
    }

    /// The MPU-6050 procedure: accel at ±8 g (0x10) with XA/YA/ZA_ST (0xF0), gyro ±250 °/s with
    /// XG/YG/ZG_ST (0xE0); factory trim from SELF_TEST_X/Y/Z/A (0x0D…0x10).
    @Test func mpu6050SelfTestProcedure() throws {
        let initList = mpu6050Init()
        let bus = ExpectationBus(initList)
        let imu = InvenSenseIMU(bus: bus, model: .mpu6050, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        // Codes: accel 0b10101 = 21, gyro 16 on every axis.
        let accelTrim = Int16((4096 * 0.34 * pow(0.92 / 0.34, 20.0 / 30)).rounded())
        let gyroTrim = Int16((25 * 131 * pow(1.046, 15)).rounded())
        var list: [I2CExpectation] = [
            .write(0x68, [MPU.smplrtDiv, 0]), .write(0x68, [MPU.config, 2]),
            .write(0x68, [MPU.gyroConfig, 0x00]), .write(0x68, [MPU.accelConfig, 0x10]),
        ]
        list += Array(repeating: .writeRead(0x68, [MPU.accelXoutH], reply: bigEndian([0, 0, 4096, 0, 0, 0, 0])), count: 200)
        list += [.write(0x68, [MPU.gyroConfig, 0xE0]), .write(0x68, [MPU.accelConfig, 0xF0])]
        list += Array(repeating: .writeRead(0x68, [MPU.accelXoutH], reply: bigEndian(
            [accelTrim, accelTrim, 4096 + accelTrim, 0, gyroTrim, -gyroTrim, gyroTrim])), count: 200)
        list += [.writeRead(0x68, [0x0D], reply: [0b101_10000, 0b101_10000, 0b101_10000, 0b00_01_01_01])]
        list += initList
        bus.expect(list)
        let report = try imu.selfTest()
        #expect(report.passed, "\(report)")
        expectFinished(bus)
    }
}
