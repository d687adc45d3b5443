import Dispatch
import Motion
import Testing

/// Every sensor stream × IMU or magnetometer fault × fault kind, through `--faults`' own plan
/// type on the simulated board in virtual time (timer sampling, 100 Hz): every tick is a delivered
/// sample or a drop with its reason, exactly one error reaches the handler per incident, and
/// sampling is back to every tick within a stated bound after the fault ends.
///
/// The bound: a fault ends (the burst is used up, or the chip is back) at most `faultLength` after
/// it starts; the sampler then needs at most its longest backoff (64 ticks) plus one
/// configuration check (10 ticks) to be delivering every tick again: 1 s is asserted.
@Suite struct FaultMatrixTests {
    enum Stream: String, CaseIterable, Sendable { case accelerometer, gyro, magnetometer, deviceMotion }

    static let kinds = ["nack*12", "eio*12", "timeout*12", "reset", "vanish+2"]
    static let start = 2.0, runLength = 8.0, rate = 100.0
    /// Seconds after the fault starts by which it is over (2 s vanish; a 12-transaction burst
    /// lasts well under a second of retries and backoff).
    static let faultLength = 2.0
    static let resumeBound = 1.0

    static var cells: [(Stream, FaultPlan.Sensor, String)] {
        Stream.allCases.flatMap { stream in FaultPlan.Sensor.allCases.flatMap { sensor in kinds.map { (stream, sensor, $0) } } }
    }

    @Test(arguments: cells)
    func everyTickIsAccountedAndUpdatesResume(stream: Stream, sensor: FaultPlan.Sensor, kind: String) throws {
        let plan = try FaultPlan(parsing: "\(sensor.rawValue):\(kind)@\(Self.start)")
        let clock = VirtualClock()
        let manager = try MotionManager(
            source: .simulated(Simulation(scenario: "rest", faults: plan)), clock: clock, calibrationStore: nil)
        let origin = clock.now
        let timestamps = Inbox<Double>()
        switch stream {
        case .accelerometer:
            manager.accelerometerUpdateInterval = 1 / Self.rate
            manager.startAccelerometerUpdates(to: timestamps.queue) { data, error in timestamps.handler(data?.timestamp, error) }
        case .gyro:
            manager.gyroUpdateInterval = 1 / Self.rate
            manager.startGyroUpdates(to: timestamps.queue) { data, error in timestamps.handler(data?.timestamp, error) }
        case .magnetometer:
            manager.magnetometerUpdateInterval = 1 / Self.rate
            manager.startMagnetometerUpdates(to: timestamps.queue) { data, error in timestamps.handler(data?.timestamp, error) }
        case .deviceMotion:
            manager.deviceMotionUpdateInterval = 1 / Self.rate
            manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: timestamps.queue) { motion, error in
                timestamps.handler(motion?.timestamp, error)
            }
        }
        clock.advance(by: Self.runLength)
        timestamps.drain()
        manager.stopAccelerometerUpdates()
        manager.stopGyroUpdates()
        manager.stopMagnetometerUpdates()
        manager.stopDeviceMotionUpdates()
        timestamps.drain()

        let counters = manager.counters
        let ticks = Int(Self.runLength * Self.rate)
        let delivered = timestamps.values.withLock { $0 }
        let errors = timestamps.errors.withLock { $0 }
        let cell = "\(stream) \(sensor):\(kind) \(counters)"
        // Every tick: a sample delivered, or a drop with its reason.
        #expect(counters.sampled + counters.totalDropped == ticks, "\(cell)")
        #expect(delivered.count == counters.sampled, "\(cell)")
        #expect(counters.totalDropped > 0, "the fault had no effect: \(cell)")
        // One incident, one error, recovered from.
        #expect(counters.incidents == 1 && errors.count == 1 && counters.recovered == 1, "\(cell) errors \(errors)")
        // Back to every tick within the bound after the fault is over.
        let resumed = origin + Self.start + Self.faultLength + Self.resumeBound
        let after = delivered.filter { $0 > resumed + 1e-9 }
        let expected = Int(((origin + Self.runLength - resumed) * Self.rate).rounded())
        #expect(abs(after.count - expected) <= 1, "\(cell): \(after.count) of \(expected) ticks delivered after \(resumed - origin) s")
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0 < $1 }, "in order: \(cell)")
    }

    @Test func aPlanReadsBackAsItWasWrittenAndBadPlansSayWhy() throws {
        let plan = try FaultPlan(parsing: "imu:nack*12@2, mag:vanish+3@5,imu:eio*1@1/0.5,mag:reset@7,imu:timeout@0")
        #expect(plan.faults.count == 5)
        #expect(plan.faults[2] == FaultPlan.Fault(sensor: .imu, kind: .failures(.busError, count: 1), at: 1, every: 0.5))
        #expect(plan.faults[4].kind == .failures(.timeout, count: 10))
        #expect(try FaultPlan(parsing: plan.description) == plan)
        for (text, problem) in [
            ("", "no fault"), ("imu:nack", "needs @SECONDS"), ("gps:nack@1", "imu: or mag:"), ("imu:nack*0@1", "*N must be"),
            ("imu:nack*99999999999999999999@1", "*N must be"), ("imu:vanish*3@1", "vanish takes +S"), ("imu:reset+1@1", "reset takes"),
            ("imu:nack@nan", "the start must be"), ("imu:nack@-1", "the start must be"), ("imu:nack@1/0", "repeats at most"),
            ("imu:melt@1", "the kind must be"), ("imu:vanish+1e300@1", "the duration must be"),
        ] {
            let error = try #require(throws: FaultPlanError.self) { try FaultPlan(parsing: text) }
            #expect(error.description.contains(problem), "\(text): \(error)")
        }
    }
}
