import Locking
import I2C
import I2CMock
import Sensors
import Synchronization
import Testing

/// Init sequences and reads written from each datasheet's register map, independently of the drivers.
@Suite struct MagnetometerTests {
    // MARK: LIS3MDL (datasheet §7: CTRL_REG1…5 at 0x20…0x24, OUT_X_L 0x28, MSB = auto-increment)

    private func lis3mdlInit(address: UInt8 = 0x1C, ctrl1: UInt8 = 0x7C, ctrl2: UInt8 = 0x00) -> [I2CExpectation] {
        [
            .writeRead(address, [0x0F], reply: [0x3D]),
            .write(address, [0x21, 0x04]),  // SOFT_RST
            .writeRead(address, [0x21], reply: [0x00]),
            .write(address, [0x20, ctrl1]),  // OM = 11 (ultra-high performance), DO
            .write(address, [0x21, ctrl2]),  // FS
            .write(address, [0x23, 0x0C]),  // OMZ = 11
            .write(address, [0x24, 0x40]),  // BDU
            .write(address, [0x22, 0x00]),  // continuous conversion
        ]
    }

    @Test func lis3mdlInitAndSample() throws {
        let (bus, magnetometer) = try configured(lis3mdlInit()) { LIS3MDLMagnetometer(bus: $0, pause: .none) }
        // ±4 gauss: 6842 LSB/gauss; 3421 = 0.5 gauss = 50 µT.
        bus.expect([.writeRead(0x1C, [0xA8], reply: littleEndian([3421, -3421, 0]))])
        let sample = try magnetometer.readSample()
        #expect(close(sample.field, [50, -50, 0]))
        #expect(!sample.isSaturated)
        expectFinished(bus)
    }

    /// On a plain register file (i2c-stub) SOFT_RST never clears: `.fixedDelay` writes it and does not poll.
    @Test func lis3mdlFixedDelayResetDoesNotPoll() throws {
        var list = lis3mdlInit()
        list.remove(at: 2)  // the poll of CTRL_REG2
        let bus = ExpectationBus(list)
        let waited = Locked<Duration>(.zero)
        let magnetometer = LIS3MDLMagnetometer(
            bus: bus, pause: Pause { duration in waited.withLock { $0 += duration } }, resetCompletion: .fixedDelay)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        expectFinished(bus)
        #expect(waited.withLock { $0 } > .zero)
    }

    /// Polling (the default) gives up with a reset timeout when the bit stays set, as on i2c-stub.
    @Test func lis3mdlResetBitThatNeverClearsTimesOut() {
        let bus = ExpectationBus([.writeRead(0x1C, [0x0F], reply: [0x3D]), .write(0x1C, [0x21, 0x04])]
            + Array(repeating: .writeRead(0x1C, [0x21], reply: [0x04]), count: 10))
        let magnetometer = LIS3MDLMagnetometer(bus: bus, pause: .none)
        let error = sensorError { () throws(SensorError) in try magnetometer.configure(magnetometer.defaultConfiguration) }
        #expect(error == .resetTimeout(chip: "LIS3MDL", address: I2CAddress(0x1C), polls: 10))
        expectFinished(bus)
    }

    /// Table 2: 6842 / 3421 / 2281 / 1711 LSB/gauss at ±4 / 8 / 12 / 16 gauss (FS bits 6:5 of CTRL_REG2).
    @Test(arguments: [(400.0, UInt8(0x00), Int16(6842)), (800, 0x20, 3421), (1200, 0x40, 2281), (1600, 0x60, 1711)])
    func lis3mdlRanges(range: Double, ctrl2: UInt8, lsbPerGauss: Int16) throws {
        // 10 Hz = DO 100.
        let bus = ExpectationBus(lis3mdlInit(address: 0x1E, ctrl1: 0x70, ctrl2: ctrl2))
        let magnetometer = LIS3MDLMagnetometer(bus: bus, address: I2CAddress(0x1E), pause: .none)
        try magnetometer.configure(MagnetometerConfiguration(outputDataRate: 10, range: range))
        bus.expect([
            .writeRead(0x1E, [0xA8], reply: littleEndian([lsbPerGauss, 0, -lsbPerGauss])),
            .writeRead(0x1E, [0xA8], reply: littleEndian([.min, 0, 0])),
        ])
        #expect(close(try magnetometer.readSample().field, [100, 0, -100]))
        #expect(try magnetometer.readSample().isSaturated)
        expectFinished(bus)
    }

