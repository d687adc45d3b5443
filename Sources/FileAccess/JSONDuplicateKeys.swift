/// The first key that one JSON object holds twice. RFC 8259 §4 leaves such a document's meaning
/// to the reader (Foundation's decoder keeps one value, Python's and jq keep the last): a file a
/// person or a program wrote with a key twice is refused rather than read one way here and another
/// way elsewhere. Works on the bytes as written (any nesting; keys compared after their escapes are
/// decoded); a document that is not JSON is left for the decoder to refuse.
package enum JSONDuplicateKeys {
    /// The repeated key, nil when every object's keys differ.
    package static func first(in data: some Collection<UInt8>) -> String? {
        let bytes = Array(data)
        // One entry per open container: the keys seen, or nil for an array.
        var open: [Set<String>?] = []
        // In an object, a string is a key when it comes first or after a comma.
        var expectsKey = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                open.append([])
                expectsKey = true
            case UInt8(ascii: "["):
                open.append(nil)
                expectsKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !open.isEmpty { open.removeLast() }
                expectsKey = false
            case UInt8(ascii: ","):
                expectsKey = open.last.map { $0 != nil } ?? false
            case UInt8(ascii: ":"):
                expectsKey = false
            case UInt8(ascii: "\""):
                guard let (text, end) = string(in: bytes, from: index) else { return nil }
                if expectsKey, var keys = open.last ?? nil {
                    if keys.contains(text) { return text }
                    keys.insert(text)
                    open[open.count - 1] = keys
                }
                expectsKey = false
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The string starting at `start` (its opening quote), its escapes decoded, and the index of
    /// its closing quote; nil when it does not end.
    private static func string(in bytes: [UInt8], from start: Int) -> (String, Int)? {
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        var index = start + 1
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush()
                return (String(scalars), index)
            }
            guard byte == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                raw.append(byte)
                index += 1
                continue
            }
            flush()
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "u"):
                guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { return nil }
                index += 4
                // A surrogate pair's halves are kept as written: two spellings of one such key are not compared.
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            default: scalars.append(Unicode.Scalar(escape))
            }
        }
        return nil
    }
}
