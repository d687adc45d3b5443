/// How one scan element is stored in a buffer record, from its `scan_elements/*_type` attribute.
///
/// Format (Documentation/ABI/testing/sysfs-bus-iio, `in_voltageY_type`, and
/// Documentation/driver-api/iio/buffers.rst): `[be|le]:[s|u]bits/storagebits[Xrepeat][>>shift]`,
/// e.g. `le:s16/16>>0`, `be:s12/16>>4`, `le:s64/64>>0` (the timestamp).
package struct ScanType: Sendable, Equatable, CustomStringConvertible {
    package var bigEndian: Bool
    package var signed: Bool
    /// Valid data bits, 1…storageBits.
    package var bits: Int
    /// Bits the value occupies in the record: 8, 16, 32 or 64.
    package var storageBits: Int
    /// How many values of this storage follow one another (1 unless `X` is given).
    package var repeatCount: Int
    /// Right shift applied before masking out the unused bits.
    package var shift: Int

    package init(bigEndian: Bool, signed: Bool, bits: Int, storageBits: Int, repeatCount: Int = 1, shift: Int = 0) {
        self.bigEndian = bigEndian
        self.signed = signed
        self.bits = bits
        self.storageBits = storageBits
        self.repeatCount = repeatCount
        self.shift = shift
    }

    /// Parses the attribute text; a malformed one is `IIOError.badValue` naming `path`.
    package init(parsing text: String, path: String = "scan type") throws(IIOError) {
        func bad(_ why: String) -> IIOError {
            IIOError(.badValue, path: path, detail: "\"\(text.prefix(40))\" is not an IIO scan type ([be|le]:[s|u]bits/storagebits[Xrepeat]>>shift): \(why)")
        }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0] == "be" || parts[0] == "le" else { throw bad("it must start with be: or le:") }
        var rest = Substring(parts[1])
        guard let sign = rest.first, sign == "s" || sign == "u" else { throw bad("s or u must follow the colon") }
        rest = rest.dropFirst()
        var shift = 0
        if let arrows = rest.firstIndex(of: ">") {
            let number = rest[arrows...].dropFirst(2)
            guard rest[arrows...].hasPrefix(">>"), let value = Int(number), (0...63).contains(value) else { throw bad("the shift must be >>0…63") }
            shift = value
            rest = rest[..<arrows]
        }
        var repeatCount = 1
        if let x = rest.firstIndex(of: "X") {
            guard let value = Int(rest[rest.index(after: x)...]), (0...64).contains(value) else { throw bad("the repeat must be 0…64") }
            repeatCount = max(value, 1)
            rest = rest[..<x]
        }
        let sizes = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard sizes.count == 2, let bits = Int(sizes[0]), let storage = Int(sizes[1]) else { throw bad("bits/storagebits expected") }
        guard [8, 16, 32, 64].contains(storage) else { throw bad("storage bits must be 8, 16, 32 or 64") }
        guard (1...storage).contains(bits), bits + shift <= storage else { throw bad("bits and shift must fit the storage") }
        self.init(bigEndian: parts[0] == "be", signed: sign == "s", bits: bits, storageBits: storage, repeatCount: repeatCount, shift: shift)
    }

    /// Bytes in the record (storage × repeat).
    package var byteCount: Int { storageBits / 8 * repeatCount }

    package var description: String {
        "\(bigEndian ? "be" : "le"):\(signed ? "s" : "u")\(bits)/\(storageBits)\(repeatCount > 1 ? "X\(repeatCount)" : "")>>\(shift)"
    }

    /// The first value stored at `offset` in `record`: endianness applied, shifted, masked to
    /// `bits` and sign-extended. The caller checks `offset + byteCount <= record.count`.
    package func decode(_ record: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        let count = storageBits / 8
        var word: UInt64 = 0
        for index in 0..<count {
            let byte = UInt64(record[offset + (bigEndian ? index : count - 1 - index)])
            word = word << 8 | byte
        }
        word >>= UInt64(shift)
        let mask: UInt64 = bits == 64 ? .max : (1 << UInt64(bits)) - 1
        word &= mask
        if signed, bits < 64, word & (1 << UInt64(bits - 1)) != 0 {
            word |= ~mask
        }
        return Int64(bitPattern: word)
    }
}
