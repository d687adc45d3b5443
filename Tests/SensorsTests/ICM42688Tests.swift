import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Bank-0 register addresses and bits from the ICM-42688-P datasheet DS-000347 §14, written here
/// independently of the driver.
private enum ICM {
    static let deviceConfig: UInt8 = 0x11, fifoConfig: UInt8 = 0x16, tempData1: UInt8 = 0x1D
    static let intStatus: UInt8 = 0x2D, fifoCountH: UInt8 = 0x2E, fifoData: UInt8 = 0x30
    static let signalPathReset: UInt8 = 0x4B, pwrMgmt0: UInt8 = 0x4E, gyroConfig0: UInt8 = 0x4F
    static let accelConfig0: UInt8 = 0x50, fifoConfig1: UInt8 = 0x5F, whoAmI: UInt8 = 0x75
}

/// The init sequence at 0x68: WHO_AM_I, soft reset (polled until SOFT_RESET_CONFIG reads 0),
/// INTF_CONFIG0, GYRO_CONFIG0 and ACCEL_CONFIG0 (FS_SEL in 7:5, ODR in 3:0), PWR_MGMT0 = both low noise.
private func icmInit(odr: UInt8 = 0x7, gyroFS: UInt8 = 2, accelFS: UInt8 = 2) -> [I2CExpectation] {
    [
        .writeRead(0x68, [ICM.whoAmI], reply: [0x47]),
        .write(0x68, [ICM.deviceConfig, 0x01]),  // SOFT_RESET_CONFIG
        .writeRead(0x68, [ICM.deviceConfig], reply: [0]).failing(.noAcknowledge),  // busy resetting
        .writeRead(0x68, [ICM.deviceConfig], reply: [0x00]),  // done
        .write(0x68, [0x4C, 0x32]),  // INTF_CONFIG0: big-endian data and count, UI_SIFS_CFG = 10 (SPI off)
        .write(0x68, [ICM.gyroConfig0, gyroFS << 5 | odr]),
        .write(0x68, [ICM.accelConfig0, accelFS << 5 | odr]),
        .write(0x68, [ICM.pwrMgmt0, 0x0F]),  // GYRO_MODE = ACCEL_MODE = 11 (low noise)
    ]
}

private let fifoStart: [I2CExpectation] = [
    .write(0x68, [ICM.fifoConfig, 0x00]),  // bypass
    .write(0x68, [ICM.signalPathReset, 0x02]),  // FIFO_FLUSH
    .write(0x68, [ICM.fifoConfig1, 0x07]),  // TEMP_EN, GYRO_EN, ACCEL_EN
    .write(0x68, [ICM.fifoConfig, 0x40]),  // stream
]

/// A driver configured at its defaults with the FIFO started, and the bus behind it.
private func driverWithFIFO(maximumReadLength: Int? = nil) throws -> (ExpectationBus, ICM42600IMU) {
    let bus = ExpectationBus(icmInit(), maximumReadLength: maximumReadLength)
    let imu = ICM42600IMU(bus: bus, model: .icm42688p, pause: .none)
    try imu.configure(imu.defaultConfiguration)
    bus.expect(fifoStart)
    try imu.enableFIFO()
    return (bus, imu)
}

/// A FIFO packet 3 (DS-000347 §6.1): header, accel, gyro (big-endian), temperature, timestamp.
private func packet(header: UInt8 = 0x68, accel: [Int16], gyro: [Int16], temperature: Int8 = 0, timestamp: UInt16 = 0) -> [UInt8] {
    [header] + bigEndian(accel) + bigEndian(gyro) + [UInt8(bitPattern: temperature)]
        + [UInt8(timestamp >> 8), UInt8(timestamp & 0xFF)]
}