    @Test func lis3mdlUnsupportedRate() {
        let magnetometer = LIS3MDLMagnetometer(bus: ExpectationBus([]), pause: .none)
        let error = sensorError { () throws(SensorError) in
            try magnetometer.configure(MagnetometerConfiguration(outputDataRate: 100, range: 400))
        }
        #expect(error?.description == "output data rate 100 Hz is not supported by LIS3MDL; supported: "
            + "0.625 Hz, 1.25 Hz, 2.5 Hz, 5 Hz, 10 Hz, 20 Hz, 40 Hz, 80 Hz")
    }

    @Test func lis3mdlSelfTestDecision() {
        #expect(LIS3MDLMagnetometer.evaluateSelfTest(responseGauss: [1.5, 2, 0.5]).passed)
        let dead = LIS3MDLMagnetometer.evaluateSelfTest(responseGauss: [1.5, 0, 0.5])
        #expect(dead.axes.map(\.passed) == [true, false, true])
    }

    /// AN4602 procedure: CTRL_REG1 0x1C (80 Hz), CTRL_REG2 0x40 (±12 gauss, 2281 LSB/gauss),
    /// continuous; 1 discarded + 5 averaged samples; ST bit (0x1D); again; back to 0x1C.
    @Test func lis3mdlSelfTestProcedure() throws {
        let initList = lis3mdlInit()
        let bus = ExpectationBus(initList)
        let magnetometer = LIS3MDLMagnetometer(bus: bus, pause: .none)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        let read = { (values: [Int16]) in
            Array(repeating: I2CExpectation.writeRead(0x1C, [0xA8], reply: littleEndian(values)), count: 6)
        }
        // Response 1.5 / 1.5 / 0.05 gauss: z is too weak.
        let list: [I2CExpectation] = [.write(0x1C, [0x20, 0x1C]), .write(0x1C, [0x21, 0x40]), .write(0x1C, [0x22, 0x00])]
            + read([100, 100, 100]) + [.write(0x1C, [0x20, 0x1D])]
            + read([100 + 3422, 100 - 3422, 100 + 114]) + [.write(0x1C, [0x20, 0x1C])] + initList
        bus.expect(list)
        let report = try magnetometer.selfTest()
        #expect(report.axes.map(\.passed) == [true, true, false])
        expectFinished(bus)
    }

    // MARK: AK8963 (datasheet §8: WIA 0x00, ST1 0x02, CNTL1 0x0A, CNTL2 0x0B, ASTC 0x0C, ASAX 0x10)

    private func ak8963Init(asa: [UInt8]) -> [I2CExpectation] {
        [
            .writeRead(0x0C, [0x00], reply: [0x48]),
            .write(0x0C, [0x0B, 0x01]),  // SRST
            .writeRead(0x0C, [0x0B], reply: [0x00]),
            .write(0x0C, [0x0A, 0x0F]),  // fuse ROM access
            .writeRead(0x0C, [0x10], reply: asa),
            .write(0x0C, [0x0A, 0x00]),  // power-down
            .write(0x0C, [0x0A, 0x16]),  // 16-bit, continuous measurement mode 2 (100 Hz)
        ]
    }

    @Test func ak8963InitAdjustmentAndOverflow() throws {
        let (bus, magnetometer) = try configured(ak8963Init(asa: [128, 192, 0])) { AKMagnetometer(bus: $0, model: .ak8963, pause: .none) }
        // 0.15 µT/LSB × ((ASA − 128) / 256 + 1): x × 1, y × 1.25, z × 0.5.
        bus.expect([
            .writeRead(0x0C, [0x02], reply: [0x01] + littleEndian([1000, 1000, -1000]) + [0x10]),
            .writeRead(0x0C, [0x02], reply: [0x01] + littleEndian([1000, 1000, -1000]) + [0x18]),  // HOFL
        ])
        let sample = try magnetometer.readSample()
        #expect(close(sample.field, [150, 187.5, -75]))
        #expect(!sample.isSaturated)
        #expect(try magnetometer.readSample().isSaturated)
        expectFinished(bus)
    }

    @Test func ak8963SelfTestProcedure() throws {
        let initList = ak8963Init(asa: [128, 128, 128])
        let bus = ExpectationBus(initList)
        let magnetometer = AKMagnetometer(bus: bus, model: .ak8963, pause: .none)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        bus.expect([
            .write(0x0C, [0x0A, 0x00]),
            .write(0x0C, [0x0C, 0x40]),  // ASTC SELF
            .write(0x0C, [0x0A, 0x18]),  // 16-bit self-test mode
            .writeRead(0x0C, [0x02], reply: [0x00]),
            .writeRead(0x0C, [0x02], reply: [0x01]),  // DRDY
            .writeRead(0x0C, [0x02], reply: [0x01] + littleEndian([30, -40, -1500]) + [0x10]),
            .write(0x0C, [0x0C, 0x00]),
            .write(0x0C, [0x0A, 0x00]),
        ] + initList)
        #expect(try magnetometer.selfTest().passed)
        expectFinished(bus)
        #expect(!AKMagnetometer.evaluateSelfTest(model: .ak8963, counts: [30, -40, -100]).passed)
    }

    // MARK: QMC5883L (datasheet §9.2: data 0x00…0x05, status 0x06, control 0x09/0x0A, SET/RESET 0x0B, ID 0x0D)

    @Test func qmc5883lInitSampleAndOverflow() throws {
        let bus = ExpectationBus([
            .writeRead(0x0D, [0x0D], reply: [0xFF]),
            .write(0x0D, [0x0A, 0x80]),  // SOFT_RST
            .writeRead(0x0D, [0x0A], reply: [0x00]),
            .write(0x0D, [0x0B, 0x01]),
            .write(0x0D, [0x09, 0x19]),  // OSR 512 (00), ±8 G (01), 100 Hz (10), continuous (01)
        ])
        let magnetometer = QMC5883LMagnetometer(bus: bus, pause: .none)
        try magnetometer.configure(MagnetometerConfiguration(outputDataRate: 100, range: 800))
        // ±8 G: 3000 LSB/G → 30 LSB/µT.
        bus.expect([
            .writeRead(0x0D, [0x00], reply: littleEndian([1500, -3000, 0]) + [0x01]),
            .writeRead(0x0D, [0x00], reply: littleEndian([1500, -3000, 0]) + [0x03]),  // OVL
        ])
        #expect(close(try magnetometer.readSample().field, [50, -100, 0]))
        #expect(try magnetometer.readSample().isSaturated)
        expectFinished(bus)
        let error = sensorError { () throws(SensorError) in _ = try magnetometer.selfTest() }
        #expect(error == .notSupported(chip: "QMC5883L", feature: "self-test"))
    }

    // MARK: HMC5883L (datasheet Table 2: CRA 0x00, CRB 0x01, mode 0x02, data X Z Y from 0x03, ID 0x0A)

    @Test func hmc5883lInitSampleAxisOrderAndOverflow() throws {
        let bus = ExpectationBus([
            .writeRead(0x1E, [0x0A], reply: [0x48, 0x34, 0x33]),  // "H43"
            .write(0x1E, [0x00, 0x78]),  // 8-sample average, 75 Hz, normal measurement
            .write(0x1E, [0x01, 0x20]),  // gain 1: ±1.3 gauss, 1090 LSB/gauss
            .write(0x1E, [0x02, 0x00]),  // continuous
        ])
        let magnetometer = HMC5883LMagnetometer(bus: bus, pause: .none)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        bus.expect([
            .writeRead(0x1E, [0x03], reply: bigEndian([1090, -545, 218])),  // X, Z, Y
            .writeRead(0x1E, [0x03], reply: bigEndian([-4096, 0, 0])),
        ])
        #expect(close(try magnetometer.readSample().field, [100, 20, -50]))
        #expect(try magnetometer.readSample().isSaturated)
        expectFinished(bus)
        #expect(HMC5883LMagnetometer.evaluateSelfTest(counts: [450, 450, 420]).passed)
        #expect(!HMC5883LMagnetometer.evaluateSelfTest(counts: [450, 0, 420]).passed)
    }

    /// HMC5883L Table 9: GN 0…7 → ±0.88…8.1 gauss at 1370…230 LSB/gauss (CRB bits 7:5).
    @Test(arguments: [
        (88.0, UInt8(0), 1370.0), (130, 1, 1090), (190, 2, 820), (250, 3, 660), (400, 4, 440), (470, 5, 390),
        (560, 6, 330), (810, 7, 230),
    ])
    func hmc5883lGains(range: Double, gain: UInt8, lsbPerGauss: Double) throws {
        let bus = ExpectationBus([
            .writeRead(0x1E, [0x0A], reply: [0x48, 0x34, 0x33]),
            .write(0x1E, [0x00, 0x70]),  // 8-sample average, 15 Hz
            .write(0x1E, [0x01, gain << 5]),
            .write(0x1E, [0x02, 0x00]),
        ])
        let magnetometer = HMC5883LMagnetometer(bus: bus, pause: .none)
        try magnetometer.configure(MagnetometerConfiguration(outputDataRate: 15, range: range))
        let half = Int16(lsbPerGauss / 2)
        bus.expect([.writeRead(0x1E, [0x03], reply: bigEndian([half, 0, -half]))])  // X, Z, Y
        let field = try magnetometer.readSample().field
        #expect(close(field, [Double(half) / lsbPerGauss * 100, -Double(half) / lsbPerGauss * 100, 0]))
        expectFinished(bus)
    }

    /// QMC5883L §9.2.3: RNG 00 = ±2 G (12000 LSB/G), 01 = ±8 G (3000 LSB/G); ODR 00 = 10 Hz.
    @Test(arguments: [(200.0, UInt8(0x01), Int16(12000)), (800, 0x11, 3000)])
    func qmc5883lRanges(range: Double, control1: UInt8, lsbPerGauss: Int16) throws {
        let bus = ExpectationBus([
            .writeRead(0x0D, [0x0D], reply: [0xFF]), .write(0x0D, [0x0A, 0x80]),
            .writeRead(0x0D, [0x0A], reply: [0x00]), .write(0x0D, [0x0B, 0x01]), .write(0x0D, [0x09, control1]),
        ])
        let magnetometer = QMC5883LMagnetometer(bus: bus, pause: .none)
        try magnetometer.configure(MagnetometerConfiguration(outputDataRate: 10, range: range))
        bus.expect([.writeRead(0x0D, [0x00], reply: littleEndian([0, lsbPerGauss / 2, -lsbPerGauss / 4]) + [0x01])])
        #expect(close(try magnetometer.readSample().field, [0, 50, -25]))
        expectFinished(bus)
    }

    // MARK: LIS2MDL (datasheet §8: WHO_AM_I 0x4F, CFG_REG_A/B/C 0x60…0x62, OUTX_L 0x68)

    @Test func lis2mdlInitAndSample() throws {
        let bus = ExpectationBus([
            .writeRead(0x1E, [0x4F], reply: [0x40]),
            .write(0x1E, [0x60, 0x20]),  // SOFT_RST
            .writeRead(0x1E, [0x60], reply: [0x03]),
            .write(0x1E, [0x60, 0x88]),  // COMP_TEMP_EN, 50 Hz, continuous
            .write(0x1E, [0x61, 0x02]),  // OFF_CANC
            .write(0x1E, [0x62, 0x10]),  // BDU
        ])
        let magnetometer = LIS2MDLMagnetometer(bus: bus, pause: .none)
        try magnetometer.configure(MagnetometerConfiguration(outputDataRate: 50, range: 4915.2))
        // 1.5 mgauss/LSB = 0.15 µT/LSB.
        bus.expect([.writeRead(0x1E, [0x68], reply: littleEndian([1000, -200, 0]))])
        #expect(close(try magnetometer.readSample().field, [150, -30, 0]))
        expectFinished(bus)
        #expect(LIS2MDLMagnetometer.evaluateSelfTest(counts: [100, 100, 100]).passed)
        #expect(!LIS2MDLMagnetometer.evaluateSelfTest(counts: [100, 100, 5]).passed)
    }
}

