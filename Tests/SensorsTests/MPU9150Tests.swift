import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// AK8975 registers (datasheet register map; drivers/iio/magnetometer/ak8975.c), written here
/// independently of the driver: WIA 0x00, ST1 0x02, HXL 0x03, ST2 0x09, CNTL 0x0A, ASTC 0x0C, ASAX 0x10.
private enum AK {
    static let wia: UInt8 = 0x00, st1: UInt8 = 0x02, cntl: UInt8 = 0x0A, astc: UInt8 = 0x0C, asax: UInt8 = 0x10
    static let powerDown: UInt8 = 0x00, single: UInt8 = 0x01, selfTest: UInt8 = 0x08, fuseROM: UInt8 = 0x0F
}

/// ST1, HX…HZ little-endian, ST2 as one burst reply.
private func burst(ready: Bool, _ counts: [Int16], st2: UInt8 = 0) -> [UInt8] {
    [ready ? 0x01 : 0x00] + littleEndian(counts) + [st2]
}

/// Identity, fuse ROM, power-down, a first single measurement read once ready, the next triggered.
private func ak8975Init(asa: [UInt8], first: [Int16]) -> [I2CExpectation] {
    [
        .writeRead(0x0C, [AK.wia], reply: [0x48]),
        .write(0x0C, [AK.cntl, AK.fuseROM]),
        .writeRead(0x0C, [AK.asax], reply: asa),
        .write(0x0C, [AK.cntl, AK.powerDown]),
        .write(0x0C, [AK.cntl, AK.single]),
        .writeRead(0x0C, [AK.st1], reply: [0x00]),  // converting
        .writeRead(0x0C, [AK.st1], reply: [0x01]),  // DRDY
        .writeRead(0x0C, [AK.st1], reply: burst(ready: true, first)),
        .write(0x0C, [AK.cntl, AK.single]),  // the next measurement
    ]
}

@Suite struct MPU9150Tests {
    // MARK: AK8975 on an expectation bus

    /// 0.3 µT/LSB × ((ASA − 128) · 0.5 / 128 + 1): x × 1, y × 1.25, z × 0.5. Each sample: one
    /// read of ST1 … ST2, then one write triggering the next measurement; a read that finds no
    /// finished measurement returns the previous sample and triggers nothing.
    @Test func ak8975InitAndSamples() throws {
        let bus = ExpectationBus(ak8975Init(asa: [128, 192, 0], first: [10, 20, 30]))
        let magnetometer = AKMagnetometer(bus: bus, model: .ak8975, pause: .none)
        #expect(magnetometer.chip.name == "AK8975" && magnetometer.chip.family == .ak8975)
        #expect(magnetometer.defaultConfiguration == MagnetometerConfiguration(outputDataRate: 100, range: 1229))
        try magnetometer.configure(magnetometer.defaultConfiguration)
        bus.expect([
            .writeRead(0x0C, [AK.st1], reply: burst(ready: true, [1000, 1000, -1000])),
            .write(0x0C, [AK.cntl, AK.single]),
            .writeRead(0x0C, [AK.st1], reply: burst(ready: false, [0, 0, 0])),  // not finished yet
            .writeRead(0x0C, [AK.st1], reply: burst(ready: true, [4095, 0, 0], st2: 0x08)),  // HOFL
            .write(0x0C, [AK.cntl, AK.single]),
        ])
        let sample = try magnetometer.readSample()
        #expect(close(sample.field, [300, 375, -150]))
        #expect(!sample.isSaturated)
        #expect(try magnetometer.readSample() == sample)
        #expect(try magnetometer.readSample().isSaturated)
        expectFinished(bus)
    }

    /// Still configured while a measurement runs (CNTL = single) or waits (DRDY); after a reset
    /// neither.
    @Test func ak8975IsStillConfigured() throws {
        let bus = ExpectationBus(ak8975Init(asa: [128, 128, 128], first: [0, 0, 0]))
        let magnetometer = AKMagnetometer(bus: bus, model: .ak8975, pause: .none)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        bus.expect([
            .writeRead(0x0C, [AK.cntl], reply: [AK.single]),
            .writeRead(0x0C, [AK.cntl], reply: [AK.powerDown]), .writeRead(0x0C, [AK.st1], reply: [0x01]),
            .writeRead(0x0C, [AK.cntl], reply: [AK.powerDown]), .writeRead(0x0C, [AK.st1], reply: [0x00]),
        ])
        #expect(try magnetometer.isStillConfigured())
        #expect(try magnetometer.isStillConfigured())
        #expect(try !magnetometer.isStillConfigured())
        expectFinished(bus)
    }

