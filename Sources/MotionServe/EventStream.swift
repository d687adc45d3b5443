import FlyingFox
import FlyingSocks
import Locking
import Motion
import MotionTools

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
/// ``ServerEvent`` of the browser's buffer, written as fast as the socket takes them.
struct EventStreamBody: AsyncBufferedSequence {
    typealias Element = UInt8
    let subscription: Subscription
    /// Sent first (the `retry` interval and the description of the source).
    let prelude: String
    let encode: @Sendable (ServerEvent, ClientBuffer.Counts) -> String

    func makeAsyncIterator() -> Iterator {
        Iterator(subscription: subscription, encode: encode, pending: Array(prelude.utf8))
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let subscription: Subscription
        let encode: @Sendable (ServerEvent, ClientBuffer.Counts) -> String
        var pending: [UInt8]
        var offset = 0

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> ArraySlice<UInt8>? {
            if offset >= pending.count {
                guard let event = await subscription.client.next() else { return nil }
                pending = Array(encode(event, subscription.client.counts).utf8)
                offset = 0
            }
            let end = Swift.min(pending.count, offset + Swift.max(1, count))
            defer { offset = end }
            return pending[offset..<end]
        }
    }
}
