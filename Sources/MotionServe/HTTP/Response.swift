/// A body written piece by piece as it comes (an event stream): each piece goes out as one chunk
/// of chunked transfer encoding as soon as the socket takes it; nil ends the body.
protocol ResponseStream: Sendable {
    mutating func next() async -> [UInt8]?
}

/// What the server sends back: a status, headers, and a body of known length or a stream.
struct Response: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        case stream(any ResponseStream)
    }

    var status: Int
    /// Sent as given; `Content-Length`, `Transfer-Encoding` and `Connection` are the server's.
    var headers: [(name: String, value: String)]
    var body: Body

    init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The status line and headers, with the framing of the body and whether the connection stays open.
    func head(keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.phrase(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        switch body {
        case .bytes(let bytes): text += "Content-Length: \(bytes.count)\r\n"
        case .stream: text += "Transfer-Encoding: chunked\r\n"
        }
        text += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// One piece of a streamed body as a chunk (an empty piece would end the body: nothing).
    static func chunk(_ piece: [UInt8]) -> [UInt8] {
        guard !piece.isEmpty else { return [] }
        return Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + [Byte.cr, Byte.lf]
    }

    /// The end of a streamed body.
    static let lastChunk = Array("0\r\n\r\n".utf8)

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 202: "Accepted"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Internal Server Error"
        }
    }
}
