import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// LSM6DSO FIFO start: bypass (empties it), BDR_GY = BDR_XL = 208 Hz, TIMESTAMP_EN, then
/// DEC_TS_BATCH = 01 (a timestamp word per batch slot) and continuous mode.
private let dsoFIFOStart: [I2CExpectation] = [
    .write(0x6A, [ST.dsoFifoCtrl4, 0x00]), .write(0x6A, [ST.dsoFifoCtrl3, 0x55]),
    .write(0x6A, [ST.dsoCtrl10C, 0x20]), .write(0x6A, [ST.dsoFifoCtrl4, 0x46]),
]

/// An LSM6DSO configured at its defaults with the FIFO started, and the bus behind it.
private func lsm6dsoWithFIFO() throws -> (ExpectationBus, LSM6IMU) {
    let (bus, imu) = try configured(initSequence(whoAmI: 0x6C, ctrl1XL: 0x58, ctrl2G: 0x54)) { LSM6IMU(bus: $0, model: .lsm6dso, pause: .none) }
    bus.expect(dsoFIFOStart)
    try imu.enableFIFO()
    return (bus, imu)
}

/// A tagged FIFO word: TAG_SENSOR, TAG_CNT (no parity bit: the driver does not check it), x, y, z.
private func word(_ sensor: UInt8, slot: UInt8, _ values: [Int16]) -> [UInt8] {
    [sensor << 3 | slot << 1] + littleEndian(values)
}

/// Registers from the LSM6DS3 / LSM6DSL / LSM6DSO datasheets §8–9, written here independently of the driver.
private enum ST {
    static let whoAmI: UInt8 = 0x0F, ctrl1XL: UInt8 = 0x10, ctrl2G: UInt8 = 0x11, ctrl3C: UInt8 = 0x12
    static let ctrl5C: UInt8 = 0x14, outTempL: UInt8 = 0x20
    static let fifoStatus1: UInt8 = 0x3A, fifoDataOutL: UInt8 = 0x3E, fifoDataOutTag: UInt8 = 0x78
    static let fifoCtrl3: UInt8 = 0x08, fifoCtrl5: UInt8 = 0x0A  // LSM6DS3/DSL
    static let dsoFifoCtrl3: UInt8 = 0x09, dsoFifoCtrl4: UInt8 = 0x0A  // LSM6DSO
    static let dsoCtrl10C: UInt8 = 0x19  // LSM6DSO: TIMESTAMP_EN bit 5
}

/// Identify, SW_RESET (bit 0) polled until clear, BDU | IF_INC, CTRL1_XL, CTRL2_G.
private func initSequence(address: UInt8 = 0x6A, whoAmI: UInt8, ctrl1XL: UInt8, ctrl2G: UInt8) -> [I2CExpectation] {
    stInitSequence(address: address, identity: (ST.whoAmI, whoAmI), control: ST.ctrl3C, then: [(ST.ctrl1XL, ctrl1XL), (ST.ctrl2G, ctrl2G)])
}

@Suite struct LSM6Tests {
    /// LSM6DSOX default: 208 Hz = ODR 0101, ±4 g = FS_XL 10, ±500 °/s = FS_G 01.
    @Test func lsm6dsoxInitAndSample() throws {
        let (bus, imu) = try configured(initSequence(whoAmI: 0x6C, ctrl1XL: 0x58, ctrl2G: 0x54)) { LSM6IMU(bus: $0, model: .lsm6dso, pause: .none) }
        // ±4 g: 0.122 mg/LSB → 1 g = 8197 LSB; ±500 °/s: 17.5 mdps/LSB → 35 °/s = 2000 LSB.
        // Temperature 256 LSB/°C around 25 °C: 512 → 27 °C.
        bus.expect([.writeRead(0x6A, [ST.outTempL], reply: littleEndian([512, 2000, 0, -2000, 0, 0, 8197]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1], tolerance: 1e-4))
        #expect(close(sample.rotationRate, [35 * degree, 0, -35 * degree], tolerance: 1e-9))
        #expect(sample.temperature == 27)
        expectFinished(bus)
    }

    @Test func lsm6ds3TemperatureAndRate() throws {
        // 104 Hz = 0100, ±2 g = 00, ±125 °/s = FS_125 → CTRL2_G 0x42.
        let bus = ExpectationBus(initSequence(address: 0x6B, whoAmI: 0x69, ctrl1XL: 0x40, ctrl2G: 0x42))
        let imu = LSM6IMU(bus: bus, address: I2CAddress(0x6B), model: .lsm6ds3, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 104, accelerometerRange: 2, gyroscopeRange: 125))
        // LSM6DS3: 16 LSB/°C; ±125 °/s 4.375 mdps/LSB: 1000 LSB = 4.375 °/s; ±2 g 0.061 mg/LSB.
        bus.expect([.writeRead(0x6B, [ST.outTempL], reply: littleEndian([-32, 0, 1000, 0, -16393, 0, 0]))])
        let sample = try imu.readSample()
        #expect(sample.temperature == 23)
        #expect(close(sample.rotationRate.y, 4.375 * degree))
        #expect(close(sample.acceleration.x, 16393 * 0.061 / 1000))
        expectFinished(bus)
    }

