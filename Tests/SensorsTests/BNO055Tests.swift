import Fusion
import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// Register addresses and values from the BNO055 datasheet BST-BNO055-DS000 §4.2–4.3, written
/// here independently of the driver.
private enum BNO {
    static let chipID: UInt8 = 0x00, pageID: UInt8 = 0x07, accData: UInt8 = 0x08, magData: UInt8 = 0x0E
    static let stResult: UInt8 = 0x36, sysStatus: UInt8 = 0x39, unitSel: UInt8 = 0x3B, gyrData: UInt8 = 0x14
    /// UNIT_SEL GYR_Unit (bit 1): 0 °/s, 1 rad/s (§3.6.1 Table 3-11, §4.3.60).
    static let gyrUnitRadians: UInt8 = 0x02
    static let oprMode: UInt8 = 0x3D, pwrMode: UInt8 = 0x3E, sysTrigger: UInt8 = 0x3F
    static let config: UInt8 = 0x00, ndof: UInt8 = 0x0C
}

/// The init sequence at `address`: identify, CONFIG, RST_SYS, CHIP_ID polled (one poll not
/// acknowledged while the chip boots), page 0, normal power, UNIT_SEL 0, internal clock, NDOF.
private func bno055Init(address: UInt8 = 0x28) -> [I2CExpectation] {
    [
        .writeRead(address, [BNO.chipID], reply: [0xA0]),
        .write(address, [BNO.oprMode, BNO.config]),
        .write(address, [BNO.sysTrigger, 0x20]),
        .writeRead(address, [BNO.chipID], reply: [0]).failing(.noAcknowledge),
        .writeRead(address, [BNO.chipID], reply: [0xA0]),
        .write(address, [BNO.pageID, 0]),
        .write(address, [BNO.pwrMode, 0]),
        .write(address, [BNO.unitSel, 0]),
        .write(address, [BNO.sysTrigger, 0]),
        .write(address, [BNO.oprMode, BNO.ndof]),
    ]
}

/// A 32-byte data block 0x08–0x27: accelerometer, magnetometer, gyroscope, Euler, quaternion.
private func block(acc: [Int16], mag: [Int16], gyr: [Int16], euler: [Int16] = [0, 0, 0], quaternion: [Int16]) -> [UInt8] {
    littleEndian(acc + mag + gyr + euler + quaternion)
}

