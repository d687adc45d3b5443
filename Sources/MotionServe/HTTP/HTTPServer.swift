import FlyingSocks
import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on FlyingSocks' non-blocking sockets and epoll, built so that no
/// client can cost it more than ``HTTPLimits`` allows: each request's head is read within the
/// limits before the handler (and so the token check) sees anything; a request past a size limit
/// is refused (431, 414, 413, 411, 400) and its connection closed; a client too slow to send its
/// request, or to read its answer, is cut off by a watchdog; connections beyond
/// ``HTTPLimits/connections`` are answered 503 and closed. Reading is linear in the bytes read and
/// bounded per request, so a hostile client cannot hold Swift concurrency's few threads, and
/// ``stop()`` ends every connection whatever it is doing. (docs/serve-notes.md has why not
/// FlyingFox's server.)
///
/// Keep-alive and pipelining as HTTP/1.1 has them; request bodies only with a `Content-Length`
/// within the limit (read and dropped: no endpoint takes one); a streamed response body ends the
/// connection.
final class HTTPServer: Sendable {
    typealias Handler = @Sendable (RequestHead) async -> Response

    private struct State {
        var connections: [Int: Connection] = [:]
        var nextID = 1
        var listener: Socket?
        /// Taking connections; the socket pool's event loop and the watchdog.
        var accepting: Task<Void, Never>?
        var background: [Task<Void, Never>] = []
        var isStopped = false
        var counts = HTTPCounts()
    }

    let limits: HTTPLimits
    private let refusal: @Sendable (HTTPRefusal) -> Response
    private let pool: SocketPool<ePoll>
    /// Where every task of this server runs (see ``ServerExecutor``).
    private let executor = ServerExecutor(label: "swift-motion.serve")
    private let state = Locked(State())
    /// How often the watchdog looks for connections past their deadline.
    private static let watchInterval = Duration.milliseconds(100)

    /// - Parameter refusal: the answer to a request the server refuses itself (its status and why).
    init(limits: HTTPLimits, refusal: @escaping @Sendable (HTTPRefusal) -> Response) {
        self.limits = limits
        self.refusal = refusal
        pool = .ePoll()
    }

    /// Listens on `address` and starts taking connections, each request that got through the
    /// limits answered by `handler`; returns the port (the one the system chose for port 0).
    func start(address: some SocketAddress, handler: @escaping Handler) async throws(SocketError) -> UInt16 {
        let listener: Socket
        do {
            listener = try Socket(domain: Int32(type(of: address).family))
        } catch {
            throw Self.socketError(error, "Socket")
        }
        do {
            try listener.setValue(true, for: .localAddressReuse)
            try listener.bind(to: address)
        } catch {
            Self.close(listener)
            throw Self.socketError(error, "Bind")
        }
        do {
            try listener.listen()
        } catch {
            throw Self.socketError(error, "Listen")   // listen() closed the socket itself
        }
        let port: UInt16
        let accepting: AsyncSocket
        do {
            switch try listener.sockname() {
            case .ip4(_, let number), .ip6(_, let number): port = number
            case .unix: port = 0
            }
            accepting = try AsyncSocket(socket: listener, pool: pool)
            // The pool's epoll and its wake-up descriptor, once listening is certain.
            try await pool.prepare()
        } catch {
            Self.close(listener)
            throw Self.socketError(error, "Listen")
        }
        let pool = pool
        let background = [
            Task(executorPreference: executor) {
                do { try await pool.run() } catch { /* cancelled: the server stops */ }
            },
            Task(executorPreference: executor) { [self] in await watch() },
        ]
        let acceptTask = Task(executorPreference: executor) { [self] in await accept(on: accepting, handler: handler) }
        state.withLock { state in
            state.listener = listener
            state.accepting = acceptTask
            state.background = background
        }
        return port
    }

