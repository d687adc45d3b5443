/// What one client may cost the server, all checked while a request's head is read, before
/// anything else (the routes, the token) sees the request. A request past a size limit is answered
/// with the status named and its connection closed; past a time limit it is closed.
///
/// The defaults fit a browser (a page's request heads are a few hundred bytes; cookies for
/// 127.0.0.1 from other local servers can add a few kilobytes) with room to spare, and keep the
/// cost of a hostile client to a few kilobytes of memory and microseconds of parsing per request.
package struct HTTPLimits: Sendable, Equatable {
    /// Bytes of the request line (method, target, version), without its line end. Longer: 414
    /// (URI Too Long), or 400 when the line does not start with a method and a space.
    package var requestLine: Int
    /// Bytes of one header line, without its line end. Longer: 431.
    package var headerLine: Int
    /// Header lines in one request. More: 431.
    package var headerCount: Int
    /// Bytes of the whole head: empty lines before it, the request line, the header lines and
    /// their line ends. More: 431.
    package var head: Int
    /// Bytes of a request body (`Content-Length`). More: 413. No endpoint takes a body; one up to
    /// this size is read and ignored. A body of unknown length (`Transfer-Encoding`): 411.
    package var body: Int
    /// Seconds from the first byte of a request until its head and body are all in. Slower: 408
    /// and closed.
    package var headSeconds: Double
    /// Seconds a connection may wait for a request to start (a browser's kept-alive connection
    /// between two requests, or one that never sends anything). Then it is closed.
    package var idleSeconds: Double
    /// Seconds a new connection may wait for its first request to start: a client that opens
    /// connections and sends nothing holds each only this long.
    package var firstRequestSeconds: Double
    /// Seconds one write of a response may make no progress (a browser that stopped reading its
    /// event stream while its socket buffer is full). Then the connection is closed.
    package var writeStallSeconds: Double
    /// Connections open at once. One more takes the place of the connection that has waited
    /// longest for a request to start (idle ones cost the server nothing to drop: a browser opens
    /// another); when none is idle, it is answered 503 and closed at once.
    package var connections: Int
    /// Connections open at once from one address, so that one machine cannot hold every
    /// connection. One more takes the place of that address's connection that has waited longest
    /// for a request; when none of its connections is idle, it is answered 503 and closed.
    package var connectionsPerPeer: Int
    /// After a refusal the connection is shut for writing and what the client still sends is
    /// read and dropped for up to this many seconds or ``lingerBytes`` bytes, then closed: closing
    /// with unread bytes would reset the connection and the client could lose the answer.
    package var lingerSeconds: Double
    package var lingerBytes: Int

    /// Bytes of a method (the longest HTTP method, `UNSUBSCRIBE`, has 11).
    static let method = 16

    package init(
        requestLine: Int = 8_192, headerLine: Int = 8_192, headerCount: Int = 100, head: Int = 32_768, body: Int = 16_384,
        headSeconds: Double = 10, idleSeconds: Double = 15, firstRequestSeconds: Double = 3, writeStallSeconds: Double = 20,
        connections: Int = 64, connectionsPerPeer: Int = 16, lingerSeconds: Double = 2, lingerBytes: Int = 4_194_304
    ) {
        self.requestLine = max(64, requestLine)
        self.headerLine = max(64, headerLine)
        self.headerCount = max(1, headerCount)
        self.head = max(self.requestLine + 2, head)
        self.body = max(0, body)
        self.headSeconds = max(0.01, headSeconds)
        self.idleSeconds = max(0.01, idleSeconds)
        self.firstRequestSeconds = max(0.01, firstRequestSeconds)
        self.writeStallSeconds = max(0.01, writeStallSeconds)
        self.connections = max(1, connections)
        self.connectionsPerPeer = max(1, connectionsPerPeer)
        self.lingerSeconds = max(0, lingerSeconds)
        self.lingerBytes = max(0, lingerBytes)
    }
}