@Suite struct ICM42688Tests {
    @Test func defaultInitAndOneSampleInOneTransaction() throws {
        let (bus, imu) = try configured(icmInit()) { ICM42600IMU(bus: $0, model: .icm42688p, pause: .none) }
        // 200 Hz = ODR 0x7; ±500 °/s = GYRO_FS_SEL 2; ±4 g = ACCEL_FS_SEL 2 (checked in icmInit).
        // Face up: +1 g on z = 8192 LSB at ±4 g; x gyro 10 °/s = 655 LSB at 65.5 LSB/(°/s);
        // temperature 1325 → 1325 / 132.48 + 25 °C.
        bus.expect([.writeRead(0x68, [ICM.tempData1], reply: bigEndian([1325, 0, 0, 8192, 655, 0, -655]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1]))
        #expect(close(sample.rotationRate, [10 * degree, 0, -10 * degree], tolerance: 1e-9))
        #expect(close(sample.temperature ?? 0, 1325 / 132.48 + 25))
        #expect(sample.raw?.accelerometer == SIMD3(0, 0, 8192))
        #expect(!sample.isSaturated)
        expectFinished(bus)
    }

    /// DS-000347 Table 2: ACCEL_FS_SEL 0…3 = ±16/8/4/2 g at 2048/4096/8192/16384 LSB/g.
    @Test(arguments: [(16.0, UInt8(0), 2048.0), (8, 1, 4096), (4, 2, 8192), (2, 3, 16384)])
    func accelerometerRanges(range: Double, code: UInt8, lsbPerG: Double) throws {
        let bus = ExpectationBus(icmInit(accelFS: code))
        let imu = ICM42600IMU(bus: bus, model: .icm42688p, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 200, accelerometerRange: range, gyroscopeRange: 500))
        let half = Int16(lsbPerG / 2)
        bus.expect([.writeRead(0x68, [ICM.tempData1], reply: bigEndian([0, half, -half, Int16(lsbPerG), 0, 0, 0]))])
        #expect(close(try imu.readSample().acceleration, [-0.5, 0.5, -1]))
        expectFinished(bus)
    }

