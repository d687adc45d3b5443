import I2C
import Locking
@testable import Motion
import Testing
import Timing

/// The barometer's sampler on a barometer that stops answering for a while: every period counted
/// as sampled or dropped with its reason, the outage one incident whose error keeps the bus's
/// cause, and the readings resume by themselves.
@Suite struct BarometerHubTests {
    /// Answers at 25 Hz except between `outage` seconds of the clock, where every transfer is
    /// missing its acknowledge.
    final class FlakyBarometer: BarometerDevice {
        let name = "flaky barometer at 0x76 on test"
        let rate = 25.0
        let clock: VirtualClock
        let outage: Range<Double>
        let initializations = Locked(0)
        init(clock: VirtualClock, outage: Range<Double>) {
            self.clock = clock
            self.outage = outage
        }
        private func answer() throws(MotionError) {
            if outage.contains(clock.now) {
                throw .bus(I2CError(.noAcknowledge, bus: "test", address: I2CAddress(0x76), detail: "no acknowledge at 0x76"))
            }
        }
        func initialize() throws(MotionError) {
            try answer()
            initializations.withLock { $0 += 1 }
        }
        func read(at timestamp: Double) throws(MotionError) -> BarometerSample {
            try answer()
            return BarometerSample(timestamp: timestamp, pressure: 100_000, temperature: 20)
        }
        func isStillConfigured() throws(MotionError) -> Bool {
            try answer()
            return true
        }
    }

    @Test func anOutageIsOneIncidentWithItsCauseAndEveryPeriodIsCounted() throws {
        let clock = VirtualClock()
        let start = clock.now
        let device = FlakyBarometer(clock: clock, outage: (start + 1)..<(start + 2))
        let hub = BarometerHub(device: device, clock: clock)
        let events = Locked<[BarometerEvent]>([])
        let id = hub.addConsumer { event in events.withLock { $0.append(event) } }
        clock.advance(by: 4)
        hub.removeConsumer(id)
        hub.flush()

        let counters = hub.counters
        // 4 s at 25 Hz: 100 periods, each a reading or a drop with its reason.
        #expect(counters.sampled + counters.totalDropped == 100, "\(counters)")
        #expect(counters.dropped[.busError, default: 0] > 0 && counters.sampled > 70, "\(counters)")
        #expect(counters.incidents == 1 && counters.recovered == 1, "\(counters)")
        let failures = events.withLock { $0 }.compactMap { event -> MotionError? in
            if case .failure(let error) = event { error } else { nil }
        }
        #expect(failures.count == 1)
        guard case .deviceUnavailable(let cause)? = failures.first else {
            Issue.record("expected the missing device, with the bus's cause: \(failures)")
            return
        }
        #expect(cause.kind == .noAcknowledge && cause.address == I2CAddress(0x76))
        // Set up at the first tick, and again after the outage (a burst may mean it lost power).
        #expect(device.initializations.withLock { $0 } == 2)
        let samples = events.withLock { $0 }.compactMap { event -> BarometerSample? in
            if case .sample(let sample) = event { sample } else { nil }
        }
        #expect(samples.count == counters.sampled)
        #expect(samples.last.map { $0.timestamp > start + 3.9 } == true, "readings resume after the outage")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }
}
