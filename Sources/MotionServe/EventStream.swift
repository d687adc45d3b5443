import Locking
import Motion

/// Every browser's ``ClientBuffer``, fed from the sampler's queue.
final class FanOut: Sendable {
    private struct State {
        var clients: [Int: ClientBuffer] = [:]
        var nextID = 1
    }
    private let state = Locked(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var clientCount: Int { state.withLock { $0.clients.count } }

    func add(rate: Double) -> ClientBuffer {
        state.withLock { state in
            let client = ClientBuffer(id: state.nextID, rate: rate, capacity: capacity)
            state.nextID += 1
            state.clients[client.id] = client
            return client
        }
    }

    func remove(_ client: ClientBuffer) {
        client.close()
        _ = state.withLock { $0.clients.removeValue(forKey: client.id) }
    }

    /// Offers `event` to every browser; takes the lock only to copy the list.
    func publish(_ event: ServerEvent) {
        for client in state.withLock({ Array($0.clients.values) }) { client.offer(event) }
    }

    func closeAll() {
        for client in state.withLock({ Array($0.clients.values) }) { client.close() }
    }
}

/// A browser's place in the ``FanOut`` for as long as its response body exists: when the
/// connection goes (the browser vanished, the server stops), the body and this are released.
final class Subscription: Sendable {
    let client: ClientBuffer
    let fanOut: FanOut

    init(fanOut: FanOut, rate: Double) {
        self.fanOut = fanOut
        client = fanOut.add(rate: rate)
    }

    deinit { fanOut.remove(client) }
}

/// A Server-Sent Events body (`text/event-stream`): a first block, then one event per
/// ``ServerEvent`` of the browser's buffer, each written as soon as the socket takes it.
struct EventStreamBody: ResponseStream {
    let subscription: Subscription
    /// Sent first (the `retry` interval and the description of the source); nil once sent.
    var prelude: [UInt8]?
    let encode: @Sendable (ServerEvent, ClientBuffer.Counts) -> String

    init(subscription: Subscription, prelude: String, encode: @escaping @Sendable (ServerEvent, ClientBuffer.Counts) -> String) {
        self.subscription = subscription
        self.prelude = Array(prelude.utf8)
        self.encode = encode
    }

    /// The next event's text, waiting for one; nil once the buffer is closed (the server stops,
    /// the connection's task is cancelled).
    mutating func next() async -> [UInt8]? {
        if let prelude {
            self.prelude = nil
            return prelude
        }
        guard let event = await subscription.client.next() else { return nil }
        return Array(encode(event, subscription.client.counts).utf8)
    }
}