    /// DS-000347 Table 1: GYRO_FS_SEL 0…7 = ±2000 … ±15.625 °/s.
    @Test(arguments: [
        (2000.0, UInt8(0), 16.4), (1000, 1, 32.8), (500, 2, 65.5), (250, 3, 131), (125, 4, 262), (62.5, 5, 524.3),
        (31.25, 6, 1048.6), (15.625, 7, 2097.2),
    ])
    func gyroscopeRanges(range: Double, code: UInt8, lsbPerDPS: Double) throws {
        let bus = ExpectationBus(icmInit(gyroFS: code))
        let imu = ICM42600IMU(bus: bus, model: .icm42688p, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: range))
        let raw = Int16((lsbPerDPS * range / 2).rounded())
        bus.expect([.writeRead(0x68, [ICM.tempData1], reply: bigEndian([0, 0, 0, 0, raw, -raw, 0]))])
        let expected = range / 2 * degree
        #expect(close(try imu.readSample().rotationRate, [expected, -expected, 0], tolerance: 0.5 / lsbPerDPS * degree))
        expectFinished(bus)
    }

    /// ODR codes (DS-000347 §14 GYRO_CONFIG0/ACCEL_CONFIG0): 500 Hz is 0xF, 12.5 Hz 0xB; 300 Hz does not exist.
    @Test func ratesAreExact() throws {
        let bus = ExpectationBus(icmInit(odr: 0xF) + icmInit(odr: 0xB))
        let imu = ICM42600IMU(bus: bus, model: .icm42688p, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 500))
        try imu.configure(IMUConfiguration(outputDataRate: 12.5))
        expectFinished(bus)
        let error = sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 300)) }
        #expect(error?.description.contains("output data rate 300 Hz is not supported by ICM-42688-P") == true)
        let filter = sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 200, lowPassBandwidth: 50)) }
        guard case .notSupported = filter else {
            Issue.record("got \(String(describing: filter))")
            return
        }
    }

    @Test func wrongIdentityAndBusErrorsKeepTheirCause() {
        let bus = ExpectationBus([
            .writeRead(0x68, [ICM.whoAmI], reply: [0x68]),  // an MPU-6050
            .writeRead(0x68, [ICM.whoAmI], reply: [0x47]), .write(0x68, [ICM.deviceConfig, 0x01]).failing(.busError),
        ])
        let imu = ICM42600IMU(bus: bus, model: .icm42688p, pause: .none)
        let identity = sensorError { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
        guard case .unexpectedIdentity(_, _, 0x75, [0x47], [0x68]) = identity else {
            Issue.record("got \(String(describing: identity))")
            return
        }
        let busError = sensorError { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
        guard case .bus(let cause) = busError else {
            Issue.record("got \(String(describing: busError))")
            return
        }
        #expect(cause.kind == .busError && cause.address == I2CAddress(0x68))
        expectFinished(bus)
    }

    @Test func detectsASelfResetChip() throws {
        let (bus, imu) = try configured(icmInit()) { ICM42600IMU(bus: $0, model: .icm42688p, pause: .none) }
        bus.expect([
            .writeRead(0x68, [ICM.pwrMgmt0], reply: [0x0F]),
            .writeRead(0x68, [ICM.pwrMgmt0], reply: [0x00]),  // power-on value: sensors off
        ])
        #expect(try imu.isStillConfigured())
        #expect(try !imu.isStillConfigured())
        expectFinished(bus)
    }

    /// Identification reads WHO_AM_I once and writes nothing: the expectation list has no write.
    /// (WHO_AM_I 0x68 goes on to tell an MPU-6050 from an MPU-9150: MPU9150Tests.)
    @Test(arguments: [(UInt8(0x47), "ICM-42688-P"), (0x70, "MPU-6500"), (0x71, "MPU-9250")])
    func identificationTellsTheICMFromTheMPUFamilyWithoutWrites(whoAmI: UInt8, name: String) throws {
        for address: UInt8 in [0x68, 0x69] {
            let bus = ExpectationBus([.writeRead(address, [ICM.whoAmI], reply: [whoAmI])])
            let chip = try #require(try ChipCatalog.identify(bus: bus, address: I2CAddress(address)))
            #expect(chip.name == name && chip.address == I2CAddress(address) && chip.identity == [whoAmI] && chip.isIMU)
            expectFinished(bus)
            let driver = try #require(ChipCatalog.makeIMU(for: chip, bus: bus, pause: .none))
            #expect(driver.chip.name == name)
        }
        // An unknown WHO_AM_I: then the next families' own identity registers (the ICM-45686's
        // WHO_AM_I at 0x72, the BMI160's CHIP_ID at 0x00), read, nothing written.
        let unknown = ExpectationBus([
            .writeRead(0x68, [ICM.whoAmI], reply: [0x12]), .writeRead(0x68, [0x72], reply: [0x00]), .writeRead(0x68, [0x00], reply: [0x00]),
        ])
        #expect(try ChipCatalog.identify(bus: unknown, address: I2CAddress(0x68)) == nil)
        expectFinished(unknown)
    }

    /// INT_STATUS + FIFO_COUNT in one read, whole 16-byte packets in order (8 per read), the
    /// count's stray bytes left; FIFO temperature raw / 2.07 + 25.
    @Test func fifoPacketsComeInOrder() throws {
        let (bus, imu) = try driverWithFIFO()
        let packets = (0..<10).map { index in
            packet(accel: [Int16(index), 0, 8192], gyro: [655, 0, 0], temperature: 21, timestamp: UInt16(index * 5000))
        }
        bus.expect([
            .writeRead(0x68, [ICM.intStatus], reply: [0x08, 0x00, 10 * 16 + 3]),  // DATA_RDY, 163 bytes
            .writeRead(0x68, [ICM.fifoData], reply: Array(packets[0..<8].joined())),
            .writeRead(0x68, [ICM.fifoData], reply: Array(packets[8..<10].joined())),
        ])
        let read = try imu.readFIFO()
        #expect(!read.overflowed)
        #expect(read.frames.map(\.sampleIndex) == Array(0..<10))
        #expect(read.frames.map { $0.sample.raw?.accelerometer.x } == (0..<10).map { Int16($0) })
        #expect(close(read.frames[9].sample.acceleration.z, -1))
        #expect(close(read.frames[9].sample.rotationRate.x, 10 * degree, tolerance: 1e-9))
        #expect(close(read.frames[9].sample.temperature ?? 0, 21 / 2.07 + 25))
        expectFinished(bus)
    }

    /// Packet 3's 16-bit timestamp (1 µs, TMST_RES at its reset value) becomes the frame's chip
    /// time in seconds, read in the same burst, unwrapped across the counter's wrap at 65536 µs
    /// within a read and from one read to the next.
    @Test func fifoFramesCarryTheChipTimestampUnwrapped() throws {
        let (bus, imu) = try driverWithFIFO()
        let microseconds = (0..<6).map { 60_000 + $0 * 5000 }   // 60 ms … 85 ms: wraps after 65.536 ms
        let packets = microseconds.map { packet(accel: [0, 0, 8192], gyro: [0, 0, 0], timestamp: UInt16($0 % 65536)) }
        bus.expect([
            .writeRead(0x68, [ICM.intStatus], reply: [0x08, 0x00, 4 * 16]),
            .writeRead(0x68, [ICM.fifoData], reply: Array(packets[0..<4].joined())),
            .writeRead(0x68, [ICM.intStatus], reply: [0x08, 0x00, 2 * 16]),
            .writeRead(0x68, [ICM.fifoData], reply: Array(packets[4..<6].joined())),
        ])
        let first = try imu.readFIFO()
        let second = try imu.readFIFO()
        let frames = first.frames + second.frames
        #expect(frames.map(\.sampleIndex) == Array(0..<6))
        #expect(frames.map { $0.chipTime.map { ($0 * 1e6).rounded() } } == microseconds.map { Double($0) })
        #expect(first.chipClockWrap == 0.065536 && second.chipClockWrap == 0.065536)
        expectFinished(bus)
    }

    /// Header flags: the empty marker (HEADER_MSG) ends the read; −32768 on a sensor's axes
    /// (not valid yet) skips the frame but keeps its slot; an ODR change after the first packet
    /// restarts the FIFO and reports it like an overflow; FIFO_FULL restarts it and reports the overflow.
    @Test func fifoHeaderFlagsAndOverflow() throws {
        let (bus, imu) = try driverWithFIFO(maximumReadLength: 32)
        let good = packet(accel: [0, 0, 8192], gyro: [0, 0, 0])
        let invalidGyro = packet(accel: [0, 0, 8192], gyro: [.min, .min, .min])
        let empty = [UInt8](repeating: 0xFF, count: 16)
        bus.expect([
            // First packet with the ODR flags (the FIFO just started): accepted.
            .writeRead(0x68, [ICM.intStatus], reply: [0x00, 0x00, 5 * 16]),
            .writeRead(0x68, [ICM.fifoData], reply: packet(header: 0x6B, accel: [0, 0, 8192], gyro: [0, 0, 0]) + invalidGyro),
            .writeRead(0x68, [ICM.fifoData], reply: good + empty),
        ])
        let first = try imu.readFIFO()
        #expect(first.frames.map(\.sampleIndex) == [0, 2])
        #expect(!first.overflowed)
        bus.expect([
            .writeRead(0x68, [ICM.intStatus], reply: [0x00, 0x00, 2 * 16]),
            .writeRead(0x68, [ICM.fifoData], reply: good + packet(header: 0x6B, accel: [0, 0, 8192], gyro: [0, 0, 0])),
        ] + fifoStart)
        let rateChange = try imu.readFIFO()
        #expect(rateChange.frames.isEmpty && rateChange.overflowed)
        bus.expect([
            .writeRead(0x68, [ICM.intStatus], reply: [0x02, 0x07, 0xF0]),  // FIFO_FULL_INT
        ] + fifoStart + [
            .writeRead(0x68, [ICM.intStatus], reply: [0x00, 0x00, 16]),
            .writeRead(0x68, [ICM.fifoData], reply: good),
        ])
        let overflow = try imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        #expect(try imu.readFIFO().frames.map(\.sampleIndex) == [0])
        expectFinished(bus)
    }

    /// A count far beyond what is there (0xFFFF bytes) and packets with odd headers: the read ends
    /// at the empty marker, a header without both sensors only takes its slot, nothing traps.
    @Test func fifoGarbageEndsAtTheEmptyMarker() throws {
        let (bus, imu) = try driverWithFIFO(maximumReadLength: 32)
        let odd = [UInt8](repeating: 0xA5, count: 15)
        bus.expect([
            .writeRead(0x68, [ICM.intStatus], reply: [0x00, 0xFF, 0xFF]),
            .writeRead(0x68, [ICM.fifoData], reply: [0x00] + odd + [0x40] + odd),  // no sensor; accelerometer only
            .writeRead(0x68, [ICM.fifoData], reply: packet(accel: [1, 2, 3], gyro: [4, 5, 6]) + [UInt8](repeating: 0xFF, count: 16)),
        ])
        let read = try imu.readFIFO()
        #expect(!read.overflowed)
        #expect(read.frames.map(\.sampleIndex) == [2])
        #expect(read.frames.first?.sample.raw?.gyroscope == SIMD3(4, 5, 6))
        expectFinished(bus)
    }

    /// Factory value (2620 / 2^(3 − FS_SEL)) · 1.01^(code − 1): gyroscope > 0.5 ×, offset ≤ 20 °/s,
    /// accelerometer strictly within 0.5 … 1.5 ×; without a code 60 °/s and 50 … 1200 mg.
    @Test func selfTestDecision() {
        let gyroFactory = 2620 * pow(1.01, 99.0), accelFactory = 1310 * pow(1.01, 99.0)
        let report = ICM42600SelfTest.evaluate(
            chip: "ICM-42688-P", gyroscopeOffset: [0.5, -25, 1],
            gyroscopeResponse: [gyroFactory * 0.6, -gyroFactory * 0.4, 61 * 131.072], gyroscopeCodes: [100, 100, 0],
            accelerometerResponse: [accelFactory * 1.2, accelFactory * 1.6, 0.04 * 8192], accelerometerCodes: [100, 100, 0])
        #expect(report.axes.map(\.name) == [
            "gyroscope x", "gyroscope y", "gyroscope z", "gyroscope x offset", "gyroscope y offset", "gyroscope z offset",
            "accelerometer x", "accelerometer y", "accelerometer z",
        ])
        #expect(report.axes.map(\.passed) == [true, false, true, true, false, true, true, false, false])
    }

    /// The self-test's bus steps up to the factory codes: ±250 °/s and ±4 g at 1 kHz, 201
    /// bursts per phase (the first discarded), the self-test bits.
    private static func selfTestPhases() -> [I2CExpectation] {
        let gyro = Int16((2620 * pow(1.01, 99.0)).rounded()), accel = Int16((1310 * pow(1.01, 99.0)).rounded())
        let rest: [Int16] = [0, 0, 0, 8192, 3, -2, 1]
        func phase(_ values: [Int16]) -> [I2CExpectation] {
            Array(repeating: .writeRead(0x68, [ICM.tempData1], reply: bigEndian(values)), count: 201)
        }
        var list: [I2CExpectation] = [
            .write(0x68, [ICM.gyroConfig0, 3 << 5 | 0x6]),  // ±250 °/s, 1 kHz
            .write(0x68, [ICM.accelConfig0, 2 << 5 | 0x6]),  // ±4 g, 1 kHz
            .write(0x68, [0x70, 0x00]),  // SELF_TEST_CONFIG
            .write(0x68, [ICM.pwrMgmt0, 0x0F]),
        ]
        list += phase(rest)
        list += [.write(0x68, [0x70, 0x07])]  // EN_GX, EN_GY, EN_GZ
        list += phase([0, 0, 0, 8192, 3 + gyro, -2 + gyro, 1])  // gyro z dead
        list += [.write(0x68, [0x70, 0x00])]
        list += phase(rest)
        list += [.write(0x68, [0x70, 0x78])]  // EN_AX, EN_AY, EN_AZ, ACCEL_ST_POWER
        list += phase([0, accel, accel, 8192 + accel, 3, -2, 1])
        list += [.write(0x68, [0x70, 0x00])]
        return list
    }

    /// The whole procedure: the phases, the factory codes from banks 1 and 2, the configuration again.
    @Test func selfTestProcedure() throws {
        let (bus, imu) = try configured(icmInit()) { ICM42600IMU(bus: $0, model: .icm42688p, pause: .none) }
        bus.expect(Self.selfTestPhases() + [
            .write(0x68, [0x76, 1]), .writeRead(0x68, [0x5F], reply: [100, 100, 100]),  // XG/YG/ZG_ST_DATA
            .write(0x68, [0x76, 0]),
            .write(0x68, [0x76, 2]), .writeRead(0x68, [0x3B], reply: [100, 100, 100]),  // XA/YA/ZA_ST_DATA
            .write(0x68, [0x76, 0]),
        ] + icmInit())  // configuration restored
        let report = try imu.selfTest()
        #expect(report.axes.map(\.passed) == [true, true, false, true, true, true, true, true, true], "\(report)")
        expectFinished(bus)
    }

    /// A failed read in bank 1 is reported with its cause, after the bank is set back to 0.
    @Test func selfTestReturnsToBankZeroWhenABankedReadFails() throws {
        let (bus, imu) = try configured(icmInit()) { ICM42600IMU(bus: $0, model: .icm42688p, pause: .none) }
        bus.expect(Self.selfTestPhases() + [
            .write(0x68, [0x76, 1]), .writeRead(0x68, [0x5F], reply: [0, 0, 0]).failing(.timeout),
            .write(0x68, [0x76, 0]),
        ])
        let error = sensorError { () throws(SensorError) in _ = try imu.selfTest() }
        guard case .bus(let cause) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(cause.kind == .timeout)
        expectFinished(bus)
    }
}

