import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The frames of the datasheets' SPI diagrams, written here from their interface sections and
/// not from the driver's framing: a read is the address with R/W (bit 7) set, then one clock
/// byte per data byte after `dummy` bytes the chip sends first; a write is the address, then the data.
private func read(_ register: UInt8, reply: [UInt8], dummy: Int = 0) -> SPIExpectation {
    .transfer([0x80 | register] + Array(repeating: 0, count: dummy + reply.count), reply: Array(repeating: 0, count: 1 + dummy) + reply)
}

private func write(_ register: UInt8, _ values: UInt8...) -> SPIExpectation {
    .transfer([register] + values)
}

/// The IMU driver the registry builds for `chip` on an SPI register bus with the chip's own
/// framing, as a board's SPI device gets it.
private func driver(_ chip: ChipDescriptor, on device: SPIExpectationBus) throws -> any IMUDriver {
    let framing = try #require(chip.spi)
    let address = try #require(chip.identity.addresses.first)
    return try #require(chip.makeIMU(bus: SPIRegisterBus(device, framing: framing), address: address, pause: .none))
}

/// The LSM6DSO, ICM-42688-P and BMI160 drivers unchanged on SPI: the same register accesses as
/// their I2C expectation tests (LSM6Tests, ICM42688Tests, BMI160Tests), as SPI frames.
@Suite struct SPIDriverTests {
    /// LSM6DSO (DS12814 §6.2): WHO_AM_I (0x0F) 0x6C; SW_RESET polled; BDU | IF_INC; 208 Hz ±4 g,
    /// 208 Hz ±500 °/s; one sample from OUT_TEMP_L on (0x20, 14 bytes); then the tagged FIFO.
    @Test func lsm6dsoInitSampleAndFIFO() throws {
        let device = SPIExpectationBus([
            read(0x0F, reply: [0x6C]),
            write(0x12, 0x05), read(0x12, reply: [0x05]), read(0x12, reply: [0x04]),
            write(0x12, 0x44), write(0x10, 0x58), write(0x11, 0x54),
        ])
        let imu = try driver(.lsm6dso, on: device)
        try imu.configure(imu.defaultConfiguration)
        device.expect([read(0x20, reply: littleEndian([512, 2000, 0, -2000, 0, 0, 8197]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1], tolerance: 1e-4))
        #expect(close(sample.rotationRate, [35 * degree, 0, -35 * degree], tolerance: 1e-9))
        #expect(sample.temperature == 27)

        // FIFO_CTRL4 bypass, FIFO_CTRL3 BDR 208 Hz, CTRL10_C TIMESTAMP_EN, FIFO_CTRL4 continuous.
        device.expect([write(0x0A, 0x00), write(0x09, 0x55), write(0x19, 0x20), write(0x0A, 0x46)])
        try imu.enableFIFO()
        let gyro: [UInt8] = [0x01 << 3] + littleEndian([2000, 0, 0])
        let accel: [UInt8] = [0x02 << 3] + littleEndian([0, 0, 8197])
        device.expect([read(0x3A, reply: [2, 0x00]), read(0x78, reply: gyro + accel)])
        let fifo = try imu.readFIFO()
        #expect(fifo.frames.map(\.sampleIndex) == [0])
        #expect(close(fifo.frames[0].sample.acceleration, [0, 0, -1], tolerance: 1e-4))
        #expect(close(fifo.frames[0].sample.rotationRate, [35 * degree, 0, 0]))
        try device.verify()
    }

    /// ICM-42688-P (DS-000347 §9): WHO_AM_I (0x75) 0x47; DEVICE_CONFIG soft reset polled;
    /// INTF_CONFIG0 with UI_SIFS_CFG = 0b11 (I2C off, SPI kept: 0x33 where I2C has 0x32);
    /// 200 Hz ±500 °/s, ±4 g; low-noise mode; one sample from TEMP_DATA1 on (0x1D, 14 bytes); the FIFO.
    @Test func icm42688InitSampleAndFIFOKeepSPI() throws {
        let device = SPIExpectationBus([
            read(0x75, reply: [0x47]),
            write(0x11, 0x01), read(0x11, reply: [0x00]),
            write(0x4C, 0x33), write(0x4F, 0x47), write(0x50, 0x47), write(0x4E, 0x0F),
        ])
        let imu = try driver(.icm42688p, on: device)
        try imu.configure(imu.defaultConfiguration)
        device.expect([read(0x1D, reply: bigEndian([1325, 0, 0, 8192, 655, 0, -655]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1]))
        #expect(close(sample.rotationRate, [10 * degree, 0, -10 * degree], tolerance: 1e-9))

        // FIFO_CONFIG bypass, SIGNAL_PATH_RESET FIFO_FLUSH, FIFO_CONFIG1 accel + gyro + temperature,
        // FIFO_CONFIG stream; then INT_STATUS with FIFO_COUNT (3 bytes) and two 16-byte packets 3
        // (§6.1: header 0x68, accel and gyro big-endian, temperature, 16-bit µs timestamp).
        device.expect([write(0x16, 0x00), write(0x4B, 0x02), write(0x5F, 0x07), write(0x16, 0x40)])
        try imu.enableFIFO()
        let packets = [1000, 6000].map { (time: Int) -> [UInt8] in
            [0x68] + bigEndian([0, 0, 8192, 655, 0, 0]) + [0, UInt8(time >> 8), UInt8(time & 0xFF)]
        }
        device.expect([read(0x2D, reply: [0x08, 0x00, 32]), read(0x30, reply: Array(packets.joined()))])
        let fifo = try imu.readFIFO()
        #expect(fifo.frames.map(\.sampleIndex) == [0, 1])
        #expect(fifo.frames.map { $0.chipTime.map { ($0 * 1e6).rounded() } } == [1000, 6000])
        #expect(close(fifo.frames[1].sample.acceleration, [0, 0, -1]))
        try device.verify()
    }

    /// BMI160 (BST-BMI160-DS000 §3.2): a read of 0x7F first (the chip-select edge that moves it
    /// from I2C to SPI), CHIP_ID 0xD1, the soft reset and 0x7F read again, both sensors to
    /// normal mode, PMU_STATUS, 200 Hz ±4 g ±500 °/s, FIFO off; one sample from DATA_GYR (0x0C).
    @Test func bmi160InitAndSampleSelectSPI() throws {
        let device = SPIExpectationBus([
            read(0x7F, reply: [0x00]),
            read(0x00, reply: [0xD1]),
            write(0x7E, 0xB6), read(0x7F, reply: [0x00]),
            write(0x7E, 0x11), write(0x7E, 0x15), read(0x03, reply: [0b0001_0100]),
            write(0x40, 0x29), write(0x41, 0x05), write(0x42, 0x29), write(0x43, 0x02), write(0x47, 0x00),
        ])
        let imu = try driver(.bmi160, on: device)
        try imu.configure(imu.defaultConfiguration)
        device.expect([read(0x0C, reply: littleEndian([656, 0, -656, 0, 0, 8192]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1]))
        #expect(close(sample.rotationRate, [10 * degree, 0, -10 * degree], tolerance: 1e-9))
        try device.verify()
    }

    /// A BMI270-style chip (one dummy byte before a read's data) needs only its descriptor's
    /// framing: the same driver reads through it.
    @Test func dummyByteFramingUnderAnUnchangedDriver() throws {
        let device = SPIExpectationBus([read(0x0F, reply: [0x6C], dummy: 1), read(0x20, reply: littleEndian([0, 0, 0, 0, 0, 0, 8197]), dummy: 1)])
        let bus = SPIRegisterBus(device, framing: .boschBMI270)
        #expect(try bus.readRegister(I2CAddress(0x6A), 0x0F) == 0x6C)
        #expect(try bus.readRegisters(I2CAddress(0x6A), 0x20, count: 14).suffix(2) == [0x05, 0x20])
        try device.verify()
    }
}

/// The drivers on the simulator's SPI devices: each emulator framed by its own datasheet.
@Suite struct SimulatedSPITests {
    /// Identified through the SPI framings the registry declares, configured, and streaming
    /// samples and FIFO frames of the chip lying face up while turning.
    @Test(arguments: [SimulatedBoard.IMU.lsm6dsox, .icm42688, .bmi160, .bmi270, .icm45686])
    func streamsOverSPI(imu: SimulatedBoard.IMU) throws {
        let time = ManualTime(1)
        var state = PhysicalState.flatAtRest()
        state.angularRate = SIMD3(0.1, -0.2, 0.3)
        let emulator = imu.entry.emulator.init(source: ConstantSource(state), now: { time.now }, options: .init())
        let device = try #require(SimulatedSPIBus(emulator: emulator))
        let (chip, bus) = try #require(try ChipCatalog.identify(spi: device, pause: .none))
        #expect(chip.descriptor?.cliNames.contains(imu.rawValue) == true)
        let driver = try #require(ChipCatalog.makeIMU(for: chip, bus: bus, pause: .none))
        try driver.configure(driver.defaultConfiguration)
        for step in 1...5 {
            time.set(1 + Double(step) * 0.01)
            let sample = try driver.readSample()
            #expect(largestDifference(sample.acceleration, [0, 0, -1]) < 0.01)
            #expect(largestDifference(sample.rotationRate, state.angularRate) < 0.01)
        }
        try driver.enableFIFO()
        time.set(1.2)
        let read = try driver.readFIFO()
        #expect(!read.overflowed)
        #expect(read.frames.count >= 30)
        #expect(read.frames.map(\.sampleIndex) == Array(0..<read.frames.count))
        for frame in read.frames {
            #expect(largestDifference(frame.sample.acceleration, [0, 0, -1]) < 0.01)
        }
        #expect(device.transferCount > 0)
    }

    /// The driver's framing (its descriptor's, from the kernel and the datasheet) and the
    /// emulator's (its datasheet's interface section), written apart, agree for every emulated
    /// chip; and a chip the library drives on SPI has its SPI emulated.
    @Test func driverAndEmulatorFramingsAgree() throws {
        for entry in EmulatorRegistry.imus {
            let descriptor = try #require(ChipRegistry.all.first { $0.cliNames.contains(entry.chip.rawValue) }, "\(entry.chip)")
            let emulated = (entry.emulator as? any SPIEmulator.Type)?.spiFraming
            #expect(descriptor.spi == emulated, "\(entry.chip): driver \(String(describing: descriptor.spi)), emulator \(String(describing: emulated))")
        }
    }

    /// A chip select with nothing behind it (MISO reads zeros) names no chip.
    @Test func emptyChipSelectNamesNoChip() throws {
        final class Nothing: SPIBus {
            let name = "empty"
            func transfer(_ bytes: [UInt8]) throws(I2CError) -> [UInt8] { Array(repeating: 0, count: bytes.count) }
        }
        #expect(try ChipCatalog.identify(spi: Nothing(), pause: .none) == nil)
    }
}
