/// The MS5611's PROM (MS5611-01BA03 datasheet, "PROM read sequence"): eight 16-bit words read by
/// the commands 0xA0, 0xA2 … 0xAE, most significant byte first. Word 0 is factory data, words 1…6
/// the coefficients C1…C6, word 7 the serial code with a CRC-4 of the whole PROM in its low four bits.
package struct MS5611PROM: Sendable, Equatable {
    package var words: [UInt16]

    package init(words: [UInt16]) { self.words = words }

    /// C1 … C6: pressure sensitivity, pressure offset, their temperature coefficients, the
    /// reference temperature and the temperature coefficient of the temperature.
    package var coefficients: [Int64] { words[1...6].map { Int64($0) } }

    /// The CRC-4 of TE Connectivity's AN520, which Linux `ms5611_core.c` (`ms5611_prom_is_valid`)
    /// computes too: the 16 PROM bytes with word 7's CRC nibble cleared, most significant byte of
    /// each word first, through the polynomial 0x3 (x⁴ + x + 1) in the top four bits of a 16-bit
    /// remainder.
    package static func crc4(_ words: [UInt16]) -> UInt16 {
        var prom = words
        prom[7] &= 0xFF00
        var remainder: UInt16 = 0
        for index in 0..<16 {
            let word = prom[index >> 1]
            remainder ^= index & 1 == 1 ? word & 0x00FF : word >> 8
            for _ in 0..<8 {
                remainder = remainder & 0x8000 != 0 ? (remainder << 1) ^ 0x3000 : remainder << 1
            }
        }
        return (remainder >> 12) & 0xF
    }

    /// The CRC in word 7 matches the PROM's, and is not 0 (an all-zero PROM, what a bus that
    /// answers every read with 0 gives, would match; Linux `ms5611_core.c` refuses it too).
    package var isValid: Bool {
        words.count == 8 && words[7] & 0xF != 0 && Self.crc4(words) == words[7] & 0xF
    }

    /// The datasheet's compensation in integers (its "Pressure and temperature calculation", with
    /// the "second order temperature compensation" below 20 °C and again below −15 °C), its
    /// divisions by powers of two as divisions (truncating toward zero, as C's on the datasheet's
    /// signed 32- and 64-bit types): pressure in 0.01 mbar (= Pa) and temperature in 0.01 °C,
    /// from D1 (pressure) and D2 (temperature).
    package func compensate(d1: UInt32, d2: UInt32) -> (pascal: Int64, centidegrees: Int64) {
        // C1 … C6 from the words themselves: ``coefficients`` makes an array, which a reading must not.
        let (c1, c2, c3, c4, c5, c6) = (Int64(words[1]), Int64(words[2]), Int64(words[3]), Int64(words[4]), Int64(words[5]), Int64(words[6]))
        let dT = Int64(d2) - c5 * (1 << 8)
        var temp = 2000 + (dT * c6) / (1 << 23)
        var off = c2 * (1 << 16) + (c4 * dT) / (1 << 7)
        var sens = c1 * (1 << 15) + (c3 * dT) / (1 << 8)
        if temp < 2000 {
            let t2 = (dT * dT) / (1 << 31)
            let below = (temp - 2000) * (temp - 2000)
            var off2 = 5 * below / 2
            var sens2 = 5 * below / 4
            if temp < -1500 {
                let cold = (temp + 1500) * (temp + 1500)
                off2 += 7 * cold
                sens2 += 11 * cold / 2
            }
            temp -= t2
            off -= off2
            sens -= sens2
        }
        let pressure = ((Int64(d1) * sens) / (1 << 21) - off) / (1 << 15)
        return (pressure, temp)
    }
}
