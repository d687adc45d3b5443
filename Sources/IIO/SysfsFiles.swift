#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Small-file access for sysfs attributes, with errno kept (`IIOError`). Every path is absolute;
/// tests point the IIO code at a fake tree in a temporary directory instead of `/sys`.
package enum SysfsFiles {
    /// The largest attribute read: sysfs hands out at most one page per attribute
    /// (Documentation/filesystems/sysfs.rst: "attributes should be ASCII text files … up to PAGE_SIZE").
    static let maximumAttributeBytes = 4096

    /// The attribute's text with surrounding white space removed. At most one byte more than
    /// ``maximumAttributeBytes`` is read: a longer "attribute" (a fake tree's regular file, a
    /// path pointing at something that is not sysfs) is `badValue`, never read whole.
    package static func read(_ path: String) throws(IIOError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .from(errno: errno, path: path, attempted: "open") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: maximumAttributeBytes + 1)
        let count = try transfer(bytes.count, path: path, attempted: "read", stopsAtEndOfFile: true) { done in
            bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done)
            }
        }
        guard count <= maximumAttributeBytes else {
            throw IIOError(
                .badValue, path: path, detail: "is longer than \(maximumAttributeBytes) bytes, the most a sysfs attribute holds",
                hint: "check that the IIO root is /sys/bus/iio/devices or a copy of it")
        }
        return trimmed(String(decoding: bytes[..<count], as: UTF8.self))
    }

    /// Writes `text` (a newline is not needed: sysfs takes the value as written).
    package static func write(_ text: String, to path: String) throws(IIOError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC)
        guard descriptor >= 0 else { throw .from(errno: errno, path: path, attempted: "open for writing") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        _ = try transfer(bytes.count, path: path, attempted: "write \"\(text)\"", stopsAtEndOfFile: false) { done in
            bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done)
            }
        }
    }

    /// Runs `step` (a read or write of the bytes from offset `done` on, returning what read(2) or
    /// write(2) returns) until `count` bytes are through, again after EINTR; with
    /// `stopsAtEndOfFile`, also when a step moves nothing. Returns how many bytes moved; an error
    /// is thrown with the `attempted` operation named, also when a write moves nothing (write(2)
    /// returning 0 for a non-empty buffer would repeat forever).
    static func transfer(
        _ count: Int, path: String, attempted: @autoclosure () -> String, stopsAtEndOfFile: Bool, _ step: (_ done: Int) -> Int
    ) throws(IIOError) -> Int {
        var done = 0
        while done < count {
            let moved = step(done)
            if moved < 0 {
                if errno == EINTR { continue }
                throw .from(errno: errno, path: path, attempted: attempted())
            }
            if moved == 0 {
                if stopsAtEndOfFile { break }
                throw IIOError(.io, path: path, detail: "\(attempted()) failed: the file took \(done) of \(count) bytes and then no more")
            }
            done += moved
        }
        return done
    }

    /// Whether `path` exists (a file, a directory or a symbolic link to one).
    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The names in a directory, sorted; empty when it cannot be listed.
    package static func entries(_ directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted { $0.compare(numerically: $1) }
    }

    /// The attribute as a finite number ("0.000598", "-2048", "1e-3").
    package static func number(_ path: String) throws(IIOError) -> Double {
        let text = try read(path)
        guard let value = Double(text), value.isFinite else {
            throw IIOError(.badValue, path: path, detail: "\"\(text.prefix(40))\" is not a number", hint: "the driver broke the IIO ABI: report it")
        }
        return value
    }

    static func trimmed(_ text: String) -> String {
        var scalars = Substring(text)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

extension String {
    /// "iio:device2" before "iio:device10": digit runs compare as numbers.
    func compare(numerically other: String) -> Bool {
        let a = Array(utf8), b = Array(other.utf8)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if isDigit(a[i]), isDigit(b[j]) {
                var endA = i, endB = j
                while endA < a.count, isDigit(a[endA]) { endA += 1 }
                while endB < b.count, isDigit(b[endB]) { endB += 1 }
                let runA = a[i..<endA].drop { $0 == 48 }, runB = b[j..<endB].drop { $0 == 48 }
                if runA.count != runB.count { return runA.count < runB.count }
                if !runA.elementsEqual(runB) { return runA.lexicographicallyPrecedes(runB) }
                i = endA
                j = endB
            } else {
                if a[i] != b[j] { return a[i] < b[j] }
                i += 1
                j += 1
            }
        }
        return a.count - i < b.count - j
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
