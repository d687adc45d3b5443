import I2C
@testable import MotionSimulator
@testable import Sensors
import Testing

/// ADXL345: drivers/iio/accel/adxl345_core.c (torvalds/linux, read at 01676b0): ADXL345_REG_DEVID
/// 0x00 = ADXL345_DEVID 0xE5; ADXL345_REG_BW_RATE 0x2C, rate field GENMASK(3, 0), rate =
/// ADXL345_BASE_RATE_NANO_HZ 97656250 nHz << code; ADXL345_REG_POWER_CTL 0x2D, MEASURE BIT(3);
/// ADXL345_REG_DATA_FORMAT 0x31, FULL_RES BIT(3), ranges 0…3 = ±2…16 g; ADXL345_REG_DATAX0 0x32,
/// little-endian (`__le16`), sign-extended from bit 12; scale adxl345_uscale 38300 µ(m/s²)/LSB
/// ("(16 + 16) * 9.81 / (2^13 - 1)": ~4 mg/LSB in full resolution at every range).
extension KernelCrossCheckTests {
    static let adxl345Kernel = (
        devidRegister: UInt8(0x00), devid: UInt8(0xE5), bwRate: UInt8(0x2C), rateMask: UInt8(0x0F), baseRate: 0.09765625,
        powerCtl: UInt8(0x2D), measure: UInt8(1 << 3), dataFormat: UInt8(0x31), fullResolution: UInt8(1 << 3), dataX0: UInt8(0x32),
        microMetresPerSecondSquaredPerLSB: 38300.0)

    /// The kernel's scale is its own rounding of ~4 mg/LSB (0.02 % from the datasheet's 256 LSB/g).
    static let adxl345ScaleTolerance = 0.001

    @Test func adxl345DriverMatchesTheKernel() throws {
        let k = Self.adxl345Kernel
        #expect(ADXL345Register.deviceID == k.devidRegister && ADXL345Settings.identity == k.devid)
        #expect(ADXL345Register.bandwidthRate == k.bwRate && ADXL345Register.powerControl == k.powerCtl && ADXL345Register.measure == k.measure)
        #expect(ADXL345Register.dataFormat == k.dataFormat && ADXL345Register.fullResolution == k.fullResolution)
        #expect(ADXL345Register.dataX0 == k.dataX0)
        let tables = ADXL345Settings().tables
        for option in tables.outputDataRates {
            #expect(option.code & k.rateMask == option.code && k.baseRate * Double(1 << option.code) == option.value, "\(option.value) Hz")
        }
        #expect(tables.accelerometerRanges.map(\.code) == [0, 1, 2, 3] && tables.accelerometerRanges.map(\.value) == [2, 4, 8, 16])
        let kernelMicroG = k.microMetresPerSecondSquaredPerLSB / PhysicalState.standardGravity
        for option in tables.accelerometerRanges {
            #expect(abs(1e6 / option.sensitivity / kernelMicroG - 1) <= Self.adxl345ScaleTolerance, "±\(option.value) g")
        }
        #expect(tables.gyroscopeRanges.isEmpty)
    }

    func adxl345EmulatorMatchesTheKernel() throws {
        let k = Self.adxl345Kernel
        let board = SimulatedBoard(imu: .adxl345, magnetometer: .none, source: ConstantSource(), now: { 0 })
        #expect(try board.bus.readRegister(SimulatedBoard.IMU.adxl345.usualAddress, k.devidRegister) == k.devid)
        #expect(ADXL345Chip.bwRate == k.bwRate && ADXL345Chip.powerCtl == k.powerCtl && ADXL345Chip.dataFormat == k.dataFormat)
        #expect(ADXL345Chip.dataX0 == k.dataX0)
        let kernelMicroG = k.microMetresPerSecondSquaredPerLSB / PhysicalState.standardGravity
        #expect(abs(1e6 / ADXL345Chip.fullResolutionLSBPerG / kernelMicroG - 1) <= Self.adxl345ScaleTolerance)
    }
}
