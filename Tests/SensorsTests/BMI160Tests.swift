import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// Register addresses and values from the BMI160 datasheet BST-BMI160-DS000 §2.11, written here
/// independently of the driver.
private enum BMI {
    static let chipID: UInt8 = 0x00, pmuStatus: UInt8 = 0x03, dataGyr: UInt8 = 0x0C, dataAcc: UInt8 = 0x12
    static let status: UInt8 = 0x1B, fifoLength: UInt8 = 0x22, fifoData: UInt8 = 0x24
    static let accConf: UInt8 = 0x40, accRange: UInt8 = 0x41, gyrConf: UInt8 = 0x42, gyrRange: UInt8 = 0x43
    static let fifoConfig1: UInt8 = 0x47, selfTest: UInt8 = 0x6D, cmd: UInt8 = 0x7E
    /// PMU_STATUS with acc_pmu_status = gyr_pmu_status = normal (01).
    static let bothNormal: UInt8 = 0b0001_0100
}

/// The init sequence at `address` for the given ODR code and range codes; bandwidth normal
/// (acc_bwp 010, gyr_bwp 10).
private func bmi160Init(address: UInt8 = 0x68, odr: UInt8 = 0x09, accRange: UInt8 = 0x05, gyrRange: UInt8 = 0x02) -> [I2CExpectation] {
    [
        .writeRead(address, [BMI.chipID], reply: [0xD1]),
        .write(address, [BMI.cmd, 0xB6]),  // soft reset
        .write(address, [BMI.cmd, 0x11]),  // accelerometer normal mode
        .write(address, [BMI.cmd, 0x15]),  // gyroscope normal mode
        .writeRead(address, [BMI.pmuStatus], reply: [0]).failing(.noAcknowledge),  // busy
        .writeRead(address, [BMI.pmuStatus], reply: [0b0001_0000]),  // accelerometer up, gyroscope starting
        .writeRead(address, [BMI.pmuStatus], reply: [BMI.bothNormal]),
        .write(address, [BMI.accConf, 0x20 | odr]),
        .write(address, [BMI.accRange, accRange]),
        .write(address, [BMI.gyrConf, 0x20 | odr]),
        .write(address, [BMI.gyrRange, gyrRange]),
        .write(address, [BMI.fifoConfig1, 0x00]),
    ]
}

@Suite struct BMI160Tests {
    @Test func defaultInitAndOneSample() throws {
        let (bus, imu) = try configured(bmi160Init()) { BMI160IMU(bus: $0, pause: .none) }
        // Gyroscope first: x 10 °/s = 656 LSB at ±500 °/s (65.6 LSB/(°/s)); accelerometer +1 g on
        // z = 8192 LSB at ±4 g, face up.
        bus.expect([.writeRead(0x68, [BMI.dataGyr], reply: littleEndian([656, 0, -656, 0, 0, 8192]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1]))
        #expect(close(sample.rotationRate, [10 * degree, 0, -10 * degree], tolerance: 1e-9))
        #expect(sample.temperature == nil)
        #expect(sample.raw?.gyroscope == SIMD3(656, 0, -656))
        #expect(!sample.isSaturated)
        expectFinished(bus)
    }

    /// ACC_RANGE codes and LSB/g (§1 Table 1); GYR_RANGE codes and LSB/(°/s) (Table 2).
    @Test(arguments: [(2.0, UInt8(0x03), 16384.0), (4, 0x05, 8192), (8, 0x08, 4096), (16, 0x0C, 2048)])
    func accelerometerRanges(range: Double, code: UInt8, lsbPerG: Double) throws {
        let bus = ExpectationBus(bmi160Init(odr: 0x08, accRange: code))
        let imu = BMI160IMU(bus: bus, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 100, accelerometerRange: range, gyroscopeRange: 500))
        let half = Int16(lsbPerG / 2)
        bus.expect([.writeRead(0x68, [BMI.dataGyr], reply: littleEndian([0, 0, 0, half, -half, Int16(lsbPerG)]))])
        #expect(close(try imu.readSample().acceleration, [-0.5, 0.5, -1]))
        expectFinished(bus)
    }

