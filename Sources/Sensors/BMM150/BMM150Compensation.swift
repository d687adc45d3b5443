/// The BMM150's factory trim registers 0x5D–0x71 (datasheet BST-BMM150-DS001 register map, "trim
/// registers"; the layout of the Linux kernel's `struct bmc150_magn_trim_regs` in
/// drivers/iio/magnetometer/bmc150_magn.c, read as one 21-byte burst from
/// BMC150_MAGN_REG_TRIM_START 0x5D to BMC150_MAGN_REG_TRIM_END 0x71).
package struct BMM150Trim: Sendable, Equatable {
    package var x1: Int8        // 0x5D
    package var y1: Int8        // 0x5E
    package var z4: Int16       // 0x62–0x63, little-endian
    package var x2: Int8        // 0x64
    package var y2: Int8        // 0x65
    package var z2: Int16       // 0x68–0x69
    package var z1: UInt16      // 0x6A–0x6B
    package var xyz1: UInt16    // 0x6C–0x6D
    package var z3: Int16       // 0x6E–0x6F
    package var xy2: Int8       // 0x70
    package var xy1: UInt8      // 0x71

    /// The first trim register and the burst that holds them all.
    static let firstRegister: UInt8 = 0x5D
    static let burstLength = 0x71 - 0x5D + 1

    /// The trim from the 21 bytes read from 0x5D on.
    init<Bytes: RandomAccessCollection<UInt8>>(registers bytes: Bytes) where Bytes.Index == Int {
        func at(_ register: Int) -> UInt8 { bytes[bytes.startIndex + register - 0x5D] }
        func word(_ register: Int) -> UInt16 { UInt16(at(register)) | UInt16(at(register + 1)) << 8 }
        x1 = Int8(bitPattern: at(0x5D))
        y1 = Int8(bitPattern: at(0x5E))
        z4 = Int16(bitPattern: word(0x62))
        x2 = Int8(bitPattern: at(0x64))
        y2 = Int8(bitPattern: at(0x65))
        z2 = Int16(bitPattern: word(0x68))
        z1 = word(0x6A)
        xyz1 = word(0x6C)
        z3 = Int16(bitPattern: word(0x6E))
        xy2 = Int8(bitPattern: at(0x70))
        xy1 = at(0x71)
    }
}

/// The BMM150's temperature compensation: the raw Hall counts and the Hall resistance RHALL
/// turned into the field with the part's trim, in 1/16 µT. The arithmetic is Bosch's integer
/// compensation as the kernel's bmc150_magn.c (bmc150_magn_compensate_x/_y/_z, "16 LSB/uT")
/// does it, step for step, so this driver and the kernel's agree to the count on one register
/// image (i2c-kernel-check). Every step is wrapping or guarded: no input traps.
package enum BMM150Compensation {
    /// What an x or y reading of −4096 (13 bits) and a z reading of −16384 (15 bits) mean: the
    /// axis overflowed (kernel BMC150_MAGN_XY_OVERFLOW_VAL, BMC150_MAGN_Z_OVERFLOW_VAL).
    package static let xyOverflow: Int16 = -4096
    package static let zOverflow: Int16 = -16384
    /// Compensated counts per µT (kernel: IIO scale 0.000625 gauss = 1/16 µT).
    package static let countsPerMicrotesla = 16.0

    /// x (with `x1`, `x2`) or y (with `y1`, `y2`), in 1/16 µT; nil for an overflow, or a trim and
    /// RHALL that are both 0 (nothing to compensate with).
    ///
    /// With r = RHALL (or XYZ1 where RHALL reads 0): v = XYZ1·2¹⁴/r − 2¹⁴ (16-bit); the
    /// sensitivity factor s = ((XY2·(v²/2⁷) + v·XY1·2⁷)/2⁹ + 2²⁰)·(X2 + 160)/2¹²; the field
    /// raw·s/2¹³ + X1·8.
    package static func xy(_ raw: Int16, rhall: UInt16, trim: BMM150Trim, axis1: Int8, axis2: Int8) -> Int32? {
        guard raw != xyOverflow else { return nil }
        let r = Int32(rhall != 0 ? rhall : trim.xyz1)
        guard r != 0 else { return nil }
        let ratio = UInt16(truncatingIfNeeded: (Int32(trim.xyz1) << 14) / r)
        let v = Int32(Int16(truncatingIfNeeded: Int32(ratio) &- 0x4000))
        let quadratic = (Int32(trim.xy2) &* ((v &* v) >> 7) &+ v &* (Int32(trim.xy1) << 7)) >> 9
        let sensitivity = ((quadratic &+ 0x10_0000) &* (Int32(axis2) + 0xA0)) >> 12
        let scaled = Int32(Int16(truncatingIfNeeded: (Int32(raw) &* sensitivity) >> 13))
        return Int32(Int16(truncatingIfNeeded: scaled &+ (Int32(axis1) << 3)))
    }

    /// z in 1/16 µT; nil for an overflow or a trim that cannot compensate (a zero divisor).
    ///
    /// ((raw − Z4)·2¹⁵ − Z3·(RHALL − XYZ1)/4) / (Z2 + (Z1·2·RHALL + 2¹⁵)/2¹⁶).
    package static func z(_ raw: Int16, rhall: UInt16, trim: BMM150Trim) -> Int32? {
        guard raw != zOverflow else { return nil }
        let hall = Int32(Int16(truncatingIfNeeded: rhall))
        let numerator = ((Int32(raw) &- Int32(trim.z4)) << 15) &- ((Int32(trim.z3) &* (hall &- Int32(Int16(truncatingIfNeeded: trim.xyz1)))) >> 2)
        let divisor = Int32(trim.z2) &+ Int32(Int16(truncatingIfNeeded: (Int32(trim.z1) &* (hall << 1) &+ (1 << 15)) >> 16))
        guard divisor != 0, !(numerator == .min && divisor == -1) else { return nil }
        return numerator / divisor
    }
}
