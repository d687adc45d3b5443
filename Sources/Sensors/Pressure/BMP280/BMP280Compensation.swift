/// The BMP280's (and BME280's) factory trimming parameters (registers 0x88…0x9F, little-endian words:
/// BST-BMP280-DS001 §3.11.2 Table 17) and the datasheet's integer compensation (§3.11.3 and §8.2:
/// the 32-bit version for temperature, the 64-bit version for pressure, as Linux's
/// `drivers/iio/pressure/bmp280-core.c` also computes them).
package struct BMP280Calibration: Sendable, Equatable {
    package var t1: UInt16, t2: Int16, t3: Int16
    package var p1: UInt16, p2: Int16, p3: Int16, p4: Int16, p5: Int16, p6: Int16, p7: Int16, p8: Int16, p9: Int16

    package init(t1: UInt16, t2: Int16, t3: Int16,
                 p1: UInt16, p2: Int16, p3: Int16, p4: Int16, p5: Int16, p6: Int16, p7: Int16, p8: Int16, p9: Int16) {
        (self.t1, self.t2, self.t3) = (t1, t2, t3)
        (self.p1, self.p2, self.p3, self.p4, self.p5, self.p6, self.p7, self.p8, self.p9) = (p1, p2, p3, p4, p5, p6, p7, p8, p9)
    }

    /// The 24 trimming bytes from 0x88 on, in register order (dig_T1 … dig_P9, LSB first).
    package init<Bytes: RandomAccessCollection<UInt8>>(registers bytes: Bytes) where Bytes.Index == Int {
        let b = bytes.startIndex
        func word(_ i: Int) -> UInt16 { UInt16(bytes[b + 2 * i]) | UInt16(bytes[b + 2 * i + 1]) << 8 }
        func signed(_ i: Int) -> Int16 { Int16(bitPattern: word(i)) }
        self.init(t1: word(0), t2: signed(1), t3: signed(2),
                  p1: word(3), p2: signed(4), p3: signed(5), p4: signed(6), p5: signed(7), p6: signed(8),
                  p7: signed(9), p8: signed(10), p9: signed(11))
    }

    /// The 24 trimming bytes as the chip holds them (what an emulator serves).
    package var registers: [UInt8] {
        [t1, UInt16(bitPattern: t2), UInt16(bitPattern: t3), p1]
            .appending([p2, p3, p4, p5, p6, p7, p8, p9].map { UInt16(bitPattern: $0) })
            .flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    /// §3.11.3's fine temperature `t_fine` from the 20-bit temperature reading.
    package func fineTemperature(rawTemperature adcT: Int32) -> Int32 {
        let t1 = Int32(self.t1), t2 = Int32(self.t2), t3 = Int32(self.t3)
        let var1 = (((adcT >> 3) - (t1 << 1)) * t2) >> 11
        let delta = (adcT >> 4) - t1
        let var2 = (((delta * delta) >> 12) * t3) >> 14
        return var1 + var2
    }

    /// Temperature in 0.01 °C (§3.11.3: "5123" is 51.23 °C).
    package func temperature(fine: Int32) -> Int32 { (fine * 5 + 128) >> 8 }

    /// Pressure in Pa as Q24.8 (§3.11.3: 24674867 is 24674867 / 256 = 96386.2 Pa), from the
    /// 20-bit pressure reading; nil when dig_P1 is 0 (the datasheet's guard against dividing by zero).
    package func pressure(rawPressure adcP: Int32, fine: Int32) -> UInt32? {
        var var1 = Int64(fine) - 128_000
        var var2 = var1 * var1 * Int64(p6)
        var2 += (var1 * Int64(p5)) << 17
        var2 += Int64(p4) << 35
        var1 = ((var1 * var1 * Int64(p3)) >> 8) + ((var1 * Int64(p2)) << 12)
        var1 = (((Int64(1) << 47) + var1) * Int64(p1)) >> 33
        guard var1 != 0 else { return nil }
        var p = 1_048_576 - Int64(adcP)
        p = (((p << 31) - var2) * 3125) / var1
        var1 = (Int64(p9) * (p >> 13) * (p >> 13)) >> 25
        var2 = (Int64(p8) * p) >> 19
        p = ((p + var1 + var2) >> 8) + (Int64(p7) << 4)
        return UInt32(truncatingIfNeeded: p)
    }

    /// Pa and °C from one burst's raw readings; nil when dig_P1 is 0.
    package func compensate(rawPressure: Int32, rawTemperature: Int32) -> PressureSample? {
        let fine = fineTemperature(rawTemperature: rawTemperature)
        guard let q24_8 = pressure(rawPressure: rawPressure, fine: fine) else { return nil }
        return PressureSample(pressure: Double(q24_8) / 256, temperature: Double(temperature(fine: fine)) / 100)
    }
}

extension Array {
    fileprivate func appending(_ others: [Element]) -> [Element] { self + others }
}
