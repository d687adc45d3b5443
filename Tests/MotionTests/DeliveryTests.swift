import Dispatch
import Foundation
import Locking
@testable import Motion
import MotionSimulation
import Testing

/// The hop from the sampler to a consumer's queue: every event in order, no handler starting after
/// a stop (and a stop that never waits for a running one), and every event sent before a
/// `queue.sync {}` on the consumer's queue handled when that block runs — the guarantee
/// `motionctl` and the README's examples drain by.
@Suite struct DeliveryTests {
    /// What a handler saw: values in order, and whether two handlers ever overlapped.
    final class Log: Sendable {
        let values = Locked<[Int]>([])
        let running = Locked(0)
        let overlapped = Locked(false)

        func handle(_ value: Int?) {
            let concurrent = running.withLock { running -> Bool in
                running += 1
                return running > 1
            }
            if concurrent { overlapped.withLock { $0 = true } }
            // A busy handler, so that events arrive while one is in progress.
            var x = 0.0
            for i in 0..<200 { x += Double(i).squareRoot() }
            if let value, x >= 0 { values.withLock { $0.append(value) } }
            running.withLock { $0 -= 1 }
        }
    }

    /// A delivery to `queue` whose handler is also handed the delivery itself, to send to it or
    /// deactivate it from inside; events without a value are ignored.
    func selfAwareDelivery(on queue: DispatchQueue, _ handle: @escaping @Sendable (Int, Delivery<Int>) -> Void) -> Delivery<Int> {
        let delivery = Locked<Delivery<Int>?>(nil)
        let made = Delivery<Int>(target: .dispatch(queue)) { value, _ in
            guard let value, let delivery = delivery.withLock({ $0 }) else { return }
            handle(value, delivery)
        }
        delivery.withLock { $0 = made }
        return made
    }

    /// Runs `body` while `queue` is busy with a block that waits for it: what `body` sends waits
    /// behind that block, and runs once `body` returns.
    func whileBusy(_ queue: DispatchQueue, _ body: () -> Void) {
        let release = DispatchSemaphore(value: 0)
        queue.async { release.wait() }
        body()
        release.signal()
    }

    @Test("events sent before a queue.sync are handled when it runs, in order")
    func syncAfterSendFindsEveryEventHandled() {
        let queue = DispatchQueue(label: "delivery-test.consumer")
        let log = Log()
        let delivery = Delivery<Int>(target: .dispatch(queue)) { value, _ in log.handle(value) }
        let producer = DispatchQueue(label: "delivery-test.producer")
        var misses = 0
        for round in 0..<2_000 {
            // A few events from the producer's thread, some while the handler is still busy with
            // the previous round's.
            producer.sync {
                for k in 0..<(round % 4 + 1) { delivery.send(round * 4 + k, nil) }
            }
            let sent = (0...round).reduce(0) { $0 + $1 % 4 + 1 }
            queue.sync {
                if log.values.withLock(\.count) != sent { misses += 1 }
            }
        }
        #expect(misses == 0)
        let values = log.values.withLock { $0 }
        let expected = (0..<2_000).flatMap { round in (0..<(round % 4 + 1)).map { round * 4 + $0 } }
        #expect(values == expected)
    }

