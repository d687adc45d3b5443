import CMosquitto
import Dispatch
import Foundation
import Locking
import Timing

#if canImport(Glibc)
import Glibc
#endif

/// One libmosquitto client, bridged to Swift. A network thread of this object's own runs
/// libmosquitto's loop (`mosquitto_loop`): it writes, reads, keeps the connection alive,
/// reconnects with backoff (``BrokerConfiguration/reconnectDelay``) and calls the callbacks below.
/// Not libmosquitto's own thread (`mosquitto_loop_start`): that one reconnects with a blocking
/// connect(2), and `mosquitto_loop_stop` then waits for it, minutes for a host that drops packets
/// (or for ever: eclipse-mosquitto/mosquitto issues 2331 and 2545); here a reconnection connects
/// without blocking (`mosquitto_reconnect_async`) and the loop ends within a bounded time of
/// ``disconnect()``. The callbacks only update this object's state under its lock and then call
/// `onEvent` with no lock held; `publish` and `subscribe` may be called from any thread
/// (`mosquitto_threaded_set`: libmosquitto locks its state and wakes the loop).
package final class MosquittoConnection: Sendable {
    /// A message received on a subscription (tests subscribe; the publisher does not).
    package struct Message: Sendable, Equatable {
        package var topic: String
        package var payload: String
        package var retained: Bool
    }

    /// What the network thread reports.
    package enum Event: Sendable {
        /// CONNACK: 0 accepted, else the refusal's code.
        case connected(code: Int32)
        /// The connection ended (0: asked for); `lostStream` stream messages were still unwritten.
        case disconnected(code: Int32, lostStream: Int)
        /// A stream message reached the socket.
        case streamWritten
        case message(Message)
        case subscribed
    }

    /// The outcome of a ``publish(topic:payload:qos:retain:stream:)``.
    package enum PublishResult: Sendable, Equatable {
        case handed
        case notConnected
        case failed(String)
    }

    private struct State {
        var connected = false
        /// The first CONNACK's code, until ``connect(timeout:)`` has seen it.
        var firstConnack: Int32?
        var connections = 0
        /// Message ids handed to libmosquitto and not yet written (true: a stream message).
        var unwritten: [Int32: Bool] = [:]
        /// Ids libmosquitto reported written before `publish` had recorded them.
        var writtenEarly: Set<Int32> = []
        /// The last error libmosquitto logged (a TLS failure's reason, say).
        var lastLogError: String?
        /// ``disconnect()`` asked the network thread to end.
        var stopping = false
        /// Seconds to wait before the next reconnection (backoff, reset by a CONNACK).
        var retryDelay: Double = 1
    }

    nonisolated(unsafe) private let handle: OpaquePointer
    private let state = Locked(State())
    private let onEvent: @Sendable (Event) -> Void
    let host: String
    let port: Int
    private let reconnectDelay: ClosedRange<Double>
    /// Signalled when the network thread ends; nil until ``connect(keepAlive:timeout:)`` started it.
    private let loopEnded = Locked<DispatchSemaphore?>(nil)

    /// `mosquitto_lib_init` once per process (it is not thread-safe; a static `let` runs once).
    private static let libraryReady: Bool = mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue

    /// A client for `configuration`'s broker; `will` is sent by the broker when the connection
    /// dies without a DISCONNECT. Nothing is sent before ``connect(timeout:)``.
    package init(
        configuration: BrokerConfiguration, clientID: String, will: (topic: String, payload: String)?,
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws(PublishError) {
        guard Self.libraryReady else { throw .library("mosquitto_lib_init failed") }
        host = configuration.host
        port = configuration.port
        reconnectDelay = configuration.reconnectDelay
        self.onEvent = onEvent
        guard let handle = mosquitto_new(clientID, true, nil) else { throw .library("mosquitto_new failed (out of memory?)") }
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().connected(code: code)
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().disconnected(code: code)
        }
        mosquitto_publish_callback_set(handle) { _, context, mid in
            guard let context else { return }
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().written(mid: mid)
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message else { return }
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().received(message.pointee)
        }
        mosquitto_subscribe_callback_set(handle) { _, context, _, _, _ in
            guard let context else { return }
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().onEvent(.subscribed)
        }
        mosquitto_log_callback_set(handle) { _, context, level, text in
            guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            let line = String(cString: text)
            Unmanaged<MosquittoConnection>.fromOpaque(context).takeUnretainedValue().state.withLock { $0.lastLogError = line }
        }
        try configure(configuration, will: will)
    }

    private func configure(_ configuration: BrokerConfiguration, will: (topic: String, payload: String)?) throws(PublishError) {
        if let username = configuration.username {
            try check(mosquitto_username_pw_set(handle, username, configuration.password), "setting the user name and password")
        }
        if let will {
            try check(mosquitto_will_set(handle, will.topic, Int32(will.payload.utf8.count), will.payload, 1, true), "setting the will")
        }
        if configuration.scheme == .mqtts {
            // mosquitto_tls_set(3): one of cafile and capath must be given. Without --ca-file the
            // system's CAs: OpenSSL's default store (MOSQ_OPT_TLS_USE_OS_CERTS) and the directory
            // of hashed certificates (capath; Debian's /etc/ssl/certs).
            let tls = Self.tlsArguments(configuration)
            if tls.caFile == nil {
                try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "using the system's CA certificates")
            }
            try check(
                mosquitto_tls_set(handle, tls.caFile, tls.caPath, tls.certificate, tls.key, nil),
                "setting up TLS (--ca-file, --cert, --key)")
        }
        try check(mosquitto_threaded_set(handle, true), "telling libmosquitto that threads share it")
        state.withLock { $0.retryDelay = configuration.reconnectDelay.lowerBound }
    }

    /// `mosquitto_tls_set`'s cafile, capath, certfile and keyfile: the CA file when given, else the
    /// system's CA directory.
    static func tlsArguments(_ configuration: BrokerConfiguration) -> (caFile: String?, caPath: String?, certificate: String?, key: String?) {
        (configuration.caFile, configuration.caFile == nil ? configuration.systemCADirectory : nil, configuration.clientCertificate,
         configuration.clientKey)
    }

    private func check(_ code: Int32, _ what: String) throws(PublishError) {
        guard code != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw .library("\(what): \(String(cString: mosquitto_strerror(code)))")
    }

    deinit {
        // The network thread holds this object: it has ended by now.
        mosquitto_destroy(handle)
    }

    /// Connects and waits (at most `timeout` seconds) for the broker's CONNACK; from then on the
    /// network thread keeps the connection up by itself. Only ever called once.
    package func connect(keepAlive: Int, timeout: Double) throws(PublishError) {
        let deadline = DispatchTime.now() + timeout
        // The TCP connection (and TLS handshake) first: libmosquitto blocks in it, and a host that
        // drops packets makes connect(2) wait for minutes, so it runs on a thread of its own.
        let outcome = Locked<(code: Int32, errno: Int32)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            let code = mosquitto_connect(handle, host, Int32(port), Int32(keepAlive))
            let error = errno
            outcome.withLock { $0 = (code, error) }
            done.signal()
        }
        thread.name = "swift-motion.mqtt-connect"
        thread.start()
        guard done.wait(timeout: deadline) == .success, let (code, error) = outcome.withLock({ $0 }) else {
            throw .timeout(host: host, port: port, seconds: timeout, detail: "no TCP connection")
        }
        switch code {
        case MOSQ_ERR_SUCCESS.rawValue: break
        case MOSQ_ERR_ERRNO.rawValue: throw .unreachable(host: host, port: port, reason: String(cString: strerror(error)))
        case MOSQ_ERR_EAI.rawValue, MOSQ_ERR_LOOKUP.rawValue:
            throw .unreachable(host: host, port: port, reason: "the host name could not be resolved")
        case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue:
            throw .tls(host: host, port: port, reason: state.withLock { $0.lastLogError } ?? String(cString: mosquitto_strerror(code)))
        default: throw .unreachable(host: host, port: port, reason: String(cString: mosquitto_strerror(code)))
        }
        startNetworkThread()
        // Then the broker's answer (with TLS, the handshake happens on the network thread first).
        while DispatchTime.now() < deadline {
            if let error = state.withLock({ $0.lastLogError }), error.contains("SSL") || error.contains("certificate") {
                throw .tls(host: host, port: port, reason: error)
            }
            if let connack = state.withLock({ $0.firstConnack }) {
                guard connack == 0 else {
                    throw .refused(host: host, port: port, code: Int(connack), reason: String(cString: mosquitto_connack_string(connack)))
                }
                return
            }
            usleep(10_000)
        }
        let detail = state.withLock { $0.lastLogError } ?? "no CONNACK"
        throw .timeout(host: host, port: port, seconds: timeout, detail: detail)
    }

    /// Hands a message to libmosquitto (never blocks on the network). `stream` messages are
    /// tracked until written, so a connection that breaks first counts them as lost.
    package func publish(topic: String, payload: String, qos: Int32, retain: Bool, stream: Bool = false) -> PublishResult {
        var mid: Int32 = 0
        let code = payload.withCString { text in
            mosquitto_publish(handle, &mid, topic, Int32(strlen(text)), text, qos, retain)
        }
        switch code {
        case MOSQ_ERR_SUCCESS.rawValue:
            let writtenAlready = state.withLock { state in
                if state.writtenEarly.remove(mid) != nil { return true }
                state.unwritten[mid] = stream
                return false
            }
            if writtenAlready, stream { onEvent(.streamWritten) }
            return .handed
        case MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue:
            return .notConnected
        default:
            return .failed(String(cString: mosquitto_strerror(code)))
        }
    }

    /// Stream messages handed to libmosquitto and not yet written to the socket.
    package var unwrittenStreamMessages: Int { state.withLock { $0.unwritten.values.count { $0 } } }

    /// Messages of any kind handed to libmosquitto and not yet written (QoS 1: not yet acknowledged).
    package var unwrittenMessages: Int { state.withLock { $0.unwritten.count } }

    package var isConnected: Bool { state.withLock { $0.connected } }
    package var connections: Int { state.withLock { $0.connections } }

    /// Subscribes (QoS 1); ``Event/subscribed`` follows the broker's SUBACK.
    package func subscribe(_ pattern: String) throws(PublishError) {
        try check(mosquitto_subscribe(handle, nil, pattern, 1), "subscribing to \(pattern)")
    }

    /// A clean end: DISCONNECT (the broker then does not send the will) and the network thread
    /// ended. Waits at most `seconds` (the thread writes the DISCONNECT first, and a reconnection's
    /// name lookup may hold it longer: it then ends by itself soon after); true when it ended.
    @discardableResult
    package func disconnect(within seconds: Double = 2) -> Bool {
        state.withLock { $0.stopping = true }
        mosquitto_disconnect(handle)
        guard let ended = loopEnded.withLock({ $0 }) else { return true }
        guard ended.wait(timeout: .now() + seconds) == .success else { return false }
        ended.signal()   // for a second call
        return true
    }

    // MARK: The network thread

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// The loop in 50 ms steps. A failed step (the connection broke, or a reconnection did not
    /// get through) waits the backoff delay in short naps, doubling it up to the configuration's
    /// maximum, and reconnects without blocking; a CONNACK resets the delay. After ``disconnect()``
    /// the loop ends once the DISCONNECT is written (the socket closed), or within a second.
    private func startNetworkThread() {
        let ended = DispatchSemaphore(value: 0)
        loopEnded.withLock { $0 = ended }
        let thread = Thread { [self] in
            var stopDeadline: Double?
            while true {
                let code = mosquitto_loop(handle, 50, 1)
                let (stopping, delay) = state.withLock { ($0.stopping, $0.retryDelay) }
                if stopping {
                    let now = SystemClock.monotonicSeconds()
                    if stopDeadline == nil { stopDeadline = now + 1 }
                    if code != MOSQ_ERR_SUCCESS.rawValue || now >= stopDeadline ?? now { break }
                    continue
                }
                guard code != MOSQ_ERR_SUCCESS.rawValue else { continue }
                let wakeAt = SystemClock.monotonicSeconds() + delay
                while SystemClock.monotonicSeconds() < wakeAt, !isStopping { usleep(50_000) }
                if isStopping { break }
                state.withLock { $0.retryDelay = min(delay * 2, reconnectDelay.upperBound) }
                _ = mosquitto_reconnect_async(handle)
            }
            ended.signal()
        }
        thread.name = "swift-motion.mqtt"
        thread.start()
    }

    // MARK: On libmosquitto's network thread

    private func connected(code: Int32) {
        state.withLock { state in
            if state.firstConnack == nil { state.firstConnack = code }
            if code == 0 {
                state.connected = true
                state.connections += 1
                state.retryDelay = reconnectDelay.lowerBound
            }
        }
        onEvent(.connected(code: code))
    }

    private func disconnected(code: Int32) {
        let lost = state.withLock { state in
            state.connected = false
            // libmosquitto discards what it had not written when it reconnects.
            let lost = state.unwritten.values.count { $0 }
            state.unwritten.removeAll()
            state.writtenEarly.removeAll()
            return lost
        }
        onEvent(.disconnected(code: code, lostStream: lost))
    }

    private func written(mid: Int32) {
        let stream = state.withLock { state -> Bool in
            guard let stream = state.unwritten.removeValue(forKey: mid) else {
                state.writtenEarly.insert(mid)
                return false
            }
            return stream
        }
        if stream { onEvent(.streamWritten) }
    }

    private func received(_ message: mosquitto_message) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let payload = message.payload.map {
            String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen)), as: UTF8.self)
        } ?? ""
        onEvent(.message(Message(topic: topic, payload: payload, retained: message.retain)))
    }
}
