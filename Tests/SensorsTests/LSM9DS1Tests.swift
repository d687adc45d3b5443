import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// Registers from the LSM9DS1 datasheet (DocID025715 §6–7), written here independently of the driver.
private enum Reg {
    static let whoAmI: UInt8 = 0x0F, ctrlReg1G: UInt8 = 0x10, outTempL: UInt8 = 0x15, outXLG: UInt8 = 0x18
    static let ctrlReg6XL: UInt8 = 0x20, ctrlReg8: UInt8 = 0x22, ctrlReg9: UInt8 = 0x23, outXLXL: UInt8 = 0x28
    static let fifoCtrl: UInt8 = 0x2E, fifoSrc: UInt8 = 0x2F
}

/// Identify (0x68), SW_RESET in CTRL_REG8 polled until clear, BDU | IF_ADD_INC, CTRL_REG6_XL, CTRL_REG1_G.
private func initSequence(address: UInt8 = 0x6A, ctrlReg6XL: UInt8, ctrlReg1G: UInt8) -> [I2CExpectation] {
    stInitSequence(address: address, identity: (Reg.whoAmI, 0x68), control: Reg.ctrlReg8, then: [(Reg.ctrlReg6XL, ctrlReg6XL), (Reg.ctrlReg1G, ctrlReg1G)])
}

/// The 25 bytes OUT_TEMP_L (0x15) … OUT_Z_H_XL (0x2D): temperature, STATUS_REG, gyroscope,
/// ten control/status bytes (0x1E…0x27), accelerometer.
private func burst(temperature: Int16, gyroscope: [Int16], accelerometer: [Int16]) -> [UInt8] {
    littleEndian([temperature]) + [0x07] + littleEndian(gyroscope) + [UInt8](repeating: 0xA5, count: 10) + littleEndian(accelerometer)
}

@Suite struct LSM9DS1Tests {
    /// Default: 119 Hz = ODR 011 in bits 7:5 of both; ±4 g = FS_XL 10, ±500 °/s = FS_G 01 in bits 4:3.
    @Test func initAndOneSample() throws {
        let (bus, imu) = try configured(initSequence(ctrlReg6XL: 0x70, ctrlReg1G: 0x68)) { LSM9DS1IMU(bus: $0, pause: .none) }
        // ±4 g: 0.122 mg/LSB → 8197 LSB ≈ 1 g; ±500 °/s: 17.5 mdps/LSB → 2000 LSB = 35 °/s;
        // temperature 16 LSB/°C, 0 at 25 °C: 32 → 27 °C.
        bus.expect([.writeRead(0x6A, [Reg.outTempL], reply: burst(temperature: 32, gyroscope: [2000, 0, -2000], accelerometer: [0, 0, 8197]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -8197 * 0.122e-3], tolerance: 1e-12))
        #expect(close(sample.rotationRate, [35 * degree, 0, -35 * degree], tolerance: 1e-9))
        #expect(sample.temperature == 27)
        #expect(sample.raw?.accelerometer == [0, 0, 8197])
        expectFinished(bus)
    }

    /// FS_XL codes and mg/LSB from Table 3 (±16 g is 0.732, not the LSM6's 0.488).
    @Test(arguments: [(2.0, UInt8(0b00), 0.061), (4, 0b10, 0.122), (8, 0b11, 0.244), (16, 0b01, 0.732)])
    func accelerometerRanges(range: Double, code: UInt8, milliGPerLSB: Double) throws {
        let bus = ExpectationBus(initSequence(ctrlReg6XL: 0x80 | code << 3, ctrlReg1G: 0x88))
        let imu = LSM9DS1IMU(bus: bus, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 238, accelerometerRange: range, gyroscopeRange: 500))
        bus.expect([.writeRead(0x6A, [Reg.outTempL], reply: burst(temperature: 0, gyroscope: [0, 0, 0], accelerometer: [1000, -1000, 0]))])
        #expect(close(try imu.readSample().acceleration, [-milliGPerLSB, milliGPerLSB, 0], tolerance: 1e-12))
        expectFinished(bus)
    }