    /// FS_XL codes and mg/LSB from each datasheet's CTRL1_XL table and Table "Mechanical characteristics".
    @Test(arguments: [
        (LSM6Model.lsm6dso, 2.0, UInt8(0b00), 0.061), (.lsm6dso, 4, 0b10, 0.122), (.lsm6dso, 8, 0b11, 0.244),
        (.lsm6dso, 16, 0b01, 0.488), (.lsm6dsl, 16, 0b01, 0.488), (.lsm6dso32, 4, 0b00, 0.122),
        (.lsm6dso32, 8, 0b10, 0.244), (.lsm6dso32, 16, 0b11, 0.488), (.lsm6dso32, 32, 0b01, 0.976),
    ])
    func accelerometerRanges(model: LSM6Model, range: Double, code: UInt8, milliGPerLSB: Double) throws {
        let whoAmI: UInt8 = model == .lsm6dsl ? 0x6A : 0x6C
        let bus = ExpectationBus(initSequence(whoAmI: whoAmI, ctrl1XL: 0x50 | code << 2, ctrl2G: 0x54))
        let imu = LSM6IMU(bus: bus, model: model, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 208, accelerometerRange: range, gyroscopeRange: 500))
        bus.expect([.writeRead(0x6A, [ST.outTempL], reply: littleEndian([0, 0, 0, 0, 1000, -1000, 0]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [-milliGPerLSB, milliGPerLSB, 0], tolerance: 1e-12))
        expectFinished(bus)
    }

    @Test(arguments: [(250.0, UInt8(0x50), 8.75), (500, 0x54, 17.5), (1000, 0x58, 35), (2000, 0x5C, 70), (125, 0x52, 4.375)])
    func gyroscopeRanges(range: Double, ctrl2G: UInt8, milliDPSPerLSB: Double) throws {
        let bus = ExpectationBus(initSequence(whoAmI: 0x6C, ctrl1XL: 0x58, ctrl2G: ctrl2G))
        let imu = LSM6IMU(bus: bus, model: .lsm6dso, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 208, accelerometerRange: 4, gyroscopeRange: range))
        bus.expect([.writeRead(0x6A, [ST.outTempL], reply: littleEndian([0, -1000, 0, 1000, 0, 0, 0]))])
        let sample = try imu.readSample()
        #expect(close(sample.rotationRate, [-milliDPSPerLSB * degree, 0, milliDPSPerLSB * degree]))
        expectFinished(bus)
    }

