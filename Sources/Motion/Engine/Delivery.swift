import Dispatch
import Foundation
import Locking
import Synchronization

/// Where a consumer's handler runs.
enum DeliveryTarget: @unchecked Sendable {
    case dispatch(DispatchQueue)
    case operation(OperationQueue)

    func async(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .dispatch(let queue): queue.async(execute: work)
        case .operation(let queue): queue.addOperation(work)
        }
    }

    /// The same, for a block made once and submitted many times: Dispatch retains it rather than
    /// copying it, so a submission allocates no closure and no block.
    func submit(_ block: @escaping @convention(block) @Sendable () -> Void) {
        switch self {
        case .dispatch(let queue): queue.async(execute: block)
        case .operation(let queue): queue.addOperation(block)
        }
    }
}

/// Carries one consumer's events from the sampler queue to its handler on the consumer's queue.
///
/// **Lifecycle.** ``deactivate()`` never waits for a handler. Its first step closes a gate (an
/// atomic count of the calls decided, swapped for -1); then it drops the events still waiting,
/// under a lock that no handler ever runs under. The run passes the gate (counts the call unless
/// the gate is closed, one compare-and-exchange) as its last step before each call, after taking
/// the event and releasing the lock; nothing between that step and the call can block or yield
/// the thread. The decision and the deactivation are therefore ordered one way or the other:
/// every call of the handler was decided before the gate closed (``deactivate()`` returns how
/// many) or is never made. A handler already called is a running handler: on another thread it
/// may be anywhere in its body, its first statement included, when `deactivate` returns, and it
/// may finish — Core Motion's promise, and the only one that cannot deadlock: a handler may wait
/// for the thread that stops it (a `DispatchQueue.main.sync` to hand its result to the UI while
/// the main thread stops the updates). ``Activity/waitUntilIdle()`` is the explicit wait, for a
/// caller that must know the last handler ended.
///
/// (The gate is passed after the lock is released, not under it: releasing a lock that the
/// stopping thread waits for wakes that thread, which may take the processor from the run before
/// it calls the handler; a call decided under the lock would then often begin up to a scheduling
/// quantum after `deactivate` returned. StopPromiseTests' flood counts such handlers.)
///
/// **Order.** Events wait in a queue that keeps its capacity. One block, made once, drains it on
/// the target queue: an event submits the block only when none is submitted and not yet started,
/// so the events of one FIFO read, or those that arrive while the consumer's queue is busy, share
/// one submission. A run hands over the events waiting when it started, no more: events that come
/// while it runs submit it again, behind whatever else was put on the queue meanwhile, so a
/// handler slower than the samples never starves the queue's other work. An event sent before a
/// `queue.sync {}` on the handler's (serial) queue is handled before that block runs: either it
/// submitted the drain itself, ahead of the sync, or it found one submitted and not started,
/// which will count it (the mark is cleared and the events counted under the lock the sender
/// appends under). One run at a time calls the handler, so it sees the events one at a time and
/// in order even on a concurrent queue: a run that starts while another is calling the handler
/// leaves its events to that one, which submits the block again when it ends if events wait.
///
/// The one allocation per submission is Dispatch's: `dispatch_async` takes a continuation from the
/// submitting thread's cache, and continuations return to the cache of the thread that ran them,
/// so the sampler's thread allocates one from the heap each time. (A user-data Dispatch source
/// signalled per event allocates nothing, but it does not keep that order: an event merged while
/// the source's handler runs is delivered after a `queue.sync {}` that began meanwhile — a test
/// saw 497 of 500 samples after 5 s at 100 Hz.)
final class Delivery<Value: Sendable>: Sendable {
    typealias Handler = @Sendable (Value?, MotionError?) -> Void
    fileprivate typealias Event = (value: Value?, error: MotionError?)

    /// Everything the sender, the drain and `deactivate` share; one lock, never held while the
    /// handler runs.
    fileprivate struct Inbox {
        var events: [Event] = []
        /// A drain is submitted and has not started yet.
        var isSubmitted = false
        /// A run is taking events and calling the handler (one at a time).
        var isRunning = false
        /// The thread of that run, so that a wait from inside the handler does not wait for itself.
        var runningThread: pthread_t?
        var isActive = true
        /// Callers of `waitUntilIdle`, woken when the run ends.
        var waiters: [DispatchSemaphore] = []
    }
    private let inbox: Locked<Inbox>
    private let target: DeliveryTarget
    private let runner: Runner
    private let drain: @convention(block) @Sendable () -> Void

    init(target: DeliveryTarget, handler: @escaping Handler) {
        self.target = target
        var empty = Inbox()
        empty.events.reserveCapacity(16)
        let inbox = Locked(empty)
        self.inbox = inbox
        // Holds the runner (inbox, target, handler), not `self`: no cycle through the block.
        let runner = Runner(inbox: inbox, target: target, handler: handler)
        self.runner = runner
        drain = { runner.run() }
    }

