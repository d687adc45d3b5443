import I2C
import Locking
import MotionSimulator
@testable import Sensors
import Testing

/// The BMI270 driver on its emulator: start-up loads Bosch's configuration file and checks
/// INTERNAL_STATUS; an upload spoiled on the bus (a byte changed, a transfer failed) is done again
/// from the reset, and one that stays spoiled is reported, never run uninitialised.
@Suite struct BMI270Tests {
    static let address = I2CAddress(0x68)
    /// INIT_DATA, INTERNAL_STATUS and PWR_CTRL (BST-BMI270-DS000 register map), the test's own.
    static let initData: UInt8 = 0x5E, internalStatus: UInt8 = 0x21, powerControl: UInt8 = 0x7D

    /// A bus in front of the simulated one that spoils the INIT_DATA writes whose number (from 1,
    /// counted over the bus's life) `spoil` names: a byte flipped, or the transfer failed.
    final class UploadSpoilingBus: I2CBus {
        enum Spoil: Sendable { case flipByte, fail }
        let inner: SimulatedBus
        let spoil: @Sendable (Int) -> Spoil?
        private let uploads = Locked(0)
        var name: String { inner.name }
        var initDataWrites: Int { uploads.withLock { $0 } }

        init(_ inner: SimulatedBus, spoil: @escaping @Sendable (Int) -> Spoil?) {
            self.inner = inner
            self.spoil = spoil
        }

