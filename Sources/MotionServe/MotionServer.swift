import Dispatch
import FlyingSocks
import Foundation
import Locking
import Motion

/// What the page says about where its samples come from.
package struct SourceDescription: Sendable, Encodable {
    /// "simulated board", "Raspberry Pi 4 Model B".
    package var board: String
    /// "simulated: scenario tumble, seed 1", "/dev/i2c-1".
    package var source: String
    package var isSimulated: Bool

    package init(board: String, source: String, isSimulated: Bool) {
        self.board = board
        self.source = source
        self.isSimulated = isSimulated
    }
}

/// The live browser view: an HTTP server with one page, a Server-Sent Events stream of device
/// motion at the rate each page asks for, and the magnetometer calibration.
///
/// Every request first passes ``ServeConfiguration/limits`` (its size, its time, the number of
/// connections: ``HTTPServer``), then the token. Endpoints (every one answers 401 without the token when ``ServeConfiguration/accessToken`` is
/// set; a known path with another method 405, an unknown path 404, a bad parameter 400):
///
/// | method, path | |
/// |---|---|
/// | `GET /` | the page (HTML, script and style in one) |
/// | `GET /events?rate=HZ` | `text/event-stream`: `info`, then `sample` events at `rate` (1–100, default 30) and `calibration` events |
/// | `GET /info` | board, device, chips and source (JSON) |
/// | `GET /calibration/magnetometer` | the calibration's state (JSON) |
/// | `POST /calibration/magnetometer/start?duration=S` | starts a figure-eight (at most `S` seconds, default 60) |
/// | `POST /calibration/magnetometer/save[?replace=1]` | saves the finished calibration (the only write) |
/// | `POST /calibration/magnetometer/cancel` | stops or drops it, nothing saved |
package final class MotionServer: Sendable {
    package let manager: MotionManager
    package let configuration: ServeConfiguration
    let description: SourceDescription
    let fanOut: FanOut
    let calibration: CalibrationService?
    let encoding: EventEncoding
    /// The altitude and the steps the samples carry.
    let extras: AltitudeAndSteps
    private let server: HTTPServer
    /// Where to listen, checked by `init`.
    private let address: ListenAddress
    private let queue = DispatchQueue(label: "swift-motion.serve.samples")

    /// - Parameters:
    ///   - manager: the device motion shown (its sampler runs at 100 Hz, whatever the pages ask).
    ///   - calibration: how to calibrate the magnetometer; nil turns the calibration endpoints off.
    ///   - altimeter: the same board's barometer, for the altitude plot; nil without one.
    package init(
        manager: MotionManager, description: SourceDescription, calibration: CalibrationAccess?, configuration: ServeConfiguration,
        altimeter: Altimeter? = nil
    ) throws {
        self.manager = manager
        self.description = description
        self.configuration = configuration
        let fanOut = FanOut(capacity: configuration.clientBufferCapacity)
        self.fanOut = fanOut
        self.calibration = calibration.map { CalibrationService(access: $0) { json in fanOut.publish(.calibration(json)) } }
        extras = AltitudeAndSteps(manager: manager, altimeter: altimeter)
        encoding = EventEncoding(manager: manager, extras: extras)
        do {
            address = try ListenAddress(configuration.host, port: configuration.port)
        } catch {
            throw ServeError.badAddress(configuration.host)
        }
        server = HTTPServer(limits: configuration.limits) { Self.text($0.status, $0.message) }
    }

    /// Starts the sampler's updates and listens; returns the port (the one chosen for port 0).
    @discardableResult
    package func start() async throws -> UInt16 {
        let frame: AttitudeReferenceFrame = manager.isMagnetometerAvailable ? .xMagneticNorthZVertical : .xArbitraryZVertical
        manager.deviceMotionUpdateInterval = MotionManager.minimumUpdateInterval
        manager.startDeviceMotionUpdates(using: frame, to: queue) { [fanOut] motion, error in
            if let motion { fanOut.publish(.sample(motion)) }
            if let error { fanOut.publish(.sampleError("\(error)")) }
        }
        manager.beginGeneratingDeviceOrientationNotifications()
        extras.start()
        let handler: HTTPServer.Handler = { [self] request in respond(to: request) }
        do throws(SocketError) {
            switch address {
            case .ip4(let address): return try await server.start(address: address, handler: handler)
            case .ip6(let address): return try await server.start(address: address, handler: handler)
            }
        } catch {
            await stop()
            throw ServeError.cannotListen(host: configuration.host, port: configuration.port, cause: error)
        }
    }

    /// Stops listening, ends every stream and the sampler's updates, and any calibration in progress.
    package func stop() async {
        calibration?.stop()
        fanOut.closeAll()
        await server.stop()
        manager.stopDeviceMotionUpdates()
        extras.stop()
        if manager.isGeneratingDeviceOrientationNotifications { manager.endGeneratingDeviceOrientationNotifications() }
        queue.sync {}
    }

    /// Browsers connected to the event stream now.
    package var streamCount: Int { fanOut.clientCount }

    /// Connections open now (event streams and others).
    package var connectionCount: Int { server.connectionCount }

    /// What the HTTP server has done so far: connections, refusals, deadlines.
    package var httpCounts: HTTPCounts { server.counts }
}

/// An IPv4 or IPv6 address to listen on: the socket's family comes from the address's type.
private enum ListenAddress: Sendable {
    case ip4(sockaddr_in)
    case ip6(sockaddr_in6)

    /// Throws when `host` is not an IP address ("localhost" is 127.0.0.1).
    init(_ host: String, port: UInt16) throws {
        if host.contains(":") {
            self = .ip6(try sockaddr_in6.inet6(ip6: host, port: port))
        } else {
            self = .ip4(try sockaddr_in.inet(ip4: host == "localhost" ? ServeConfiguration.loopback : host, port: port))
        }
    }
}

/// The server cannot start.
package enum ServeError: Error, Sendable, CustomStringConvertible {
    case badAddress(String)
    case cannotListen(host: String, port: UInt16, cause: SocketError)

    package var description: String {
        switch self {
        case .badAddress(let host):
            "--host \(host) is not an IP address: pass one such as 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or ::1"
        case .cannotListen(let host, let port, let cause):
            "cannot listen on \(host) port \(port) (\(Self.reason(cause))): is another server using it? Pick another with --port, or --port 0 for any free one"
        }
    }

    /// "Bind: Address already in use (errno 98)".
    static func reason(_ error: SocketError) -> String {
        switch error {
        case .failed(let type, let errno, let message): "\(type): \(message)" + (errno != 0 ? " (errno \(errno))" : "")
        default: error.errorDescription ?? "\(error)"
        }
    }
}