    /// Datasheet self-test: power-down, ASTC SELF, self-test mode, wait for DRDY, read, ASTC off,
    /// power-down, then the configuration again. Limits HX, HY −100…100, HZ −1000…−300.
    @Test func ak8975SelfTestProcedureAndLimits() throws {
        let initList = ak8975Init(asa: [128, 128, 128], first: [0, 0, 0])
        let bus = ExpectationBus(initList)
        let magnetometer = AKMagnetometer(bus: bus, model: .ak8975, pause: .none)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        bus.expect([
            .write(0x0C, [AK.cntl, AK.powerDown]),
            .write(0x0C, [AK.astc, 0x40]),
            .write(0x0C, [AK.cntl, AK.selfTest]),
            .writeRead(0x0C, [AK.st1], reply: [0x01]),
            .writeRead(0x0C, [AK.st1], reply: burst(ready: true, [20, -30, -500])),
            .write(0x0C, [AK.astc, 0x00]),
            .write(0x0C, [AK.cntl, AK.powerDown]),
        ] + initList)
        #expect(try magnetometer.selfTest().passed)
        expectFinished(bus)
        #expect(AKMagnetometer.evaluateSelfTest(model: .ak8975, counts: [100, -100, -300]).passed)
        #expect(!AKMagnetometer.evaluateSelfTest(model: .ak8975, counts: [101, 0, -500]).passed)
        #expect(!AKMagnetometer.evaluateSelfTest(model: .ak8975, counts: [0, 0, -299]).passed)
        #expect(!AKMagnetometer.evaluateSelfTest(model: .ak8975, counts: [0, 0, -1001]).passed)
    }

    // MARK: MPU-9150 or MPU-6050 (WHO_AM_I 0x68 both)

    /// WIA at 0x0C: the AK's 0x48, or no acknowledge.
    private func wia(_ answers: Bool) -> I2CExpectation {
        answers ? .writeRead(0x0C, [AK.wia], reply: [0x48]) : .writeRead(0x0C, [AK.wia], reply: [0]).failing(.noAcknowledge)
    }

    /// WHO_AM_I 0x68, INT_PIN_CFG read, 0x0C asked as things are, BYPASS_EN flipped (other bits
    /// kept), 0x0C asked again.
    private func bypassProbe(_ address: UInt8, pinConfig: UInt8, before: Bool, after: Bool) -> [I2CExpectation] {
        [
            .writeRead(address, [0x75], reply: [0x68]),
            .writeRead(address, [0x37], reply: [pinConfig]),
            wia(before),
            .write(address, [0x37, pinConfig ^ 0x02]),
            wia(after),
        ]
    }

    /// Bypass off, nothing at 0x0C; with it on an AK answers: an MPU-9150, the bypass left on.
    @Test(arguments: [UInt8(0x68), 0x69])
    func anAK8975BehindTheBypassMakesAnMPU9150(address: UInt8) throws {
        let bus = ExpectationBus(bypassProbe(address, pinConfig: 0x10, before: false, after: true))
        let chip = try #require(try ChipCatalog.identify(bus: bus, address: I2CAddress(address)))
        #expect(chip.name == "MPU-9150" && chip.family == .invenSense && chip.identity == [0x68] && chip.address == I2CAddress(address))
        expectFinished(bus)
        #expect(ChipCatalog.makeIMU(for: chip, bus: bus)?.chip.name == "MPU-9150")
        #expect(ChipCatalog.builtInMagnetometer(inside: chip.name)?.name == "AK8975")
    }