        func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
            guard case .write(var bytes) = operations.first, bytes.first == BMI270Tests.initData, bytes.count > 1 else {
                return try inner.transaction(address, operations)
            }
            let number = uploads.withLock { count in
                count += 1
                return count
            }
            switch spoil(number) {
            case .flipByte?:
                bytes[bytes.count / 2] ^= 0x10
                return try inner.transaction(address, [.write(bytes)] + operations.dropFirst())
            case .fail?:
                throw I2CError(.busError, bus: name, address: address, detail: "injected failure of INIT_DATA write \(number)")
            case nil:
                return try inner.transaction(address, operations)
            }
        }
    }

    /// A board with a BMI270 and nothing else, at rest, and its bus.
    func board() -> SimulatedBoard {
        SimulatedBoard(imu: .bmi270, magnetometer: .none, source: ConstantSource(), now: { 1 })
    }

    /// INIT_DATA writes one upload takes: 8192 bytes in 32-byte bursts.
    static let writesPerUpload = 8192 / BMI270IMU.uploadChunk

    @Test func startUpLoadsTheConfigurationFileAndChecksItsStatus() throws {
        let board = board()
        let bus = UploadSpoilingBus(board.bus) { _ in nil }
        let imu = BMI270IMU(bus: bus, address: Self.address, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        #expect(bus.initDataWrites == Self.writesPerUpload)
        #expect(try board.bus.readRegister(Self.address, Self.internalStatus) & 0x0F == 0x01)
        // Temperature, accelerometer, gyroscope and the auxiliary interface (its BMM150) on.
        #expect(try board.bus.readRegister(Self.address, Self.powerControl) == 0x0F)
        #expect(try imu.isStillConfigured())
        // Lying face up at rest: 1 g on z (Core Motion sign −1), no rotation.
        let sample = try imu.readSample()
        #expect(abs(sample.acceleration.z + 1) < 0.001 && abs(sample.acceleration.x) < 0.001)
        #expect(sample.rotationRate == .zero)
    }

    @Test(arguments: [UploadSpoilingBus.Spoil.flipByte, .fail])
    func anUploadSpoiledOnceIsDoneAgain(spoil: UploadSpoilingBus.Spoil) throws {
        let board = board()
        let bus = UploadSpoilingBus(board.bus) { $0 == 100 ? spoil : nil }  // mid-upload
        let imu = BMI270IMU(bus: bus, address: Self.address, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        // A failed write ends the first upload at write 100; a flipped byte is seen only at its end.
        #expect(bus.initDataWrites == (spoil == .fail ? 100 : Self.writesPerUpload) + Self.writesPerUpload)
        #expect(try board.bus.readRegister(Self.address, Self.internalStatus) & 0x0F == 0x01)
        #expect(try imu.readSample().acceleration.z < -0.99)
    }

    @Test func anUploadThatStaysSpoiledIsReportedAndTheSensorsStayOff() throws {
        let board = board()
        let bus = UploadSpoilingBus(board.bus) { $0 % Self.writesPerUpload == 7 ? .flipByte : nil }
        let imu = BMI270IMU(bus: bus, address: Self.address, pause: .none)
        #expect(throws: SensorError.configurationFileRejected(chip: "BMI270", address: Self.address, status: 0x02, attempts: 2)) {
            try imu.configure(imu.defaultConfiguration)
        }
        #expect(bus.initDataWrites == 2 * Self.writesPerUpload)
        #expect(try board.bus.readRegister(Self.address, Self.powerControl) == 0x00)  // never switched on
        #expect(try board.bus.readRegisters(Self.address, 0x0C, count: 12) == Array(repeating: 0, count: 12))
    }

    @Test func aBusThatKeepsFailingIsReportedWithItsError() throws {
        let board = board()
        let bus = UploadSpoilingBus(board.bus) { $0 >= 3 ? .fail : nil }
        let imu = BMI270IMU(bus: bus, address: Self.address, pause: .none)
        #expect {
            try imu.configure(imu.defaultConfiguration)
        } throws: { error in
            guard case .bus(let cause) = error as? SensorError else { return false }
            return cause.kind == .busError && cause.detail.contains("INIT_DATA")
        }
        #expect(bus.initDataWrites == 4)  // the first upload failed at its write 3, the second at its first
    }

    @Test func theRejectionSaysWhatToDo() {
        let text = SensorError.configurationFileRejected(chip: "BMI270", address: Self.address, status: 0x02, attempts: 2).description
        #expect(text.contains("INTERNAL_STATUS") && text.contains("0x02") && text.contains("doctor"))
    }

    /// The FIFO on the emulator, its clock 300 ppm fast: frames in order, every one timed by the
    /// sensortime frame, 1/ODR of the chip's clock apart.
    @Test func fifoFramesCarryTheChipClock() throws {
        let (frames, steps) = try emulatedFIFOFrames(.bmi270, driftPPM: 300, reads: 10)
        #expect(frames.count >= 38)  // 200 Hz over 0.2 s
        #expect(frames.map(\.sampleIndex) == Array(0..<frames.count))
        #expect(steps.count == frames.count - 1)
        for step in steps { #expect(abs(step - 1 / 200.0) < 1e-9) }
    }

    /// The step counter: enabled on feature page 6, read from page 0; the emulator counts each
    /// rise of the specific force above 1.15 g (its own detector, stated in its documentation).
    @Test func stepCounterCountsTheEmulatorsSteps() throws {
        let time = ManualTime(1)
        let source = StepSource(stepTimes: [1.5, 2.0, 2.5, 3.0, 3.5])
        let rig = try EmulatedRig(imu: .bmi270, magnetometer: .none, source: source, time: time)
        let counter = try #require(rig.imu as? any StepCountingDriver)
        try counter.enableStepCounter()
        #expect(try counter.readStepCounter() == 0)
        time.set(2.2)
        #expect(try counter.readStepCounter() == 2)
        time.set(4)
        #expect(try counter.readStepCounter() == 5)
    }
}

/// At rest but for a 1.3 g jolt of 50 ms at each of `stepTimes`.
struct StepSource: PhysicalSource {
    var stepTimes: [Double]
    func state(at time: Double) -> PhysicalState {
        var state = PhysicalState.flatAtRest(time: time)
        if stepTimes.contains(where: { time >= $0 && time < $0 + 0.05 }) { state.specificForce.z *= 1.3 }
        return state
    }
}