    /// Stops taking connections, ends every connection (whatever it is doing: reading, writing,
    /// waiting for an event) and waits until each has closed.
    func stop() async {
        let (accepting, listener) = state.withLock { state in
            state.isStopped = true
            defer { state.accepting = nil; state.listener = nil }
            return (state.accepting, state.listener)
        }
        // The accept loop first: no connection comes after the others were cancelled.
        accepting?.cancel()
        await accepting?.value
        if let listener { Self.close(listener) }
        let (connections, background) = state.withLock { state in
            defer { state.background = [] }
            return (Array(state.connections.values), state.background)
        }
        for connection in connections { connection.cancel(.stopping) }
        for connection in connections { await connection.finished() }
        for task in background { task.cancel() }
        for task in background { await task.value }
    }

    var counts: HTTPCounts { state.withLock { $0.counts } }

    /// Connections open now.
    var connectionCount: Int { state.withLock { $0.connections.count } }

    // MARK: Connections

    private func accept(on listener: AsyncSocket, handler: @escaping Handler) async {
        while !Task.isCancelled {
            let client: AsyncSocket
            do {
                client = try await listener.accept()
            } catch {
                if Task.isCancelled { return }
                // EMFILE, ECONNABORTED, …: the listener stays; try again shortly, without spinning.
                do { try await Task.sleep(for: .milliseconds(100)) } catch { return }
                continue
            }
            admit(client, handler: handler)
        }
    }

    private func admit(_ socket: AsyncSocket, handler: @escaping Handler) {
        let peer = Self.peerAddress(of: socket.socket)
        let admitted: Result<(Connection, evicted: Connection?), HTTPRefusal> = state.withLock { state in
            guard !state.isStopped else { return .failure(HTTPRefusal(503, "the server is stopping")) }
            // Full (for this address, or in all): the connection that has waited longest for a
            // request to start gives way; none waiting: refused.
            func oldestWaiting(_ connections: some Sequence<Connection>) -> Connection? {
                connections.compactMap { connection in connection.waitingSince.map { (connection, $0) } }.min { $0.1 < $1.1 }?.0
            }
            var evicted: Connection?
            let fromPeer = state.connections.values.filter { $0.peer == peer }
            if fromPeer.count >= limits.connectionsPerPeer {
                guard let oldest = oldestWaiting(fromPeer) else {
                    state.counts.overPeerLimit += 1
                    return .failure(HTTPRefusal(503, "too many connections from \(peer) (\(limits.connectionsPerPeer)): close some, or try again in a moment"))
                }
                evicted = oldest
            } else if state.connections.count >= limits.connections {
                guard let oldest = oldestWaiting(state.connections.values) else {
                    state.counts.overCapacity += 1
                    return .failure(HTTPRefusal(503, "too many connections (\(limits.connections)): try again in a moment"))
                }
                evicted = oldest
            }
            if let evicted {
                state.connections.removeValue(forKey: evicted.id)
                state.counts.evicted += 1
            }
            let connection = Connection(id: state.nextID, socket: socket, peer: peer)
            state.nextID += 1
            state.connections[connection.id] = connection
            state.counts.connections += 1
            return .success((connection, evicted))
        }
        let connection: Connection
        switch admitted {
        case .failure(let refused):
            // One try at a short answer, never waiting for the client; then closed.
            let answer = refusal(refused)
            do { _ = try socket.socket.write(Data(answer.head(keepAlive: false) + Self.bytes(answer))) } catch { /* it is closed anyway */ }
            Self.close(socket.socket)
            return
        case .success(let (admitted, evicted)):
            evicted?.cancel(.evicted)
            connection = admitted
        }
        connection.setDeadline(after: limits.firstRequestSeconds)
        let task = Task(executorPreference: executor) { [self] in
            await serve(connection, handler: handler)
            Self.close(connection.socket.socket)
            state.withLock { _ = $0.connections.removeValue(forKey: connection.id) }
        }
        connection.attach(task)
    }