/// The driver against the emulator (each written from the datasheet on its own).
@Suite struct ICM42688EmulatedTests {
    /// Face up at rest through the FIFO at 200 Hz: 20 frames in 0.1 s, numbered in order, −1 g on
    /// z; a FIFO left unread for a second overflows (2048 bytes = 128 packets), is restarted and
    /// counts from 0 again.
    @Test func fifoThroughTheEmulator() throws {
        let (rig, time) = try EmulatedRig.checkFIFOAtRest(.icm42688, accelerationTolerance: 1 / 8192.0, rotationTolerance: 1 / 65.5 * degree)
        time.set(2.1)
        let overflow = try rig.imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        time.set(2.125)
        #expect(try rig.imu.readFIFO().frames.map(\.sampleIndex) == Array(0..<5))
    }

    /// One bus transaction per sample: the emulator's bus counts them.
    @Test func oneTransactionPerSample() throws {
        let time = ManualTime(1)
        let rig = try EmulatedRig(imu: .icm42688, magnetometer: .none, source: ConstantSource(), time: time)
        rig.board.bus.clearLog()
        for step in 1...10 {
            time.set(1 + Double(step) * 0.005)
            _ = try rig.imu.readSample()
        }
        #expect(rig.board.bus.log.count == 10)
    }
}
