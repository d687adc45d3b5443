import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// ICM-45686 direct registers from the DS-000577 register map, written here independently of the driver.
private enum ICM {
    static let accelDataX: UInt8 = 0x00, pwrMgmt0: UInt8 = 0x10, accelConfig0: UInt8 = 0x1B, gyroConfig0: UInt8 = 0x1C
    static let whoAmI: UInt8 = 0x72, misc2: UInt8 = 0x7F
    static let fifoCount: UInt8 = 0x12, fifoData: UInt8 = 0x14, int1Config0: UInt8 = 0x16, int1Status0: UInt8 = 0x19
    static let fifoConfig0: UInt8 = 0x1D, fifoConfig2: UInt8 = 0x20, fifoConfig3: UInt8 = 0x21, fifoConfig4: UInt8 = 0x22
    static let tmstWomConfig: UInt8 = 0x23, iregAddress: UInt8 = 0x7C, iregData: UInt8 = 0x7E
}

/// Writing off, bypass (8 KiB depth), flush, stream, then accelerometer + gyroscope with writing on.
private let fifoRestart: [I2CExpectation] = [
    .write(0x68, [ICM.fifoConfig3, 0x06]),  // GYRO_EN, ACCEL_EN, IF_EN off
    .write(0x68, [ICM.fifoConfig0, 0x1F]),  // bypass, FIFO_DEPTH 0x1F
    .write(0x68, [ICM.fifoConfig2, 0x80]),  // FIFO_FLUSH
    .write(0x68, [ICM.fifoConfig0, 0x5F]),  // stream
    .write(0x68, [ICM.fifoConfig3, 0x07]),  // IF_EN last
]

/// SMC_CONTROL_0 (indirect 0xA258) read through IREG and written back with TMST_EN, TMST_WOM_CONFIG
/// TMST_RESOL = 1 µs, FIFO_CONFIG4 TMST_FSYNC_EN, INT1_CONFIG0 FIFO_FULL_EN, then the FIFO started.
private let fifoStart: [I2CExpectation] = [
    .write(0x68, [ICM.iregAddress, 0xA2, 0x58]),
    .writeRead(0x68, [ICM.iregData], reply: [0x10]),
    .write(0x68, [ICM.iregAddress, 0xA2, 0x58, 0x11]),
    .write(0x68, [ICM.tmstWomConfig, 0x00]),
    .write(0x68, [ICM.fifoConfig4, 0x02]),
    .write(0x68, [ICM.int1Config0, 0x01]),
] + fifoRestart

/// A 16-byte FIFO packet: header, accel, gyro (little-endian), temperature, timestamp (little-endian).
private func packet(header: UInt8 = 0x68, accel: [Int16], gyro: [Int16], temperature: Int8 = 0, timestamp: UInt16 = 0) -> [UInt8] {
    [header] + littleEndian(accel) + littleEndian(gyro) + [UInt8(bitPattern: temperature), UInt8(timestamp & 0xFF), UInt8(timestamp >> 8)]
}

/// The init sequence at `address`: WHO_AM_I, SOFT_RST (polled until it reads 0), GYRO_CONFIG0
/// (FS_SEL 7:4, ODR 3:0), ACCEL_CONFIG0 (FS_SEL 6:4, ODR 3:0), PWR_MGMT0 = both low noise.
private func icmInit(_ address: UInt8 = 0x68, odr: UInt8 = 0x8, gyroFS: UInt8 = 3, accelFS: UInt8 = 3) -> [I2CExpectation] {
    [
        .writeRead(address, [ICM.whoAmI], reply: [0xE9]),
        .write(address, [ICM.misc2, 0x02]),  // SOFT_RST
        .writeRead(address, [ICM.misc2], reply: [0x00]),  // done
        .write(address, [ICM.gyroConfig0, gyroFS << 4 | odr]),
        .write(address, [ICM.accelConfig0, accelFS << 4 | odr]),
        .write(address, [ICM.pwrMgmt0, 0x0F]),  // GYRO_MODE = ACCEL_MODE = 11 (low noise)
    ]
}

@Suite struct ICM45686Tests {
    func make(_ bus: ExpectationBus, _ address: UInt8 = 0x68) -> any IMUDriver {
        ChipRegistry.descriptor(cliName: "icm45686")!.makeIMU(bus: bus, address: I2CAddress(address), pause: .none)!
    }

