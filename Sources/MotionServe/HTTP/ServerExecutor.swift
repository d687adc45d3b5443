import Dispatch

/// Runs the server's tasks (accepting, the socket pool's event loop, the watchdog, each
/// connection) on a serial queue of their own instead of Swift concurrency's shared threads.
/// Those threads are as many as the cores (two on this project's boards and CI machines), and any
/// code in the same process that blocks one — a synchronous file or process wait in an
/// application, a test that runs a command — would otherwise stall every connection and the
/// watchdog that enforces the deadlines. Everything the server does is non-blocking I/O, so one
/// thread serves all its connections.
final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
