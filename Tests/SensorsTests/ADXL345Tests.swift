import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// ADXL345 registers and bits from its datasheet (Rev. G, Table 19), written here independently
/// of the driver.
private enum ADXL {
    static let devid: UInt8 = 0x00, bwRate: UInt8 = 0x2C, powerCtl: UInt8 = 0x2D, intSource: UInt8 = 0x30
    static let dataFormat: UInt8 = 0x31, dataX0: UInt8 = 0x32, fifoCtl: UInt8 = 0x38, fifoStatus: UInt8 = 0x39
}

/// The start-up at `address`: DEVID, standby, FIFO bypass, BW_RATE (100 Hz = 0x0A), DATA_FORMAT
/// FULL_RES (bit 3) with the range code (±4 g = 01), then Measure (POWER_CTL bit 3).
private func adxlInit(_ address: UInt8 = 0x53, rate: UInt8 = 0x0A, range: UInt8 = 0b01) -> [I2CExpectation] {
    [
        .writeRead(address, [ADXL.devid], reply: [0xE5]),
        .write(address, [ADXL.powerCtl, 0x00]),
        .write(address, [ADXL.fifoCtl, 0x00]),
        .write(address, [ADXL.bwRate, rate]),
        .write(address, [ADXL.dataFormat, 0x08 | range]),
        .write(address, [ADXL.powerCtl, 0x08]),
    ]
}

private let fifoStart: [I2CExpectation] = [
    .write(0x53, [ADXL.fifoCtl, 0x00]),  // bypass: empties it
    .write(0x53, [ADXL.fifoCtl, 0x9F]),  // stream (10), watermark 31
]

@Suite struct ADXL345Tests {
    func make(_ bus: ExpectationBus, _ address: UInt8 = 0x53) -> ADXL345IMU {
        ADXL345IMU(bus: bus, address: I2CAddress(address), pause: .none, resetCompletion: .pollResetBit)
    }

    @Test func defaultInitAndOneSampleInOneTransaction() throws {
        let (bus, imu) = try configured(adxlInit()) { make($0) }
        // Face up: +1 g on z = 256 LSB in full resolution (3.9 mg/LSB); x −0.5 g = −128.
        bus.expect([.writeRead(0x53, [ADXL.dataX0], reply: littleEndian([-128, 0, 256]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0.5, 0, -1]))
        #expect(sample.rotationRate == .zero && !sample.isSaturated && sample.temperature == nil)
        #expect(!imu.hasGyroscope && imu.hasFIFO)
    }

    /// Full resolution keeps 256 LSB/g at every range, and the range widens the counts: ±2 g
    /// saturates at 511 (10 bits), ±16 g not before 4095 (13 bits).
    @Test func fullResolutionAtEveryRangeAndSaturationAtItsWidth() throws {
        for (range, code, limit) in [(2.0, UInt8(0), Int16(511)), (4, 1, 1023), (8, 2, 2047), (16, 3, 4095)] {
            let bus = ExpectationBus(adxlInit(range: code))
            let imu = make(bus)
            try imu.configure(IMUConfiguration(outputDataRate: 100, accelerometerRange: range))
            bus.expect([
                .writeRead(0x53, [ADXL.dataX0], reply: littleEndian([limit, 0, 256])),
                .writeRead(0x53, [ADXL.dataX0], reply: littleEndian([limit - 1, 0, 256])),
            ])
            let saturated = try imu.readSample()
            #expect(saturated.isSaturated && close(saturated.acceleration.x, -Double(limit) / 256), "±\(range) g")
            #expect(!(try imu.readSample()).isSaturated, "±\(range) g")
        }
    }

    @Test func theAlternateAddressAndEveryRateCode() throws {
        for (hertz, code) in [(6.25, UInt8(0x6)), (12.5, 0x7), (25, 0x8), (50, 0x9), (100, 0xA), (200, 0xB), (400, 0xC), (800, 0xD)] {
            let bus = ExpectationBus(adxlInit(0x1D, rate: code))
            try make(bus, 0x1D).configure(IMUConfiguration(outputDataRate: hertz, accelerometerRange: 4))
        }
    }

    @Test func aWrongIdentityAndAnUnsupportedSettingAreRefused() throws {
        let bus = ExpectationBus([.writeRead(0x53, [ADXL.devid], reply: [0x2A])])
        #expect(throws: SensorError.self) { try make(bus).configure(IMUConfiguration(outputDataRate: 100)) }
        let quiet = ExpectationBus([])
        #expect {
            try make(quiet).configure(IMUConfiguration(outputDataRate: 1600))
        } throws: { "\($0)".contains("1600 Hz") && "\($0)".contains("800 Hz") }
        #expect(throws: SensorError.self) { try make(quiet).configure(IMUConfiguration(outputDataRate: 100, lowPassBandwidth: 50)) }
    }

