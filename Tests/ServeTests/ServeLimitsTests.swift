import Foundation
import Motion
import MotionSimulation
import MotionServe
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile clients against the server's limits (``HTTPLimits``), on 127.0.0.1 only, each load
/// bounded in count and time. Time appears only as generous deadlines that prove progress. One
/// test at a time (the built binary's too), and every blocking call on a thread of its own: Swift
/// concurrency's few threads are the servers' under test.
@Suite("serve limits", .serialized)
struct ServeLimitsTests {
    static let token = "0123456789abcdef0123456789abcdef"

    /// A request with one header line of `size` bytes.
    static func hugeHeaderLine(_ size: Int) -> [UInt8] {
        Array("GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: ".utf8) + [UInt8](repeating: 0x61, count: size) + Array("\r\n\r\n".utf8)
    }

    /// A request with `count` header lines.
    static func manyHeaders(_ count: Int) -> [UInt8] {
        Array(("GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n" + String(repeating: "X-Many: 1\r\n", count: count) + "\r\n").utf8)
    }

    static func info(token: String?) -> [UInt8] {
        Array("GET /info\(token.map { "?token=\($0)" } ?? "") HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    }

    /// Seconds a poll may take while the server is attacked: one, or ten under the thread
    /// sanitizer (an instrumented debug build beside the other suites on two cores).
    static let pollSeconds = isThreadSanitized ? 10.0 : 1.0

    /// Polls `/info` every 50 ms on a thread of its own until `done` (at most `seconds`): each
    /// poll's status, whether the server closed, and its seconds (each waits at most
    /// ``pollSeconds`` for a byte).
    static func poll(port: UInt16, token: String?, until done: Shared<Bool>, seconds: Double = 120) async throws -> [RawHTTP.Reply] {
        try await RawHTTP.onThread {
            var replies: [RawHTTP.Reply] = []
            let end = Date().addingTimeInterval(seconds)
            while !done.withLock({ $0 }), Date() < end {
                replies.append(try RawHTTP.exchangeBlocking(port: port, info(token: token), seconds: pollSeconds))
                usleep(50_000)
            }
            return replies
        }
    }

    @Test("a 2 MB header line and 100 000 headers from 4 connections at once, with the token required: each answered 431 and closed, every poll of /info meanwhile answered within a second")
    func hugeHeadsWhilePolling() async throws {
        let test = try await TestServer.start(configuration: ServeConfiguration(port: 0, accessToken: Self.token))
        defer { Task { await test.stop() } }
        let port = test.port
        let done = Shared(false)
        async let polls = Self.poll(port: port, token: Self.token, until: done)
        let attacks = try await withThrowingTaskGroup(of: [RawHTTP.Reply].self) { group in
            for attacker in 0..<4 {
                group.addTask {
                    try await RawHTTP.onThread {
                        try (0..<4).map { round in
                            try RawHTTP.exchangeBlocking(port: port, (attacker + round) % 2 == 0 ? Self.hugeHeaderLine(2_000_000) : Self.manyHeaders(100_000))
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        // A few polls after the attack too, so that some certainly overlapped it.
        try await Task.sleep(nanoseconds: 300_000_000)
        done.withLock { $0 = true }
        let replies = try await polls
        #expect(attacks.count == 16)
        for reply in attacks {
            #expect(reply.response.status == 431, "\(reply.response.raw.prefix(200))")
            #expect(reply.response.headers["connection"] == "close")
            #expect(reply.closed)
        }
        #expect(replies.count >= 3)
        let seconds = replies.map { ($0.seconds * 1000).rounded() / 1000 }
        for reply in replies {
            #expect(reply.response.status == 200 && reply.closed, "\(reply.response.raw.prefix(200)); polls took \(seconds) s")
            #expect(reply.seconds < Self.pollSeconds, "a poll took \(reply.seconds) s; polls took \(seconds) s")
        }
        let counts = test.server.httpCounts
        #expect(counts.refused[431] == 16, "\(counts)")
    }

    @Test("a 100 KB method: 400; a 100 KB path or query: 414; a 100 KB header value: 431; each closed, the token never looked at")
    func longParts() async throws {
        let test = try await TestServer.start(configuration: ServeConfiguration(port: 0, accessToken: Self.token))
        defer { Task { await test.stop() } }
        let long = String(repeating: "A", count: 100_000)
        for (request, status) in [
            ("\(long) /info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
            ("GET /info?token=\(Self.token)&q=\(long) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
            ("GET /info?\(long)=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
            ("GET /\(long) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
            ("GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Motion-Token: \(long)\r\n\r\n", 431),
            ("GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(long)\r\n\r\n", 431),
        ] {
            let reply = try await RawHTTP.onThread { try RawHTTP.exchangeBlocking(port: test.port, Array(request.utf8)) }
            #expect(reply.response.status == status, "\(request.prefix(40)): \(reply.response.raw.prefix(200))")
            #expect(reply.closed)
            #expect(reply.response.body.contains("\"error\""))
        }
        #expect(try await test.request("GET", "/info", headers: ["X-Motion-Token": Self.token]).status == 200)
    }

    @Test("a client that sends its head too slowly gets 408 and is closed; one that sends nothing is closed; a kept-alive connection serves several requests")
    func deadlines() async throws {
        let limits = HTTPLimits(headSeconds: 0.5, idleSeconds: 0.5, firstRequestSeconds: 0.5)
        let test = try await TestServer.start(configuration: ServeConfiguration(port: 0, limits: limits))
        defer { Task { await test.stop() } }
        let port = test.port
        let slow = try await RawHTTP.onThread {
            let fd = try RawHTTP.openSocket(port: port)
            defer { close(fd) }
            try RawHTTP.write(fd, "GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            return RawHTTP.readToEnd(fd)
        }
        #expect(RawHTTP.parse(slow.text).status == 408 && slow.closed, "\(slow)")
        let silent = try await RawHTTP.onThread {
            let fd = try RawHTTP.openSocket(port: port)
            defer { close(fd) }
            return RawHTTP.readToEnd(fd)
        }
        #expect(silent.text.isEmpty && silent.closed)
        // Three requests on one connection, the last one closing it.
        let kept = try await RawHTTP.onThread {
            let fd = try RawHTTP.openSocket(port: port)
            defer { close(fd) }
            try RawHTTP.write(fd, "GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return RawHTTP.readToEnd(fd)
        }
        #expect(kept.closed && kept.text.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 3, "\(kept.text.prefix(300))")
        #expect(test.server.httpCounts.timedOut >= 2)
    }

    @Test("a body within the limit is read and dropped, and the request after it on the same connection is served")
    func bodyThenPipelined() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.stop() } }
        let reply = try await RawHTTP.onThread {
            try RawHTTP.exchangeBlocking(port: test.port, Array((
                "POST /info HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 11\r\n\r\nhello=world"
                + "GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").utf8))
        }
        #expect(reply.response.status == 405)
        #expect(reply.response.raw.contains("HTTP/1.1 200 OK"), "\(reply.response.raw.prefix(400))")
        #expect(reply.closed)
    }

    @Test("connections beyond the limit, none of them idle, are answered 503 at once; once others close, new ones are served")
    func connectionLimit() async throws {
        let test = try await TestServer.start(configuration: ServeConfiguration(port: 0, limits: HTTPLimits(connections: 3)))
        defer { Task { await test.stop() } }
        let port = test.port
        // Three event streams: busy, not waiting for a request.
        let open = try await RawHTTP.onThread {
            try (0..<3).map { _ in
                let fd = try RawHTTP.openSocket(port: port)
                try RawHTTP.write(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return fd
            }
        }
        for _ in 0..<500 where test.server.streamCount < 3 { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(test.server.streamCount == 3)
        let refused = try await RawHTTP.onThread { try RawHTTP.exchangeBlocking(port: port, Self.info(token: nil)) }
        #expect(refused.response.status == 503 && refused.closed, "\(refused.response.raw.prefix(200))")
        for fd in open { close(fd) }
        // A closed stream is noticed at its next event: the simulated board's clock moves them on.
        for _ in 0..<250 where test.server.connectionCount > 0 {
            test.clock.advance(by: 0.1)
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(try await test.request("GET", "/info").status == 200)
        #expect(test.server.httpCounts.overCapacity >= 1)
    }

    @Test("64 connections that send nothing, from two other machines, keep nobody out: the owner's polls are all answered, the idle ones give way and time out")
    func idleConnectionsKeepNobodyOut() async throws {
        let test = try await TestServer.start(configuration: ServeConfiguration(port: 0, accessToken: Self.token))
        defer { Task { await test.stop() } }
        let port = test.port
        // 32 each from 127.0.0.2 and 127.0.0.3 (other machines to the server): past 16 from one
        // address, each new one takes the place of that address's oldest idle one.
        let idle = try await RawHTTP.onThread {
            try (0..<64).map { index in try RawHTTP.openSocket(port: port, source: index % 2 == 0 ? "127.0.0.2" : "127.0.0.3") }
        }
        defer { for fd in idle { close(fd) } }
        for _ in 0..<100 where test.server.httpCounts.connections < 64 { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(test.server.connectionCount <= 32, "\(test.server.connectionCount) open")
        let replies = try await RawHTTP.onThread {
            try (0..<20).map { _ in try RawHTTP.exchangeBlocking(port: port, Self.info(token: Self.token), seconds: Self.pollSeconds) }
        }
        #expect(replies.allSatisfy { $0.response.status == 200 }, "\(replies.map(\.response.status))")
        #expect(test.server.httpCounts.evicted >= 32 && test.server.httpCounts.overPeerLimit == 0, "\(test.server.httpCounts)")
        // Whatever is left of them is closed once its first request is overdue.
        for _ in 0..<400 where test.server.connectionCount > 0 { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(test.server.connectionCount == 0)
    }

    @Test("a browser that stops reading its event stream is cut off once a write makes no progress for the write deadline")
    func stalledReader() async throws {
        let limits = HTTPLimits(writeStallSeconds: 0.5)
        let test = try await TestServer.start(configuration: ServeConfiguration(port: 0, clientBufferCapacity: 8, limits: limits))
        defer { Task { await test.stop() } }
        let port = test.port
        let fd = try await RawHTTP.onThread {
            let fd = try RawHTTP.openSocket(port: port, receiveBuffer: 4_096)
            try RawHTTP.write(fd, "GET /events?rate=100 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return fd
        }
        defer { close(fd) }
        for _ in 0..<100 where test.server.streamCount == 0 { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(test.server.streamCount == 1)
        // 100 samples a second, nobody reading: the socket's buffers fill, a write stalls, the watchdog ends it.
        for _ in 0..<300 where test.server.streamCount > 0 {
            test.clock.advance(by: 1)
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(test.server.streamCount == 0)
        #expect(test.server.httpCounts.timedOut >= 1)
        #expect(test.manager.counters.totalDropped == 0)
    }

    @Test("stop() ends every connection whatever it does: a slow head, an event stream, a stalled reader, a 2 MB header in flight")
    func stopWhateverConnectionsDo() async throws {
        let test = try await TestServer.start(configuration: ServeConfiguration(port: 0, clientBufferCapacity: 8))
        let port = test.port
        let sockets = try await RawHTTP.onThread {
            let slow = try RawHTTP.openSocket(port: port)
            try RawHTTP.write(slow, "GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            let stream = try RawHTTP.openSocket(port: port)
            try RawHTTP.write(stream, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let stalled = try RawHTTP.openSocket(port: port, receiveBuffer: 4_096)
            try RawHTTP.write(stalled, "GET /events?rate=100 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return [slow, stream, stalled]
        }
        defer { for fd in sockets { close(fd) } }
        let attack = Task { try await RawHTTP.onThread { try RawHTTP.exchangeBlocking(port: port, Self.hugeHeaderLine(2_000_000)) } }
        for _ in 0..<100 where test.server.streamCount < 2 { try await Task.sleep(nanoseconds: 20_000_000) }
        for _ in 0..<50 { test.clock.advance(by: 1) }
        let stopped = Shared(false)
        Task {
            await test.stop()
            stopped.withLock { $0 = true }
        }
        for _ in 0..<500 where !stopped.withLock({ $0 }) { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(stopped.withLock { $0 }, "stop() did not return within 10 s")
        #expect(test.server.connectionCount == 0)
        _ = try? await attack.value
    }

    /// The built `motionctl serve` under the same attack: --duration and Ctrl-C end it.
    @Suite("motionctl serve under attack")
    struct Command {
        /// `motionctl serve` running, its standard output and error read as they come.
        final class Server: Sendable {
            let process: Process
            private let output = Shared("")
            private let error = Shared("")
            /// How many of the two pipes were read to their end (the process closed them).
            private let drained = Shared(0)

            init(_ arguments: [String]) throws {
                let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent()]
                    .map { $0.appendingPathComponent("motionctl") }
                guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                    throw RawHTTP.Failure(description: "motionctl not built: \(candidates)")
                }
                process = Process()
                process.executableURL = executable
                process.arguments = arguments
                let out = Pipe(), err = Pipe()
                process.standardOutput = out
                process.standardError = err
                try process.run()
                let drained = drained
                for (pipe, text) in [(out, output), (err, error)] {
                    Thread {
                        while true {
                            let data = pipe.fileHandleForReading.availableData
                            if data.isEmpty {
                                drained.withLock { $0 += 1 }
                                return
                            }
                            text.withLock { $0 += String(decoding: data, as: UTF8.self) }
                        }
                    }.start()
                }
            }

            var standardOutput: String { output.withLock { $0 } }
            var standardError: String { error.withLock { $0 } }

            /// The port from the URL it printed, waiting for "Ctrl-C to stop" up to 60 s (5 min under
            /// the thread sanitizer: building the simulated board's world took CI's sanitized
            /// motionctl over 30 s beside the other phases).
            func port() throws -> UInt16 {
                for _ in 0..<(isThreadSanitized ? 6000 : 1200) {
                    let text = standardOutput
                    if text.contains("Ctrl-C to stop"), let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                        if let port = UInt16(text[range].dropFirst("http://127.0.0.1:".count).dropLast()) { return port }
                    }
                    guard process.isRunning else { break }
                    usleep(50_000)
                }
                throw RawHTTP.Failure(description: "no URL: \(standardOutput) \(standardError)")
            }

            /// Waits up to `seconds` for it to exit; kills it (and says so) if it did not. Either way,
            /// then waits (up to 10 s) until both pipes are read to their end, so that what it wrote
            /// last (its "interrupted: " line) is in ``standardError`` (the readers run on their own
            /// threads and may still be behind when the process is gone).
            func exited(within seconds: Double) -> Bool {
                let end = Date().addingTimeInterval(seconds)
                while process.isRunning, Date() < end { usleep(20_000) }
                let exited = !process.isRunning
                if !exited { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                let drainEnd = Date().addingTimeInterval(10)
                while drained.withLock({ $0 }) < 2, Date() < drainEnd { usleep(10_000) }
                return exited
            }
        }

        /// Two connections sending 2 MB header lines and two sending 100 000 headers, again and
        /// again (at most 200 each) until `done` or the server is gone, each bounded by its timeouts.
        static func attack(port: UInt16, until done: Shared<Bool>) -> [Thread] {
            let threads = (0..<4).map { attacker in
                Thread {
                    let request = attacker < 2 ? ServeLimitsTests.hugeHeaderLine(2_000_000) : ServeLimitsTests.manyHeaders(100_000)
                    for _ in 0..<200 where !done.withLock({ $0 }) {
                        do { _ = try RawHTTP.exchangeBlocking(port: port, request, seconds: 5) } catch { return }
                        usleep(10_000)
                    }
                }
            }
            for thread in threads { thread.start() }
            return threads
        }

        /// How a run ended.
        struct Outcome: Sendable {
            var exited: Bool
            var seconds: Double
            var exitStatus: Int32?
            var output: String
            var error: String
            var polls: [Int] = []
        }

        func outcome(_ server: Server, exited: Bool, since start: Date) -> Outcome {
            Outcome(
                exited: exited, seconds: Date().timeIntervalSince(start),
                exitStatus: server.process.terminationReason == .exit ? server.process.terminationStatus : nil,
                output: server.standardOutput, error: server.standardError)
        }

        @Test("serve --duration 5 under attack ends after its 5 s, not much later, answering polls meanwhile")
        func durationUnderAttack() async throws {
            let run = try await RawHTTP.onThread {
                let started = Date()
                let server = try Server(["serve", "--simulated", "--port", "0", "--duration", "5"])
                let port = try server.port()
                let done = Shared(false)
                _ = Self.attack(port: port, until: done)
                var polls: [Int] = []
                while server.process.isRunning, Date().timeIntervalSince(started) < 60, polls.count < 20 {
                    if let reply = try? RawHTTP.exchangeBlocking(port: port, ServeLimitsTests.info(token: nil), seconds: 1) { polls.append(reply.response.status) }
                    usleep(100_000)
                }
                let exited = server.exited(within: Self.exitBound)
                done.withLock { $0 = true }
                var run = outcome(server, exited: exited, since: started)
                run.polls = polls
                return run
            }
            #expect(run.exited, "still running after \(run.seconds) s")
            #expect(run.exitStatus == 0, "\(run.error)")
            #expect(run.seconds >= 5 && run.seconds < Self.exitBound, "\(run.seconds) s")
            #expect(run.output.contains("stopped: sampled "), "\(run.output)")
            #expect(!run.polls.isEmpty && run.polls.allSatisfy { $0 == 200 }, "\(run.polls)")
        }

        /// How long after its start the command must have ended: its 5 s, the server's 5 s to stop,
        /// and the launch; a server that ignored --duration would run for ever. Under the thread
        /// sanitizer, niced beside CI's other phases, the launch alone is slow (32 s seen).
        static let exitBound = isThreadSanitized ? 120.0 : 30.0

        @Test("Ctrl-C (SIGINT) under attack ends it: exit 130, 'interrupted: '")
        func interruptUnderAttack() async throws {
            let run = try await RawHTTP.onThread {
                let server = try Server(["serve", "--simulated", "--port", "0"])
                let port = try server.port()
                let done = Shared(false)
                _ = Self.attack(port: port, until: done)
                usleep(1_500_000)
                let interrupted = Date()
                kill(server.process.processIdentifier, SIGINT)
                let exited = server.exited(within: 30)
                done.withLock { $0 = true }
                return outcome(server, exited: exited, since: interrupted)
            }
            #expect(run.exited, "still running 30 s after SIGINT")
            #expect(run.exitStatus == 130, "\(run.error)")
            #expect(run.error.contains("interrupted: "), "\(run.error)")
        }
    }
}
