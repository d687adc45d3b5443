import Foundation
import Motion
import MotionSimulation
import MotionServe
import Testing

/// `motionctl serve`'s endpoints, in process on a free port, on the simulated board in virtual
/// time: what the tests advance is exactly what the sampler samples.
@Suite("serve endpoints", .serialized)
struct ServeEndpointTests {
    @Test("the page: 200, HTML, self-contained, with the 3-D view, the plots and the counters it reports")
    func page() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.stop() } }
        let response = try await test.request("GET", "/")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/html; charset=utf-8")
        for part in ["<canvas id=\"body3d\"", "id=\"plot-acc\"", "id=\"plot-rot\"", "id=\"plot-mag\"", "id=\"plot-user\"", "new EventSource", "data-samples="] {
            #expect(response.body.contains(part), "\(part)")
        }
        // No network: nothing loaded from elsewhere.
        for outside in ["src=\"http", "href=\"http", "@import", "//cdn"] { #expect(!response.body.contains(outside), "\(outside)") }
    }

    @Test("the event stream: info first, then samples at the page's rate with every field, in order, none lost")
    func eventStream() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.stop() } }
        let text = try await test.sampleEvents("/events?rate=10", advancing: 2.05, count: 21)
        let head = RawHTTP.parse(text)
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "text/event-stream")
        let info = try #require(RawHTTP.events("info", in: text).first)
        #expect(info["board"] as? String == "simulated board")
        #expect(info["imu"] as? String == "LSM6DSO/LSM6DSOX")
        #expect(info["magnetometer"] as? String == "LIS3MDL")
        #expect(info["samplerRate"] as? Double == 100)
        let samples = RawHTTP.events("sample", in: text)
        #expect(samples.count == 21)
        let times = samples.compactMap { $0["t"] as? Double }
        #expect(times.count == samples.count)
        // 10 per second from a 100 Hz sampler: every tenth sample, 0.1 s apart, in order.
        for (earlier, later) in zip(times, times.dropFirst()) { #expect(abs(later - earlier - 0.1) < 1e-3, "\(times)") }
        for (index, sample) in samples.enumerated() {
            for key in ["roll", "pitch", "yaw", "heading"] { #expect(sample[key] is Double, "\(key)") }
            for key in ["acc", "rot", "mag", "user", "gravity"] { #expect((sample[key] as? [Double])?.count == 3, "\(key)") }
            let q = try #require(sample["q"] as? [Double])
            #expect(q.count == 4 && abs(q.map { $0 * $0 }.reduce(0, +) - 1) < 1e-3)
            #expect(sample["orientation"] is String)
            let client = try #require(sample["client"] as? [String: Int])
            #expect(client["sent"] == index + 1 && client["dropped"] == 0)
            let counters = try #require(sample["counters"] as? [String: Any])
            #expect(counters["dropped"] as? Int == 0)
        }
        #expect(test.manager.counters.sampled == 205)
        #expect(test.manager.counters.totalDropped == 0)
    }

    @Test("the default rate is 30 per second: 30 samples a second, 0.03 or 0.04 s apart on the 100 Hz grid")
    func defaultRate() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.stop() } }
        let text = try await test.sampleEvents("/events", advancing: 1.015, count: 31)
        let times = RawHTTP.events("sample", in: text).compactMap { $0["t"] as? Double }
        try #require(times.count == 31)
        for (earlier, later) in zip(times, times.dropFirst()) {
            let gap = ((later - earlier) * 100).rounded()
            #expect(gap == 3 || gap == 4, "\(times)")
        }
        #expect(abs((times[30] - times[0]) - 1) < 1e-6)
    }

    @Test("bad input gets 400, 404 or 405 with a message naming the thing and the fix")
    func badRequests() async throws {
        let test = try await TestServer.start(calibration: CalibrationAccess(store: CalibrationStore(directory: URL(fileURLWithPath: "/nonexistent"))) {
            throw RawHTTP.Failure(description: "not in this test")
        })
        defer { Task { await test.stop() } }
        for rate in ["0", "101", "abc", "nan", "inf", "-5", "1e400", "", "99999999999999999999999999999999999999"] {
            let response = try await test.request("GET", "/events?rate=\(rate)")
            #expect(response.status == 400, "rate=\(rate)")
            #expect(response.body.contains("rate must be a number from 1 to 100"), "\(response.body)")
        }
        let missing = try await test.request("GET", "/no/such/page")
        #expect(missing.status == 404)
        #expect(missing.body.contains("the view is at /"))
        for (method, path, allowed) in [("POST", "/", "GET"), ("DELETE", "/events", "GET"), ("GET", "/calibration/magnetometer/start", "POST"),
                                        ("PUT", "/calibration/magnetometer/save", "POST")] {
            let response = try await test.request(method, path)
            #expect(response.status == 405, "\(method) \(path)")
            #expect(response.headers["allow"] == allowed)
        }
        let duration = try await test.request("POST", "/calibration/magnetometer/start?duration=0")
        #expect(duration.status == 400)
        #expect(duration.body.contains("duration must be a number from 1 to 86400 seconds"))
        // Numbers as the command line reads them: hexadecimal, a NUL after the digits, nan and a
        // decimal comma are refused, not read as another number.
        for text in ["0x10", "5%00", "nan", "1e1%00", "30,5", "%2030"] {
            let refused = try await test.request("POST", "/calibration/magnetometer/start?duration=\(text)")
            #expect(refused.status == 400, "duration=\(text): \(refused.status)")
        }
        let replace = try await test.request("POST", "/calibration/magnetometer/save?replace=maybe")
        #expect(replace.status == 400)
        let nothing = try await test.request("POST", "/calibration/magnetometer/save")
        #expect(nothing.status == 409)
        #expect(nothing.body.contains("nothing to save"))
        let cancel = try await test.request("POST", "/calibration/magnetometer/cancel")
        #expect(cancel.status == 409)
        let cannot = try await test.request("POST", "/calibration/magnetometer/start")
        #expect(cannot.status == 409)
        #expect(cannot.body.contains("cannot calibrate: not in this test"))
    }

    @Test("beyond loopback every request needs the token: 401 without it, in the query or a header")
    func token() async throws {
        #expect(ServeConfiguration.safe(host: "127.0.0.1").accessToken == nil)
        #expect(ServeConfiguration.safe(host: "::1").accessToken == nil)
        #expect(ServeConfiguration.safe(host: "localhost").accessToken == nil)
        // A name that only starts like a loopback address may resolve anywhere: it gets a token.
        #expect(ServeConfiguration.safe(host: "127.example.com").accessToken != nil)
        #expect(ServeConfiguration.safe(host: "127.0.0.1.example.com").accessToken != nil)
        let configuration = ServeConfiguration.safe(host: "0.0.0.0", port: 0)
        let token = try #require(configuration.accessToken)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        #expect(ServeConfiguration.safe(host: "0.0.0.0").accessToken != token)
        let test = try await TestServer.start(configuration: configuration)
        defer { Task { await test.stop() } }
        for target in ["/", "/events", "/info", "/no/such/page", "/?token=", "/?token=\(token.dropLast())", "/?token=\(token)0"] {
            let response = try await test.request("GET", target)
            #expect(response.status == 401, "\(target)")
            #expect(response.body.contains("needs its access token"))
        }
        #expect(try await test.request("POST", "/calibration/magnetometer/start").status == 401)
        #expect(try await test.request("GET", "/?token=\(token)").status == 200)
        #expect(try await test.request("GET", "/info", headers: ["X-Motion-Token": token]).status == 200)
        #expect(try await test.request("GET", "/info", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        #expect(try await test.request("GET", "/info", headers: ["Authorization": "Bearer x\(token)"]).status == 401)
    }

    @Test("without a token only this machine's names are served: another site's Host or Origin gets 403 (DNS rebinding, cross-site posts)")
    func anotherSite() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.stop() } }
        let refused: [[String: String]] = [
            ["Host": "evil.example"], ["Host": "evil.example:8080"], ["Host": "127.0.0.1.evil.example"], ["Host": "128.0.0.1"],
            ["Host": "127.0.0.1:80x"], ["Host": "127.0.0.1:"], ["Host": "[::2]:8080"], ["Host": "localhost.evil.example"],
            ["Origin": "http://evil.example"], ["Origin": "null"], ["Origin": "https://127.0.0.1"], ["Origin": "http://127.0.0.1.evil.example"],
        ]
        for headers in refused {
            for (method, target) in [("GET", "/info"), ("POST", "/calibration/magnetometer/start")] {
                let response = try await test.request(method, target, headers: headers)
                #expect(response.status == 403, "\(method) \(target) \(headers)")
                #expect(response.body.contains("refused") || response.body.contains("answers only requests addressed to localhost"), "\(response.body)")
            }
        }
        let served: [[String: String]] = [
            ["Host": "127.0.0.1"], ["Host": "127.0.0.1:\(test.port)"], ["Host": "LOCALHOST:\(test.port)"], ["Host": "[::1]:\(test.port)"],
            ["Host": "127.1.2.3"], ["Origin": "http://127.0.0.1:\(test.port)"], ["Origin": "http://localhost:\(test.port)"],
        ]
        for headers in served { #expect(try await test.request("GET", "/info", headers: headers).status == 200, "\(headers)") }
        // A client that names no host (HTTP/1.0) is served.
        let plain = RawHTTP.parse(try await RawHTTP.exchange(port: test.port, "GET /info HTTP/1.0\r\n\r\n"))
        #expect(plain.status == 200)
    }

    @Test("1000 malformed requests: every answer a 4xx (505 for HTTP/9.9) or a closed connection; none served; the server still serves, the sampler lost nothing")
    func malformedRequests() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.stop() } }
        let garbage: [(Int) -> String] = [
            { "\($0)\r\n\r\n" },
            { _ in "GET\r\n\r\n" },
            { _ in "GET / HTTP/9.9\r\n\r\n" },
            { "BREW /pot-\($0) HTTP/1.1\r\nHost: x\r\n\r\n" },
            { "GET /events?rate=\(Double($0) * 1e300) HTTP/1.1\r\nHost: x\r\n\r\n" },
            { "GET /events?rate=%\($0)%zz&&&== HTTP/1.1\r\n\r\n" },
            // Long paths, up to 12 000 bytes (over the request line's 8 192 from 8 200 on: 414).
            { "GET /" + String(repeating: "a", count: 100 * $0 % 12_000) + " HTTP/1.1\r\n\r\n" },
            { _ in "POST /calibration/magnetometer/save HTTP/1.1\r\nContent-Length: -5\r\n\r\n" },
            { _ in "POST /calibration/magnetometer/cancel HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n" },
            { _ in "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" },
            { _ in "GET / HTTP/1.1\r\nno colon here\r\n\r\n" },
            { String(decoding: (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }, as: UTF8.self) + "\($0)" },
            { _ in "GET /calibration/magnetometer/start?duration=-1 HTTP/1.1\r\n\r\n" },
            { _ in "\r\n\r\n\r\n" },
            { _ in "" },
        ]
        let before = test.manager.counters
        var statuses: [Int: Int] = [:]
        for index in 0..<1000 {
            let request = garbage[index % garbage.count](index)
            let reply = RawHTTP.parse(try await RawHTTP.exchange(port: test.port, request))
            let status = reply.raw.isEmpty ? 0 : reply.status
            statuses[status, default: 0] += 1
            // Nothing is served: a version other than HTTP/1.x is a 505, everything else refused or closed.
            #expect(status != 200, "\(request.debugDescription) was served")
            #expect((status == 505) == (index % garbage.count == 2), "\(request.debugDescription): \(status)")
            if index % 100 == 99 { test.clock.advance(by: 1) }
        }
        #expect(statuses.keys.allSatisfy { $0 == 0 || $0 == 505 || (400..<500).contains($0) }, "\(statuses)")
        for status in [400, 404, 405, 411, 413, 414] { #expect(statuses[status, default: 0] > 0, "\(status): \(statuses)") }
        #expect(try await test.request("GET", "/").status == 200)
        #expect(try await test.request("GET", "/info").status == 200)
        let after = test.manager.counters
        #expect(after.sampled - before.sampled == 1000)
        #expect(after.totalDropped == 0)
    }

    @Test("a browser that does not read loses its own oldest events (counted), never the sampler's; one that vanished is let go")
    func slowAndVanishedBrowsers() async throws {
        let test = try await TestServer.start(configuration: ServeConfiguration(port: 0, clientBufferCapacity: 8))
        defer { Task { await test.stop() } }
        let clock = test.clock
        // Reads the first block, then stops reading while 200 s of samples (20 000 at 100 Hz) arrive.
        let text = try await RawHTTP.stream(port: test.port, target: "/events?rate=100", during: {
            for _ in 0..<200 { clock.advance(by: 1) }
        }) { text in
            RawHTTP.events("sample", in: text).contains { (($0["client"] as? [String: Int])?["dropped"] ?? 0) > 0 }
        }
        let lastClient = try #require(RawHTTP.events("sample", in: text).last?["client"] as? [String: Int])
        #expect(try #require(lastClient["dropped"]) > 0)
        #expect(test.manager.counters.sampled == 20_000)
        #expect(test.manager.counters.totalDropped == 0)
        // Its connection is closed: the next events fail to send and the browser is let go.
        for _ in 0..<100 where test.server.streamCount > 0 {
            clock.advance(by: 0.1)
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(test.server.streamCount == 0)
    }

    @Test("a port in use is an error that names the port and the fix")
    func portInUse() async throws {
        let first = try await TestServer.start()
        defer { Task { await first.stop() } }
        do {
            let second = try await TestServer.start(configuration: ServeConfiguration(port: first.port))
            await second.stop()
            Issue.record("a second server listened on port \(first.port)")
        } catch let error as ServeError {
            #expect("\(error)".contains("cannot listen on 127.0.0.1 port \(first.port)"))
            #expect("\(error)".contains("--port 0 for any free one"))
        }
        #expect(try await first.request("GET", "/info").status == 200)
    }
}
