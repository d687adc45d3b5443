import FlyingSocks
import Locking

/// One client's connection: its socket, the task serving it, and the deadline the server's
/// watchdog holds it to (nil while it waits on the server itself, e.g. for the next event).
final class Connection: Sendable {
    /// Why the connection's task was cancelled.
    enum End: Sendable, Equatable {
        /// It missed its deadline (a slow or silent client, or one that stopped reading).
        case deadline
        /// The server stops.
        case stopping
        /// It waited for a request while the server was full: a new connection took its place.
        case evicted
    }

    private struct State {
        var deadline: ContinuousClock.Instant?
        var task: Task<Void, Never>?
        var end: End?
        var waitingSince: ContinuousClock.Instant?
    }

    let id: Int
    let socket: AsyncSocket
    /// The client's address without its port ("unknown" when the socket cannot say).
    let peer: String
    private let state = Locked(State())

    /// A new connection waits for its first request from now.
    init(id: Int, socket: AsyncSocket, peer: String) {
        self.id = id
        self.socket = socket
        self.peer = peer
        state.withLock { $0.waitingSince = ContinuousClock.now }
    }

    /// Since when it has been waiting for a request to start; nil while a request is read,
    /// answered or streamed.
    var waitingSince: ContinuousClock.Instant? { state.withLock { $0.end == nil ? $0.waitingSince : nil } }

    /// `true`: it waits for a request to start (from now); `false`: one started.
    func setWaiting(_ waiting: Bool) {
        state.withLock { $0.waitingSince = waiting ? ContinuousClock.now : nil }
    }

    /// From now on the connection must get on within `seconds`; nil: no deadline.
    func setDeadline(after seconds: Double?) {
        let deadline = seconds.map { ContinuousClock.now + .nanoseconds(Int64(($0 * 1e9).rounded())) }
        state.withLock { $0.deadline = deadline }
    }

    func isOverdue(at now: ContinuousClock.Instant) -> Bool {
        state.withLock { state in state.end == nil && state.deadline.map { $0 <= now } == true }
    }

    /// Why it was cancelled; nil while it was not.
    var end: End? { state.withLock { $0.end } }

    /// Cancels the task serving the connection (now, or as soon as it is attached): its reads and
    /// writes end with `CancellationError`, and so does waiting for the next event.
    func cancel(_ end: End) {
        let task: Task<Void, Never>? = state.withLock { state in
            if state.end == nil { state.end = end }
            return state.task
        }
        task?.cancel()
    }

    /// The task serving the connection; cancelled at once when the connection already was.
    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.end != nil
        }
        if cancelled { task.cancel() }
    }

    /// Waits until the task serving the connection has ended.
    func finished() async {
        await state.withLock { $0.task }?.value
    }
}