    /// Cuts off connections past their deadline.
    private func watch() async {
        while true {
            do { try await Task.sleep(for: Self.watchInterval) } catch { return }
            let now = ContinuousClock.now
            let overdue = state.withLock { Array($0.connections.values) }.filter { $0.isOverdue(at: now) }
            guard !overdue.isEmpty else { continue }
            state.withLock { $0.counts.timedOut += overdue.count }
            for connection in overdue { connection.cancel(.deadline) }
        }
    }

    /// How reading a request ended, when it did not give one.
    private enum ReadEnd: Error {
        case refused(HTTPRefusal)
        /// The deadline passed; `started`: some of a request had come.
        case timedOut(started: Bool)
        /// The client closed, the connection failed, or the server stops.
        case closed
    }

    private func serve(_ connection: Connection, handler: Handler) async {
        var received: [UInt8] = []
        var first = true
        while true {
            connection.setDeadline(after: first ? limits.firstRequestSeconds : limits.idleSeconds)
            connection.setWaiting(true)
            first = false
            var parser = RequestHeadParser(limits: limits, received: received)
            let request: RequestHead
            do throws(ReadEnd) {
                request = try await readRequest(&parser, on: connection)
                received = try await dropBody(of: request, after: parser.rest, on: connection)
            } catch {
                switch error {
                case .refused(let refusal): await refuse(refusal, on: connection)
                case .timedOut(started: true): answerOnce(HTTPRefusal(408, "the request took too long to arrive"), on: connection)
                case .timedOut(started: false), .closed: break
                }
                return
            }
            connection.setDeadline(after: nil)
            connection.setWaiting(false)
            let response = await handler(request)
            var keepAlive = request.keepAlive
            if case .stream = response.body { keepAlive = false }
            if state.withLock({ $0.isStopped }) { keepAlive = false }
            do {
                try await send(response, keepAlive: keepAlive, on: connection)
            } catch {
                return
            }
            if !keepAlive { return }
            // A client that pipelines requests without end must not keep the thread from the others.
            await Task.yield()
        }
    }

    /// Reads until `parser` has a whole head: within the idle deadline until a request starts,
    /// then within ``HTTPLimits/headSeconds``.
    private func readRequest(_ parser: inout RequestHeadParser, on connection: Connection) async throws(ReadEnd) -> RequestHead {
        var started = false
        var bytes: [UInt8] = []
        while true {
            do throws(HTTPRefusal) {
                if let head = try parser.append(bytes) { return head }
            } catch {
                throw .refused(error)
            }
            if !started, parser.hasStarted {
                started = true
                connection.setWaiting(false)
                connection.setDeadline(after: limits.headSeconds)
            }
            bytes = try await read(on: connection, started: started)
        }
    }

    /// Reads and drops the body (at most ``HTTPLimits/body`` bytes, within the request's deadline);
    /// returns what came after it.
    private func dropBody(of request: RequestHead, after rest: ArraySlice<UInt8>, on connection: Connection) async throws(ReadEnd) -> [UInt8] {
        var remaining = request.contentLength
        let inBuffer = min(remaining, rest.count)
        remaining -= inBuffer
        let after = Array(rest.dropFirst(inBuffer))
        while remaining > 0 {
            remaining -= try await read(on: connection, started: true, atMost: remaining).count
        }
        return after
    }

    private func read(on connection: Connection, started: Bool, atMost count: Int = 4_096) async throws(ReadEnd) -> [UInt8] {
        do {
            return try await connection.socket.read(atMost: min(count, 4_096))
        } catch {
            throw connection.end == .deadline ? .timedOut(started: started) : .closed
        }
    }

