import FileAccess
import Foundation
import Motion

extension MotionServer {
    /// Every request that got through the server's limits comes here: the token, then the path,
    /// then the method, then the parameters. Nothing here traps on any input; every refusal is a
    /// 4xx with a line saying what to do.
    func respond(to request: RequestHead) -> Response {
        guard isAuthorized(request) else {
            return Self.text(401, "this server needs its access token: open the URL motionctl serve printed (it ends in ?token=…)")
        }
        if configuration.accessToken == nil, let refusal = Self.refusalOfAnotherSite(request) { return refusal }
        let methods: [String]
        switch request.path {
        case "/", "/index.html", "/events", "/info", "/calibration/magnetometer": methods = ["GET"]
        case "/calibration/magnetometer/start", "/calibration/magnetometer/save", "/calibration/magnetometer/cancel": methods = ["POST"]
        default: return Self.text(404, "no such page: \(request.path.prefix(200)) (the view is at /)")
        }
        guard methods.contains(request.method) else {
            var response = Self.text(405, "\(request.path) takes \(methods.joined(separator: " or ")), not \(request.method)")
            response.headers.append(("Allow", methods.joined(separator: ", ")))
            return response
        }
        do {
            return try route(request)
        } catch {
            return Self.text(error.status, error.message)
        }
    }

    private func route(_ request: RequestHead) throws(CalibrationRefusal) -> Response {
        switch request.path {
        case "/", "/index.html":
            return Response(status: 200, headers: Self.headers("text/html; charset=utf-8"), body: .bytes(Array(Page.html.utf8)))
        case "/events":
            let rate = try Self.number(request, "rate", in: ServeConfiguration.rateRange, default: ServeConfiguration.defaultRate, unit: "events per second")
            return eventStream(rate: rate)
        case "/info":
            return Self.json(infoJSON)
        case "/calibration/magnetometer":
            return Self.json(try calibrationService().snapshot)
        case "/calibration/magnetometer/start":
            let duration = try Self.number(request, "duration", in: 1...86_400, default: 60, unit: "seconds")
            try calibrationService().start(duration: duration)
            return Self.json(try calibrationService().snapshot, status: 202)
        case "/calibration/magnetometer/save":
            let replace = try Self.flag(request, "replace")
            return Self.json(try calibrationService().save(replace: replace))
        default:   // "/calibration/magnetometer/cancel"
            try calibrationService().cancel()
            return Self.json(try calibrationService().snapshot)
        }
    }

    private func calibrationService() throws(CalibrationRefusal) -> CalibrationService {
        guard let calibration else { throw CalibrationRefusal(status: 404, message: "calibration is not available on this server") }
        return calibration
    }

    private func eventStream(rate: Double) -> Response {
        let subscription = Subscription(fanOut: fanOut, rate: rate)
        let prelude = "retry: 2000\n\nevent: info\ndata: \(infoJSON)\n\n"
            + (calibration.map { "event: calibration\ndata: \($0.snapshot)\n\n" } ?? "")
        let body = EventStreamBody(subscription: subscription, prelude: prelude) { [encoding] event, counts in
            encoding.encode(event, counts: counts)
        }
        return Response(status: 200, headers: Self.headers("text/event-stream") + [("X-Accel-Buffering", "no")], body: .stream(body))
    }

    /// Board, device, chips and source, and what the sampler does (JSON).
    var infoJSON: String {
        let target = manager.calibrationTarget
        var json = "{\"board\":\(EventEncoding.string(description.board)),\"source\":\(EventEncoding.string(description.source))"
        json += ",\"simulated\":\(description.isSimulated),\"device\":\(EventEncoding.string(manager.deviceName))"
        json += ",\"imu\":" + (target.map { EventEncoding.string($0.imu.chip) } ?? "null")
        json += ",\"magnetometer\":" + (target?.magnetometer.map { EventEncoding.string($0.chip) } ?? "null")
        json += ",\"samplerRate\":\(EventEncoding.number(1 / manager.deviceMotionUpdateInterval, 1))"
        json += ",\"barometer\":" + (extras.altimeter?.barometerName.map(EventEncoding.string) ?? "null")
        json += ",\"calibration\":\(calibration != nil && manager.isMagnetometerAvailable)}"
        return json
    }

