import Locking
import Motion

/// What the server sends a browser: a device-motion sample, or a calibration update (already
/// JSON: every browser gets the same one).
enum ServerEvent: Sendable {
    case sample(DeviceMotion)
    case sampleError(String)
    case calibration(String)
}

/// One browser's queue of events: bounded, so a slow or vanished browser never holds up the
/// sampler. The sampler's queue only appends (dropping, and counting, the oldest event when
/// full); the browser's connection takes events as fast as its socket accepts them. Samples are
/// thinned to the browser's rate by their timestamps (the sampler keeps its own rate).
final class ClientBuffer: Sendable {
    /// What this browser has been sent and lost so far.
    struct Counts: Sendable, Equatable {
        var sent = 0
        var dropped = 0
    }

    private struct State {
        var events: [ServerEvent] = []
        var counts = Counts()
        var nextSampleTime = -Double.infinity
        var waiting: CheckedContinuation<ServerEvent?, Never>?
        var isClosed = false
    }

    let id: Int
    /// Seconds between two samples sent (1 / the page's rate).
    let interval: Double
    let capacity: Int
    private let state = Locked(State())

    init(id: Int, rate: Double, capacity: Int) {
        self.id = id
        interval = 1 / rate
        self.capacity = capacity
    }

    var counts: Counts { state.withLock { $0.counts } }

    /// Queues `event` (a sample only when this browser is due one); never blocks.
    func offer(_ event: ServerEvent) {
        let waiter: CheckedContinuation<ServerEvent?, Never>? = state.withLock { state in
            guard !state.isClosed else { return nil }
            if case .sample(let motion) = event {
                guard motion.timestamp >= state.nextSampleTime - 1e-6 else { return nil }
                // On a grid of the browser's interval; after a gap (or at the first sample) from this one on.
                state.nextSampleTime += interval
                if state.nextSampleTime < motion.timestamp { state.nextSampleTime = motion.timestamp + interval }
            }
            if let waiter = state.waiting {
                state.waiting = nil
                state.counts.sent += 1
                return waiter
            }
            if state.events.count >= capacity {
                state.events.removeFirst()
                state.counts.dropped += 1
            }
            state.events.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// The next event, waiting for one; nil once closed (the server stops, the task is cancelled).
    func next() async -> ServerEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ServerEvent?, Never>) in
                let immediate: ServerEvent?? = state.withLock { state in
                    if !state.events.isEmpty {
                        state.counts.sent += 1
                        return .some(state.events.removeFirst())
                    }
                    if state.isClosed { return .some(nil) }
                    state.waiting = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            close()
        }
    }

    /// Ends the stream: a waiting ``next()`` returns nil, later offers are ignored.
    func close() {
        let waiter = state.withLock { state in
            state.isClosed = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiter?.resume(returning: nil)
    }
}
