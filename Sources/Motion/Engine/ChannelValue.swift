/// A channel's value as the sampler keeps it, and what the application is handed for it. Most
/// values are handed out as they are; one that carries an object (device motion's `Attitude`, a
/// class as in Core Motion) is kept as a value by the sampler (the pull value's latest included),
/// and its object is made only at a hand-off, so the sampler allocates nothing per sample for a
/// consumer that does not take it, and no two hand-offs share an object.
protocol ChannelValue: Sendable {
    associatedtype HandedOut: Sendable
    /// Made at each hand-off: each read of the pull value, each sample sent to a handler's
    /// delivery, each element of a stream.
    var handedOut: HandedOut { get }
}

extension ChannelValue where HandedOut == Self {
    var handedOut: Self { self }
}
