/// A sampler that consumers register with (``SensorHub``, ``BarometerHub``).
protocol ConsumerHub: AnyObject, Sendable {
    /// Removes a consumer; events already handed to its sink may still arrive (``Delivery`` drops them).
    func removeConsumer(_ id: Int)
    /// Counts a sample lost after the hub handed it on (a full stream buffer).
    func countDrop(_ reason: DropReason)
}

extension SensorHub: ConsumerHub {}
extension BarometerHub: ConsumerHub {}

extension ConsumerHub {
    /// A stream fed by the consumer that `add` registers on this hub, given the function that
    /// yields a value to the stream; the consumer goes away when the stream's consumer stops
    /// iterating (or the stream is dropped). One that falls 256 values behind loses the oldest,
    /// each counted as a drop.
    func stream<Value: Sendable>(adding add: (_ yield: @escaping @Sendable (Value) -> Void) -> Int) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = add { [weak self] value in
            if case .dropped = continuation.yield(value) { self?.countDrop(.streamBufferFull) }
        }
        continuation.onTermination = { [weak self] _ in self?.removeConsumer(id) }
        return stream
    }
}
