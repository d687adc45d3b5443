import Testing
@testable import MotionServe

/// The request head reader alone: each limit refuses with its status at the first byte past it,
/// whatever comes after; a head within the limits parses, in pieces as it arrives.
@Suite("request head parser")
struct RequestHeadParserTests {
    let limits = HTTPLimits()

    /// Feeds `text` in pieces of `piece` bytes: the head, or the refusal.
    func parse(_ text: String, piece: Int = 4_096, limits: HTTPLimits? = nil) -> Result<RequestHead?, HTTPRefusal> {
        var parser = RequestHeadParser(limits: limits ?? self.limits)
        let bytes = Array(text.utf8)
        var start = 0
        repeat {
            let end = min(bytes.count, start + piece)
            do {
                if let head = try parser.append(Array(bytes[start..<end])) { return .success(head) }
            } catch {
                return .failure(error)
            }
            start = end
        } while start < bytes.count
        return .success(nil)
    }

    func status(_ text: String, limits: HTTPLimits? = nil) -> Int? {
        switch parse(text, limits: limits) {
        case .success(let head): head == nil ? nil : 200
        case .failure(let refusal): refusal.status
        }
    }

    @Test("a browser's request: method, path, decoded query, headers in lower case, keep-alive")
    func browserRequest() throws {
        let head = try #require(try parse(
            "GET /events?rate=30&token=ab%20cd&flag HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept:  text/event-stream \r\nX-Motion-Token: t\r\n\r\n",
            piece: 7).get())
        #expect(head.method == "GET" && head.path == "/events" && head.version == "HTTP/1.1")
        #expect(head.query == [.init(name: "rate", value: "30"), .init(name: "token", value: "ab cd"), .init(name: "flag", value: "")])
        #expect(head.header("accept") == "text/event-stream")
        #expect(head.header("X-Motion-Token") == "t")
        #expect(head.keepAlive && head.contentLength == 0)
    }

    @Test("Connection: close, HTTP/1.0, LF line ends, empty lines first, Content-Length within the limit")
    func framing() throws {
        #expect(try #require(try parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").get()).keepAlive == false)
        #expect(try #require(try parse("GET / HTTP/1.0\r\n\r\n").get()).keepAlive == false)
        #expect(try #require(try parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").get()).keepAlive)
        #expect(try #require(try parse("\r\n\r\nGET /info HTTP/1.1\nHost: x\n\n").get()).path == "/info")
        #expect(try #require(try parse("POST /x HTTP/1.1\r\nContent-Length: 16384\r\n\r\n").get()).contentLength == 16_384)
    }

    @Test("what follows a head stays for the body or the next request")
    func pipelined() throws {
        var parser = RequestHeadParser(limits: limits)
        let first = try #require(try parser.append(Array("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n".utf8)))
        #expect(first.path == "/a")
        var next = RequestHeadParser(limits: limits, received: Array(parser.rest))
        #expect(try next.append([])?.path == "/b")
    }

    @Test("each limit: the status, at the first byte past it")
    func limitsRefuse() {
        let long = String(repeating: "a", count: 100_000)
        #expect(status("GET /info?x=\(long) HTTP/1.1\r\n\r\n") == 414)
        #expect(status("GET /\(long) HTTP/1.1\r\n\r\n") == 414)
        #expect(status("\(long) / HTTP/1.1\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nX-Big: \(long)\r\n\r\n") == 431)
        #expect(status("GET / HTTP/1.1\r\n" + String(repeating: "X-Many: 1\r\n", count: 101) + "\r\n") == 431)
        #expect(status("GET / HTTP/1.1\r\n" + String(repeating: "X-Many: 1\r\n", count: 100) + "\r\n") == 200)
        // The whole head: 40 lines of 1 000 bytes are each within the line limit, not together.
        #expect(status("GET / HTTP/1.1\r\n" + String(repeating: "X-Line: \(String(repeating: "b", count: 1_000))\r\n", count: 40) + "\r\n") == 431)
        #expect(status(String(repeating: "\r\n", count: 20_000)) == 431)
        #expect(status("POST / HTTP/1.1\r\nContent-Length: 16385\r\n\r\n") == 413)
        #expect(status("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n") == 413)
        #expect(status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == 411)
        // A request line just at its limit is fine.
        #expect(status("GET /" + String(repeating: "a", count: 8_192 - 14) + " HTTP/1.1\r\n\r\n") == 200)
        #expect(status("GET /" + String(repeating: "a", count: 8_192 - 13) + " HTTP/1.1\r\n\r\n") == 414)
    }

    @Test("a refusal comes as soon as the limit is passed: the rest of a 2 MB line is never needed")
    func refusedEarly() {
        var parser = RequestHeadParser(limits: limits)
        var refusal: HTTPRefusal?
        var fed = 0
        do {
            _ = try parser.append(Array("GET / HTTP/1.1\r\nX-Huge: ".utf8))
            let piece = [UInt8](repeating: 0x61, count: 4_096)
            while fed < 2_000_000 {
                _ = try parser.append(piece)
                fed += piece.count
            }
        } catch {
            refusal = error
        }
        #expect(refusal?.status == 431)
        #expect(fed <= 8_192)
        #expect(parser.buffer.count <= 8_192 + 4_096 + 64)
    }

    @Test("malformed heads: 400 (505 for another HTTP version), naming what is wrong")
    func malformed() {
        #expect(status("GET / HTTP/9.9\r\n\r\n") == 505)
        for text in [
            "GET\r\n\r\n", "GET / HTTP/1.1 extra\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / FTP/1.1\r\n\r\n", "GET http://x/ HTTP/1.1\r\n\r\n",
            "G(T / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nno colon here\r\n\r\n", "GET / HTTP/1.1\r\nName : v\r\n\r\n",
            "GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nA: x\u{1}y\r\n\r\n", "GET /?a=%zz HTTP/1.1\r\n\r\n",
            "GET /?a=%4 HTTP/1.1\r\n\r\n", "POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "GET /\u{7f} HTTP/1.1\r\n\r\n",
        ] {
            #expect(status(text) == 400, "\(text.debugDescription)")
        }
        if case .failure(let refusal) = parse("GET / HTTP/1.1\r\nno colon here\r\n\r\n") {
            #expect(refusal.message == "a header line without a colon: \"no colon here\"")
        }
    }
}
