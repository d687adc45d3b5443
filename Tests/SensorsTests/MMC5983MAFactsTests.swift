import I2C
@testable import MotionSimulator
@testable import Sensors
import Testing

/// MMC5983MA: drivers/iio/magnetometer/mmc5983.c (torvalds/linux, read at 258ad62; new in 2026,
/// not in Debian's 6.1 kernel): MMC5983_REG_ID 0x2F = MMC5983_PRODUCT_ID 0x30; MMC5983_REG_XOUT0
/// 0x00 … XYZOUT2 0x06, each axis (buf[0] << 10) | (buf[1] << 2) | two bits of buf[6] (x 7:6,
/// y 5:4, z 3:2); MMC5983_REG_STATUS 0x08, MEAS_M_DONE BIT(0); MMC5983_REG_CTRL0 0x09 with TM_M
/// BIT(0), SET BIT(3), RESET BIT(4); MMC5983_REG_CTRL1 0x0A SW_RST BIT(7); the raw value
/// (after SET − after RESET) / 2 at a scale of 0.000061035 gauss per count (1/16384). The null
/// field, 131072 (2¹⁷), is the datasheet's (the kernel's difference cancels it).
extension KernelCrossCheckTests {
    static let mmc5983maDatasheet = (
        productIDRegister: UInt8(0x2F), productID: UInt8(0x30), xOut0: UInt8(0x00), xyzOut2: UInt8(0x06), status: UInt8(0x08),
        control0: UInt8(0x09), control1: UInt8(0x0A), softwareReset: UInt8(1 << 7), gaussPerCount: 61035e-9, nullField: 131_072)

    @Test func mmc5983maDriverMatchesTheKernel() {
        let d = Self.mmc5983maDatasheet
        let settings = MMC5983MAMagnetometer.settings
        #expect(settings.identityRegister == d.productIDRegister && settings.identity == [d.productID])
        #expect(MMC5983MARegister.xOut0 == d.xOut0 && MMC5983MARegister.status == d.status && MMC5983MARegister.control0 == d.control0)
        #expect(MMC5983MARegister.takeMeasurement == 0x01 && MMC5983MARegister.set == 0x08 && MMC5983MARegister.reset == 0x10)
        #expect(MMC5983MARegister.control1 == d.control1 && MMC5983MARegister.softwareReset == d.softwareReset)
        #expect(MMC5983MARegister.nullField == d.nullField)
        #expect(abs(1 / (MMC5983MARegister.countsPerMicrotesla * 100) / d.gaussPerCount - 1) < 1e-5)
        #expect(settings.ranges.map(\.value) == [800])
    }

    @Test func mmc5983maEmulatorMatchesTheKernel() throws {
        let d = Self.mmc5983maDatasheet
        let board = SimulatedBoard(imu: .mpu6050, magnetometer: .chip(.mmc5983ma), source: ConstantSource(), now: { 0 })
        #expect(try board.bus.readRegister(I2CAddress(0x30), d.productIDRegister) == d.productID)
        #expect(MMC5983MAChip.xOut0 == d.xOut0 && MMC5983MAChip.xyzOut2 == d.xyzOut2 && MMC5983MAChip.status == d.status)
        #expect(MMC5983MAChip.control0 == d.control0 && MMC5983MAChip.control1 == d.control1 && MMC5983MAChip.nullField == Double(d.nullField))
        #expect(abs(1 / MMC5983MAChip.countsPerGauss / d.gaussPerCount - 1) < 1e-5)
    }
}
