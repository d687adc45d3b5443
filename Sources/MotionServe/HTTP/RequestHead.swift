import Foundation

/// An HTTP/1.1 request as the routes see it: its head, read within ``HTTPLimits``. (No endpoint
/// takes a body; one within the limit was read and dropped.)
struct RequestHead: Sendable {
    struct QueryItem: Sendable, Equatable {
        /// Percent-decoded.
        var name: String
        /// Percent-decoded; "" for `?flag` without `=`.
        var value: String
    }

    /// "GET", "POST", … as sent (case-sensitive, as HTTP says).
    var method: String
    /// The target as sent: path and query, percent-encoded.
    var target: String
    /// The target's path, as sent (percent-encoded, not normalised: the routes match exactly).
    var path: String
    var query: [QueryItem]
    /// Header names in lower case, values without surrounding blanks, in the order sent.
    var headers: [(name: String, value: String)]
    /// "HTTP/1.1" or "HTTP/1.0".
    var version: String
    /// `Content-Length`, 0 without one (within ``HTTPLimits/body``).
    var contentLength: Int
    /// False for `Connection: close`, and for HTTP/1.0 without `Connection: keep-alive`.
    var keepAlive: Bool

    /// The first value of header `name` (any case).
    func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }

    /// The first value of query parameter `name`.
    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// A request the server answers itself, before any route: the status and a line saying why.
struct HTTPRefusal: Error, Sendable, Equatable {
    var status: Int
    var message: String

    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// Reads a request head from bytes as they arrive, within ``HTTPLimits``: each byte is looked at
/// once, and the first byte past a limit ends the request with its refusal (the rest is never
/// buffered, let alone parsed). Pure: the connection feeds it, the tests too.
struct RequestHeadParser {
    let limits: HTTPLimits
    /// Bytes received and not yet taken by a head: the head being read, then what followed it.
    private(set) var buffer: [UInt8]
    /// `buffer[..<scanned]` has been looked at.
    private var scanned = 0
    private var lineStart = 0
    private var requestLine: (method: String, target: String, version: String)?
    private var headers: [(name: String, value: String)] = []

    /// `received`: bytes already read past the previous request on the connection.
    init(limits: HTTPLimits, received: [UInt8] = []) {
        self.limits = limits
        buffer = received
    }

    /// True once anything but empty lines came: a request has started (its deadline runs).
    var hasStarted: Bool { requestLine != nil || buffer[lineStart...].contains { $0 != Byte.cr && $0 != Byte.lf } }

    /// Adds `bytes` and reads on: the head once it is complete (the bytes after it stay in
    /// ``rest``), nil while it is not.
    mutating func append(_ bytes: [UInt8]) throws(HTTPRefusal) -> RequestHead? {
        buffer.append(contentsOf: bytes)
        return try parse()
    }

    /// What came after the head: the body, or the next request.
    var rest: ArraySlice<UInt8> { buffer[lineStart...] }

    private mutating func parse() throws(HTTPRefusal) -> RequestHead? {
        while scanned < buffer.count {
            let byte = buffer[scanned]
            scanned += 1
            if scanned > limits.head {
                throw HTTPRefusal(431, "the request head is over \(limits.head) bytes")
            }
            if byte != Byte.lf {
                // The line's length so far, one more allowed for the CR of its CRLF.
                let length = scanned - lineStart
                if requestLine == nil, length > limits.requestLine + 1 { throw requestLineTooLong() }
                if requestLine != nil, length > limits.headerLine + 1 {
                    throw HTTPRefusal(431, "a header line is over \(limits.headerLine) bytes")
                }
                continue
            }
            var end = scanned - 1
            if end > lineStart, buffer[end - 1] == Byte.cr { end -= 1 }
            // A line ended by LF alone had its one byte of grace for the CR.
            if requestLine == nil, end - lineStart > limits.requestLine { throw requestLineTooLong() }
            if requestLine != nil, end - lineStart > limits.headerLine {
                throw HTTPRefusal(431, "a header line is over \(limits.headerLine) bytes")
            }
            let line = buffer[lineStart..<end]
            lineStart = scanned
            if let head = try take(line) { return head }
        }
        return nil
    }

    private func requestLineTooLong() -> HTTPRefusal {
        let start = buffer[lineStart..<min(scanned, lineStart + HTTPLimits.method + 1)]
        if start.contains(Byte.space) {
            return HTTPRefusal(414, "the request line is over \(limits.requestLine) bytes: a shorter path and query, please")
        }
        return HTTPRefusal(400, "not an HTTP request: no method of at most \(HTTPLimits.method) letters at the start")
    }

    /// One line without its line end: the request line, a header, or the empty line that ends the head.
    private mutating func take(_ line: ArraySlice<UInt8>) throws(HTTPRefusal) -> RequestHead? {
        guard let requestLine else {
            // Empty lines before a request are ignored (RFC 9112 §2.2), within the head's limit.
            if !line.isEmpty { requestLine = try Self.requestLine(line) }
            return nil
        }
        if line.isEmpty { return try head(requestLine) }
        guard headers.count < limits.headerCount else {
            throw HTTPRefusal(431, "more than \(limits.headerCount) header lines")
        }
        headers.append(try Self.header(line))
        return nil
    }