    @Test("a concurrent OperationQueue gets the handler one event at a time, in order")
    func operationQueueHandlersDoNotOverlap() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let log = Log()
        let delivery = Delivery<Int>(target: .operation(queue)) { value, _ in log.handle(value) }
        for value in 0..<3_000 { delivery.send(value, nil) }
        queue.waitUntilAllOperationsAreFinished()
        #expect(log.values.withLock { $0 } == Array(0..<3_000))
        #expect(log.overlapped.withLock { $0 } == false)
    }

    @Test("events that come while the handler runs wait behind the queue's other work: a slow handler starves nothing")
    func laterEventsWaitBehindOtherWork() {
        let queue = DispatchQueue(label: "delivery-test.fair")
        let order = Locked<[String]>([])
        let delivery = selfAwareDelivery(on: queue) { value, delivery in
            order.withLock { $0.append("event \(value)") }
            // A sample that comes while the handler runs, as when the handler is slower than the rate.
            if value < 3 { delivery.send(value + 1, nil) }
        }
        whileBusy(queue) {
            delivery.send(0, nil)
            queue.async { order.withLock { $0.append("other work") } }
        }
        // Each event's drain is submitted while the previous one runs: one sync lets at least one through.
        for _ in 0..<8 { queue.sync {} }
        #expect(order.withLock { $0 } == ["event 0", "other work", "event 1", "event 2", "event 3"])
    }

    @Test("no handler starts after deactivate returns; events waiting then are dropped")
    func deactivateStopsWaitingEvents() {
        let queue = DispatchQueue(label: "delivery-test.blocked")
        let log = Log()
        let delivery = Delivery<Int>(target: .dispatch(queue)) { value, _ in log.handle(value) }
        whileBusy(queue) {  // the consumer's queue is busy: events wait
            for value in 0..<10 { delivery.send(value, nil) }
            delivery.deactivate()
        }
        queue.sync {}
        #expect(log.values.withLock { $0 }.isEmpty)
    }

    /// The deadlock of the old promise ("no handler runs after stop returns", kept by waiting for
    /// the running one): the handler waits for the very thread that stops it. Now the stop
    /// returns while the handler waits, and the handler then finishes.
    @Test("deactivate returns while the handler waits for the deactivating thread; later events are not handled")
    func deactivateNeverWaitsForARunningHandler() {
        let queue = DispatchQueue(label: "delivery-test.waiting-handler")
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let handled = Locked<[Int]>([])
        let releasedInTime = Locked<[Bool]>([])
        let delivery = Delivery<Int>(target: .dispatch(queue)) { value, _ in
            guard let value else { return }
            handled.withLock { $0.append(value) }
            entered.signal()
            // As a handler blocked in `DispatchQueue.main.sync` while the main thread stops it;
            // bounded, so that a regression fails here instead of hanging the suite.
            let result = release.wait(timeout: .now() + 60)
            releasedInTime.withLock { $0.append(result == .success) }
        }
        delivery.send(1, nil)
        entered.wait()                    // the handler runs and waits for this thread
        delivery.send(2, nil)             // waits behind it
        delivery.deactivate()             // must not wait for the handler
        release.signal()
        delivery.activity.waitUntilIdle()
        queue.sync {}
        #expect(releasedInTime.withLock { $0 } == [true])
        #expect(handled.withLock { $0 } == [1])
    }

    @Test("a deactivation inside the handler ends the run: the events after it are not handled")
    func deactivateInsideTheHandler() {
        let queue = DispatchQueue(label: "delivery-test.inside")
        let handled = Locked<[Int]>([])
        let delivery = selfAwareDelivery(on: queue) { value, delivery in
            handled.withLock { $0.append(value) }
            if value == 3 {
                delivery.deactivate()
                delivery.activity.waitUntilIdle()   // inside the handler: returns at once
            }
        }
        whileBusy(queue) {
            for value in 0..<10 { delivery.send(value, nil) }   // one run will take all ten
        }
        queue.sync {}
        #expect(handled.withLock { $0 } == [0, 1, 2, 3])
        #expect(!delivery.activity.isRunning)
    }

    @Test("waitUntilIdle waits for the handler that is running, not for later ones")
    func waitUntilIdleWaitsForTheRunningHandler() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = Locked(0)
        let delivery = Delivery<Int>(target: .operation(queue)) { _, _ in
            entered.signal()
            _ = release.wait(timeout: .now() + 60)
            finished.withLock { $0 += 1 }
        }
        delivery.send(1, nil)
        entered.wait()
        delivery.deactivate()
        #expect(delivery.activity.isRunning)
        let waiter = DispatchQueue(label: "delivery-test.waiter")
        let waited = DispatchSemaphore(value: 0)
        waiter.async {
            delivery.activity.waitUntilIdle()
            waited.signal()
        }
        release.signal()
        waited.wait()
        // The wait ended after the handler did: its count is in.
        #expect(finished.withLock { $0 } == 1)
        #expect(!delivery.activity.isRunning)
        queue.waitUntilAllOperationsAreFinished()
    }
}