    @Test func unsupportedRateListsSupportedValues() {
        let imu = LSM6IMU(bus: ExpectationBus([]), model: .lsm6dso, pause: .none)
        let error = sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 100)) }
        #expect(error?.description == "output data rate 100 Hz is not supported by LSM6DSO/LSM6DSOX; supported: "
            + "12.5 Hz, 26 Hz, 52 Hz, 104 Hz, 208 Hz, 416 Hz, 833 Hz, 1666 Hz, 3333 Hz, 6667 Hz")
        let range = sensorError { () throws(SensorError) in
            try imu.configure(IMUConfiguration(outputDataRate: 104, accelerometerRange: 32))
        }
        #expect(range?.description.hasSuffix("supported: 2 g, 4 g, 8 g, 16 g") == true)
        let dso32 = LSM6IMU(bus: ExpectationBus([]), model: .lsm6dso32, pause: .none)
        let small = sensorError { () throws(SensorError) in
            try dso32.configure(IMUConfiguration(outputDataRate: 104, accelerometerRange: 2))
        }
        #expect(small?.description.hasSuffix("supported: 4 g, 8 g, 16 g, 32 g") == true)
    }

    @Test func resetTimeoutIsBounded() {
        let list: [I2CExpectation] = [
            .writeRead(0x6A, [ST.whoAmI], reply: [0x6A]), .write(0x6A, [ST.ctrl3C, 0x05]),
        ] + Array(repeating: .writeRead(0x6A, [ST.ctrl3C], reply: [0x05]), count: 10)
        let bus = ExpectationBus(list)
        let imu = LSM6IMU(bus: bus, model: .lsm6dsl, pause: .none)
        expectResetTimeout(after: 10, on: bus) { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
    }

    @Test func isStillConfiguredReadsCtrl1XL() throws {
        let (bus, imu) = try configured(initSequence(whoAmI: 0x6A, ctrl1XL: 0x58, ctrl2G: 0x54)) { LSM6IMU(bus: $0, model: .lsm6dsl, pause: .none) }
        bus.expect([.writeRead(0x6A, [ST.ctrl1XL], reply: [0x58]), .writeRead(0x6A, [ST.ctrl1XL], reply: [0x00])])
        #expect(try imu.isStillConfigured())
        #expect(try !imu.isStillConfigured())
        expectFinished(bus)
    }

    /// LSM6DSO tagged FIFO: TAG_SENSOR 0x01 gyro / 0x02 accel in bits 7:3, TAG_CNT in bits 2:1.
    @Test func taggedFIFOPairsWordsAndReportsOverflow() throws {
        let (bus, imu) = try lsm6dsoWithFIFO()
        let words = word(0x01, slot: 0, [2000, 0, 0]) + word(0x02, slot: 0, [0, 0, 8197])
            + word(0x03, slot: 1, [0, 0, 0])  // temperature: skipped
            + word(0x02, slot: 1, [8197, 0, 0]) + word(0x01, slot: 1, [0, 2000, 0])
            + word(0x01, slot: 2, [0, 0, 2000])  // gyro of slot 2; its accel comes in the next read
        bus.expect([
            .writeRead(0x6A, [ST.fifoStatus1], reply: [6, 0x00]),
            .writeRead(0x6A, [ST.fifoDataOutTag], reply: words),
            .writeRead(0x6A, [ST.fifoStatus1], reply: [1, 0x00]),
            .writeRead(0x6A, [ST.fifoDataOutTag], reply: word(0x02, slot: 2, [0, 8197, 0])),
            .writeRead(0x6A, [ST.fifoStatus1], reply: [0xFF, 0x43]),  // FIFO_OVR_IA
        ] + dsoFIFOStart)
        let first = try imu.readFIFO()
        #expect(first.frames.map(\.sampleIndex) == [0, 1])
        #expect(close(first.frames[0].sample.acceleration, [0, 0, -1], tolerance: 1e-4))
        #expect(close(first.frames[0].sample.rotationRate, [35 * degree, 0, 0]))
        #expect(close(first.frames[1].sample.acceleration, [-1, 0, 0], tolerance: 1e-4))
        #expect(close(first.frames[1].sample.rotationRate, [0, 35 * degree, 0]))
        let second = try imu.readFIFO()
        #expect(second.frames.map(\.sampleIndex) == [2])
        #expect(close(second.frames[0].sample.rotationRate, [0, 0, 35 * degree]))
        let overflow = try imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        expectFinished(bus)
    }

    /// LSM6DSO timestamp words (TAG_SENSOR 0x04, TIMESTAMP[31:0] little-endian, 25 µs): each
    /// slot's timestamp comes before its gyro and accel words and dates their frame; the 32-bit
    /// counter's wrap is unwrapped.
    @Test func taggedFIFOTimestampsDateTheirSlot() throws {
        let (bus, imu) = try lsm6dsoWithFIFO()
        func timestamp(slot: UInt8, _ ticks: UInt32) -> [UInt8] {
            [0x04 << 3 | slot << 1] + (0..<4).map { UInt8(truncatingIfNeeded: ticks >> (8 * $0)) } + [0, 0]
        }
        let ticks: [UInt32] = [UInt32.max - 193, UInt32.max - 1, 190]   // 192 ticks = 4.8 ms apart, across the wrap
        var words: [UInt8] = []
        for slot in 0..<3 {
            let counter = UInt8(slot + 1)
            words += timestamp(slot: counter, ticks[slot])
            words += word(0x01, slot: counter, [0, 0, 0])
            words += word(0x02, slot: counter, [0, 0, 8197])
        }
        bus.expect([
            .writeRead(0x6A, [ST.fifoStatus1], reply: [9, 0x00]),
            .writeRead(0x6A, [ST.fifoDataOutTag], reply: words),
        ])
        let read = try imu.readFIFO()
        #expect(read.frames.map(\.sampleIndex) == [0, 1, 2])
        let chipTimes = read.frames.compactMap(\.chipTime)
        #expect(chipTimes.count == 3)
        let steps = zip(chipTimes, chipTimes.dropFirst()).map { pair in pair.1 - pair.0 }
        #expect(steps.allSatisfy { step in abs(step - 192 * 25e-6) < 1e-9 }, "\(chipTimes)")
        #expect(read.chipClockWrap == 4_294_967_296 * 25e-6)
        expectFinished(bus)
    }

    /// LSM6DSL pattern FIFO: Gx Gy Gz Ax Ay Az words; FIFO_STATUS2 OVER_RUN bit 6.
    @Test func patternFIFOFramesAndOverflow() throws {
        let (bus, imu) = try configured(initSequence(whoAmI: 0x6A, ctrl1XL: 0x58, ctrl2G: 0x54)) { LSM6IMU(bus: $0, model: .lsm6dsl, pause: .none) }
        let start: [I2CExpectation] = [
            .write(0x6A, [ST.fifoCtrl5, 0x00]),
            .write(0x6A, [ST.fifoCtrl3, 0x09]),  // no decimation for gyro and accel
            .write(0x6A, [ST.fifoCtrl5, 0x2E]),  // ODR_FIFO 208 Hz (0101), continuous (110)
        ]
        bus.expect(start)
        try imu.enableFIFO()
        let frame = littleEndian([0, 0, 2000, 0, 0, 8197])
        bus.expect([
            // 9 frames + 2 words unread, pattern position 0.
            .writeRead(0x6A, [ST.fifoStatus1], reply: [56, 0x00, 0, 0]),
            .writeRead(0x6A, [ST.fifoDataOutL], reply: Array([[UInt8]](repeating: frame, count: 8).joined())),
            .writeRead(0x6A, [ST.fifoDataOutL], reply: frame),
            .writeRead(0x6A, [ST.fifoStatus1], reply: [0x00, 0x40, 0, 0]),  // OVER_RUN
        ] + start)
        let read = try imu.readFIFO()
        #expect(read.frames.map(\.sampleIndex) == Array(0..<9))
        #expect(close(read.frames[8].sample.acceleration, [0, 0, -1], tolerance: 1e-4))
        #expect(close(read.frames[8].sample.rotationRate, [0, 0, 35 * degree]))
        #expect(try imu.readFIFO().overflowed)
        expectFinished(bus)
    }

    @Test func selfTestDecision() {
        let healthy = LSM6SelfTest.evaluate(
            chip: "LSM6DSO", accelerometerResponse: [300, -300, 600], gyroscopeResponse: [300, 300, -300],
            accelerometerLimits: 50...1700, gyroscopeLimits: 150...700)
        #expect(healthy.passed)
        let dead = LSM6SelfTest.evaluate(
            chip: "LSM6DSO", accelerometerResponse: [300, 20, 600], gyroscopeResponse: [300, 300, 800],
            accelerometerLimits: 50...1700, gyroscopeLimits: 150...700)
        #expect(dead.axes.filter { !$0.passed }.map(\.name) == ["accelerometer y", "gyroscope z"])
    }

    /// LSM6DSO self-test procedure: CTRL1_XL = 0x38 (52 Hz, ±4 g), ST_XL = 01; CTRL2_G = 0x5C
    /// (208 Hz, ±2000 °/s), ST_G = 01; 1 discarded + 5 averaged samples each phase.
    @Test func selfTestProcedure() throws {
        let initList = initSequence(whoAmI: 0x6C, ctrl1XL: 0x58, ctrl2G: 0x54)
        let bus = ExpectationBus(initList)
        let imu = LSM6IMU(bus: bus, model: .lsm6dso, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        func samples(accel: [Int16], gyro: [Int16]) -> [I2CExpectation] {
            Array(repeating: .writeRead(0x6A, [ST.outTempL], reply: littleEndian([0] + gyro + accel)), count: 6)
        }
        // 500 mg at 0.122 mg/LSB = 4098 LSB; 300 °/s at 70 mdps/LSB = 4286 LSB; gyro y dead.
        var list: [I2CExpectation] = [
            .write(0x6A, [ST.ctrl3C, 0x44]), .write(0x6A, [ST.ctrl2G, 0]), .write(0x6A, [ST.ctrl5C, 0]),
            .write(0x6A, [ST.ctrl1XL, 0x38]),
        ]
        list += samples(accel: [0, 0, 8197], gyro: [0, 0, 0])
        list += [.write(0x6A, [ST.ctrl5C, 0x01])]
        list += samples(accel: [4098, 4098, 8197 + 4098], gyro: [0, 0, 0])
        list += [.write(0x6A, [ST.ctrl1XL, 0]), .write(0x6A, [ST.ctrl5C, 0]), .write(0x6A, [ST.ctrl2G, 0x5C])]
        list += samples(accel: [0, 0, 0], gyro: [10, 10, 10])
        list += [.write(0x6A, [ST.ctrl5C, 0x04])]
        list += samples(accel: [0, 0, 0], gyro: [10 + 4286, 10, 10 + 4286])
        list += [.write(0x6A, [ST.ctrl2G, 0]), .write(0x6A, [ST.ctrl5C, 0])]
        list += initList
        bus.expect(list)
        let report = try imu.selfTest()
        #expect(report.axes.map(\.passed) == [true, true, true, true, false, true])
        #expect(close(report.axes[0].response, 4098 * 0.122, tolerance: 1e-6))
        expectFinished(bus)
    }
}