    /// Defaults (200 Hz = ODR 8, ±4 g = 3, ±500 °/s = 3) and one little-endian sample burst.
    @Test func defaultInitAndOneSampleInOneTransaction() throws {
        let bus = ExpectationBus(icmInit())
        let imu = make(bus)
        try imu.configure(imu.defaultConfiguration)
        // +1 g on z at ±4 g = 8192; −0.5 g on x; 100 °/s on y at ±500 °/s = 6550 (65.5 LSB/(°/s)); 30 °C = 5 × 128.
        bus.expect([.writeRead(0x68, [ICM.accelDataX], reply: littleEndian([-4096, 0, 8192, 0, 6550, 0, 640]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0.5, 0, -1]))
        #expect(abs(sample.rotationRate.y - 100 * Double.pi / 180) < 1e-9)
        #expect(sample.temperature == 30)
        #expect(imu.hasFIFO && imu.hasGyroscope)
        expectFinished(bus)
    }

    /// Every range has its code: ±32 g is code 0, ±2 g code 4; ±4000 °/s code 0, ±15.625 °/s code 8.
    @Test func rangeCodes() throws {
        for (accel, accelCode, gyro, gyroCode) in [(32.0, UInt8(0), 4000.0, UInt8(0)), (2, 4, 15.625, 8), (16, 1, 2000, 1)] {
            let bus = ExpectationBus(icmInit(odr: 0x9, gyroFS: gyroCode, accelFS: accelCode))
            try make(bus).configure(IMUConfiguration(outputDataRate: 100, accelerometerRange: accel, gyroscopeRange: gyro))
            expectFinished(bus)
        }
    }

    /// Identified at both of its addresses on the simulated bus, after the MPU WHO_AM_I read,
    /// from WHO_AM_I 0x72; the driver configures and reads gravity.
    @Test(arguments: [UInt8(0x68), 0x69])
    func identifiedOnTheSimulatedBus(address: UInt8) throws {
        let board = SimulatedBoard(imu: .icm45686, imuAddress: I2CAddress(address), magnetometer: .none, source: ConstantSource(), now: { 0 })
        board.bus.clearLog()
        let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: I2CAddress(address)))
        #expect(chip.name == "ICM-45686" && chip.identity == [0xE9] && chip.isIMU)
        #expect(board.bus.log.map(\.operations) == [[.write([0x75]), .read(count: 1)], [.write([0x72]), .read(count: 1)]])
        let imu = try #require(ChipCatalog.makeIMU(for: chip, bus: board.bus, pause: .none))
        try imu.configure(imu.defaultConfiguration)
        let sample = try imu.readSample()
        #expect(abs(sample.acceleration.z + 1) < 0.01 && abs(sample.acceleration.x) < 0.01)
    }

    /// A driver configured at its defaults with the FIFO started.
    func driverWithFIFO(maximumReadLength: Int? = nil) throws -> (ExpectationBus, any IMUDriver) {
        let bus = ExpectationBus(icmInit(), maximumReadLength: maximumReadLength)
        let imu = make(bus)
        try imu.configure(imu.defaultConfiguration)
        bus.expect(fifoStart)
        try imu.enableFIFO()
        expectFinished(bus)
        return (bus, imu)
    }

    /// INT1_STATUS0, then FIFO_COUNT in packets (little-endian), whole 16-byte packets in order
    /// (8 per read); little-endian axes; FIFO temperature raw / 2 + 25.
    @Test func fifoPacketsComeInOrder() throws {
        let (bus, imu) = try driverWithFIFO()
        let packets = (0..<10).map { index in
            packet(accel: [Int16(index), 0, 8192], gyro: [655, 0, 0], temperature: 21, timestamp: UInt16(index * 5000))
        }
        bus.expect([
            .writeRead(0x68, [ICM.int1Status0], reply: [0x04]),  // DRDY only
            .writeRead(0x68, [ICM.fifoCount], reply: [10, 0]),
            .writeRead(0x68, [ICM.fifoData], reply: Array(packets[0..<8].joined())),
            .writeRead(0x68, [ICM.fifoData], reply: Array(packets[8..<10].joined())),
        ])
        let read = try imu.readFIFO()
        #expect(!read.overflowed)
        #expect(read.frames.map(\.sampleIndex) == Array(0..<10))
        #expect(read.frames.map { $0.sample.raw?.accelerometer.x } == (0..<10).map { Int16($0) })
        #expect(close(read.frames[9].sample.acceleration.z, -1))
        #expect(close(read.frames[9].sample.rotationRate.x, 10 * degree, tolerance: 1e-9))
        #expect(close(read.frames[9].sample.temperature ?? 0, 21 / 2.0 + 25))
        expectFinished(bus)
    }

    /// The 16-bit µs timestamp becomes the frame's chip time, unwrapped across the counter's wrap
    /// at 65536 µs within a read and from one read to the next.
    @Test func fifoFramesCarryTheChipTimestampUnwrapped() throws {
        let (bus, imu) = try driverWithFIFO()
        let microseconds = (0..<6).map { 60_000 + $0 * 5000 }
        let packets = microseconds.map { packet(accel: [0, 0, 8192], gyro: [0, 0, 0], timestamp: UInt16($0 % 65536)) }
        bus.expect([
            .writeRead(0x68, [ICM.int1Status0], reply: [0x00]),
            .writeRead(0x68, [ICM.fifoCount], reply: [4, 0]),
            .writeRead(0x68, [ICM.fifoData], reply: Array(packets[0..<4].joined())),
            .writeRead(0x68, [ICM.int1Status0], reply: [0x00]),
            .writeRead(0x68, [ICM.fifoCount], reply: [2, 0]),
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

    /// Header flags: bit 7 (extended header, or the empty FIFO's 0xFF) ends the read; −32768 on a
    /// sensor (not valid yet) skips the frame but keeps its slot; an ODR change after the first
    /// packet restarts the FIFO and reports it like an overflow; FIFO_FULL restarts it and reports
    /// the overflow, and the indices start from 0 again.
    @Test func fifoHeaderFlagsAndOverflow() throws {
        let (bus, imu) = try driverWithFIFO(maximumReadLength: 32)
        let good = packet(accel: [0, 0, 8192], gyro: [0, 0, 0])
        let invalidGyro = packet(accel: [0, 0, 8192], gyro: [.min, .min, .min])
        let empty = [UInt8](repeating: 0xFF, count: 16)
        bus.expect([
            .writeRead(0x68, [ICM.int1Status0], reply: [0x00]),
            .writeRead(0x68, [ICM.fifoCount], reply: [5, 0]),
            .writeRead(0x68, [ICM.fifoData], reply: packet(header: 0x6B, accel: [0, 0, 8192], gyro: [0, 0, 0]) + invalidGyro),
            .writeRead(0x68, [ICM.fifoData], reply: good + empty),
        ])
        let first = try imu.readFIFO()
        #expect(first.frames.map(\.sampleIndex) == [0, 2])
        #expect(!first.overflowed)
        bus.expect([
            .writeRead(0x68, [ICM.int1Status0], reply: [0x00]),
            .writeRead(0x68, [ICM.fifoCount], reply: [2, 0]),
            .writeRead(0x68, [ICM.fifoData], reply: good + packet(header: 0x6B, accel: [0, 0, 8192], gyro: [0, 0, 0])),
        ] + fifoRestart)
        let rateChange = try imu.readFIFO()
        #expect(rateChange.frames.isEmpty && rateChange.overflowed)
        bus.expect([
            .writeRead(0x68, [ICM.int1Status0], reply: [0x01]),  // FIFO_FULL
        ] + fifoRestart + [
            .writeRead(0x68, [ICM.int1Status0], reply: [0x00]),
            .writeRead(0x68, [ICM.fifoCount], reply: [1, 0]),
            .writeRead(0x68, [ICM.fifoData], reply: good),
        ])
        let overflow = try imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        #expect(try imu.readFIFO().frames.map(\.sampleIndex) == [0])
        expectFinished(bus)
    }

    /// A count far beyond what is there (0xFFFF packets) and packets with odd headers: the read
    /// ends at bit 7, a header without both sensors only takes its slot, nothing traps.
    @Test func fifoGarbageEndsAtTheEndMarker() throws {
        let (bus, imu) = try driverWithFIFO(maximumReadLength: 32)
        let odd = [UInt8](repeating: 0xA5, count: 15)
        bus.expect([
            .writeRead(0x68, [ICM.int1Status0], reply: [0x00]),
            .writeRead(0x68, [ICM.fifoCount], reply: [0xFF, 0xFF]),
            .writeRead(0x68, [ICM.fifoData], reply: [0x00] + odd + [0x40] + odd),
            .writeRead(0x68, [ICM.fifoData], reply: packet(accel: [1, 2, 3], gyro: [4, 5, 6]) + [UInt8](repeating: 0xFF, count: 16)),
        ])
        let read = try imu.readFIFO()
        #expect(!read.overflowed)
        #expect(read.frames.map(\.sampleIndex) == [2])
        #expect(read.frames.first?.sample.raw?.gyroscope == SIMD3(4, 5, 6))
        expectFinished(bus)
    }
}

/// The driver against the emulator (each written from the register facts on its own).
@Suite struct ICM45686EmulatedTests {
    /// Face up at rest through the FIFO at 200 Hz: 20 frames in 0.1 s, numbered in order, −1 g
    /// on z, each with a chip time 5 ms after the last; a FIFO left unread for 3 s overflows
    /// (8 KiB = 512 packets = 2.56 s), is restarted and counts from 0 again.
    @Test func fifoThroughTheEmulator() throws {
        let (rig, time) = try EmulatedRig.checkFIFOAtRest(.icm45686, accelerationTolerance: 1 / 8192.0, rotationTolerance: 1 / 65.5 * degree)
        time.set(1.2)
        let next = try rig.imu.readFIFO()
        #expect(next.frames.map(\.sampleIndex) == Array(20..<40))
        let times = next.frames.compactMap(\.chipTime)
        #expect(times.count == 20 && zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.005) <= 1.001e-6 })
        time.set(4.2)
        let overflow = try rig.imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        time.set(4.225)
        #expect(try rig.imu.readFIFO().frames.map(\.sampleIndex) == Array(0..<5))
    }
}