    /// Stream mode; a read: INT_SOURCE (no Overrun), FIFO_STATUS Entries, then one 6-byte read per
    /// entry, numbered on; Overrun restarts the FIFO and reports the overflow.
    @Test func fifoReadsOneSampleAtATimeAndAnOverrunRestartsIt() throws {
        let (bus, imu) = try configured(adxlInit()) { make($0) }
        bus.expect(fifoStart)
        try imu.enableFIFO()
        bus.expect([
            .writeRead(0x53, [ADXL.intSource], reply: [0x82]),  // DATA_READY, watermark
            .writeRead(0x53, [ADXL.fifoStatus], reply: [0x02]),
            .writeRead(0x53, [ADXL.dataX0], reply: littleEndian([0, 0, 256])),
            .writeRead(0x53, [ADXL.dataX0], reply: littleEndian([0, 0, 255])),
        ])
        let read = try imu.readFIFO()
        #expect(read.frames.map(\.sampleIndex) == [0, 1] && !read.overflowed && read.chipClockWrap == nil)
        #expect(read.frames.allSatisfy { $0.chipTime == nil && $0.sample.rotationRate == .zero })
        #expect(close(read.frames[1].sample.acceleration.z, -255.0 / 256))
        bus.expect([.writeRead(0x53, [ADXL.intSource], reply: [0x83])] + fifoStart)
        let overflow = try imu.readFIFO()
        #expect(overflow.overflowed && overflow.frames.isEmpty)
        bus.expect([
            .writeRead(0x53, [ADXL.intSource], reply: [0x80]),
            .writeRead(0x53, [ADXL.fifoStatus], reply: [0x01]),
            .writeRead(0x53, [ADXL.dataX0], reply: littleEndian([0, 0, 256])),
        ])
        #expect(try imu.readFIFO().frames.map(\.sampleIndex) == [0])
    }

    /// A power cycle leaves DATA_FORMAT at 0x00: the read-back says the configuration is lost.
    @Test func aLostConfigurationShowsInDataFormat() throws {
        let (bus, imu) = try configured(adxlInit()) { make($0) }
        bus.expect([.writeRead(0x53, [ADXL.dataFormat], reply: [0x09]), .writeRead(0x53, [ADXL.dataFormat], reply: [0x00])])
        #expect(try imu.isStillConfigured())
        #expect(try !imu.isStillConfigured())
    }

    /// Identification at both addresses on the simulated board, and the descriptor: no gyroscope,
    /// a FIFO without timestamps.
    @Test func identifiedAtBothAddressesWithoutAGyroscope() throws {
        for address in SimulatedBoard.IMU.adxl345.possibleAddresses {
            let board = SimulatedBoard(imu: .adxl345, imuAddress: address, magnetometer: .none, source: ConstantSource(), now: { 0 })
            let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: address))
            #expect(chip.name == "ADXL345" && chip.isIMU && chip.address == address)
        }
        let descriptor = ChipDescriptor.adxl345
        #expect(!descriptor.hasGyroscope && descriptor.gyroscopeRanges.isEmpty && descriptor.fifo?.timestamp == nil)
        #expect(descriptor.identity.addresses == [I2CAddress(0x53), I2CAddress(0x1D)])
        #expect(ChipDescriptor.lsm6dso.hasGyroscope)
    }

    /// At 0x1D an MMA8452Q's register 0x00 is STATUS: never 0xE5 (its XDR and ZDR set with
    /// ZYXDR clear), so identification does not name an ADXL345 there.
    @Test func anMMA8452QStatusIsNoADXL345() throws {
        for status: UInt8 in [0x00, 0x0F, 0xFF] {
            let bus = ExpectationBus([.writeRead(0x1D, [ADXL.devid], reply: [status])])
            #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x1D), among: [.adxl345]) == nil)
        }
    }
}