@Suite struct ChipCatalogTests {
    /// Every chip at every usual address, from its datasheet identity register.
    @Test(arguments: [
        (UInt8(0x69), UInt8(0x75), [UInt8(0x70)], "MPU-6500"),
        (0x68, 0x75, [0x71], "MPU-9250"), (0x6A, 0x0F, [0x69], "LSM6DS3"),
        (0x6B, 0x0F, [0x6A], "LSM6DS3TR-C/LSM6DSL/LSM6DSM"), (0x6A, 0x0F, [0x6C], "LSM6DSO/LSM6DSOX"),
        (0x6A, 0x0F, [0x70], "LSM6DSV16X/LSM6DSV"), (0x6B, 0x0F, [0x70], "LSM6DSV16X/LSM6DSV"),
        (0x1C, 0x0F, [0x3D], "LIS3MDL"), (0x1E, 0x0F, [0x3D], "LIS3MDL"), (0x0D, 0x0D, [0xFF], "QMC5883L"),
        // 0x0C: WIA(1) and the next register in one read; WIA2 0x09 is an AK09916.
        (0x0C, 0x00, [0x48, 0x00], "AK8963"), (0x0C, 0x00, [0x48, 0x09], "AK09916"),
    ])
    func identifiesChip(address: UInt8, register: UInt8, identity: [UInt8], name: String) throws {
        let bus = ExpectationBus([.writeRead(address, [register], reply: identity)])
        let chip = try ChipCatalog.identify(bus: bus, address: I2CAddress(address))
        #expect(chip?.name == name)
        #expect(chip?.address == I2CAddress(address))
        expectFinished(bus)
    }

