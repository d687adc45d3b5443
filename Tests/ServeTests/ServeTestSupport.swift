import Foundation
import Motion
import MotionSimulation
import MotionServe
import MotionSimulator
import Testing
import Timing

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client for the tests: exact bytes out (well-formed or not), whatever comes back.
/// Blocking socket calls run on a thread of their own, never on Swift concurrency's few threads.
enum RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
        /// The whole reply as received ("" when the server closed without answering).
        var raw: String
    }

    /// Sends `request`, half-closes, and reads until the server closes (or `seconds` pass).
    static func exchange(port: UInt16, _ request: String, seconds: Int = 10) async throws -> String {
        try await onThread {
            let fd = try connectSocket(port: port, seconds: seconds)
            defer { close(fd) }
            try send(fd, Array(request.utf8))
            shutdown(fd, Int32(SHUT_WR))
            return String(decoding: receive(fd, until: { _ in false }), as: UTF8.self)
        }
    }

    /// A request and its parsed response (`Connection: close`).
    static func request(port: UInt16, _ method: String, _ target: String, headers: [String: String] = [:], seconds: Int = 10) async throws -> Response {
        let host = headers.keys.contains { $0.lowercased() == "host" } ? [] : ["Host: 127.0.0.1"]
        let lines = ["\(method) \(target) HTTP/1.1", "Connection: close"] + host + headers.map { "\($0.key): \($0.value)" }
        let raw = try await exchange(port: port, lines.joined(separator: "\r\n") + "\r\n\r\n", seconds: seconds)
        return parse(raw)
    }

    static func parse(_ raw: String) -> Response {
        let parts = raw.components(separatedBy: "\r\n\r\n")
        let head = parts[0].components(separatedBy: "\r\n")
        let status = head.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"), raw: raw)
    }

    /// Opens the event stream and reads until `enough` says so over the text read so far (the
    /// `during` closure runs once the stream is open: advance the clock there). Returns the text.
    static func stream(port: UInt16, target: String, headers: [String: String] = [:], seconds: Int = 20,
                       during: @escaping @Sendable () -> Void, enough: @escaping @Sendable (String) -> Bool) async throws -> String {
        try await onThread {
            let fd = try connectSocket(port: port, seconds: seconds)
            defer { close(fd) }
            let lines = ["GET \(target) HTTP/1.1", "Host: 127.0.0.1"] + headers.map { "\($0.key): \($0.value)" }
            try send(fd, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
            var started = false
            return String(decoding: receive(fd) { text in
                if !started, text.contains("event: info") {
                    started = true
                    during()
                }
                return enough(text)
            }, as: UTF8.self)
        }
    }

    /// The `data:` lines of `event` in an event stream (the whole reply, chunked), parsed as
    /// JSON objects, in order; an event cut off at the end of what was read is left out.
    static func events(_ name: String, in reply: String) -> [[String: Any]] {
        var result: [[String: Any]] = []
        for block in dechunked(reply).components(separatedBy: "\n\n") {
            let lines = block.components(separatedBy: "\n")
            guard lines.contains("event: \(name)"), let data = lines.first(where: { $0.hasPrefix("data: ") }),
                let object = try? JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any]
            else { continue }
            result.append(object)
        }
        return result
    }

    /// The body of a reply in chunked transfer encoding, as far as whole chunks go.
    static func dechunked(_ reply: String) -> String {
        let bytes = Array(reply.utf8)
        let separator = Array("\r\n".utf8)
        func line(from start: Int) -> Int? {
            var index = start
            while index + 1 < bytes.count {
                if bytes[index] == separator[0], bytes[index + 1] == separator[1] { return index }
                index += 1
            }
            return nil
        }
        // Past the head: the first empty line.
        var position = 0
        while let end = line(from: position), end != position { position = end + 2 }
        position += 2
        var body: [UInt8] = []
        while position < bytes.count, let end = line(from: position),
              let size = Int(String(decoding: bytes[position..<end], as: UTF8.self), radix: 16), size > 0, end + 2 + size <= bytes.count {
            body += bytes[(end + 2)..<(end + 2 + size)]
            position = end + 2 + size + 2
        }
        return String(decoding: body, as: UTF8.self)
    }

    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What an exchange got back, and how it ended.
    struct Reply {
        var response: Response
        /// The server closed the connection (end of file, or a reset), rather than leaving it open
        /// until the timeout.
        var closed: Bool
        /// Seconds from connecting to the end.
        var seconds: Double
    }

    /// Sends `bytes` (as much as the server takes), half-closes, reads until the server closes or
    /// `seconds` pass without a byte: the reply and whether the server closed. On a thread of the caller's.
    static func exchangeBlocking(port: UInt16, _ bytes: [UInt8], seconds: Double = 10, receiveBuffer: Int32? = nil) throws -> Reply {
        let start = DispatchTime.now().uptimeNanoseconds
        let fd = try connectSocket(port: port, seconds: seconds, receiveBuffer: receiveBuffer)
        defer { close(fd) }
        try send(fd, bytes)
        shutdown(fd, Int32(SHUT_WR))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var closed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count == 0 || count < 0 && errno == ECONNRESET { closed = true }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Reply(response: parse(String(decoding: received, as: UTF8.self)), closed: closed, seconds: elapsed)
    }

    /// A connected socket that sends nothing yet (the caller closes it).
    /// `source`: the local address to connect from (another of the loopback range's, to be another machine to the server).
    static func openSocket(port: UInt16, seconds: Double = 10, receiveBuffer: Int32? = nil, source: String? = nil) throws -> Int32 {
        try connectSocket(port: port, seconds: seconds, receiveBuffer: receiveBuffer, source: source)
    }

    /// Writes all of `bytes` to a socket from ``openSocket``.
    static func write(_ fd: Int32, _ text: String) throws { try send(fd, Array(text.utf8)) }

    /// Reads from a socket from ``openSocket`` until the server closes it or `seconds` pass without a byte.
    static func readToEnd(_ fd: Int32) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            guard count > 0 else { return (String(decoding: received, as: UTF8.self), false) }
            received += buffer[0..<count]
        }
    }

    private static func connectSocket(port: UInt16, seconds: Int) throws -> Int32 {
        try connectSocket(port: port, seconds: Double(seconds), receiveBuffer: nil)
    }

    private static func connectSocket(port: UInt16, seconds: Double, receiveBuffer: Int32?, source: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw Failure(description: "bind to \(source): \(String(cString: strerror(errno)))")
            }
        }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            // The server may close a connection it cannot parse before reading everything.
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Reads until the peer closes, a timeout, or `enough` over everything read so far.
    private static func receive(_ fd: Int32, until enough: (String) -> Bool) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return received }
            received += buffer[0..<count]
            if enough(String(decoding: received, as: UTF8.self)) { return received }
        }
    }
}