    static func requestLine(_ line: ArraySlice<UInt8>) throws(HTTPRefusal) -> (method: String, target: String, version: String) {
        let parts = line.split(separator: Byte.space, omittingEmptySubsequences: false)
        guard parts.count == 3, let method = parts.first, let target = parts.dropFirst().first, let version = parts.last else {
            throw HTTPRefusal(400, "not an HTTP request line: expected METHOD /path HTTP/1.1")
        }
        guard (1...HTTPLimits.method).contains(method.count), method.allSatisfy(Byte.isToken) else {
            throw HTTPRefusal(400, "not an HTTP method: \(Self.shown(method))")
        }
        guard target.first == Byte.slash, target.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw HTTPRefusal(400, "the request target must be a path starting with /, without blanks or control characters")
        }
        let text = String(decoding: version, as: UTF8.self)
        guard text == "HTTP/1.1" || text == "HTTP/1.0" else {
            let bytes = Array(version)
            let looksLikeHTTP = bytes.count == 8 && text.hasPrefix("HTTP/") && Byte.isDigit(bytes[5]) && bytes[6] == Byte.dot && Byte.isDigit(bytes[7])
            if looksLikeHTTP { throw HTTPRefusal(505, "\(text) is not spoken here: HTTP/1.1 or HTTP/1.0") }
            throw HTTPRefusal(400, "not an HTTP version: \(Self.shown(version))")
        }
        return (String(decoding: method, as: UTF8.self), String(decoding: target, as: UTF8.self), text)
    }

    static func header(_ line: ArraySlice<UInt8>) throws(HTTPRefusal) -> (name: String, value: String) {
        if let first = line.first, first == Byte.space || first == Byte.tab {
            throw HTTPRefusal(400, "a header line starts with a blank (folded headers are not accepted)")
        }
        guard let colon = line.firstIndex(of: Byte.colon) else {
            throw HTTPRefusal(400, "a header line without a colon: \(Self.shown(line))")
        }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(Byte.isToken) else {
            throw HTTPRefusal(400, "not a header name: \(Self.shown(name))")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == Byte.space || first == Byte.tab { value = value.dropFirst() }
        while let last = value.last, last == Byte.space || last == Byte.tab { value = value.dropLast() }
        guard value.allSatisfy({ $0 == Byte.tab || $0 >= 0x20 && $0 != 0x7F }) else {
            throw HTTPRefusal(400, "header \(String(decoding: name, as: UTF8.self)) has a control character in its value")
        }
        return (String(decoding: name, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self))
    }

    /// The request line and headers as a request, once its framing and target are checked.
    private func head(_ line: (method: String, target: String, version: String)) throws(HTTPRefusal) -> RequestHead {
        let lengths = headers.filter { $0.name == "content-length" }.map(\.value)
        if headers.contains(where: { $0.name == "transfer-encoding" }) {
            if !lengths.isEmpty { throw HTTPRefusal(400, "Content-Length and Transfer-Encoding together") }
            throw HTTPRefusal(411, "this server takes request bodies only with a Content-Length (and no endpoint needs one)")
        }
        var contentLength = 0
        if let length = lengths.first {
            guard lengths.allSatisfy({ $0 == length }), !length.isEmpty, length.utf8.allSatisfy(Byte.isDigit) else {
                throw HTTPRefusal(400, "not a Content-Length: \(Self.shown(ArraySlice(lengths.joined(separator: ", ").utf8)))")
            }
            guard length.utf8.count <= 12, let value = Int(length), value <= limits.body else {
                throw HTTPRefusal(413, "the request body is over \(limits.body) bytes (and no endpoint needs one)")
            }
            contentLength = value
        }
        let connection = headers.filter { $0.name == "connection" }
            .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let keepAlive = line.version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        let path: Substring, query: Substring
        if let mark = line.target.firstIndex(of: "?") {
            path = line.target[..<mark]
            query = line.target[line.target.index(after: mark)...]
        } else {
            path = line.target[...]
            query = ""
        }
        return RequestHead(
            method: line.method, target: line.target, path: String(path), query: try Self.queryItems(query), headers: headers,
            version: line.version, contentLength: contentLength, keepAlive: keepAlive)
    }

    /// `a=1&b=x%20y&flag`: percent-decoded names and values; a `%` without two hex digits is a 400.
    static func queryItems(_ query: Substring) throws(HTTPRefusal) -> [RequestHead.QueryItem] {
        var items: [RequestHead.QueryItem] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decoded(pair[0])
            let value = pair.count > 1 ? try decoded(pair[1]) : ""
            items.append(RequestHead.QueryItem(name: name, value: value))
        }
        return items
    }

    static func decoded(_ text: Substring) throws(HTTPRefusal) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(Byte.percent) else { return String(text) }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == Byte.percent {
                guard index + 2 < bytes.count, let high = Byte.hexValue(bytes[index + 1]), let low = Byte.hexValue(bytes[index + 2]) else {
                    throw HTTPRefusal(400, "the query has a % not followed by two hex digits")
                }
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// At most 40 characters of what was sent, for a message.
    static func shown(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40), as: UTF8.self).unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "?" }.joined()
        return "\"\(text)\(bytes.count > 40 ? "…" : "")\""
    }
}

/// The bytes HTTP's grammar names.
enum Byte {
    static let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, space: UInt8 = 0x20, tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A, slash: UInt8 = 0x2F, dot: UInt8 = 0x2E, percent: UInt8 = 0x25

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// RFC 9110's `tchar`: what method and header names are made of.
    static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"),
             UInt8(ascii: "~"): true
        default: false
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