    @Test func lsm6dso32WhenTheCallerSaysSo() throws {
        let bus = ExpectationBus([.writeRead(0x6B, [0x0F], reply: [0x6C])])
        let chip = try ChipCatalog.identify(bus: bus, address: I2CAddress(0x6B), lsm6dso32: true)
        #expect(chip?.name == "LSM6DSO32")
        #expect(chip.flatMap { ChipCatalog.makeIMU(for: $0, bus: bus) }?.chip.name == "LSM6DSO32")
    }

    @Test func sharedAddress0x1E() throws {
        let lis2mdl = ExpectationBus([
            .writeRead(0x1E, [0x0F], reply: [0x00]), .writeRead(0x1E, [0x4F], reply: [0x40]),
        ])
        #expect(try ChipCatalog.identify(bus: lis2mdl, address: I2CAddress(0x1E))?.name == "LIS2MDL")
        let hmc = ExpectationBus([
            .writeRead(0x1E, [0x0F], reply: [0x00]), .writeRead(0x1E, [0x4F], reply: [0x00]),
            .writeRead(0x1E, [0x0A], reply: [0x48, 0x34, 0x33]),
        ])
        let chip = try ChipCatalog.identify(bus: hmc, address: I2CAddress(0x1E))
        #expect(chip?.name == "HMC5883L")
        #expect(chip.flatMap { ChipCatalog.makeMagnetometer(for: $0, bus: hmc) } is HMC5883LMagnetometer)
        expectFinished(lis2mdl)
        expectFinished(hmc)
    }