    @Test(arguments: [(125.0, UInt8(4), 262.4), (250, 3, 131.2), (500, 2, 65.6), (1000, 1, 32.8), (2000, 0, 16.4)])
    func gyroscopeRanges(range: Double, code: UInt8, lsbPerDPS: Double) throws {
        let bus = ExpectationBus(bmi160Init(odr: 0x0C, gyrRange: code))
        let imu = BMI160IMU(bus: bus, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 1600, accelerometerRange: 4, gyroscopeRange: range))
        let raw = Int16((lsbPerDPS * 100).rounded())
        bus.expect([.writeRead(0x68, [BMI.dataGyr], reply: littleEndian([raw, -raw, 0, 0, 0, 0]))])
        #expect(close(try imu.readSample().rotationRate, [100 * degree, -100 * degree, 0], tolerance: 1e-9))
        expectFinished(bus)
    }

    @Test func unsupportedSettingsListWhatIsSupported() {
        let imu = BMI160IMU(bus: ExpectationBus([]), pause: .none)
        let rate = sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 3200)) }
        #expect(rate?.description == "output data rate 3200 Hz is not supported by BMI160; supported: 25 Hz, 50 Hz, 100 Hz, 200 Hz, 400 Hz, 800 Hz, 1600 Hz")
        let range = sensorError { () throws(SensorError) in
            try imu.configure(IMUConfiguration(outputDataRate: 100, accelerometerRange: 32))
        }
        #expect(range?.description == "accelerometer range 32 g is not supported by BMI160; supported: 2 g, 4 g, 8 g, 16 g")
        let filter = sensorError { () throws(SensorError) in
            try imu.configure(IMUConfiguration(outputDataRate: 100, lowPassBandwidth: 40))
        }
        guard case .notSupported = filter else {
            Issue.record("got \(String(describing: filter))")
            return
        }
    }

    @Test func wrongIdentityAndBusErrorsKeepTheirCause() {
        let wrong = ExpectationBus([.writeRead(0x69, [BMI.chipID], reply: [0x68])])
        let error = sensorError { () throws(SensorError) in
            try BMI160IMU(bus: wrong, address: I2CAddress(0x69), pause: .none).configure(IMUConfiguration(outputDataRate: 100))
        }
        guard case .unexpectedIdentity(_, I2CAddress(0x69), 0x00, [0xD1], [0x68]) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        expectFinished(wrong)
        let failing = ExpectationBus([.writeRead(0x68, [BMI.chipID], reply: [0]).failing(.busError)])
        let busError = sensorError { () throws(SensorError) in
            try BMI160IMU(bus: failing, pause: .none).configure(IMUConfiguration(outputDataRate: 100))
        }
        guard case .bus(let cause) = busError else {
            Issue.record("got \(String(describing: busError))")
            return
        }
        #expect(cause.kind == .busError && cause.address == I2CAddress(0x68))
    }

    @Test func powerUpTimeoutIsBounded() {
        var list = Array(bmi160Init().prefix(4))
        list += Array(repeating: .writeRead(0x68, [BMI.pmuStatus], reply: [0b0001_0000]), count: 15)
        let bus = ExpectationBus(list)
        expectResetTimeout(after: 15, on: bus) { () throws(SensorError) in
            try BMI160IMU(bus: bus, pause: .none).configure(IMUConfiguration(outputDataRate: 100))
        }
    }

    @Test func detectsSelfResetChip() throws {
        let (bus, imu) = try configured(bmi160Init()) { BMI160IMU(bus: $0, pause: .none) }
        bus.expect([
            .writeRead(0x68, [BMI.fifoConfig1], reply: [0x00]),
            .writeRead(0x68, [BMI.fifoConfig1], reply: [0x10]),  // reset value: the chip reset itself
        ])
        #expect(try imu.isStillConfigured())
        #expect(try !imu.isStillConfigured())
        expectFinished(bus)
    }

    /// Header-mode frame with gyroscope and accelerometer (§2.5.1.3: fh_mode 0b10, gyr and acc in
    /// fh_parm; `tags` in fh_ext), gyroscope x `index` × 10 °/s at ±500 °/s, accelerometer z 8192 + `index`.
    private static func frame(_ index: Int16, tags: UInt8 = 0) -> [UInt8] {
        [0x8C | tags] + littleEndian([index * 656, 0, 0, 0, 0, 8192 + index])
    }

    /// The sensortime frame (§2.5.1.4): 0x44, then 24 bits little-endian.
    private static func sensorTime(_ ticks: UInt32) -> [UInt8] {
        [0x44, UInt8(ticks & 0xFF), UInt8((ticks >> 8) & 0xFF), UInt8(ticks >> 16)]
    }

    private func fifoDriver(maximumReadLength: Int? = nil) throws -> (ExpectationBus, BMI160IMU) {
        let bus = ExpectationBus(bmi160Init(), maximumReadLength: maximumReadLength)
        let imu = BMI160IMU(bus: bus, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        bus.expect([.write(0x68, [BMI.fifoConfig1, 0xD2]), .write(0x68, [BMI.cmd, 0xB0])])
        try imu.enableFIFO()
        return (bus, imu)
    }

    /// enableFIFO: FIFO_CONFIG_1 = fifo_gyr_en | fifo_acc_en | fifo_header_en | fifo_time_en
    /// (0xD2), then CMD fifo_flush. A read: FIFO_LENGTH, then the 39 bytes of 3 frames and the 4
    /// past them in one burst, which bring the sensortime frame: the last frame's chip time is
    /// 1000 × 39.0625 µs, the ones before 5 ms (200 Hz) apart; interrupt tags in fh_ext change
    /// nothing. FIFO_CONFIG_1 reads back as written.
    @Test func fifoFramesWithChipTimes() throws {
        let (bus, imu) = try fifoDriver()
        bus.expect([
            .writeRead(0x68, [BMI.fifoLength], reply: [39, 0]),
            .writeRead(0x68, [BMI.fifoData], reply: Self.frame(0) + Self.frame(1, tags: 0b11) + Self.frame(2) + Self.sensorTime(1000)),
            .writeRead(0x68, [BMI.fifoConfig1], reply: [0xD2]),
        ])
        let read = try imu.readFIFO()
        #expect(!read.overflowed && read.skippedFrames == 0)
        #expect(read.frames.map(\.sampleIndex) == [0, 1, 2])
        #expect(read.frames.map { $0.sample.raw?.accelerometer.z } == [8192, 8193, 8194])
        #expect(close(read.frames[2].sample.rotationRate, [20 * degree, 0, 0], tolerance: 1e-9))
        let last = 1000 * 39.0625e-6
        let times = read.frames.map { $0.chipTime ?? .nan }
        #expect(zip(times, [last - 0.010, last - 0.005, last]).allSatisfy { close($0, $1, tolerance: 1e-12) }, "\(times)")
        #expect(read.chipClockWrap == 16_777_216 * 39.0625e-6)
        #expect(try imu.isStillConfigured())
        expectFinished(bus)
    }

    /// On a bus that reads 32 bytes at most: chunks of 2 whole frames (26 bytes) below the fill
    /// level, and only the last chunk reads past it (its frame and the 4 bytes of the sensortime
    /// frame). A FIFO input config frame first (the configuration the driver set) shifts the
    /// frames across the chunks: the one cut in two is put together again.
    @Test func chunkedReadOverReadsInTheLastChunkOnly() throws {
        let (bus, imu) = try fifoDriver(maximumReadLength: 32)
        let stream = [0x48, 0x00] + Self.frame(0) + Self.frame(1) + Self.frame(2) + Self.sensorTime(0x01_0000)
        bus.expect([
            .writeRead(0x68, [BMI.fifoLength], reply: [41, 0]),
            .writeRead(0x68, [BMI.fifoData], reply: Array(stream[0..<26])),
            .writeRead(0x68, [BMI.fifoData], reply: Array(stream[26...])),
        ])
        let read = try imu.readFIFO()
        #expect(read.frames.map(\.sampleIndex) == [0, 1, 2])
        #expect(read.frames.map { $0.sample.raw?.accelerometer.z } == [8192, 8193, 8194])
        #expect(read.frames.last?.chipTime == 65536 * 39.0625e-6)
        expectFinished(bus)
    }

    /// A skip frame (the FIFO was full: 7 frames dropped) reports an overflow with the chip's
    /// count and leads the frames the chip kept: they come numbered past the gap, timed, and the
    /// next read numbers on. A count of 255 (perhaps more) flushes the FIFO and reports the
    /// overflow without frames; so does a header the driver cannot follow (no count); the next
    /// read numbers from 0. An over-read marker where the sensortime frame should be leaves the
    /// frames untimed; an empty FIFO is not read.
    @Test func skipFramesUnknownHeadersAndUntimedReads() throws {
        let (bus, imu) = try fifoDriver()
        bus.expect([
            .writeRead(0x68, [BMI.fifoLength], reply: [28, 0]),
            .writeRead(0x68, [BMI.fifoData], reply: [0x40, 7] + Self.frame(0) + Self.frame(1) + Self.sensorTime(5)),
            .writeRead(0x68, [BMI.fifoLength], reply: [13, 0]),
            .writeRead(0x68, [BMI.fifoData], reply: Self.frame(5) + Self.sensorTime(9)),
            .writeRead(0x68, [BMI.fifoLength], reply: [15, 0]),
            .writeRead(0x68, [BMI.fifoData], reply: [0x40, 255] + Self.frame(6) + Self.sensorTime(9)),
            .write(0x68, [BMI.cmd, 0xB0]),
            .writeRead(0x68, [BMI.fifoLength], reply: [13, 0]),
            .writeRead(0x68, [BMI.fifoData], reply: [0x20] + Array(Self.frame(0).dropFirst()) + Self.sensorTime(9)),
            .write(0x68, [BMI.cmd, 0xB0]),
            .writeRead(0x68, [BMI.fifoLength], reply: [26, 0]),
            .writeRead(0x68, [BMI.fifoData], reply: Self.frame(1) + Self.frame(2) + [0x80, 0x80, 0x80, 0x80]),
            .writeRead(0x68, [BMI.fifoLength], reply: [0, 0]),
        ])
        let skipped = try imu.readFIFO()
        #expect(skipped.overflowed && skipped.skippedFrames == 7 && skipped.frames.map(\.sampleIndex) == [7, 8])
        #expect(skipped.frames.map(\.chipTime) == [5 * 39.0625e-6 - 0.005, 5 * 39.0625e-6])
        let after = try imu.readFIFO()
        #expect(!after.overflowed && after.frames.map(\.sampleIndex) == [9])
        #expect(after.frames.first?.sample.raw?.accelerometer.z == 8197)
        let saturated = try imu.readFIFO()
        #expect(saturated.overflowed && saturated.frames.isEmpty && saturated.skippedFrames == 255)
        let unknown = try imu.readFIFO()
        #expect(unknown.overflowed && unknown.frames.isEmpty && unknown.skippedFrames == 0)
        let untimed = try imu.readFIFO()
        #expect(!untimed.overflowed && untimed.frames.map(\.sampleIndex) == [0, 1])
        #expect(untimed.frames.allSatisfy { $0.chipTime == nil } && untimed.chipClockWrap == nil)
        let empty = try imu.readFIFO()
        #expect(!empty.overflowed && empty.frames.isEmpty)
        expectFinished(bus)
    }

    @Test func selfTestDecision() {
        let pass = BMI160SelfTest.evaluate(chip: "BMI160", accelerometerResponse: [2500, -2100, 3000], gyroscopeSelfTestOK: true)
        #expect(pass.passed && pass.axes.count == 4)
        #expect(!BMI160SelfTest.evaluate(chip: "BMI160", accelerometerResponse: [2500, 1999, 3000], gyroscopeSelfTestOK: true).passed)
        #expect(!BMI160SelfTest.evaluate(chip: "BMI160", accelerometerResponse: [2500, 2100, 3000], gyroscopeSelfTestOK: false).passed)
    }

    // MARK: Against the emulator

    /// At 0x68 the catalog reads WHO_AM_I, the ICM-45686's WHO_AM_I, then CHIP_ID, and never writes: it names the BMI160 on
    /// a BMI160 board and the MPU-6500 on an MPU-6500 board (one read, WHO_AM_I matches). (An
    /// MPU-6050's WHO_AM_I goes on to the MPU-9150 bypass check, which writes: MPU9150Tests.)
    @Test(arguments: [(SimulatedBoard.IMU.bmi160, "BMI160", 3), (.mpu6500, "MPU-6500", 1)])
    func identificationAt0x68ReadsOnly(imu: SimulatedBoard.IMU, name: String, reads: Int) throws {
        let board = SimulatedBoard(imu: imu, magnetometer: .none, source: ConstantSource(), now: { 0 })
        board.bus.clearLog()
        let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: I2CAddress(0x68)))
        #expect(chip.name == name)
        #expect(ChipCatalog.makeIMU(for: chip, bus: board.bus, pause: .none)?.chip.name == name)
        let log = board.bus.log
        #expect(log.count == reads)
        // WHO_AM_I (0x75), the ICM-45686's WHO_AM_I (0x72), then CHIP_ID (0x00): each a one-byte
        // register pointer and a one-byte read.
        let identityReads: [[I2COperation]] = [[.write([0x75]), .read(count: 1)], [.write([0x72]), .read(count: 1)], [.write([0x00]), .read(count: 1)]]
        #expect(log.map(\.operations) == Array(identityReads.prefix(reads)))
        #expect(try board.bus.readRegister(I2CAddress(0x68), imu == .bmi160 ? BMI.pmuStatus : 0x6B) == (imu == .bmi160 ? 0 : 0x01),
                "untouched: still at its power-on state")
    }

    /// An unknown device at 0x68 (neither identity matches) is left unnamed, after reads only.
    @Test func unknownDeviceAt0x68() throws {
        let bus = ExpectationBus([
            .writeRead(0x68, [0x75], reply: [0x00]),
            .writeRead(0x68, [0x72], reply: [0x00]),  // not 0xE9: no ICM-45686
            .writeRead(0x68, [0x00], reply: [0x5A]),  // not 0x24: that is a BMI270
        ])
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x68)) == nil)
        expectFinished(bus)
    }

    @Test func oneTransactionPerSampleAndGravityAtRest() throws {
        let time = ManualTime(1)
        let rig = try EmulatedRig(imu: .bmi160, magnetometer: .none, source: ConstantSource(), time: time)
        #expect(rig.imu.chip.name == "BMI160" && rig.imu.chip.family == .bmi160)
        time.set(1.5)
        rig.board.bus.clearLog()
        let sample = try rig.imu.readSample()
        #expect(rig.board.bus.log.map(\.operations) == [[.write([BMI.dataGyr]), .read(count: 12)]])
        #expect(largestDifference(sample.acceleration, [0, 0, -1]) <= 1.0 / 8192)
        #expect(sample.rotationRate == .zero)
        #expect(try rig.imu.isStillConfigured())
        rig.board.bus.triggerPowerOnReset(rig.board.imuAddress)
        #expect(try !rig.imu.isStillConfigured())
    }

    /// 200 Hz for 0.1 s: 20 frames, indices in order, each the input within one LSB; then an
    /// overflow after 1 s (200 frames > the 78 header-mode frames of 1024 bytes): the skip frame
    /// counts the 122 dropped, the 78 kept come numbered past them, and the indices run on.
    @Test func fifoThroughTheEmulator() throws {
        let (rig, time) = try EmulatedRig.checkFIFOAtRest(.bmi160, accelerationTolerance: 1.0 / 8192, rotationTolerance: degree / 65.6)
        let next = 20  // the 20 frames of the first 0.1 s were 0..<20
        time.set(2.1)
        let overflow = try rig.imu.readFIFO()
        #expect(overflow.overflowed && overflow.skippedFrames == 200 - 78)
        #expect(overflow.frames.map(\.sampleIndex) == Array(next + 122 ..< next + 200))
        time.set(2.15)
        #expect(try rig.imu.readFIFO().frames.map(\.sampleIndex) == Array(next + 200 ..< next + 210))
    }

    /// Emulator to driver, the chip's clock 300 ppm fast: over 1 s of reads every 23 ms, the
    /// frames come in order, every read timed, and each frame's chip time lies its index
    /// difference × 5 ms (200 Hz) after the first frame's, within one sensortime LSB (the
    /// sensortime frame is truncated to 39.0625 µs at every read).
    @Test func chipTimesThroughTheEmulatorFollowTheODRPeriod() throws {
        let time = ManualTime(1)
        let rig = try EmulatedRig(imu: .bmi160, magnetometer: .none, source: ConstantSource(), time: time,
                                  imuOptions: EmulatorOptions(clockDriftPPM: 300))
        try rig.imu.enableFIFO()
        var frames: [FIFOFrame] = []
        for step in 1...44 {
            time.set(1 + Double(step) * 0.023)
            let read = try rig.imu.readFIFO()
            #expect(!read.overflowed && read.chipClockWrap != nil)
            frames += read.frames
        }
        #expect(frames.map(\.sampleIndex) == Array(0..<frames.count))
        #expect(frames.count >= 200)
        let first = try #require(frames.first?.chipTime)
        let worst = frames.map { (frame: FIFOFrame) -> Double in abs((frame.chipTime ?? .nan) - first - Double(frame.sampleIndex) * 0.005) }.max() ?? .nan
        #expect(worst <= 39.0625e-6, "worst \(worst * 1e6) µs")
    }

    @Test(arguments: [nil, SensorAxis.accelerometer(.x), .accelerometer(.z), .gyroscope(.y)])
    func selfTestThroughTheEmulator(dead: SensorAxis?) throws {
        let time = ManualTime(1)
        let rig = try EmulatedRig(
            imu: .bmi160, magnetometer: .none, source: ConstantSource(), time: time,
            imuOptions: EmulatorOptions(deadAxes: dead.map { [$0] } ?? []), pausesAdvanceTime: true)
        let report = try rig.imu.selfTest()
        #expect(report.passed == (dead == nil), "\(String(describing: dead)): \(report)")
        let failed = report.axes.filter { !$0.passed }.map(\.name)
        switch dead {
        case nil: #expect(failed.isEmpty)
        case .accelerometer(.x): #expect(failed == ["accelerometer x"])
        case .accelerometer(.z): #expect(failed == ["accelerometer z"])
        default: #expect(failed == ["gyroscope (built-in test)"])
        }
        // The configuration is back: ±4 g, a sample reads gravity.
        #expect(rig.imu.configuration == rig.imu.defaultConfiguration)
        #expect(try rig.imu.isStillConfigured())
    }
}
