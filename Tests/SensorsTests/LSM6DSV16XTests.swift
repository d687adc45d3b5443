import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// LSM6DSV16X registers from ST DS13510 (register mapping and register description), written
/// here independently of the driver and the emulator.
private enum DSV {
    static let whoAmI: UInt8 = 0x0F, ctrl1: UInt8 = 0x10, ctrl2: UInt8 = 0x11, ctrl3: UInt8 = 0x12
    static let ctrl6: UInt8 = 0x15, ctrl8: UInt8 = 0x17, statusReg: UInt8 = 0x1E, outTempL: UInt8 = 0x20
    static let fifoCtrl1: UInt8 = 0x07, fifoCtrl3: UInt8 = 0x09, fifoCtrl4: UInt8 = 0x0A
    static let fifoStatus1: UInt8 = 0x1B, functionsEnable: UInt8 = 0x50, fifoDataOutTag: UInt8 = 0x78
    static let ctrl10: UInt8 = 0x19
}

/// Identify 0x70, SW_RESET polled, BDU | IF_INC, then CTRL8 (FS_XL 01 = ±4 g), CTRL6 (FS_G 0010 =
/// ±500 dps), CTRL1 and CTRL2 (ODR 0111 = 240 Hz): the driver's defaults.
private let dsvInit = stInitSequence(
    address: 0x6A, identity: (DSV.whoAmI, 0x70), control: DSV.ctrl3,
    then: [(DSV.ctrl8, 0x01), (DSV.ctrl6, 0x02), (DSV.ctrl1, 0x07), (DSV.ctrl2, 0x07)])

/// FIFO start: bypass, BDR_GY = BDR_XL = 0111 (240 Hz), FUNCTIONS_ENABLE TIMESTAMP_EN (bit 6),
/// DEC_TS_BATCH = 01 with continuous mode.
private let dsvFIFOStart: [I2CExpectation] = [
    .write(0x6A, [DSV.fifoCtrl4, 0x00]), .write(0x6A, [DSV.fifoCtrl3, 0x77]),
    .write(0x6A, [DSV.functionsEnable, 0x40]), .write(0x6A, [DSV.fifoCtrl4, 0x46]),
]

private func make(_ bus: ExpectationBus) -> LSM6IMU { LSM6IMU(bus: bus, model: .lsm6dsv16x, pause: .none) }

@Suite struct LSM6DSV16XTests {
    /// The defaults on the LSM6DSV16X's map; the sample burst as the LSM6DSO's.
    @Test func initAndSample() throws {
        let (bus, imu) = try configured(dsvInit) { make($0) }
        // ±4 g: 0.122 mg/LSB → 1 g = 8197 LSB; ±500 dps: 17.5 mdps/LSB → 35 dps = 2000 LSB; 256 LSB/°C.
        bus.expect([.writeRead(0x6A, [DSV.outTempL], reply: littleEndian([512, 2000, 0, -2000, 0, 0, 8197]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1], tolerance: 1e-4))
        #expect(close(sample.rotationRate, [35 * degree, 0, -35 * degree], tolerance: 1e-9))
        #expect(sample.temperature == 27)
        expectFinished(bus)
    }

    /// ±16 g (FS_XL 11), ±4000 dps (FS_G 1100), 7.68 kHz (ODR 1100); 208 Hz is no LSM6DSV16X rate.
    @Test func rangesAndRates() throws {
        let bus = ExpectationBus(stInitSequence(
            address: 0x6A, identity: (DSV.whoAmI, 0x70), control: DSV.ctrl3,
            then: [(DSV.ctrl8, 0x03), (DSV.ctrl6, 0x0C), (DSV.ctrl1, 0x0C), (DSV.ctrl2, 0x0C)]))
        let imu = make(bus)
        try imu.configure(IMUConfiguration(outputDataRate: 7680, accelerometerRange: 16, gyroscopeRange: 4000))
        bus.expect([.writeRead(0x6A, [DSV.outTempL], reply: littleEndian([0, 1000, 0, 0, 2049, 0, 0]))])
        let sample = try imu.readSample()
        #expect(close(sample.rotationRate, [140 * degree, 0, 0], tolerance: 1e-9))  // 1000 × 140 mdps
        #expect(close(sample.acceleration, [-1, 0, 0], tolerance: 1e-3))  // 2049 × 0.488 mg
        expectFinished(bus)
        let untouched = ExpectationBus([])
        #expect(throws: SensorError.self) {
            try make(untouched).configure(IMUConfiguration(outputDataRate: 208, accelerometerRange: 4, gyroscopeRange: 500))
        }
        expectFinished(untouched)  // refused before any bus access
    }

