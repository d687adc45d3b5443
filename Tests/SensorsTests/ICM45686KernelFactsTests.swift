import I2C
@testable import MotionSimulator
@testable import Sensors
import Testing

/// ICM-45686: drivers/iio/imu/inv_icm45600/ (torvalds/linux, read at 06674a7; new in 6.18, not in
/// Debian's 6.1): inv_icm45600.h INV_ICM45600_REG_WHOAMI 0x72 = INV_ICM45600_WHOAMI_ICM45686
/// 0xE9; REG_MISC2 0x7F, SOFT_RESET BIT(1); PWR_MGMT0 0x10 (GYRO_MODE GENMASK(3, 2), ACCEL_MODE
/// GENMASK(1, 0), LOW_NOISE 3); ACCEL_CONFIG0 0x1B (FS GENMASK(6, 4), ODR GENMASK(3, 0));
/// GYRO_CONFIG0 0x1C (FS GENMASK(7, 4), ODR GENMASK(3, 0)); ACCEL_DATA_X 0x00, GYRO_DATA_X 0x06,
/// TEMP_DATA 0x0C, read as `__le16`; enum inv_icm45600_odr 3 = 6400 Hz … 12 = 12.5 Hz (periods
/// 156250 ns … 80 ms); enum inv_icm45686_accel_fs 0…4 = ±32…±2 g; inv_icm45686_gyro_fs 0…8 =
/// ±4000…±15.625 °/s; inv_icm45600_temp.c: °C = raw / 128 + 25.
extension KernelCrossCheckTests {
    static let icm45686Kernel = (
        whoAmIRegister: UInt8(0x72), whoAmI: UInt8(0xE9), misc2: UInt8(0x7F), softReset: UInt8(1 << 1), pwrMgmt0: UInt8(0x10),
        accelConfig0: UInt8(0x1B), gyroConfig0: UInt8(0x1C), accelData: UInt8(0x00), gyroData: UInt8(0x06), tempData: UInt8(0x0C),
        accelFullScales: [32.0, 16, 8, 4, 2], gyroFullScales: [4000.0, 2000, 1000, 500, 250, 125, 62.5, 31.25, 15.625],
        rates: [(UInt8(3), 6400.0), (4, 3200), (5, 1600), (6, 800), (7, 400), (8, 200), (9, 100), (10, 50), (11, 25), (12, 12.5)],
        temperatureLSBPerDegree: 128.0)