/// The BMM150 on the BMI270's auxiliary interface: found by the BMI270's configure, configured
/// through manual mode, read from DATA_0 … DATA_7 in data mode.
@Suite struct BMI270AuxiliaryTests {
    static let address = I2CAddress(0x68)

    /// A bus that gives AUX_DEV_ID another device's address: nothing answers behind the interface.
    final class EmptyAuxiliaryBus: I2CBus {
        let inner: SimulatedBus
        var name: String { inner.name }
        init(_ inner: SimulatedBus) { self.inner = inner }
        func transaction(_ address: I2CAddress, _ operations: [I2COperation]) throws(I2CError) -> [[UInt8]] {
            guard case .write(let bytes) = operations.first, bytes == [0x4B, 0x20] else { return try inner.transaction(address, operations) }
            return try inner.transaction(address, [.write([0x4B, 0x22])])
        }
    }

    func board(field: SIMD3<Double>) -> SimulatedBoard {
        var state = PhysicalState.flatAtRest()
        state.magneticField = field
        return SimulatedBoard(imu: .bmi270, source: ConstantSource(state), now: { 1 })
    }

    @Test func theBMM150BehindTheInterfaceIsTheCompanionMagnetometer() throws {
        let field = SIMD3(21.5, -6.0, -40.25)
        let board = board(field: field)
        #expect(board.magnetometerAddress == nil)  // not on the host bus
        let imu = BMI270IMU(bus: board.bus, address: Self.address, pause: .none)
        #expect(imu.companionMagnetometer == nil)
        try imu.configure(imu.defaultConfiguration)
        let magnetometer = try #require(imu.companionMagnetometer)
        #expect(magnetometer.chip.name == "BMM150" && magnetometer.chip.address == Self.address)
        #expect(try board.bus.readRegister(Self.address, 0x7D) == 0x0F && imu.isStillConfigured())
        try magnetometer.configure(magnetometer.defaultConfiguration)
        #expect(try magnetometer.isStillConfigured())
        let sample = try magnetometer.readSample()
        #expect(largestDifference(sample.field, field) <= 0.3, "\(sample.field)")
        #expect(try imu.readSample().acceleration.z < -0.99)
        // A reconfigure of the BMI270 resets it: the magnetometer's data mode is gone until it is
        // configured again; the same driver object stays the companion.
        try imu.configure(imu.defaultConfiguration)
        #expect(try !magnetometer.isStillConfigured())
        #expect(imu.companionMagnetometer === magnetometer)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        #expect(largestDifference(try magnetometer.readSample().field, field) <= 0.3)
    }

    @Test func withNothingBehindTheInterfaceThereIsNoCompanion() throws {
        let board = board(field: SIMD3(20, 0, -40))
        let imu = BMI270IMU(bus: EmptyAuxiliaryBus(board.bus), address: Self.address, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        #expect(imu.companionMagnetometer == nil)
        #expect(try board.bus.readRegister(Self.address, 0x7D) == 0x0E && board.bus.readRegister(Self.address, 0x6B) == 0)
        #expect(try imu.isStillConfigured())
    }
}

/// The accelerometer self-test's decision: x and z must move up by 16 g and 10 g, y down by 15 g.
@Suite struct BMI270SelfTestTests {
    @Test func limitsAndTheNegativeYAxis() {
        let healthy = BMI270SelfTest.evaluate(chip: "BMI270", accelerometerResponse: SIMD3(18000, -17000, 12000))
        #expect(healthy.passed && healthy.axes.map(\.response) == [18000, 17000, 12000])
        #expect(!BMI270SelfTest.evaluate(chip: "BMI270", accelerometerResponse: SIMD3(18000, 17000, 12000)).passed)  // y the wrong way
        #expect(!BMI270SelfTest.evaluate(chip: "BMI270", accelerometerResponse: SIMD3(15999, -17000, 12000)).passed)
        #expect(!BMI270SelfTest.evaluate(chip: "BMI270", accelerometerResponse: SIMD3(18000, -17000, 0)).passed)
    }
}
