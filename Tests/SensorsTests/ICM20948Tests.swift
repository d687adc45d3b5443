import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// ICM-20948 register addresses from DS-000189 §7–§10 and AK09916 addresses from its datasheet
/// §9, written here independently of the drivers.
private enum ICM {
    static let bankSel: UInt8 = 0x7F  // USER_BANK bits 5:4, every bank
    // bank 0
    static let whoAmI: UInt8 = 0x00, userCtrl: UInt8 = 0x03, pwrMgmt1: UInt8 = 0x06, intPinCfg: UInt8 = 0x0F
    static let accelXoutH: UInt8 = 0x2D
    // bank 2
    static let gyroSmplrtDiv: UInt8 = 0x00, gyroConfig1: UInt8 = 0x01
    static let accelSmplrtDiv1: UInt8 = 0x10, accelSmplrtDiv2: UInt8 = 0x11, accelConfig: UInt8 = 0x14
    static let mpuWhoAmI: UInt8 = 0x75
}

private enum AK {
    static let wia1: UInt8 = 0x00, st1: UInt8 = 0x10, cntl2: UInt8 = 0x31, cntl3: UInt8 = 0x32
}

/// The ICM-20948 init sequence at 0x68 for the given dividers and field codes.
func icm20948Init(gyroDivider: UInt8 = 4, accelDivider: UInt16 = 4, dlpf: UInt8 = 3, gyroFS: UInt8 = 1, accelFS: UInt8 = 1) -> [I2CExpectation] {
    [
        .write(0x68, [0x7F, 0x00]),  // bank 0
        .writeRead(0x68, [0x00], reply: [0xEA]),  // WHO_AM_I
        .write(0x68, [0x06, 0x80]),  // DEVICE_RESET
        .writeRead(0x68, [0x06], reply: [0]).failing(.noAcknowledge),  // busy resetting
        .writeRead(0x68, [0x06], reply: [0x41]),  // reset done, asleep
        .write(0x68, [0x06, 0x01]),  // wake, auto clock
        .write(0x68, [0x03, 0x00]),  // USER_CTRL: I2C master off
        .write(0x68, [0x0F, 0x02]),  // INT_PIN_CFG BYPASS_EN
        .write(0x68, [0x7F, 0x20]),  // bank 2
        .write(0x68, [0x00, gyroDivider]),
        .write(0x68, [0x01, dlpf << 3 | gyroFS << 1 | 1]),  // GYRO_CONFIG_1, FCHOICE
        .write(0x68, [0x10, UInt8(accelDivider >> 8)]),
        .write(0x68, [0x11, UInt8(accelDivider & 0xFF)]),
        .write(0x68, [0x14, dlpf << 3 | accelFS << 1 | 1]),  // ACCEL_CONFIG, FCHOICE
        .write(0x68, [0x7F, 0x00]),  // back to bank 0
    ]
}

