import Locking
import Dispatch
import Foundation
import I2C
@testable import Motion
import MotionSimulation
import Synchronization
import Testing
import Timing

/// A device whose reads follow a script: fail while `failing` says so, reset on demand.
final class ScriptedDevice: MotionDevice {
    let name = "scripted IMU"
    let hasMagnetometer = true
    let maximumTimerRate = 100.0
    struct Script {
        var failReads = 0          // next N reads fail
        var unavailableUntil = -Double.infinity
        var configured = false
        var initializations = 0
        var reads = 0
    }
    let script = Locked(Script())
    let clock: VirtualClock
    init(clock: VirtualClock) { self.clock = clock }

    func initialize() throws(MotionError) {
        try script.withLock { (s: inout Script) throws(MotionError) in
            if clock.now < s.unavailableUntil { throw .bus(I2CError(.noAcknowledge, bus: "test", address: I2CAddress(0x6A), detail: "gone")) }
            s.configured = true
            s.initializations += 1
        }
    }

    func read(at timestamp: Double) throws(MotionError) -> MotionSample {
        try script.withLock { (s: inout Script) throws(MotionError) in
            if clock.now < s.unavailableUntil { throw .bus(I2CError(.noAcknowledge, bus: "test", address: I2CAddress(0x6A), detail: "gone")) }
            if s.failReads > 0 {
                s.failReads -= 1
                throw .bus(I2CError(.busError, bus: "test", address: I2CAddress(0x6A), errno: 5, detail: "EIO"))
            }
            s.reads += 1
            return MotionSample(timestamp: timestamp, acceleration: SIMD3(0, 0, -1), rotationRate: .zero, magneticField: SIMD3(20, 0, -40))
        }
    }

    func isStillConfigured() throws(MotionError) -> Bool { script.withLock { $0.configured } }
}

/// Collects what handlers receive, in order.
final class Inbox<Value: Sendable>: Sendable {
    let values = Locked<[Value]>([])
    let errors = Locked<[MotionError]>([])
    let queue = DispatchQueue(label: "test.inbox")
    func handler(_ value: Value?, _ error: MotionError?) {
        if let value { values.withLock { $0.append(value) } }
        if let error { errors.withLock { $0.append(error) } }
    }
    /// Waits until every handler already queued has run.
    func drain() { queue.sync {} }
}

extension MotionManager {
    /// Accelerometer updates into an ``Inbox`` while `body` runs (advancing a virtual clock,
    /// injecting faults), stopped once every handler queued has run: what was delivered, in order.
    func accelerometerUpdates(during body: () throws -> Void) rethrows -> (values: [AccelerometerData], errors: [MotionError]) {
        let inbox = Inbox<AccelerometerData>()
        startAccelerometerUpdates(to: inbox.queue, withHandler: inbox.handler)
        try body()
        inbox.drain()
        stopAccelerometerUpdates()
        return (inbox.values.withLock { $0 }, inbox.errors.withLock { $0 })
    }

    /// Device motion updates in `frame` the same way.
    func deviceMotionUpdates(
        using frame: AttitudeReferenceFrame, during body: () throws -> Void
    ) rethrows -> (values: [DeviceMotion], errors: [MotionError]) {
        let inbox = Inbox<DeviceMotion>()
        startDeviceMotionUpdates(using: frame, to: inbox.queue, withHandler: inbox.handler)
        try body()
        inbox.drain()
        stopDeviceMotionUpdates()
        return (inbox.values.withLock { $0 }, inbox.errors.withLock { $0 })
    }
}

@Suite struct SamplerTests {
    let clock = VirtualClock()

    func makeManager(policy: SamplerPolicy = SamplerPolicy()) -> (MotionManager, ScriptedDevice) {
        let device = ScriptedDevice(clock: clock)
        return (MotionManager(hub: SensorHub(device: device, clock: clock, policy: policy)), device)
    }

    @Test func deliversExactlyTheExpectedCountWithIncreasingTimestamps() {
        let (manager, _) = makeManager()
        manager.accelerometerUpdateInterval = 0.01
        let values = manager.accelerometerUpdates { clock.advance(by: 10) }.values
        #expect(values.count == 1000)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(values.first?.acceleration == SIMD3(0, 0, -1))
        #expect(manager.counters.sampled == 1000)
        #expect(manager.counters.totalDropped == 0)
    }