    /// FIFO_STATUS1/2 at 1Bh: DIFF_FIFO[8:0] (bit 0 of STATUS2 is the ninth), FIFO_OVR_IA bit 6.
    @Test func taggedFIFOAtItsOwnStatusRegister() throws {
        let (bus, imu) = try configured(dsvInit) { make($0) }
        bus.expect(dsvFIFOStart)
        try imu.enableFIFO()
        var words: [UInt8] = []
        for slot: UInt8 in 0..<128 {
            let counter = slot & 0b11
            words += [0x01 << 3 | counter << 1] + littleEndian([2000, 0, 0])
            words += [0x02 << 3 | counter << 1] + littleEndian([0, 0, 8197])
        }
        // 256 words: DIFF_FIFO[8] set, read 16 words (112 bytes) at a time.
        let chunks = stride(from: 0, to: words.count, by: 112).map { I2CExpectation.writeRead(0x6A, [DSV.fifoDataOutTag], reply: Array(words[$0..<($0 + 112)])) }
        bus.expect([.writeRead(0x6A, [DSV.fifoStatus1], reply: [0x00, 0x01])] + chunks
            + [.writeRead(0x6A, [DSV.fifoStatus1], reply: [0x00, 0x40])]  // FIFO_OVR_IA
            + dsvFIFOStart)
        let read = try imu.readFIFO()
        #expect(read.frames.map(\.sampleIndex) == Array(0..<128))
        #expect(read.frames.allSatisfy { close($0.sample.acceleration, [0, 0, -1], tolerance: 1e-4) })
        let overflow = try imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        expectFinished(bus)
    }

