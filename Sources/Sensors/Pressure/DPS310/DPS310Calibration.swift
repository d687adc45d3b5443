/// The DPS310's calibration coefficients (COEF, 18 bytes at 0x10…0x21: c0 and c1 12-bit, c00 and
/// c10 20-bit, c01, c11, c20, c21, c30 16-bit, all two's complement, most significant bits first;
/// the same unpacking as Linux `drivers/iio/pressure/dps310.c` `dps310_get_coefs`) and the
/// datasheet's compensation in floating point (§4.9: scaled raw values, then the temperature line
/// and the pressure polynomial).
package struct DPS310Calibration: Sendable, Equatable {
    package var c0, c1, c00, c10, c01, c11, c20, c21, c30: Int32

    package static let byteCount = 18

    /// The compensation scale factors kP/kT by oversampling code 0…7 (×1 … ×128): the datasheet's
    /// table, the same as Linux `dps310.c` `scale_factors`.
    package static let scaleFactors: [Double] = [524_288, 1_572_864, 3_670_016, 7_864_320, 253_952, 516_096, 1_040_384, 2_088_960]

    package init(c0: Int32, c1: Int32, c00: Int32, c10: Int32, c01: Int32, c11: Int32, c20: Int32, c21: Int32, c30: Int32) {
        (self.c0, self.c1, self.c00, self.c10, self.c01, self.c11, self.c20, self.c21, self.c30) = (c0, c1, c00, c10, c01, c11, c20, c21, c30)
    }

    /// The 18 bytes from 0x10 on.
    package init<Bytes: RandomAccessCollection<UInt8>>(registers bytes: Bytes) where Bytes.Index == Int {
        let b = bytes.startIndex
        func byte(_ i: Int) -> Int32 { Int32(bytes[b + i]) }
        func signed(_ value: Int32, bits: Int32) -> Int32 { (value << (32 - bits)) >> (32 - bits) }
        func word(_ i: Int) -> Int32 { signed(byte(i) << 8 | byte(i + 1), bits: 16) }
        self.init(
            c0: signed(byte(0) << 4 | byte(1) >> 4, bits: 12),
            c1: signed((byte(1) & 0xF) << 8 | byte(2), bits: 12),
            c00: signed(byte(3) << 12 | byte(4) << 4 | byte(5) >> 4, bits: 20),
            c10: signed((byte(5) & 0xF) << 16 | byte(6) << 8 | byte(7), bits: 20),
            c01: word(8), c11: word(10), c20: word(12), c21: word(14), c30: word(16))
    }

    /// The 18 bytes as the chip holds them (what an emulator serves).
    package var registers: [UInt8] {
        func u(_ value: Int32, _ bits: Int32) -> UInt32 { UInt32(bitPattern: value) & ((1 << UInt32(bits)) - 1) }
        let (c0, c1, c00, c10) = (u(self.c0, 12), u(self.c1, 12), u(self.c00, 20), u(self.c10, 20))
        var bytes: [UInt8] = [UInt8(c0 >> 4), UInt8((c0 & 0xF) << 4 | c1 >> 8), UInt8(c1 & 0xFF),
                              UInt8(c00 >> 12), UInt8((c00 >> 4) & 0xFF), UInt8((c00 & 0xF) << 4 | c10 >> 16),
                              UInt8((c10 >> 8) & 0xFF), UInt8(c10 & 0xFF)]
        for word in [c01, c11, c20, c21, c30] {
            let w = u(word, 16)
            bytes += [UInt8(w >> 8), UInt8(w & 0xFF)]
        }
        return bytes
    }

    /// °C from the 24-bit temperature reading and its scale factor (§4.9.2).
    package func temperature(rawTemperature: Int32, kT: Double) -> Double {
        let scaled = Double(rawTemperature) / kT
        return Double(c0) * 0.5 + Double(c1) * scaled
    }

    /// Pa from the 24-bit readings and their scale factors (§4.9.1).
    package func pressure(rawPressure: Int32, kP: Double, rawTemperature: Int32, kT: Double) -> Double {
        let p = Double(rawPressure) / kP
        let t = Double(rawTemperature) / kT
        return Double(c00) + p * (Double(c10) + p * (Double(c20) + p * Double(c30))) + t * Double(c01)
            + t * p * (Double(c11) + p * Double(c21))
    }
}