    @Test func consumersShareOneReaderAtTheirOwnIntervals() {
        let (fast, device) = makeManager()
        let slow = MotionManager(hub: fast.hub)
        let fastInbox = Inbox<GyroData>(), slowInbox = Inbox<AccelerometerData>()
        slow.accelerometerUpdateInterval = 0.05
        fast.startGyroUpdates(to: fastInbox.queue, withHandler: fastInbox.handler)
        slow.startAccelerometerUpdates(to: slowInbox.queue, withHandler: slowInbox.handler)
        clock.advance(by: 2)
        fastInbox.drain(); slowInbox.drain()
        fast.stopGyroUpdates()
        slow.stopAccelerometerUpdates()
        #expect(fastInbox.values.withLock { $0.count } == 200)
        #expect(slowInbox.values.withLock { $0.count } == 40)
        #expect(device.script.withLock { $0.reads } == 200)   // one read per tick, shared
        #expect(clock.activeTimers == 0)
    }

    @Test func pullUpdatesKeepTheLatestValue() {
        let (manager, _) = makeManager()
        #expect(manager.magnetometerData == nil)
        manager.startMagnetometerUpdates()
        #expect(manager.isMagnetometerActive)
        clock.advance(by: 0.05)
        #expect(manager.magnetometerData?.magneticField == SIMD3(20, 0, -40))
        manager.stopMagnetometerUpdates()
        #expect(!manager.isMagnetometerActive)
    }

    @Test func aRetriedReadIsCountedAndDelivered() {
        let (manager, device) = makeManager()
        let delivered = manager.accelerometerUpdates {
            clock.advance(by: 0.1)
            device.script.withLock { $0.failReads = 1 }
            clock.advance(by: 0.1)
        }
        #expect(delivered.values.count == 20)
        #expect(manager.counters.retried == 1)
        #expect(delivered.errors == [])
    }