    /// FS_G 00/01/11 = ±245/500/2000 °/s at 8.75/17.5/70 mdps/LSB; ODR_G 001 = 14.9 Hz.
    @Test(arguments: [(245.0, UInt8(0b00), 8.75), (500, 0b01, 17.5), (2000, 0b11, 70)])
    func gyroscopeRanges(range: Double, code: UInt8, milliDPSPerLSB: Double) throws {
        let bus = ExpectationBus(initSequence(ctrlReg6XL: 0x30, ctrlReg1G: 0x20 | code << 3))
        let imu = LSM9DS1IMU(bus: bus, pause: .none)
        try imu.configure(IMUConfiguration(outputDataRate: 14.9, accelerometerRange: 4, gyroscopeRange: range))
        bus.expect([.writeRead(0x6A, [Reg.outTempL], reply: burst(temperature: 0, gyroscope: [0, -1000, 1000], accelerometer: [0, 0, 0]))])
        #expect(close(try imu.readSample().rotationRate, [0, -milliDPSPerLSB, milliDPSPerLSB] * degree, tolerance: 1e-9))
        expectFinished(bus)
    }

    @Test func unsupportedSettingsThrowBeforeTouchingTheBus() {
        let bus = ExpectationBus([])
        let imu = LSM9DS1IMU(bus: bus, pause: .none)
        // 1000 °/s exists on the LSM6 chips, not here; 104 Hz neither.
        #expect(sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 119, gyroscopeRange: 1000)) } != nil)
        #expect(sensorError { () throws(SensorError) in try imu.configure(IMUConfiguration(outputDataRate: 104)) } != nil)
        expectFinished(bus)
    }

    /// WHO_AM_I 0x0F at 0x6A/0x6B tells the LSM9DS1 (0x68) from the LSM6 chips, with reads only.
    @Test func identificationTellsLSM9DS1FromLSM6() throws {
        let bus = ExpectationBus([
            .writeRead(0x6A, [Reg.whoAmI], reply: [0x68]),
            .writeRead(0x6B, [Reg.whoAmI], reply: [0x6A]),
            .writeRead(0x6A, [Reg.whoAmI], reply: [0x55]),
        ])
        let lsm9ds1 = try #require(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x6A)))
        #expect(lsm9ds1.name == "LSM9DS1" && lsm9ds1.family == .lsm9ds1 && lsm9ds1.isIMU)
        #expect(ChipCatalog.makeIMU(for: lsm9ds1, bus: bus) is LSM9DS1IMU)
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x6B))?.family == .lsm6)
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x6A)) == nil)
        expectFinished(bus)
    }

    /// FIFO: bypass, FIFO_EN, continuous; FIFO_SRC FSS levels read as gyroscope set then
    /// accelerometer set; OVRN restarts the FIFO and reports the overflow.
    @Test func fifoFramesInOrderAndOverflow() throws {
        let (bus, imu) = try configured(initSequence(ctrlReg6XL: 0x70, ctrlReg1G: 0x68)) { LSM9DS1IMU(bus: $0, pause: .none) }
        let start: [I2CExpectation] = [
            .write(0x6A, [Reg.fifoCtrl, 0x00]), .write(0x6A, [Reg.ctrlReg9, 0x02]), .write(0x6A, [Reg.fifoCtrl, 0xC0]),
        ]
        bus.expect(start)
        try imu.enableFIFO()
        bus.expect([.writeRead(0x6A, [Reg.fifoSrc], reply: [0x02])])
        for level in [Int16(1), 2] {
            bus.expect([
                .writeRead(0x6A, [Reg.outXLG], reply: littleEndian([level * 100, 0, 0])),
                .writeRead(0x6A, [Reg.outXLXL], reply: littleEndian([0, 0, level * 1000])),
            ])
        }
        bus.expect([.writeRead(0x6A, [Reg.fifoSrc], reply: [0x60])] + start)  // OVRN | FSS 32
        let first = try imu.readFIFO()
        #expect(first.frames.map(\.sampleIndex) == [0, 1])
        #expect(first.frames.map { $0.sample.raw?.gyroscope.x } == [100, 200])
        #expect(first.frames.map { $0.sample.raw?.accelerometer.z } == [1000, 2000])
        let overflow = try imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        expectFinished(bus)
    }

    @Test func busErrorKeepsItsCause() {
        let bus = ExpectationBus([.writeRead(0x6A, [Reg.whoAmI], reply: [0x00]).failing(.noAcknowledge)])
        let imu = LSM9DS1IMU(bus: bus, pause: .none)
        guard case .bus(let cause)? = sensorError({ () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }) else {
            Issue.record("expected a bus error")
            return
        }
        #expect(cause.kind == I2CError.Kind.noAcknowledge)
        expectFinished(bus)
    }
}

