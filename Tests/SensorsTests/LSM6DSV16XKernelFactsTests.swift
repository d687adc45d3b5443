@testable import Sensors
import Testing

/// LSM6DSV16X/LSM6DSV: drivers/iio/imu/st_lsm6dsx/st_lsm6dsx_core.c (torvalds/linux; the LSM6DSV
/// entry, `.wai = 0x70`, shared by ST_LSM6DSV_ID and ST_LSM6DSV16X_ID; after Debian's 6.1):
/// reset 0x12 BIT(0), bdu 0x12 BIT(6); odr_table 0x10 / 0x11 GENMASK(3, 0), odr_avl 7.5 … 960 Hz
/// = 0x02 … 0x09; fs_table accelerometer 0x17 GENMASK(1, 0), 0x0 … 0x3 = 61 … 488 µg/LSB,
/// gyroscope 0x15 GENMASK(3, 0), 0x1 … 0x4 = 8.75 … 70 mdps/LSB; batch 0x09 GENMASK(3, 0) /
/// GENMASK(7, 4); fifo_diff 0x1b GENMASK(8, 0); ts_settings timer_en 0x50 BIT(6), decimator 0x0a
/// GENMASK(7, 6); the accelerometer and gyroscope channels at 0x28 and 0x22 (st_lsm6dsx_acc_channels,
/// st_lsm6dsx_gyro_channels, shared by every entry). What the kernel does not list (the 125 and
/// 4000 dps codes, the rates above 960 Hz, the timestamp's 21.75 µs, the self-test register) is
/// ST's and is not checked here.
extension KernelCrossCheckTests {
    @Test func lsm6dsv16xDriverMatchesTheKernel() throws {
        let settings = LSM6Settings.settings(for: .lsm6dsv16x)
        let map = settings.layout.map
        #expect(settings.identity == 0x70 && map.identityRegister == 0x0F)
        #expect(settings.layout.control == 0x12 && map.reset?.field.mask == 1 << 0 && STRegisterLayout.blockDataUpdate == 1 << 6)
        #expect(map.accelerometerRate.address == 0x10 && map.accelerometerRate.mask == 0x0F)
        #expect(map.gyroscopeRate.address == 0x11 && map.gyroscopeRate.mask == 0x0F)
        #expect(map.accelerometerRange.address == 0x17 && map.accelerometerRange.mask == 0b11)
        #expect(map.gyroscopeRange.address == 0x15 && map.gyroscopeRange.mask == 0x0F)
        let kernelRates: [(Double, UInt8)] = [(7.5, 2), (15, 3), (30, 4), (60, 5), (120, 6), (240, 7), (480, 8), (960, 9)]
        for (hz, code) in kernelRates {
            #expect(settings.tables.outputDataRates.first { $0.value == hz }?.code == code, "\(hz) Hz")
        }
        let kernelAccelerometer: [(Double, UInt8, Double)] = [(2, 0, 61), (4, 1, 122), (8, 2, 244), (16, 3, 488)]
        for (range, code, microG) in kernelAccelerometer {
            let option = settings.tables.accelerometerRanges.first { $0.value == range }
            #expect(option?.code == code && option.map { abs(1e6 / $0.sensitivity - microG) < 1e-6 } == true, "±\(range) g")
        }
        let kernelGyroscope: [(Double, UInt8, Double)] = [(250, 1, 8.75), (500, 2, 17.5), (1000, 3, 35), (2000, 4, 70)]
        for (range, code, milliDPS) in kernelGyroscope {
            let option = settings.tables.gyroscopeRanges.first { $0.value == range }
            #expect(option?.code == code && option.map { abs(1e3 / $0.sensitivity - milliDPS) < 1e-9 } == true, "±\(range) dps")
        }
        #expect(settings.layout.sample.register == 0x20 && 0x20 + settings.layout.sample.gyroscope == 0x22)
        #expect(0x20 + settings.layout.sample.accelerometer == 0x28)
        let fifo = LSM6TaggedFIFORegisters.dsv
        #expect(fifo.status == 0x1B && fifo.levelHighMask == 0x01)  // DIFF_FIFO bit 8 in FIFO_STATUS2 bit 0
        #expect(fifo.timestampEnable == (0x50, 1 << 6))
    }
}