    /// Answers `refusal`, then closes the way HTTP asks (RFC 9112 §9.6): shut for writing, read and
    /// drop what the client still sends (within ``HTTPLimits/lingerSeconds`` and
    /// ``HTTPLimits/lingerBytes``), so that the answer is not lost to a connection reset.
    private func refuse(_ refusal: HTTPRefusal, on connection: Connection) async {
        state.withLock { $0.counts.refused[refusal.status, default: 0] += 1 }
        do {
            try await send(self.refusal(refusal), keepAlive: false, on: connection)
        } catch {
            return
        }
        let file = connection.socket.socket.file.rawValue
        _ = shutdown(file, Int32(SHUT_WR))
        connection.setDeadline(after: limits.lingerSeconds)
        var drained = 0
        while drained < limits.lingerBytes, !Task.isCancelled {
            // MSG_TRUNC on TCP drops the bytes in the kernel, without copying them (tcp(7)).
            let count = recv(file, nil, min(1 << 20, limits.lingerBytes - drained), Int32(MSG_TRUNC | MSG_DONTWAIT))
            if count > 0 {
                drained += count
                // A fast sender always has bytes waiting: let other connections have the thread.
                await Task.yield()
            } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                do { try await pool.suspendSocket(connection.socket.socket, untilReadyFor: .read) } catch { return }
            } else {
                return   // the client closed (0), or the connection failed
            }
        }
    }

    /// One try at answering `refusal` without waiting (the connection's task may be cancelled already).
    private func answerOnce(_ refusal: HTTPRefusal, on connection: Connection) {
        state.withLock { $0.counts.refused[refusal.status, default: 0] += 1 }
        let answer = self.refusal(refusal)
        do { _ = try connection.socket.socket.write(Data(answer.head(keepAlive: false) + Self.bytes(answer))) } catch { /* closed next anyway */ }
    }

    private func send(_ response: Response, keepAlive: Bool, on connection: Connection) async throws {
        let head = response.head(keepAlive: keepAlive)
        switch response.body {
        case .bytes(let body):
            try await write(head + body, on: connection)
        case .stream(var stream):
            try await write(head, on: connection)
            while let piece = await stream.next() {
                try await write(Response.chunk(piece), on: connection)
            }
            try await write(Response.lastChunk, on: connection)
        }
    }

    /// Writes all of `bytes`, within ``HTTPLimits/writeStallSeconds``.
    private func write(_ bytes: [UInt8], on connection: Connection) async throws {
        guard !bytes.isEmpty else { return }
        connection.setDeadline(after: limits.writeStallSeconds)
        try await connection.socket.write(Data(bytes))
        connection.setDeadline(after: nil)
    }

    private static func bytes(_ response: Response) -> [UInt8] {
        if case .bytes(let bytes) = response.body { return bytes }
        return []
    }

    private static func close(_ socket: Socket) {
        do { try socket.close() } catch { /* EBADF or EINTR: the descriptor is gone either way */ }
    }

    /// The client's address without its port: connections from one machine count together.
    private static func peerAddress(of socket: Socket) -> String {
        do {
            switch try socket.remotePeer() {
            case .ip4(let address, _), .ip6(let address, _): return address
            case .unix(let path): return path
            }
        } catch {
            // A peer that is already gone: its connection ends at its first read.
            return "unknown"
        }
    }

    private static func socketError(_ error: any Error, _ what: String) -> SocketError {
        if let error = error as? SocketError { return error }
        return .failed(type: what, errno: 0, message: "\(error)")
    }
}

/// What an ``HTTPServer`` has done so far.
package struct HTTPCounts: Sendable, Equatable {
    /// Connections taken.
    package var connections = 0
    /// Connections answered 503 because ``HTTPLimits/connections`` were open and none was idle.
    package var overCapacity = 0
    /// Connections answered 503 because ``HTTPLimits/connectionsPerPeer`` were open from their address.
    package var overPeerLimit = 0
    /// Idle connections closed to make room for a new one.
    package var evicted = 0
    /// Connections cut off at a deadline (idle, slow head, stalled write, end of lingering).
    package var timedOut = 0
    /// Requests the server answered itself, by status (431, 414, 413, 411, 408, 400, 505).
    package var refused: [Int: Int] = [:]
}
