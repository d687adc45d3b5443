import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// ICM-45686 direct registers from the DS-000577 register map, written here independently of the driver.
private enum ICM {
    static let accelDataX: UInt8 = 0x00, pwrMgmt0: UInt8 = 0x10, accelConfig0: UInt8 = 0x1B, gyroConfig0: UInt8 = 0x1C
    static let whoAmI: UInt8 = 0x72, misc2: UInt8 = 0x7F
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
        #expect(!imu.hasFIFO && imu.hasGyroscope)
        #expect(throws: SensorError.self) { try imu.enableFIFO() }
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
}
