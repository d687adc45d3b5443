/// An ST LSM6 family emulator: the LSM6 register model of the chip `Tag` names. Each chip has its
/// own name for it: ``LSM6DSOXEmulator``, ``LSM6DSO32Emulator``, ``LSM6DSLEmulator``,
/// ``LSM6DS3Emulator``, ``LSM6DSREmulator``.
package final class LSM6Emulator<Tag: ChipModelTag>: TaggedEmulator where Tag.Model == LSM6EmulatorModel {
    let engine: EmulatorEngine<LSM6Chip>
    init(engine: EmulatorEngine<LSM6Chip>) { self.engine = engine }
    /// The register read, here and not only in ``EngineBackedDevice``: that extension's witness
    /// for a generic class stays generic (unspecialized chip model: 0.7 k instructions a sample).
    package func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        engine.readRegisters(register, into: buffer)
    }
}

extension LSM6EmulatorModel {
    package enum DSOX: ChipModelTag { public static var model: LSM6EmulatorModel { .dsox } }
    package enum DSO32: ChipModelTag { public static var model: LSM6EmulatorModel { .dso32 } }
    package enum DSL: ChipModelTag { public static var model: LSM6EmulatorModel { .dsl } }
    package enum DS3: ChipModelTag { public static var model: LSM6EmulatorModel { .ds3 } }
    package enum DSR: ChipModelTag { public static var model: LSM6EmulatorModel { .dsr } }
    package enum DSV16X: ChipModelTag { public static var model: LSM6EmulatorModel { .dsv16x } }
}

/// ST LSM6DSOX emulator (WHO_AM_I 0x0F = 0x6C), usually at 0x6A or 0x6B.
///
/// Accelerometer and gyroscope output registers follow `source` at `now()` while their output
/// data rate is set (CTRL1_XL / CTRL2_G ODR ≠ 0) and keep their value in power-down; STATUS_REG
/// flags a new sample at each ODR tick of the chip's clock. The FIFO holds tagged words
/// (tag + 6 bytes) batched at BDR_XL / BDR_GY from the chip's clock; FIFO_STATUS1/2 give the
/// level, watermark and overrun. Self-test (CTRL5_C) and software reset (CTRL3_C) work as in
/// DS12814; IF_INC governs auto-increment.
package typealias LSM6DSOXEmulator = LSM6Emulator<LSM6EmulatorModel.DSOX>

/// ST LSM6DSO32 emulator (WHO_AM_I 0x0F = 0x6C, like the LSM6DSOX: only the board or the
/// caller can tell them apart). As ``LSM6DSOXEmulator`` with the accelerometer full scales
/// doubled: FS_XL 00/01/10/11 = ±4/±32/±8/±16 g at 0.122/0.976/0.244/0.488 mg/LSB (DS13238).
package typealias LSM6DSO32Emulator = LSM6Emulator<LSM6EmulatorModel.DSO32>

/// ST LSM6DSL emulator (WHO_AM_I 0x0F = 0x6A; the LSM6DS3TR-C and LSM6DSM answer the same),
/// usually at 0x6A or 0x6B. As ``LSM6DSOXEmulator`` but with the untagged FIFO of DS11889:
/// 16-bit words at ODR_FIFO, gyroscope set then accelerometer set, decimation per sensor,
/// FIFO_STATUS1–4 (level, watermark, overrun, empty, pattern), output at FIFO_DATA_OUT_L/H.
package typealias LSM6DSLEmulator = LSM6Emulator<LSM6EmulatorModel.DSL>

/// ST LSM6DS3 emulator (WHO_AM_I 0x0F = 0x69), usually at 0x6A or 0x6B. As
/// ``LSM6DSLEmulator``, with the LSM6DS3's power-on axis enables (CTRL9_XL, CTRL10_C = 0x38),
/// 12-bit FIFO level and threshold, and a 16 LSB/°C temperature sensor.
package typealias LSM6DS3Emulator = LSM6Emulator<LSM6EmulatorModel.DS3>

/// ST LSM6DSR / ISM330DHCX emulator (WHO_AM_I 0x0F = 0x6B), usually at 0x6A or 0x6B. As
/// ``LSM6DSOXEmulator`` (the same register map and tagged FIFO) with a ±4000 dps gyroscope range
/// (CTRL2_G FS_4000, bit 0, 140 mdps/LSB: LSM6DSR DS12412 Table 2, ISM330DHCX DS13012 Table 3).
package typealias LSM6DSREmulator = LSM6Emulator<LSM6EmulatorModel.DSR>

/// ST LSM6DSV16X emulator (WHO_AM_I 0x0F = 0x70; the LSM6DSV answers the same), usually at 0x6A
/// or 0x6B. As ``LSM6DSOXEmulator`` (tagged FIFO, TAG_CNT, timestamp words) on the LSM6DSV16X's
/// map (DS13510): rates in CTRL1/CTRL2 bits 3:0 (7.5 Hz…7.68 kHz), full scales in CTRL8 (±2…16 g)
/// and CTRL6 (±125…4000 dps), FIFO_STATUS1/2 at 1Bh/1Ch, TIMESTAMP_EN in FUNCTIONS_ENABLE (50h).
/// Its self-test, embedded functions and OP_MODE fields are not modelled.
package typealias LSM6DSV16XEmulator = LSM6Emulator<LSM6EmulatorModel.DSV16X>