@Suite struct ICM20948Tests {
    /// Default: 220 Hz (gyro 1100/5, accel 1125/5 = 225 Hz), ±4 g, ±500 °/s, 51.2 Hz DLPF; one
    /// burst of ACCEL, GYRO, TEMP.
    @Test func defaultInitAndSample() throws {
        let (bus, imu) = try configured(icm20948Init()) { ICM20948IMU(bus: $0, pause: .none) }
        // Face up at rest: +1 g on z = 8192 LSB at ±4 g; x gyro 10 °/s = 655 LSB at ±500 °/s;
        // temperature raw 3339 → 31.0 °C (raw / 333.87 + 21).
        bus.expect([.writeRead(0x68, [ICM.accelXoutH], reply: bigEndian([0, 0, 8192, 655, 0, -655, 3339]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1]))
        #expect(close(sample.rotationRate, [10 * degree, 0, -10 * degree], tolerance: 1e-3))
        #expect(close(sample.temperature ?? 0, 3339 / 333.87 + 21))
        #expect(!sample.isSaturated)
        expectFinished(bus)
    }

    // MARK: Identification at 0x68 (reads only, MPU WHO_AM_I 0x75 first)

    @Test(arguments: [(UInt8(0x70), "MPU-6500"), (0x71, "MPU-9250")])
    func mpuIsIdentifiedByOneReadOf0x75(whoAmI: UInt8, name: String) throws {
        let bus = ExpectationBus([.writeRead(0x68, [ICM.mpuWhoAmI], reply: [whoAmI])])
        let chip = try #require(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x68)))
        #expect(chip.name == name)
        expectFinished(bus)
    }

    /// An MPU-9250 whose SELF_TEST_X_GYRO (0x00) happens to hold 0xEA is still an MPU-9250:
    /// 0x00 is never read once 0x75 has named an MPU.
    @Test func mpuSelfTestCodeEqualToTheICMIdentityIsNeverRead() throws {
        let bus = ExpectationBus([.writeRead(0x68, [ICM.mpuWhoAmI], reply: [0x71])])
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x68))?.name == "MPU-9250")
        expectFinished(bus)
    }

    @Test func icm20948IsIdentifiedByBank0WhoAmIAfterTheMPURead() throws {
        let bus = ExpectationBus([
            .writeRead(0x68, [ICM.mpuWhoAmI], reply: [0x00]),  // reserved on the ICM-20948
            .writeRead(0x68, [0x72], reply: [0x00]),  // FIFO_R_W, empty: no ICM-45686 WHO_AM_I
            .writeRead(0x68, [ICM.whoAmI], reply: [0xEA]),
        ])
        let chip = try #require(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x68)))
        #expect(chip.name == "ICM-20948" && chip.identity == [0xEA] && chip.isIMU)
        #expect(ChipCatalog.makeIMU(for: chip, bus: bus) is ICM20948IMU)
        expectFinished(bus)
    }

    /// A device that is none of the chips known at 0x68 (0x12 at both identity registers): nil,
    /// after the same two reads.
    @Test func otherDeviceAt0x68IsNotIdentified() throws {
        let bus = ExpectationBus([
            .writeRead(0x68, [ICM.mpuWhoAmI], reply: [0x00]),
            .writeRead(0x68, [0x72], reply: [0x00]),
            .writeRead(0x68, [ICM.whoAmI], reply: [0x12]),
        ])
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x68)) == nil)
        expectFinished(bus)
    }

    /// On the emulators: each chip is named correctly and identification writes nothing but
    /// register pointers (every write is one byte, followed by a read). (WHO_AM_I 0x68 goes on to
    /// the MPU-9150 bypass check, which writes to the MPU: MPU9150Tests.)
    @Test(arguments: [(SimulatedBoard.IMU.mpu6500, "MPU-6500"), (.mpu9250, "MPU-9250"), (.icm20948, "ICM-20948")])
    func emulatedChipsAreIdentifiedWithoutWrites(imu: SimulatedBoard.IMU, name: String) throws {
        let board = SimulatedBoard(imu: imu, magnetometer: .none, source: ConstantSource(), now: { 0 })
        #expect(try ChipCatalog.identify(bus: board.bus, address: I2CAddress(0x68))?.name == name)
        for transaction in board.bus.log {
            guard case .write(let bytes)? = transaction.operations.first, case .read? = transaction.operations.last else {
                Issue.record("not a register read: \(transaction)")
                continue
            }
            #expect(transaction.operations.count == 2 && bytes.count == 1, "\(transaction)")
        }
        // The ICM-20948: WHO_AM_I 0x75, the ICM-45686's WHO_AM_I 0x72, then bank-0 WHO_AM_I 0x00.
        #expect(board.bus.log.count == (imu == .icm20948 ? 3 : 1))
    }

    // MARK: On the emulators

    /// One transaction per chip per sample, in order: the ICM-20948 burst, then the AK09916 burst.
    @Test func oneTransactionPerChipPerSample() throws {
        let time = ManualTime(1)
        let rig = try EmulatedRig(imu: .icm20948, source: ConstantSource(), time: time)
        let magnetometer = try #require(rig.magnetometer)
        #expect(magnetometer.chip.name == "AK09916")
        time.set(1.5)
        rig.board.bus.clearLog()
        _ = try rig.imu.readSample()
        _ = try magnetometer.readSample()
        let log = rig.board.bus.log
        #expect(log.map(\.address) == [I2CAddress(0x68), I2CAddress(0x0C)])
        #expect(log.map(\.operations) == [[.write([0x2D]), .read(count: 14)], [.write([0x10]), .read(count: 9)]])
    }

    /// After the IMU has opened the bypass, a probe finds both chips; before, only the IMU.
    @Test func probeFindsICM20948AndAK09916() throws {
        let board = SimulatedBoard(imu: .icm20948, source: ConstantSource(), now: { 0 })
        #expect(try ChipCatalog.probe(bus: board.bus).map(\.name) == ["ICM-20948"])
        let imu = ICM20948IMU(bus: board.bus, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        let chips = try ChipCatalog.probe(bus: board.bus)
        #expect(chips.map(\.name) == ["AK09916", "ICM-20948"])
        #expect(chips.map(\.address) == [I2CAddress(0x0C), I2CAddress(0x68)])
    }

    /// A known field comes back within one LSB (0.15 µT, AK09916 datasheet §8.1).
    @Test func ak09916ReadsBackAKnownField() throws {
        let time = ManualTime(1)
        var state = PhysicalState.flatAtRest()
        state.magneticField = SIMD3(21.3, -34.7, 42.05)
        let rig = try EmulatedRig(imu: .icm20948, source: ConstantSource(state), time: time)
        time.set(1.5)
        let sample = try #require(rig.magnetometer).readSample()
        // In the AK09916's own axes: y and z opposite the package's (DS-000189 §11.1).
        #expect(largestDifference(sample.field, state.magneticField * SIMD3(1, -1, -1)) <= 0.15 * 1.001)
        #expect(!sample.isSaturated)
    }

    @Test func ak09916SelfTestPassesWhenHealthyAndFailsWithADeadAxis() throws {
        for dead in [false, true] {
            let time = ManualTime(1)
            let rig = try EmulatedRig(
                imu: .icm20948, source: ConstantSource(), time: time,
                imuOptions: EmulatorOptions(deadAxes: dead ? [.magnetometer(.z)] : []), pausesAdvanceTime: true)
            let report = try #require(rig.magnetometer).selfTest()
            #expect(report.passed == !dead, "dead axis \(dead): \(report)")
        }
    }

    // MARK: AK09916 on an expectation bus

    private func ak09916Init() -> [I2CExpectation] {
        [
            .writeRead(0x0C, [AK.wia1], reply: [0x48, 0x09]),
            .write(0x0C, [AK.cntl3, 0x01]),  // SRST
            .writeRead(0x0C, [AK.cntl3], reply: [0x00]),
            .write(0x0C, [AK.cntl2, 0x00]),  // power-down
            .write(0x0C, [AK.cntl2, 0x08]),  // continuous mode 4 (100 Hz)
        ]
    }

    @Test func ak09916InitSampleAndOverflow() throws {
        let (bus, magnetometer) = try configured(ak09916Init()) { AKMagnetometer(bus: $0, model: .ak09916, pause: .none) }
        // 0.15 µT/LSB, no sensitivity adjustment; ST1, HX…HZ, TMPS, ST2 in one read.
        bus.expect([
            .writeRead(0x0C, [AK.st1], reply: [0x01] + littleEndian([1000, -200, 300]) + [0x00, 0x00]),
            .writeRead(0x0C, [AK.st1], reply: [0x01] + littleEndian([1000, -200, 300]) + [0x00, 0x08]),  // HOFL
        ])
        let sample = try magnetometer.readSample()
        #expect(close(sample.field, [150, -30, 45]))
        #expect(!sample.isSaturated)
        #expect(try magnetometer.readSample().isSaturated)
        expectFinished(bus)
    }

    @Test func ak09916RejectsAnAK8963() {
        let bus = ExpectationBus([.writeRead(0x0C, [AK.wia1], reply: [0x48, 0x00])])
        let magnetometer = AKMagnetometer(bus: bus, model: .ak09916, pause: .none)
        #expect(sensorError { () throws(SensorError) in try magnetometer.configure(magnetometer.defaultConfiguration) }
            == .unexpectedIdentity(chip: "AK09916", address: I2CAddress(0x0C), register: 0x00, expected: [0x48, 0x09], found: [0x48, 0x00]))
        expectFinished(bus)
    }

    @Test func busErrorKeepsItsCause() {
        let bus = ExpectationBus([.write(0x68, [ICM.bankSel, 0x00]).failing(.timeout)])
        let imu = ICM20948IMU(bus: bus, pause: .none)
        guard case .bus(let cause)? = sensorError({ () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }) else {
            Issue.record("expected a bus error")
            return
        }
        #expect(cause.kind == .timeout)
        expectFinished(bus)
    }

    // MARK: FIFO

    @Test func fifoFramesAndOverflow() throws {
        let (bus, imu) = try configured(icm20948Init()) { ICM20948IMU(bus: $0, pause: .none) }
        bus.expect([
            .write(0x68, [0x68, 0x1F]), .write(0x68, [0x68, 0x00]),  // FIFO_RST assert, release
            .write(0x68, [0x69, 0x00]),  // FIFO_MODE stream
            .write(0x68, [0x67, 0x1E]),  // FIFO_EN_2: accelerometer, gyroscope x, y, z
            .write(0x68, [0x12, 0x01]),  // INT_ENABLE_2 FIFO_OVERFLOW_EN
            .write(0x68, [0x03, 0x40]),  // USER_CTRL FIFO_EN, I2C master still off
            .writeRead(0x68, [0x1C], reply: [0x00]),  // INT_STATUS_2: no overflow
            .writeRead(0x68, [0x70], reply: [0x00, 25]),  // 25 bytes: two whole frames
            .writeRead(0x68, [0x72], reply: bigEndian([0, 0, 8192, 655, 0, 0, 0, 8192, 0, 0, -655, 0])),
            .writeRead(0x68, [0x1C], reply: [0x01]),  // overflow: reset instead of read
            .write(0x68, [0x68, 0x1F]), .write(0x68, [0x68, 0x00]),
        ])
        try imu.enableFIFO()
        let read = try imu.readFIFO()
        #expect(read.frames.map(\.sampleIndex) == [0, 1])
        #expect(close(read.frames[0].sample.acceleration, [0, 0, -1]))
        #expect(close(read.frames[0].sample.rotationRate, [10 * degree, 0, 0], tolerance: 1e-3))
        #expect(close(read.frames[1].sample.rotationRate, [0, -10 * degree, 0], tolerance: 1e-3))
        let overflow = try imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        expectFinished(bus)
    }

    /// On the emulator: 0.1 s at 220 Hz gives 22 frames, numbered from 0, each at rest.
    @Test func fifoOnTheEmulator() throws {
        let time = ManualTime(1)
        let rig = try EmulatedRig(imu: .icm20948, magnetometer: .none, source: ConstantSource(), time: time)
        try rig.imu.enableFIFO()
        time.set(1.1)
        let read = try rig.imu.readFIFO()
        #expect(!read.overflowed)
        #expect(read.frames.map(\.sampleIndex) == Array(0..<22))
        for frame in read.frames { #expect(largestDifference(frame.sample.acceleration, [0, 0, -1]) <= 1 / 8192.0) }
        time.set(1.2)
        #expect(try rig.imu.readFIFO().frames.first?.sampleIndex == 22)
    }
}
