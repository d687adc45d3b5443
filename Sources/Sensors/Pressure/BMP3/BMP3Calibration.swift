/// The BMP388/BMP390's factory coefficients (NVM_PAR_T1 … NVM_PAR_P11 at 0x31…0x45, 21 bytes,
/// little-endian words: BST-BMP388-DS001 §3.11.1 / BST-BMP390-DS002 §3.11.1; the same types as
/// Linux `bmp280.h` `struct bmp380_calib`) and the datasheet's floating-point compensation
/// (Appendix 9: the coefficients scaled by the powers of two of §9.1, then the temperature and
/// pressure polynomials).
package struct BMP3Calibration: Sendable, Equatable {
    package var t1: UInt16, t2: UInt16, t3: Int8
    package var p1: Int16, p2: Int16, p3: Int8, p4: Int8, p5: UInt16, p6: UInt16
    package var p7: Int8, p8: Int8, p9: Int16, p10: Int8, p11: Int8

    /// The number of coefficient bytes from 0x31 on.
    package static let byteCount = 21

    package init(t1: UInt16, t2: UInt16, t3: Int8, p1: Int16, p2: Int16, p3: Int8, p4: Int8, p5: UInt16, p6: UInt16,
                 p7: Int8, p8: Int8, p9: Int16, p10: Int8, p11: Int8) {
        (self.t1, self.t2, self.t3) = (t1, t2, t3)
        (self.p1, self.p2, self.p3, self.p4, self.p5, self.p6) = (p1, p2, p3, p4, p5, p6)
        (self.p7, self.p8, self.p9, self.p10, self.p11) = (p7, p8, p9, p10, p11)
    }

    /// The 21 bytes from 0x31 on, in register order.
    package init<Bytes: RandomAccessCollection<UInt8>>(registers bytes: Bytes) where Bytes.Index == Int {
        let b = bytes.startIndex
        func u16(_ i: Int) -> UInt16 { UInt16(bytes[b + i]) | UInt16(bytes[b + i + 1]) << 8 }
        func s16(_ i: Int) -> Int16 { Int16(bitPattern: u16(i)) }
        func s8(_ i: Int) -> Int8 { Int8(bitPattern: bytes[b + i]) }
        self.init(t1: u16(0), t2: u16(2), t3: s8(4), p1: s16(5), p2: s16(7), p3: s8(9), p4: s8(10), p5: u16(11), p6: u16(13),
                  p7: s8(15), p8: s8(16), p9: s16(17), p10: s8(19), p11: s8(20))
    }

    /// The 21 bytes as the chip holds them (what an emulator serves).
    package var registers: [UInt8] {
        func le(_ word: UInt16) -> [UInt8] { [UInt8(word & 0xFF), UInt8(word >> 8)] }
        func byte(_ value: Int8) -> [UInt8] { [UInt8(bitPattern: value)] }
        return le(t1) + le(t2) + byte(t3) + le(UInt16(bitPattern: p1)) + le(UInt16(bitPattern: p2)) + byte(p3) + byte(p4)
            + le(p5) + le(p6) + byte(p7) + byte(p8) + le(UInt16(bitPattern: p9)) + byte(p10) + byte(p11)
    }

    /// The coefficients as the compensation uses them (Appendix 9.1: NVM_PAR_x / 2^n, and for P1
    /// and P2 (NVM_PAR_x − 2^14) / 2^n).
    package struct Scaled: Sendable, Equatable {
        package var t1, t2, t3: Double
        package var p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11: Double
    }

    package var scaled: Scaled {
        func pow2(_ n: Int) -> Double { Double(sign: .plus, exponent: n, significand: 1) }
        return Scaled(
            t1: Double(t1) / pow2(-8), t2: Double(t2) / pow2(30), t3: Double(t3) / pow2(48),
            p1: (Double(p1) - pow2(14)) / pow2(20), p2: (Double(p2) - pow2(14)) / pow2(29),
            p3: Double(p3) / pow2(32), p4: Double(p4) / pow2(37), p5: Double(p5) / pow2(-3), p6: Double(p6) / pow2(6),
            p7: Double(p7) / pow2(8), p8: Double(p8) / pow2(15), p9: Double(p9) / pow2(48), p10: Double(p10) / pow2(48),
            p11: Double(p11) / pow2(65))
    }

    /// °C from the 24-bit temperature reading (Appendix 9: the linearised temperature t_lin).
    package static func temperature(rawTemperature uT: UInt32, _ c: Scaled) -> Double {
        let partial1 = Double(uT) - c.t1
        let partial2 = partial1 * c.t2
        return partial2 + partial1 * partial1 * c.t3
    }

    /// Pa from the 24-bit pressure reading and t_lin (Appendix 9), term by term in the datasheet's
    /// order: an offset polynomial in t_lin, the reading times a sensitivity polynomial, and the
    /// reading's square and cube terms.
    package static func pressure(rawPressure uP: UInt32, temperature t: Double, _ c: Scaled) -> Double {
        let p = Double(uP)
        let offset = c.p5 + c.p6 * t + c.p7 * (t * t) + c.p8 * (t * t * t)
        let sensitivity = p * (c.p1 + c.p2 * t + c.p3 * (t * t) + c.p4 * (t * t * t))
        let square = (p * p) * (c.p9 + c.p10 * t)
        let higher = square + (p * p * p) * c.p11
        return offset + sensitivity + higher
    }

    /// Pa and °C from one burst's raw readings.
    package func compensate(rawPressure: UInt32, rawTemperature: UInt32) -> PressureSample {
        let c = scaled
        let t = Self.temperature(rawTemperature: rawTemperature, c)
        return PressureSample(pressure: Self.pressure(rawPressure: rawPressure, temperature: t, c), temperature: t)
    }
}