    /// One run of the drain on the target queue.
    private final class Runner: Sendable {
        let inbox: Locked<Inbox>
        let target: DeliveryTarget
        let handler: Handler
        /// The calls of the handler decided so far, or -1 once ``Delivery/deactivate()`` closed
        /// it: counted (compare-and-exchange) right before each call.
        let gate = Atomic(0)

        /// Decides one call of the handler: false once the gate is closed.
        func admitsCall() -> Bool {
            var calls = gate.load(ordering: .relaxed)
            while calls >= 0 {
                let (exchanged, found) = gate.compareExchange(expected: calls, desired: calls + 1, ordering: .acquiringAndReleasing)
                if exchanged { return true }
                calls = found
            }
            return false
        }

        init(inbox: Locked<Inbox>, target: DeliveryTarget, handler: @escaping Handler) {
            self.inbox = inbox
            self.target = target
            self.handler = handler
        }

        func run() {
            let waiting = inbox.withLock { inbox -> Int? in
                inbox.isSubmitted = false
                // Another run is calling the handler (a concurrent queue): it takes these too.
                guard !inbox.isRunning, inbox.isActive else { return nil }
                inbox.isRunning = true
                inbox.runningThread = pthread_self()
                return inbox.events.count
            }
            guard let waiting else { return }
            for _ in 0..<waiting {
                // Taken under the lock that `deactivate` takes: no event is taken after it.
                guard let event = inbox.withLock({ $0.isActive && !$0.events.isEmpty ? $0.events.removeFirst() : nil }) else { break }
                // The decision, the last step before the call (see Lifecycle): a deactivation
                // since the event was taken drops it, as it drops the events still waiting.
                guard admitsCall() else { break }
                handler(event.value, event.error)
            }
            // Wake the waiters; submit again for events that came while this run kept another
            // run (a concurrent queue) from taking them, unless a submission is pending already.
            // (The waiters only when there are some: no array to retain on the usual run.)
            let (waiters, resubmits) = inbox.withLock { inbox -> ([DispatchSemaphore]?, Bool) in
                inbox.isRunning = false
                inbox.runningThread = nil
                var waiters: [DispatchSemaphore]?
                if !inbox.waiters.isEmpty {
                    waiters = inbox.waiters
                    inbox.waiters.removeAll()
                }
                let resubmits = inbox.isActive && !inbox.events.isEmpty && !inbox.isSubmitted
                if resubmits { inbox.isSubmitted = true }
                return (waiters, resubmits)
            }
            if let waiters { for waiter in waiters { waiter.signal() } }
            if resubmits { target.async { [self] in run() } }
        }
    }

    /// Runs the handler with `value` or `error` on the target queue, unless deactivated by then.
    func send(_ value: Value?, _ error: MotionError?) {
        let submits = inbox.withLock { inbox -> Bool in
            guard inbox.isActive else { return false }
            inbox.events.append((value, error))
            guard !inbox.isSubmitted else { return false }
            inbox.isSubmitted = true
            return true
        }
        if submits { target.submit(drain) }
    }

    /// No handler starts after this returns; events waiting are dropped. Never waits for a
    /// handler that is running (call it from anywhere, the handler included). Returns how many
    /// calls of the handler were decided before it (all there will ever be; 0 on a second call).
    @discardableResult
    func deactivate() -> Int {
        let calls = max(0, runner.gate.exchange(-1, ordering: .acquiringAndReleasing))
        inbox.withLock { inbox in
            inbox.isActive = false
            inbox.events.removeAll(keepingCapacity: true)
        }
        return calls
    }

    /// Whether a handler is running, and the wait for it; holds no handler, so a manager can keep
    /// it after a stop without keeping what the handler captured.
    var activity: Activity { Activity(inbox: inbox) }

    final class Activity: Sendable {
        private let inbox: Locked<Inbox>
        fileprivate init(inbox: Locked<Inbox>) { self.inbox = inbox }

        /// True while a run is calling the handler (or about to call it).
        var isRunning: Bool { inbox.withLock { $0.isRunning } }

        /// Waits until the run calling the handler now (if any) has ended. Returns at once when
        /// called from inside the handler, which cannot wait for itself. It must not be called
        /// from a thread the handler waits for (the main thread, when the handler does
        /// `DispatchQueue.main.sync`): that waits for ever.
        func waitUntilIdle() {
            let semaphore = DispatchSemaphore(value: 0)
            let waits = inbox.withLock { inbox -> Bool in
                guard inbox.isRunning else { return false }
                if let running = inbox.runningThread, pthread_equal(running, pthread_self()) != 0 { return false }
                inbox.waiters.append(semaphore)
                return true
            }
            if waits { semaphore.wait() }
        }
    }
}