    /// Identified at both addresses on the simulated board; WHO_AM_I 0x70 is no MPU-6500 there
    /// (its 0x70 is at 0x75 of 0x68/0x69).
    @Test func identifiedAtBothAddresses() throws {
        for address in SimulatedBoard.IMU.lsm6dsv16x.possibleAddresses {
            let board = SimulatedBoard(imu: .lsm6dsv16x, imuAddress: address, magnetometer: .none, source: ConstantSource(), now: { 0 })
            let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: address))
            #expect(chip.name == "LSM6DSV16X/LSM6DSV" && chip.isIMU && chip.address == address)
        }
        #expect(SimulatedBoard.IMU.lsm6dsv16x.possibleAddresses == [I2CAddress(0x6A), I2CAddress(0x6B)])
        #expect(SimulatedBoard.IMU(name: "lsm6dsv") == .lsm6dsv16x)
        #expect(ChipDescriptor.lsm6dsv16x.cliNames == ["lsm6dsv16x", "lsm6dsv"])
        #expect(ChipDescriptor.lsm6dsv16x.fifo?.timestamp?.lsb == 21.75e-6)
    }

    /// The emulator against DS13510: power-on WHO_AM_I, ODR in CTRL1 bits 3:0 (0111 = 240 Hz:
    /// 24 samples in 0.1 s), the FIFO's words counted at FIFO_STATUS1/2 (1Bh) with timestamps from
    /// FUNCTIONS_ENABLE, nothing at the LSM6DSO's FIFO_STATUS1 (3Ah).
    @Test func emulatorFollowsTheDatasheetMap() throws {
        let time = ManualTime(0)
        let board = SimulatedBoard(imu: .lsm6dsv16x, magnetometer: .none, source: ConstantSource(), now: { time.now })
        let bus = board.bus, address = I2CAddress(0x6A)
        #expect(try bus.readRegister(address, DSV.whoAmI) == 0x70)
        try bus.writeRegister(address, DSV.ctrl1, 0x07)
        try bus.writeRegister(address, DSV.ctrl2, 0x07)
        try bus.writeRegister(address, DSV.fifoCtrl3, 0x77)
        try bus.writeRegister(address, DSV.functionsEnable, 0x40)
        try bus.writeRegister(address, DSV.fifoCtrl4, 0x46)
        time.set(0.1)
        #expect(try bus.readRegister(address, DSV.statusReg) & 0b11 == 0b11)  // XLDA, GDA
        let status = try bus.readRegisters(address, DSV.fifoStatus1, count: 2)
        let level = Int(status[1] & 0x01) << 8 | Int(status[0])
        // 24 slots, each a timestamp, a gyroscope and an accelerometer word (±1 slot at the edges).
        #expect((69...75).contains(level), "\(level) words")
        #expect(level % 3 == 0)
        #expect(try bus.readRegister(address, 0x3A) == 0)
        #expect(try bus.readRegister(address, DSV.fifoDataOutTag) >> 3 == 0x04)  // the first slot's timestamp
    }

    /// Through the driver: the emulator's FIFO frames dated by its clock, 1/240 s apart with
    /// no drift and 100 ppm longer steps read as such.
    @Test(arguments: [0.0, 100])
    func fifoChipTimeSteps(driftPPM: Double) throws {
        let (frames, steps) = try emulatedFIFOFrames(.lsm6dsv16x, driftPPM: driftPPM, reads: 5)
        #expect(frames.map(\.sampleIndex) == Array(0..<frames.count))
        #expect((23...25).contains(frames.count), "\(frames.count) frames in 0.1 s at 240 Hz")
        #expect(steps.count == frames.count - 1)
        // One 21.75 µs tick of rounding either side.
        #expect(steps.allSatisfy { abs($0 - (1 + driftPPM * 1e-6) / 240) <= 21.8e-6 }, "\(steps)")
    }

    /// The self-test as ST's lsm6dsv16x_self_test.c runs it: BDU | IF_INC, gyroscope off, CTRL10
    /// clear; CTRL8 ±4 g then CTRL1 = 0101 (60 Hz), CTRL10 ST_XL = 01; CTRL6 ±2000 dps (0100) then
    /// CTRL2 = 0111 (240 Hz), CTRL10 ST_G = 01 (0b0100); 1 discarded + 5 averaged samples each
    /// phase; limits 50…1700 mg and 150…700 dps; then reset and the configuration restored.
    @Test func selfTestProcedure() throws {
        let (bus, imu) = try configured(dsvInit) { make($0) }
        func samples(accel: [Int16], gyro: [Int16]) -> [I2CExpectation] {
            Array(repeating: .writeRead(0x6A, [DSV.outTempL], reply: littleEndian([0] + gyro + accel)), count: 6)
        }
        // 500 mg at 0.122 mg/LSB = 4098 LSB; 300 dps at 70 mdps/LSB = 4286 LSB; 100 dps (1429 LSB) on y: too little.
        var list: [I2CExpectation] = [
            .write(0x6A, [DSV.ctrl3, 0x44]), .write(0x6A, [DSV.ctrl2, 0]), .write(0x6A, [DSV.ctrl10, 0]),
            .write(0x6A, [DSV.ctrl8, 0x01]), .write(0x6A, [DSV.ctrl1, 0x05]),
        ]
        list += samples(accel: [0, 0, 8197], gyro: [0, 0, 0])
        list += [.write(0x6A, [DSV.ctrl10, 0x01])]
        list += samples(accel: [4098, -4098, 8197 + 4098], gyro: [0, 0, 0])
        list += [.write(0x6A, [DSV.ctrl1, 0]), .write(0x6A, [DSV.ctrl10, 0])]
        list += [.write(0x6A, [DSV.ctrl6, 0x04]), .write(0x6A, [DSV.ctrl2, 0x07])]
        list += samples(accel: [0, 0, 0], gyro: [10, 10, 10])
        list += [.write(0x6A, [DSV.ctrl10, 0x04])]
        list += samples(accel: [0, 0, 0], gyro: [10 + 4286, 10 + 1429, 10 + 4286])
        list += [.write(0x6A, [DSV.ctrl2, 0]), .write(0x6A, [DSV.ctrl10, 0])]
        list += dsvInit
        bus.expect(list)
        let report = try imu.selfTest()
        #expect(report.axes.map(\.passed) == [true, true, true, true, false, true])
        #expect(close(report.axes[0].response, 4098 * 0.122, tolerance: 1e-6))
        #expect(close(report.axes[3].response, 300.02, tolerance: 1e-6))
        expectFinished(bus)
    }
}