    @Test func unknownDeviceAndEmptyAddress() throws {
        // At 0x68 every identity register is read: MPU WHO_AM_I (0x75), the ICM-45686's WHO_AM_I
        // (0x72), then 0x00 (the BMI160's CHIP_ID and the ICM-20948's WHO_AM_I).
        let unknown = ExpectationBus([
            .writeRead(0x68, [0x75], reply: [0x12]), .writeRead(0x68, [0x72], reply: [0x12]), .writeRead(0x68, [0x00], reply: [0x12]),
        ])
        #expect(try ChipCatalog.identify(bus: unknown, address: I2CAddress(0x68)) == nil)
        let empty = ExpectationBus([.writeRead(0x6A, [0x0F], reply: [0]).failing(.noAcknowledge)])
        #expect(try ChipCatalog.identify(bus: empty, address: I2CAddress(0x6A)) == nil)
        #expect(try ChipCatalog.identify(bus: ExpectationBus([]), address: I2CAddress(0x50)) == nil)
        expectFinished(unknown)
        expectFinished(empty)
    }

    @Test func otherBusErrorsAreWrapped() {
        let bus = ExpectationBus([.writeRead(0x0C, [0x00], reply: [0, 0]).failing(.timeout)])
        let error = sensorError { () throws(SensorError) in _ = try ChipCatalog.identify(bus: bus, address: I2CAddress(0x0C)) }
        guard case .bus(let cause) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(cause.kind == .timeout)
    }

