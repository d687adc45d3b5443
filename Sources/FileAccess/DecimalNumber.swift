/// A number as a person types it: plain decimal (`100`, `-2.5`, `1e-3`, `.5`), nothing else.
/// Swift's `Double(_:)` also reads hexadecimal (`0x10` is 16), `nan`, `inf` and `infinity`: a
/// value a person did not mean is refused instead of read as another.
package enum DecimalNumber {
    /// The value of `text` when it is a finite plain decimal number; nil otherwise.
    package static func parse(_ text: String) -> Double? {
        guard isDecimal(text), let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Sign, digits with at most one point (at least one digit), then an optional exponent.
    package static func isDecimal(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var digits = 0, points = 0
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            if byte == UInt8(ascii: ".") { points += 1 } else if (48...57).contains(byte) { digits += 1 } else { return false }
            bytes = bytes.dropFirst()
        }
        guard digits > 0, points <= 1 else { return false }
        guard !bytes.isEmpty else { return true }
        bytes = bytes.dropFirst()   // the e
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        return !bytes.isEmpty && bytes.allSatisfy { (48...57).contains($0) }
    }
}
