/// Where the server listens and who may talk to it.
///
/// Safe by default: it listens on the loopback address only. Bound to any other address, every
/// request must carry ``accessToken`` (query `?token=…`, header `X-Motion-Token: …` or
/// `Authorization: Bearer …`); a request without it gets 401.
package struct ServeConfiguration: Sendable {
    /// The address to listen on, IPv4 or IPv6 ("127.0.0.1", "0.0.0.0", "::1", "::").
    package var host: String
    /// The TCP port; 0 picks a free one (``MotionServer/start()`` returns it).
    package var port: UInt16
    /// Required in every request when set.
    package var accessToken: String?
    /// Events a browser may fall behind by before its oldest ones are dropped (and counted).
    package var clientBufferCapacity: Int
    /// What one client may cost the server (request sizes, deadlines, connections), checked
    /// before the token.
    package var limits: HTTPLimits

    package init(
        host: String = ServeConfiguration.loopback, port: UInt16 = 8080, accessToken: String? = nil, clientBufferCapacity: Int = 64,
        limits: HTTPLimits = HTTPLimits()
    ) {
        self.host = host
        self.port = port
        self.accessToken = accessToken
        self.clientBufferCapacity = max(1, clientBufferCapacity)
        self.limits = limits
    }

    /// The configuration for `host` and `port` with the default rule: a fresh random token when
    /// `host` is not a loopback address, none otherwise.
    package static func safe(host: String = loopback, port: UInt16 = 8080) -> ServeConfiguration {
        ServeConfiguration(host: host, port: port, accessToken: isLoopback(host) ? nil : randomToken())
    }

    package static let loopback = "127.0.0.1"

    /// Rates a page may ask the event stream for (events per second); the sampler keeps its own.
    package static let rateRange: ClosedRange<Double> = 1...100
    /// The rate when the page does not say.
    package static let defaultRate = 30.0

    /// True for a host name only this machine can reach: "localhost", "::1" or a dotted
    /// 127.x.y.z (nothing else: "127.example.com" is a name that DNS may point anywhere).
    package static func isLoopback(_ host: some StringProtocol) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && Int(part).map { $0 <= 255 } == true }
    }

    /// 128 random bits from the system's generator (the kernel's `getrandom`), as 32 hex digits.
    package static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = String(generator.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - word.count) + word
        }.joined()
    }
}