/// A server on the simulated board in virtual time, on a free port of the loopback address.
struct TestServer {
    let clock: VirtualClock
    let manager: MotionManager
    let server: MotionServer
    let port: UInt16

    /// `barometer`: the simulated board's BMP280 through an altimeter on the same clock.
    static func start(
        scenario: String = "tumble", configuration: ServeConfiguration = ServeConfiguration(port: 0), calibration: CalibrationAccess? = nil,
        clientBufferCapacity: Int? = nil, barometer: Bool = false
    ) async throws -> TestServer {
        let clock = VirtualClock()
        let manager = try MotionManager(source: .simulated(Simulation(scenario: scenario)), clock: clock, calibrationStore: nil)
        let altimeter = barometer ? try Altimeter(source: .simulated(Simulation(scenario: scenario)), clock: clock) : nil
        let server = try MotionServer(
            manager: manager, description: SourceDescription(board: "simulated board", source: "simulated: scenario \(scenario), seed 1", isSimulated: true),
            calibration: calibration, configuration: configuration, altimeter: altimeter)
        let port = try await server.start()
        return TestServer(clock: clock, manager: manager, server: server, port: port)
    }

    /// A request; its answer is waited for `seconds` (status 0 when none came).
    func request(_ method: String, _ target: String, headers: [String: String] = [:], seconds: Int = 10) async throws -> RawHTTP.Response {
        try await RawHTTP.request(port: port, method, target, headers: headers, seconds: seconds)
    }

    /// The event stream of `target` while the clock advances by `seconds`, read until `count`
    /// sample events came.
    func sampleEvents(_ target: String, advancing seconds: Double, count: Int) async throws -> String {
        let clock = self.clock
        return try await RawHTTP.stream(port: port, target: target, during: { clock.advance(by: seconds) }) { text in
            text.components(separatedBy: "event: sample").count - 1 >= count
        }
    }

    func stop() async { await server.stop() }
}

/// A value shared between the tests' threads, behind a lock.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// True in a build with the thread sanitizer (`swift test --sanitize=thread`, as CI runs the
/// serve tests): everything runs several times slower there, so a bound on time that proves
/// progress is looser.
let isThreadSanitized = dlsym(nil, "__tsan_init") != nil
