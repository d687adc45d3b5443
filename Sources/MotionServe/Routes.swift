import FlyingFox
import Foundation
import Motion
import MotionTools

extension MotionServer {
    /// Every request comes here: the token, then the path, then the method, then the parameters.
    /// Nothing here traps on any input; every refusal is a 4xx with a line saying what to do.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard isAuthorized(request) else {
            return Self.text(401, "this server needs its access token: open the URL motionctl serve printed (it ends in ?token=…)")
        }
        let methods: [HTTPMethod]
        switch request.path {
        case "/", "/index.html", "/events", "/info", "/calibration/magnetometer": methods = [.GET]
        case "/calibration/magnetometer/start", "/calibration/magnetometer/save", "/calibration/magnetometer/cancel": methods = [.POST]
        default: return Self.text(404, "no such page: \(request.path.prefix(200)) (the view is at /)")
        }
        guard methods.contains(request.method) else {
            var response = Self.text(405, "\(request.path) takes \(methods.map(\.rawValue).joined(separator: " or ")), not \(request.method.rawValue.prefix(20))")
            response.headers[HTTPHeader("Allow")] = methods.map(\.rawValue).joined(separator: ", ")
            return response
        }
        do {
            return try route(request)
        } catch {
            return Self.text(error.status, error.message)
        }
    }

    private func route(_ request: HTTPRequest) throws(CalibrationRefusal) -> HTTPResponse {
        switch request.path {
        case "/", "/index.html":
            return HTTPResponse(statusCode: .ok, headers: Self.headers("text/html; charset=utf-8"), body: Data(Page.html.utf8))
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

    private func eventStream(rate: Double) -> HTTPResponse {
        let subscription = Subscription(fanOut: fanOut, rate: rate)
        let prelude = "retry: 2000\n\nevent: info\ndata: \(infoJSON)\n\n"
            + (calibration.map { "event: calibration\ndata: \($0.snapshot)\n\n" } ?? "")
        let body = EventStreamBody(subscription: subscription, prelude: prelude) { [encoding] event, counts in
            encoding.encode(event, counts: counts)
        }
        var headers = Self.headers("text/event-stream")
        headers[HTTPHeader("X-Accel-Buffering")] = "no"
        return HTTPResponse(statusCode: .ok, headers: headers, body: HTTPBodySequence(from: body, suggestedBufferSize: 16_384))
    }

    /// Board, device, chips and source, and what the sampler does (JSON).
    var infoJSON: String {
        let target = manager.calibrationTarget
        var json = "{\"board\":\(EventEncoding.string(description.board)),\"source\":\(EventEncoding.string(description.source))"
        json += ",\"simulated\":\(description.isSimulated),\"device\":\(EventEncoding.string(manager.deviceName))"
        json += ",\"imu\":" + (target.map { EventEncoding.string($0.imu.chip) } ?? "null")
        json += ",\"magnetometer\":" + (target?.magnetometer.map { EventEncoding.string($0.chip) } ?? "null")
        json += ",\"samplerRate\":\(EventEncoding.number(1 / manager.deviceMotionUpdateInterval, 1))"
        json += ",\"calibration\":\(calibration != nil && manager.isMagnetometerAvailable)}"
        return json
    }

    /// True when no token is needed, or the request carries it (query `token`, header
    /// `X-Motion-Token`, or `Authorization: Bearer …`). Compared in constant time.
    func isAuthorized(_ request: HTTPRequest) -> Bool {
        guard let token = configuration.accessToken else { return true }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let offered = request.query.first { $0.name == "token" }?.value ?? request.headers[HTTPHeader("X-Motion-Token")] ?? bearer ?? ""
        let expected = Array(token.utf8), given = Array(offered.utf8)
        var difference = expected.count ^ given.count
        for index in expected.indices { difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0)) }
        return difference == 0
    }

    /// A query parameter as a number in `range`; missing: `default`; anything else is a 400
    /// naming the parameter and its range.
    static func number(_ request: HTTPRequest, _ name: String, in range: ClosedRange<Double>, default value: Double, unit: String) throws(CalibrationRefusal) -> Double {
        guard let text = request.query.first(where: { $0.name == name })?.value else { return value }
        guard text.count <= 32, let number = Double(text), number.isFinite, range.contains(number) else {
            throw CalibrationRefusal(
                status: 400, message: "\(name) must be a number from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound)) \(unit), not \"\(text.prefix(32))\"")
        }
        return number
    }

    /// A query parameter that is on (`1`, `true`, `yes`, or present without a value) or off.
    static func flag(_ request: HTTPRequest, _ name: String) throws(CalibrationRefusal) -> Bool {
        guard let text = request.query.first(where: { $0.name == name })?.value else { return false }
        switch text.lowercased() {
        case "", "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw CalibrationRefusal(status: 400, message: "\(name) must be 1 or 0, not \"\(text.prefix(32))\"")
        }
    }

    static func plain(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : "\(value)" }

    static func headers(_ contentType: String) -> HTTPHeaders {
        [.contentType: contentType, .cacheControl: "no-store", HTTPHeader("X-Content-Type-Options"): "nosniff"]
    }

    static func json(_ json: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(statusCode: HTTPStatusCode(status, phrase: phrase(status)), headers: headers("application/json"), body: Data(json.utf8))
    }

    /// A refusal: `{"error": message}`.
    static func text(_ status: Int, _ message: String) -> HTTPResponse {
        json("{\"error\":\(EventEncoding.string(message))}", status: status)
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 202: "Accepted"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        default: "Internal Server Error"
        }
    }
}