    @Test func factoriesMatchFamilies() {
        let bus = ExpectationBus([])
        let mpu = ChipInfo(name: "MPU-9250", family: .invenSense, address: I2CAddress(0x68), identity: [0x71])
        #expect(ChipCatalog.makeIMU(for: mpu, bus: bus) is InvenSenseIMU)
        #expect(ChipCatalog.makeMagnetometer(for: mpu, bus: bus) == nil)
        let ak = ChipInfo(name: "AK8963", family: .ak8963, address: I2CAddress(0x0C), identity: [0x48])
        #expect(ChipCatalog.makeMagnetometer(for: ak, bus: bus) is AKMagnetometer)
        #expect(ChipCatalog.makeIMU(for: ak, bus: bus) == nil)
    }
}

@Suite struct ProbeTests {
    /// An MPU-9250 + AK8963 board: after the IMU sets BYPASS_EN the magnetometer answers at 0x0C,
    /// and a probe finds both; empty addresses do not acknowledge.
    @Test func mpu9250BypassExposesAK8963() throws {
        let nak = { (address: UInt8, register: UInt8) in
            I2CExpectation.writeRead(address, [register], reply: [0]).failing(.noAcknowledge)
        }
        let bus = ExpectationBus([
            .writeRead(0x68, [0x75], reply: [0x71]), .write(0x68, [0x6B, 0x80]), .writeRead(0x68, [0x6B], reply: [0x01]),
            .write(0x68, [0x6B, 0x01]), .write(0x68, [0x19, 4]), .write(0x68, [0x1A, 2]), .write(0x68, [0x1B, 0x08]),
            .write(0x68, [0x1C, 0x08]), .write(0x68, [0x1D, 2]), .write(0x68, [0x37, 0x02]),
            // probe, in the order of the usual addresses
            .writeRead(0x0C, [0x00], reply: [0x48, 0x00]), nak(0x0D, 0x0D),
            // the BMM150's addresses: its identity preamble's write (the power bit), unanswered
            .write(0x10, [0x4B, 0x01]).failing(.noAcknowledge), .write(0x11, [0x4B, 0x01]).failing(.noAcknowledge),
            .write(0x12, [0x4B, 0x01]).failing(.noAcknowledge), .write(0x13, [0x4B, 0x01]).failing(.noAcknowledge),
            nak(0x1C, 0x0F), nak(0x1D, 0x00), nak(0x1E, 0x0F),
            nak(0x28, 0x00), nak(0x29, 0x00), nak(0x30, 0x2F),
            // The BNO08x's addresses: a plain read of an SHTP header first.
            I2CExpectation.read(0x4A, reply: [0, 0, 0, 0]).failing(.noAcknowledge), I2CExpectation.read(0x4B, reply: [0, 0, 0, 0]).failing(.noAcknowledge),
            nak(0x53, 0x00), nak(0x5C, 0x0F), nak(0x5D, 0x0F),
            .writeRead(0x68, [0x75], reply: [0x71]), nak(0x69, 0x75), nak(0x6A, 0x0F), nak(0x6B, 0x0F),
            nak(0x76, 0xD0), nak(0x77, 0xD0),
        ])
        let imu = InvenSenseIMU(bus: bus, model: .mpu9250, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        let chips = try ChipCatalog.probe(bus: bus)
        #expect(chips.map(\.name) == ["AK8963", "MPU-9250"])
        #expect(chips.map(\.address) == [I2CAddress(0x0C), I2CAddress(0x68)])
        expectFinished(bus)
    }
}