@Suite struct BNO055Tests {
    @Test func defaultInitAndOneSample() throws {
        let bus = ExpectationBus(bno055Init())
        let imu = BNO055IMU(bus: bus, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        // 1 m/s² = 100 LSB: z 981 = 9.81 m/s² face up; 1 °/s = 16 LSB: x 160 = 10 °/s; 1 µT = 16 LSB:
        // x 320 = 20 µT, z −704 = −44 µT; quaternion 2^14 = 1: w 11585, z 11585 = 90° about z.
        bus.expect([.writeRead(0x28, [BNO.accData], reply: block(
            acc: [0, 0, 981], mag: [320, 0, -704], gyr: [160, 0, -160], quaternion: [11585, 0, 0, 11585]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -9.81 / 9.80665], tolerance: 1e-12))
        #expect(close(sample.rotationRate, [10 * degree, 0, -10 * degree], tolerance: 1e-12))
        #expect(sample.raw?.accelerometer == SIMD3(0, 0, 981) && sample.raw?.gyroscope == SIMD3(160, 0, -160))
        #expect(sample.chipOrientation == ChipOrientation(wxyz: SIMD4(11585, 0, 0, 11585) / 16384))
        #expect(!sample.isSaturated)
        // The magnetometer hands on the burst's field without a bus access …
        let magnetometer = try #require(imu.companionMagnetometer)
        let field = try magnetometer.readSample()
        #expect(close(field.field, [20, 0, -44]))
        #expect(field.raw?.counts == SIMD3(320, 0, -704))
        expectFinished(bus)
        // … once; the next read goes to MAG_DATA.
        bus.expect([.writeRead(0x28, [BNO.magData], reply: littleEndian([16, -16, 32]))])
        #expect(close(try magnetometer.readSample().field, [1, -1, 2]))
        expectFinished(bus)
    }

    @Test func fixedFusionSettingsListWhatIsSupported() {
        let imu = BNO055IMU(bus: ExpectationBus([]), pause: .none)
        let rate = sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 200, gyroscopeRange: 2000)) }
        #expect(rate?.description == "output data rate 200 Hz is not supported by BNO055; supported: 100 Hz")
        let range = sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 100, accelerometerRange: 8, gyroscopeRange: 2000)) }
        #expect(range?.description == "accelerometer range 8 g is not supported by BNO055; supported: 4 g")
        let gyro = sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 100, gyroscopeRange: 500)) }
        #expect(gyro?.description == "gyroscope range 500 °/s is not supported by BNO055; supported: 2000 °/s")
        let magnetometer = BNO055IMU(bus: ExpectationBus([]), pause: .none).magnetometer
        let mag = sensorError { () throws(SensorError) in try magnetometer.configure(MagnetometerConfiguration(outputDataRate: 10, range: 1300)) }
        #expect(mag?.description == "output data rate 10 Hz is not supported by BNO055 magnetometer; supported: 20 Hz")
    }

    @Test func resetWaitIsBoundedAndWrongIdentityKeepsItsCause() {
        var list = Array(bno055Init().prefix(3))
        list += Array(repeating: .writeRead(0x28, [BNO.chipID], reply: [0]).failing(.noAcknowledge), count: 10)
        let bus = ExpectationBus(list)
        let error = sensorError { () throws(SensorError) in try BNO055IMU(bus: bus, pause: .none).configure(IMUConfiguration(outputDataRate: 100, gyroscopeRange: 2000)) }
        guard case .resetTimeout("BNO055", I2CAddress(0x28), 10) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        expectFinished(bus)
        let wrong = ExpectationBus([.writeRead(0x29, [BNO.chipID], reply: [0xFF])])
        let identity = sensorError { () throws(SensorError) in
            try BNO055IMU(bus: wrong, address: I2CAddress(0x29), pause: .none).configure(IMUConfiguration(outputDataRate: 100, gyroscopeRange: 2000))
        }
        guard case .unexpectedIdentity(_, I2CAddress(0x29), 0x00, [0xA0], [0xFF]) = identity else {
            Issue.record("got \(String(describing: identity))")
            return
        }
        expectFinished(wrong)
    }

    @Test func noFIFO() {
        let imu = BNO055IMU(bus: ExpectationBus([]), pause: .none)
        #expect(!imu.hasFIFO)
        guard case .notSupported("BNO055", "FIFO") = sensorError({ () throws(SensorError) in try imu.enableFIFO() }),
              case .notSupported("BNO055", "FIFO") = sensorError({ () throws(SensorError) in _ = try imu.readFIFO() }) else {
            Issue.record("FIFO calls must throw notSupported")
            return
        }
    }

    @Test func detectsSelfResetChip() throws {
        let bus = ExpectationBus(bno055Init())
        let imu = BNO055IMU(bus: bus, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        bus.expect([.writeRead(0x28, [BNO.oprMode], reply: [BNO.ndof]), .writeRead(0x28, [BNO.oprMode], reply: [BNO.config])])
        #expect(try imu.isStillConfigured())
        #expect(try !imu.isStillConfigured())
        expectFinished(bus)
    }

    /// CONFIG, SYS_TRIGGER Self_Test, SYS_STATUS polled while it reads 4, ST_RESULT, then the
    /// configuration again.
    @Test(arguments: [(UInt8(0x0F), true, 4), (0x0B, false, 3)])
    func selfTestReadsSTResult(result: UInt8, passes: Bool, passedParts: Int) throws {
        let bus = ExpectationBus(bno055Init())
        let imu = BNO055IMU(bus: bus, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        bus.expect([
            .write(0x28, [BNO.oprMode, BNO.config]),
            .write(0x28, [BNO.sysTrigger, 0x01]),
            .writeRead(0x28, [BNO.sysStatus], reply: [4]),
            .writeRead(0x28, [BNO.sysStatus], reply: [0]),
            .writeRead(0x28, [BNO.stResult], reply: [result]),
        ] + bno055Init())
        let report = try imu.selfTest()
        #expect(report.passed == passes)
        #expect(report.axes.map(\.name) == ["accelerometer (built-in test)", "magnetometer (built-in test)",
                                             "gyroscope (built-in test)", "microcontroller (built-in test)"])
        #expect(report.axes.filter(\.passed).count == passedParts)
        expectFinished(bus)
    }

    // MARK: Against the emulator

    /// The gyroscope's two scales in Table 3-22 (1 °/s = 16 LSB, 1 rad/s = 900 LSB: 1.8 % apart as
    /// scales) each belong to a UNIT_SEL GYR_Unit setting (the evidence: ``BNO055Settings``'s
    /// `lsb`). The driver leaves GYR_Unit at °/s and reads 16 LSB per °/s; the same rate with
    /// GYR_Unit at rad/s, as the kernel's bno055.c sets it, is 900 LSB per rad/s; 900 applied to
    /// the °/s counts would read 1.8 % low.
    @Test func gyroscopeScaleGoesWithTheUnitSelected() throws {
        let rate = SIMD3(0.5, -1.25, 2.0)  // rad/s: 1.8 % of it is 8 to 33 LSB
        let state = PhysicalState(time: 0, specificForce: SIMD3(0, 0, 9.80665), angularRate: rate, magneticField: SIMD3(20, 0, -40))
        let rig = try EmulatedRig(imu: .bno055, source: ConstantSource(state), time: ManualTime(1))
        let bus = rig.board.bus, address = rig.board.imuAddress
        func counts() throws -> SIMD3<Double> {
            let bytes = try bus.readRegisters(address, BNO.gyrData, count: 6)
            return SIMD3((0..<3).map { (axis: Int) -> Double in Double(Int16(bitPattern: UInt16(bytes[2 * axis]) | UInt16(bytes[2 * axis + 1]) << 8)) })
        }
        #expect(try bus.readRegister(address, BNO.unitSel) & BNO.gyrUnitRadians == 0, "the driver's GYR_Unit: °/s")
        #expect(close(try rig.imu.readSample().rotationRate, rate, tolerance: degree / 16))
        let degreeCounts = try counts()
        #expect(close(degreeCounts / 16 * degree, rate, tolerance: degree / 16))
        #expect(!close(degreeCounts / 900, rate, tolerance: 0.01), "900 LSB per rad/s does not fit the °/s counts")

        try bus.writeRegister(address, BNO.oprMode, BNO.config)  // UNIT_SEL is written in CONFIG mode
        try bus.writeRegister(address, BNO.unitSel, BNO.gyrUnitRadians)
        try bus.writeRegister(address, BNO.oprMode, BNO.ndof)
        let radianCounts = try counts()
        #expect(close(radianCounts / 900, rate, tolerance: 1.0 / 900))
        #expect(close(degreeCounts / radianCounts, SIMD3(repeating: 16 / degree / 900), tolerance: 0.002), "16 LSB/(°/s) ÷ 900 LSB/(rad/s) = 1.0186")
    }

    /// Every value the emulator encodes comes back within one LSB (NDOF: the one configuration).
    @Test func emulatorRoundTripWithinOneLSB() throws {
        let time = ManualTime(1)
        let state = PhysicalState(time: 0, specificForce: SIMD3(1.5, -2.25, 9.1), angularRate: SIMD3(0.3, -1.2, 2.5),
                                  magneticField: SIMD3(20.7, -5.3, -44.4))
        let rig = try EmulatedRig(imu: .bno055, source: ConstantSource(state), time: time)
        #expect(rig.imu.chip.name == "BNO055" && rig.imu.chip.family == .bno055 && rig.magnetometer == nil)
        let sample = try rig.imu.readSample()
        #expect(close(specificForce(sample), state.specificForce, tolerance: 0.01))  // 1 LSB = 0.01 m/s²
        #expect(close(sample.rotationRate, state.angularRate, tolerance: degree / 16))  // 1 LSB = 1/16 °/s
        let magnetometer = try #require(rig.imu.companionMagnetometer)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        #expect(close(try magnetometer.readSample().field, state.magneticField, tolerance: 1.0 / 16))  // 1 LSB = 1/16 µT
    }

    /// The chip's quaternion, without a known truth: from the specific force and field. Flat,
    /// x toward magnetic north: chip → ENU is 90° about up.
    @Test func chipOrientationFlatFacingNorth() throws {
        let rig = try EmulatedRig(imu: .bno055, source: ConstantSource(.flatAtRest()), time: ManualTime(1))
        let q = try #require(try rig.imu.readSample().chipOrientation)
        let expected = Quaternion.aboutZ(.pi / 2)
        #expect(Quaternion(w: q.wxyz[0], x: q.wxyz[1], y: q.wxyz[2], z: q.wxyz[3]).normalized.angle(to: expected) < 5e-4)  // 2^-14 per component
    }

    /// With a known true orientation the quaternion registers carry it.
    @Test func chipOrientationFollowsTheTruth() throws {
        let truth = Quaternion(roll: 0.3, pitch: -0.2, yaw: 1.1)
        var state = PhysicalState.flatAtRest()
        state.orientation = truth
        let rig = try EmulatedRig(imu: .bno055, source: ConstantSource(state), time: ManualTime(1))
        let q = try #require(try rig.imu.readSample().chipOrientation)
        #expect(Quaternion(w: q.wxyz[0], x: q.wxyz[1], y: q.wxyz[2], z: q.wxyz[3]).normalized.angle(to: truth) < 5e-4)
    }

    @Test func oneTransactionPerSample() throws {
        let rig = try EmulatedRig(imu: .bno055, source: ConstantSource(), time: ManualTime(1))
        rig.board.bus.clearLog()
        for _ in 0..<5 { _ = try rig.imu.readSample() }
        #expect(rig.board.bus.log.map(\.operations) == Array(repeating: [.write([0x08]), .read(count: 32)], count: 5))
    }

    @Test func selfTestPassesHealthyAndFailsWithADeadSensor() throws {
        let healthy = try EmulatedRig(imu: .bno055, source: ConstantSource(), time: ManualTime(1))
        let report = try healthy.imu.selfTest()
        #expect(report.passed && report.axes.count == 4)
        #expect(try healthy.imu.isStillConfigured(), "the configuration is restored")
        for dead in [SensorAxis.gyroscope(.y), .accelerometer(.z), .magnetometer(.x)] {
            let rig = try EmulatedRig(imu: .bno055, source: ConstantSource(), time: ManualTime(1), imuOptions: EmulatorOptions(deadAxes: [dead]))
            let failed = try rig.imu.selfTest()
            #expect(!failed.passed)
            #expect(failed.axes.filter { !$0.passed }.count == 1)
        }
    }

    /// At 0x28 and 0x29 the catalog reads CHIP_ID only, and the probe lists the chip.
    @Test(arguments: [UInt8(0x28), 0x29])
    func probeFindsItAtBothAddresses(address: UInt8) throws {
        let board = SimulatedBoard(imu: .bno055, imuAddress: I2CAddress(address), source: ConstantSource(), now: { 0 })
        board.bus.clearLog()
        let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: I2CAddress(address)))
        #expect(chip == ChipInfo(name: "BNO055", family: .bno055, address: I2CAddress(address), identity: [0xA0]))
        #expect(board.bus.log.map(\.operations) == [[.write([0x00]), .read(count: 1)]])
        #expect(try ChipCatalog.probe(bus: board.bus).map(\.name) == ["BNO055"])
        #expect(ChipCatalog.makeIMU(for: chip, bus: board.bus, pause: .none) is BNO055IMU)
    }
}