    @Test func icm45686DriverMatchesTheKernel() throws {
        let k = Self.icm45686Kernel
        #expect(ICM45600Register.whoAmI == k.whoAmIRegister && ICM45600Settings.icm45686Identity == k.whoAmI)
        #expect(ICM45600Register.misc2 == k.misc2 && ICM45600Register.map.reset?.field.mask == k.softReset)
        #expect(ICM45600Register.powerManagement0 == k.pwrMgmt0 && ICM45600Register.accelConfig0 == k.accelConfig0)
        #expect(ICM45600Register.gyroConfig0 == k.gyroConfig0 && ICM45600Register.accelDataX == k.accelData)
        #expect(ICM45600Register.temperatureData == k.tempData && ICM45600Settings.temperatureLSBPerDegree == k.temperatureLSBPerDegree)
        let tables = ICM45600Settings().tables
        #expect(tables.outputDataRates.map(\.code) == k.rates.map(\.0) && tables.outputDataRates.map(\.value) == k.rates.map(\.1))
        for option in tables.accelerometerRanges { #expect(k.accelFullScales[Int(option.code)] == option.value, "±\(option.value) g") }
        for option in tables.gyroscopeRanges {
            #expect(k.gyroFullScales[Int(option.code)] == option.value, "±\(option.value) °/s")
            // The datasheet's rounded LSB/(°/s) within 0.1 % of the kernel's 32768 / full scale.
            #expect(abs(option.sensitivity / (32768 / option.value) - 1) <= 0.001, "±\(option.value) °/s")
        }
    }

    @Test func icm45686EmulatorMatchesTheKernel() throws {
        let k = Self.icm45686Kernel
        let board = SimulatedBoard(imu: .icm45686, magnetometer: .none, source: ConstantSource(), now: { 0 })
        #expect(try board.bus.readRegister(SimulatedBoard.IMU.icm45686.usualAddress, k.whoAmIRegister) == k.whoAmI)
        #expect(ICM45686Chip.misc2 == k.misc2 && ICM45686Chip.pwrMgmt0 == k.pwrMgmt0 && ICM45686Chip.accelConfig0 == k.accelConfig0)
        #expect(ICM45686Chip.gyroConfig0 == k.gyroConfig0 && ICM45686Chip.accelDataX == k.accelData && ICM45686Chip.tempData == k.tempData)
        #expect(ICM45686Chip.temperatureSensitivity == k.temperatureLSBPerDegree)
        for (code, hz) in k.rates { #expect(ICM45686Chip.rates[code] == hz, "\(hz) Hz") }
        for (code, range) in k.accelFullScales.enumerated() { #expect(ICM45686Chip.accelSensitivity[code] == 32768 / range, "±\(range) g") }
        for (code, range) in k.gyroFullScales.enumerated() {
            #expect(abs(ICM45686Chip.gyroSensitivity[code] / (32768 / range) - 1) <= 0.001, "±\(range) °/s")
        }
    }

    /// The FIFO: inv_icm45600.h REG_FIFO_COUNT 0x12 (le16, packets: inv_icm45600_buffer_fifo_read
    /// multiplies it by the packet size), REG_FIFO_DATA 0x14, REG_INT1_CONFIG0 0x16 (FIFO_FULL_EN
    /// BIT(0)), REG_INT_STATUS 0x19 (FIFO_FULL BIT(0)), REG_FIFO_CONFIG0 0x1D (MODE GENMASK(7, 6):
    /// BYPASS 0, STREAM 1; FIFO_DEPTH_MAX 0x1F), REG_FIFO_CONFIG2 0x20 (FIFO_FLUSH BIT(7)),
    /// REG_FIFO_CONFIG3 0x21 (GYRO_EN BIT(2), ACCEL_EN BIT(1), IF_EN BIT(0)), REG_FIFO_CONFIG4 0x22
    /// (TMST_FSYNC_EN BIT(1)), REG_SMC_CONTROL_0 0xA258 (TMST_EN BIT(0)), REG_IREG_ADDR 0x7C,
    /// REG_IREG_DATA 0x7E; inv_icm45600_buffer.c: FIFO header EXT_HEADER BIT(7), ACCEL BIT(6),
    /// GYRO BIT(5), TMST_FSYNC GENMASK(3, 2), ODR_ACCEL BIT(1), ODR_GYRO BIT(0); struct
    /// inv_icm45600_fifo_2sensors_packet: header, accel (3 × __le16), gyro (3 × __le16), s8 temp,
    /// __le16 timestamp (16 bytes, packed); inv_icm45600_accel.c: FIFO temperature × 64 to the
    /// 128 LSB/°C of TEMP_DATA (2 LSB/°C).
    @Test func icm45686FIFOMatchesTheKernel() throws {
        typealias R = ICM45600Register
        #expect(R.fifoCount == 0x12 && R.fifoData == 0x14 && R.interrupt1Config0 == 0x16 && R.interruptStatus == 0x19)
        #expect(R.fifoConfig0 == 0x1D && R.fifoConfig2 == 0x20 && R.fifoConfig3 == 0x21 && R.fifoConfig4 == 0x22)
        #expect(R.indirectAddress == 0x7C && R.indirectData == 0x7E && R.smcControl0 == (0xA2, 0x58) && R.timestampEnable == 1 << 0)
        #expect(R.fifoBypass == 0 << 6 | 0x1F && R.fifoStream == 1 << 6 | 0x1F && R.fifoFlush == 1 << 7)
        #expect(R.fifoSensors == 1 << 2 | 1 << 1 && R.fifoWriting == 1 << 2 | 1 << 1 | 1 << 0 && R.fifoTimestamps == 1 << 1)
        #expect(R.fifoFullInterrupt == 1 << 0)
        let packet = ICM45600Settings.fifoPacket
        #expect(ICMFIFOPacket.size == 1 + 6 + 6 + 1 + 2 && ICMFIFOPacket.accelerometerOffset == 1 && ICMFIFOPacket.gyroscopeOffset == 7)
        #expect(ICMFIFOPacket.temperatureOffset == 13 && ICMFIFOPacket.timestampOffset == 14 && !packet.byteOrder.bigEndian)
        #expect(ICMFIFOPacket.headerEnd == 1 << 7 && ICMFIFOPacket.headerAccelerometer == 1 << 6 && ICMFIFOPacket.headerGyroscope == 1 << 5)
        #expect(ICMFIFOPacket.headerTimestampField == 0b11 << 2 && ICMFIFOPacket.headerRateChanged == 0b11)
        #expect(packet.temperatureLSBPerDegree == 128.0 / 64)
        #expect(ICM45686Chip.fifoCount == 0x12 && ICM45686Chip.fifoData == 0x14 && ICM45686Chip.fifoConfig0 == 0x1D)
        #expect(ICM45686Chip.fifoConfig3 == 0x21 && ICM45686Chip.smcControl0 == 0xA258 && ICM45686Chip.iregAddress == 0x7C)
        #expect(ICM45686Chip.fifoTemperatureSensitivity == 128.0 / 64 && ICM45686Chip.fifoCapacity == 8 * 1024)
    }
}