    @Test func aFailureBurstIsReportedOnceAndUpdatesResume() {
        let (manager, device) = makeManager()
        let (values, errors) = manager.accelerometerUpdates {
            clock.advance(by: 1)
            device.script.withLock { $0.failReads = 20 }   // 10 ticks of failure (read + retry each)
            clock.advance(by: 4)
        }
        #expect(errors.count == 1)
        if case .bus(let cause) = errors.first { #expect(cause.kind == .busError) } else { Issue.record("expected a bus error, got \(errors)") }
        let counters = manager.counters
        #expect(counters.incidents == 1)
        #expect(counters.recovered == 1)
        // Every tick is accounted for: delivered or dropped with a reason.
        #expect(counters.sampled + counters.totalDropped == 500)
        #expect(values.count == counters.sampled)
        #expect(counters.dropped[.busError] == 10)
    }

    @Test func aVanishedDeviceIsReportedOnceAndComesBack() {
        let (manager, device) = makeManager()
        let inbox = Inbox<GyroData>()
        manager.startGyroUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: 1)
        device.script.withLock { $0.unavailableUntil = clock.now + 2 }
        clock.advance(by: 4)
        inbox.drain()
        manager.stopGyroUpdates()
        let errors = inbox.errors.withLock { $0 }
        #expect(errors.count == 1)
        if case .deviceUnavailable(let cause) = errors.first { #expect(cause.kind == .noAcknowledge) } else { Issue.record("expected device unavailable, got \(errors)") }
        #expect(manager.counters.recovered == 1)
        #expect(manager.counters.sampled + manager.counters.totalDropped == 500)
        #expect(device.script.withLock { $0.initializations } >= 2)
        // Back within the longest backoff (64 ticks) after the device returned.
        let last = inbox.values.withLock { $0.last?.timestamp } ?? 0
        #expect(last > clock.now - 0.02)
    }

    @Test func aResetChipIsConfiguredAgainAndReportedOnce() {
        let (manager, device) = makeManager()
        let errors = manager.accelerometerUpdates {
            clock.advance(by: 0.5)
            device.script.withLock { $0.configured = false }
            clock.advance(by: 0.5)
        }.errors
        #expect(errors.count == 1)
        #expect(device.script.withLock { $0.initializations } == 2)
        #expect(manager.counters.dropped[.deviceReset] == 1)
        #expect(manager.counters.sampled == 99)
    }

    /// The promise (Core Motion's): no handler *starts* after the stop returns. Here none was
    /// running at the stop, so none runs at all after it.
    @Test func noHandlerStartsAfterStopReturns() {
        let (manager, _) = makeManager()
        let stopped = Locked(false)
        let lateCalls = Locked(0)
        let queue = DispatchQueue(label: "test.late")
        manager.startAccelerometerUpdates(to: queue) { _, _ in
            if stopped.withLock({ $0 }) { lateCalls.withLock { $0 += 1 } }
        }
        queue.suspend()                 // let deliveries pile up on the handler queue
        clock.advance(by: 0.5)
        manager.stopAccelerometerUpdates()
        stopped.withLock { $0 = true }
        queue.resume()
        queue.sync {}
        #expect(lateCalls.withLock { $0 } == 0)
    }

    /// A stop from a thread the running handler waits for (the main-queue hop: the handler in
    /// `DispatchQueue.main.sync` while the main thread stops) returns without waiting for it; the
    /// handler then finishes, nothing starts after, and `waitUntilHandlersFinish` (from a thread
    /// the handler does not wait for) returns once it has.
    @Test func aStopFromTheThreadAHandlerWaitsForReturns() {
        let (manager, _) = makeManager()
        let handlerQueue = DispatchQueue(label: "test.hop.handler")
        let stopper = DispatchQueue(label: "test.hop.stopper")   // stands for the main queue
        let entered = DispatchSemaphore(value: 0)
        let stopReturned = Locked(false)
        let startsAfterStop = Locked(0)
        let handled = Locked(0)
        manager.startAccelerometerUpdates(to: handlerQueue) { _, _ in
            if stopReturned.withLock({ $0 }) { startsAfterStop.withLock { $0 += 1 } }
            if handled.withLock({ $0 += 1; return $0 }) == 1 { entered.signal() }
            stopper.sync {}               // hands its result to the "main" queue
        }
        stopper.async {
            entered.wait()                // a handler is running and waits for this queue
            manager.stopAccelerometerUpdates()
            stopReturned.withLock { $0 = true }
        }
        clock.advance(by: 0.5)            // 50 samples: one handler runs, the rest wait
        stopper.sync {}
        manager.waitUntilHandlersFinish()
        #expect(stopReturned.withLock { $0 })
        #expect(startsAfterStop.withLock { $0 } == 0)
        #expect(handled.withLock { $0 } >= 1)
        #expect(!manager.isAccelerometerActive)
    }

    @Test func stoppingFromInsideTheHandlerWorks() {
        let (manager, _) = makeManager()
        let calls = Locked(0)
        let queue = DispatchQueue(label: "test.inside")
        manager.startGyroUpdates(to: queue) { [manager] _, _ in
            calls.withLock { $0 += 1 }
            manager.stopGyroUpdates()
        }
        clock.advance(by: 0.5)
        queue.sync {}
        #expect(calls.withLock { $0 } == 1)
        #expect(!manager.isGyroActive)
    }

    @Test func aReleasedManagerStopsItsUpdates() {
        let device = ScriptedDevice(clock: clock)
        let hub = SensorHub(device: device, clock: clock)
        var manager: MotionManager? = MotionManager(hub: hub)
        manager?.startAccelerometerUpdates()
        #expect(clock.activeTimers == 1)
        manager = nil
        #expect(clock.activeTimers == 0)
        clock.advance(by: 0.1)
        #expect(hub.counters.sampled == 0)
    }

    @Test func streamStopsWhenTheConsumerStops() async throws {
        let (manager, _) = makeManager()
        let clock = self.clock
        clock.advance(by: 0)
        func firstFive() async throws -> [Double] {
            var received: [Double] = []
            for await value in try manager.accelerometerUpdates(interval: 0.02) {
                received.append(value.timestamp)
                if received.count == 5 { break }
            }
            return received
        }
        let driver = Task.detached {
            for _ in 0..<200 where clock.activeTimers > 0 || clock.now < 1000.001 {
                clock.advance(by: 0.01)
                await Task.yield()
            }
        }
        let received = try await firstFive()
        await driver.value
        #expect(received.count == 5)
        #expect(zip(received, received.dropFirst()).allSatisfy { abs(($1 - $0) - 0.02) < 1e-9 })
        #expect(clock.activeTimers == 0)
        #expect(throws: MotionError.invalidInterval(-1)) { _ = try manager.gyroUpdates(interval: -1) }
    }

    @Test func intervalsAreClampedAndInvalidOnesRefused() {
        let (manager, _) = makeManager()
        manager.gyroUpdateInterval = 0.001
        #expect(manager.gyroUpdateInterval == 0.01)
        manager.gyroUpdateInterval = 0.5
        manager.gyroUpdateInterval = .nan
        #expect(manager.gyroUpdateInterval == 0.5)
        // Too long for the sampler's timer (accepted, it would trap at the start).
        manager.gyroUpdateInterval = 1e300
        #expect(manager.gyroUpdateInterval == 0.5)
        #expect(throws: MotionError.invalidInterval(1e300)) { _ = try manager.gyroUpdates(interval: 1e300) }
        manager.gyroUpdateInterval = MotionManager.maximumUpdateInterval
        #expect(manager.gyroUpdateInterval == MotionManager.maximumUpdateInterval)
    }

    @Test func anOperationQueueHandlerGetsEverySampleInOrder() {
        let (manager, _) = makeManager()
        let values = Locked<[GyroData]>([])
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        manager.startGyroUpdates(to: queue) { data, _ in
            if let data { values.withLock { $0.append(data) } }
        }
        clock.advance(by: 1)
        queue.waitUntilAllOperationsAreFinished()
        manager.stopGyroUpdates()
        let received = values.withLock { $0 }
        #expect(received.count == 100)
        #expect(zip(received, received.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    /// Events still waiting for a handler that a second start replaced reach neither handler; the
    /// new one gets only what is sampled after it started, in order.
    @Test func eventsWaitingForAReplacedHandlerAreDropped() {
        let (manager, _) = makeManager()
        let first = Inbox<AccelerometerData>(), second = Inbox<AccelerometerData>()
        let queue = DispatchQueue(label: "test.replaced")
        manager.startAccelerometerUpdates(to: queue, withHandler: first.handler)
        queue.suspend()                 // ten deliveries wait on the handler queue
        clock.advance(by: 0.1)
        manager.startAccelerometerUpdates(to: queue, withHandler: second.handler)
        clock.advance(by: 0.05)
        queue.resume()
        queue.sync {}
        manager.stopAccelerometerUpdates()
        #expect(first.values.withLock { $0.count } == 0)
        let received = second.values.withLock { $0 }
        #expect(received.count == 5)
        #expect(zip(received, received.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    /// 10,000 start/stop pairs from four threads while a fifth keeps the clock ticking (CI also
    /// runs this under the thread sanitizer).
    @Test func startStopFromManyThreads() async {
        let (manager, _) = makeManager()
        let queue = DispatchQueue(label: "test.stress", attributes: .concurrent)
        let clock = self.clock
        let stopped = StopFlag()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !stopped.isSet { clock.advance(by: 0.01) }
            }
            await withTaskGroup(of: Void.self) { workers in
                for worker in 0..<4 {
                    workers.addTask {
                        for i in 0..<2500 {
                            switch (worker + i) % 4 {
                            case 0: manager.startAccelerometerUpdates(to: queue) { _, _ in }; manager.stopAccelerometerUpdates()
                            case 1: manager.startGyroUpdates(); manager.stopGyroUpdates()
                            case 2: manager.startMagnetometerUpdates(to: queue) { _, _ in }; manager.stopMagnetometerUpdates()
                            default: manager.startDeviceMotionUpdates(to: queue) { _, _ in }; manager.stopDeviceMotionUpdates()
                            }
                        }
                    }
                }
            }
            stopped.set()
        }
        #expect(clock.activeTimers == 0)
        #expect(!manager.isAccelerometerActive && !manager.isGyroActive && !manager.isMagnetometerActive && !manager.isDeviceMotionActive)
    }
}

final class StopFlag: Sendable {
    private let flag = Atomic(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