    /// True when no token is needed, or the request carries it (query `token`, header
    /// `X-Motion-Token`, or `Authorization: Bearer …`). Compared in constant time.
    func isAuthorized(_ request: RequestHead) -> Bool {
        guard let token = configuration.accessToken else { return true }
        let bearer = request.header("authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let offered = request.queryValue("token") ?? request.header("x-motion-token") ?? bearer ?? ""
        let expected = Array(token.utf8), given = Array(offered.utf8)
        var difference = expected.count ^ given.count
        for index in expected.indices { difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0)) }
        return difference == 0
    }

    /// Without a token the server trusts being reachable from this machine only, and a web page
    /// in the user's browser is on this machine too: a site whose name was re-pointed at
    /// 127.0.0.1 (DNS rebinding) sends its own name as `Host`, and a page that posts to
    /// `http://127.0.0.1:…` sends its own `Origin`. Both are refused with 403; a client that
    /// names no host or origin (curl, HTTP/1.0) is served. With a token, the token decides.
    static func refusalOfAnotherSite(_ request: RequestHead) -> Response? {
        if let host = request.header("host"), !isLoopbackAuthority(host) {
            return text(403, "this server answers only requests addressed to localhost or 127.0.0.1, not to \"\(host.prefix(100))\": open http://127.0.0.1:<port>/, or serve other names with --host (a token is then required)")
        }
        if let origin = request.header("origin") {
            let authority = origin.hasPrefix("http://") ? String(origin.dropFirst(7)) : ""
            if !isLoopbackAuthority(authority) {
                return text(403, "requests from the page \"\(origin.prefix(100))\" are refused: only pages of this server may use it (open http://127.0.0.1:<port>/)")
            }
        }
        return nil
    }

    /// A loopback host (``ServeConfiguration/isLoopback(_:)``, IPv6 in brackets) with an optional
    /// port, and nothing else (no path, no user, no other name).
    static func isLoopbackAuthority(_ authority: String) -> Bool {
        var name = Substring(authority)
        if let colon = name.lastIndex(of: ":"), !name.hasSuffix("]"), name.hasPrefix("[") || !name[..<colon].contains(":") {
            let port = name[name.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            name = name[..<colon]
        }
        if name.hasPrefix("[") && name.hasSuffix("]") { return name.dropFirst().dropLast() == "::1" }
        return !name.contains(":") && ServeConfiguration.isLoopback(name)
    }

    /// A query parameter as a number in `range`, read as the command line reads numbers (plain
    /// decimal: ``DecimalNumber``; not `0x10`, `nan`, or `5` followed by a NUL); missing: `default`;
    /// anything else is a 400 naming the parameter and its range.
    static func number(_ request: RequestHead, _ name: String, in range: ClosedRange<Double>, default value: Double, unit: String) throws(CalibrationRefusal) -> Double {
        guard let text = request.queryValue(name) else { return value }
        guard text.count <= 32, let number = DecimalNumber.parse(text), range.contains(number) else {
            throw CalibrationRefusal(
                status: 400, message: "\(name) must be a number from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound)) \(unit), not \"\(text.prefix(32))\"")
        }
        return number
    }

    /// A query parameter that is on (`1`, `true`, `yes`, or present without a value) or off.
    static func flag(_ request: RequestHead, _ name: String) throws(CalibrationRefusal) -> Bool {
        guard let text = request.queryValue(name) else { return false }
        switch text.lowercased() {
        case "", "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw CalibrationRefusal(status: 400, message: "\(name) must be 1 or 0, not \"\(text.prefix(32))\"")
        }
    }

    static func plain(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : "\(value)" }

    static func headers(_ contentType: String) -> [(name: String, value: String)] {
        [("Content-Type", contentType), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")]
    }

    static func json(_ json: String, status: Int = 200) -> Response {
        Response(status: status, headers: headers("application/json"), body: .bytes(Array(json.utf8)))
    }

    /// A refusal: `{"error": message}`.
    static func text(_ status: Int, _ message: String) -> Response {
        json("{\"error\":\(EventEncoding.string(message))}", status: status)
    }
}