    /// Identified again once its driver set the bypass: the AK answers, and stops answering when
    /// the bypass is cleared; the bypass is set again.
    @Test func anMPU9150WithItsBypassAlreadyOnIsAnMPU9150() throws {
        let bus = ExpectationBus(bypassProbe(0x68, pinConfig: 0x02, before: true, after: false) + [.write(0x68, [0x37, 0x02])])
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x68))?.name == "MPU-9150")
        expectFinished(bus)
    }

    /// A plain MPU-6050: INT_PIN_CFG gets its value back.
    @Test func noAKBehindTheBypassIsAnMPU6050AndTheBypassIsRestored() throws {
        let bus = ExpectationBus(bypassProbe(0x68, pinConfig: 0x10, before: false, after: false) + [.write(0x68, [0x37, 0x10])])
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x68))?.name == "MPU-6050")
        expectFinished(bus)
    }

    /// A magnetometer answering at 0x0C whether or not the bypass is on is a separate chip: an
    /// MPU-6050. With the bypass off nothing is written at all.
    @Test func aSeparateDeviceAt0x0CLeavesAnMPU6050() throws {
        let off = ExpectationBus([.writeRead(0x68, [0x75], reply: [0x68]), .writeRead(0x68, [0x37], reply: [0x00]), wia(true)])
        #expect(try ChipCatalog.identify(bus: off, address: I2CAddress(0x68))?.name == "MPU-6050")
        expectFinished(off)
        let on = ExpectationBus(bypassProbe(0x68, pinConfig: 0x02, before: true, after: true) + [.write(0x68, [0x37, 0x02])])
        #expect(try ChipCatalog.identify(bus: on, address: I2CAddress(0x68))?.name == "MPU-6050")
        expectFinished(on)
    }

    /// Inside an MPU-9150 the AK at 0x0C (WIA 0x48, like an AK8963) is an AK8975.
    @Test func theAKInsideAnMPU9150IsAnAK8975() throws {
        let bus = ExpectationBus([.writeRead(0x0C, [AK.wia], reply: [0x48]), .writeRead(0x0C, [AK.wia], reply: [0x48, 0x00])])
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x0C), insidePackageOf: "MPU-9150")?.name == "AK8975")
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x0C))?.name == "AK8963")
        expectFinished(bus)
    }

    // MARK: On the emulators

    /// Probe of a simulated MPU-9150 and MPU-6050 board: the MPU-9150 is named, its AK8975 left
    /// reachable; the MPU-6050 with its QMC5883L stays an MPU-6050 with the bypass off.
    @Test func probeTellsMPU9150FromMPU6050OnTheEmulators() throws {
        let nine = SimulatedBoard(imu: .mpu9150, source: ConstantSource(), now: { 1 })
        #expect(try ChipCatalog.probe(bus: nine.bus).map(\.name) == ["MPU-9150"])
        #expect(try ChipCatalog.identify(bus: nine.bus, address: I2CAddress(0x0C), insidePackageOf: "MPU-9150")?.name == "AK8975")
        let six = SimulatedBoard(imu: .mpu6050, magnetometer: .none, source: ConstantSource(), now: { 1 })
        #expect(try ChipCatalog.probe(bus: six.bus).map(\.name) == ["MPU-6050"])
        #expect(six.imu.peek(0x37) & 0x02 == 0)
    }

    /// A known field through the MPU-9150's AK8975 comes back within one LSB (0.3 µT), in the
    /// die's own axes: its x along the package's y, its y along x, its z opposite.
    @Test func ak8975ReadsBackAKnownFieldWithinOneLSB() throws {
        let field = SIMD3(123.4, -56.7, 301.2)
        let time = ManualTime(1)
        var state = PhysicalState.flatAtRest()
        state.magneticField = field
        let rig = try EmulatedRig(imu: .mpu9150, magnetometer: .none, source: ConstantSource(state), time: time)
        let magnetometer = try #require(rig.magnetometer)
        #expect(magnetometer.chip.name == "AK8975")
        time.set(1.01)
        let error = largestDifference(try magnetometer.readSample().field, SIMD3(field.y, field.x, -field.z))
        #expect(error <= 0.3 * 1.001, "\(error / 0.3) LSB")
        #expect(try magnetometer.isStillConfigured())
    }

    /// Self-test on the emulator: healthy passes, a dead z axis (expected −1000…−300) fails.
    @Test func ak8975SelfTestPassesWhenHealthyAndFailsWithADeadAxis() throws {
        for dead in [false, true] {
            let time = ManualTime(1)
            let rig = try EmulatedRig(
                imu: .mpu9150, magnetometer: .none, source: ConstantSource(), time: time,
                imuOptions: EmulatorOptions(deadAxes: dead ? [.magnetometer(.z)] : []), pausesAdvanceTime: true)
            let report = try #require(rig.magnetometer).selfTest()
            #expect(report.chip == "AK8975")
            #expect(report.passed == !dead, "dead axis \(dead): \(report)")
        }
    }
}