/// A gyroscope rate that grows by 1 °/s per millisecond of simulation time, so FIFO frames show their order.
private struct RampingRate: PhysicalSource {
    func state(at time: Double) -> PhysicalState {
        var state = PhysicalState.flatAtRest(time: time)
        state.angularRate = SIMD3(time * 1000, 0, 0) * degree
        return state
    }
}

/// The driver against the emulator: sampling, the FIFO, transactions.
@Suite struct LSM9DS1EmulatorDriverTests {
    @Test func oneTransactionPerSample() throws {
        let time = ManualTime(1)
        let rig = try EmulatedRig(imu: .lsm9ds1, source: ConstantSource(), time: time)
        let before = rig.board.bus.transactionCount
        time.set(1.5)
        let sample = try rig.imu.readSample()
        #expect(rig.board.bus.transactionCount == before + 1)
        #expect(close(sample.acceleration, [0, 0, -1], tolerance: 0.122e-3))
    }

    @Test func fifoFramesComeOutInOrder() throws {
        let time = ManualTime(0)
        let rig = try EmulatedRig(imu: .lsm9ds1, magnetometer: .none, source: RampingRate(), time: time)
        try rig.imu.configure(IMUConfiguration(outputDataRate: 119, accelerometerRange: 2, gyroscopeRange: 2000))
        try rig.imu.enableFIFO()
        time.set(10.5 / 119)  // 10 ODR ticks
        let read = try rig.imu.readFIFO()
        #expect(!read.overflowed)
        #expect(read.frames.map(\.sampleIndex) == Array(0..<10))
        let rates = read.frames.map { $0.sample.rotationRate.x / degree }
        for (index, rate) in rates.enumerated() {
            // Tick k at k / 119 s: 1000 k / 119 °/s, within one 70 mdps LSB.
            #expect(abs(rate - 1000 * Double(index + 1) / 119) <= 0.0701, "frame \(index): \(rate)")
        }
        #expect(read.frames.allSatisfy { close($0.sample.acceleration, [0, 0, -1], tolerance: 0.061e-3) })
        // Read out: the next read finds nothing new until the next tick.
        #expect(try rig.imu.readFIFO().frames.isEmpty)
    }

    @Test func fifoOverflowAfterMoreThan32Levels() throws {
        let time = ManualTime(0)
        let rig = try EmulatedRig(imu: .lsm9ds1, magnetometer: .none, source: ConstantSource(), time: time)
        try rig.imu.enableFIFO()
        time.set(40.5 / 119)
        let overflow = try rig.imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        time.set(40.5 / 119 + 3 / 119.0)
        let after = try rig.imu.readFIFO()
        #expect(!after.overflowed)
        #expect(after.frames.map(\.sampleIndex) == [0, 1, 2])
    }
}
