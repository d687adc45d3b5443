import Dispatch
import Motion
import Testing

/// Every sensor stream × timer or FIFO sampling × IMU or magnetometer fault × fault kind, through
/// `--faults`' own plan type on the simulated board in virtual time:
/// - every sample period is a delivered sample or a drop with its reason (timer: every tick of the
///   100 Hz timer; FIFO: every period of the chip's clock between the first and the last sample
///   delivered, as the chip's own timestamps tell);
/// - exactly one error reaches the handler for the one incident, and the sampler recovers;
/// - sampling resumes within 1 s after the fault is over (the last failed transaction, or the end
///   of a disappearance): the longest backoff is 0.64 s in either mode, plus a configuration check.
@Suite struct FaultMatrixTests {
    enum Stream: String, CaseIterable, Sendable { case accelerometer, gyro, magnetometer, deviceMotion }
    enum Sampling: String, CaseIterable, Sendable { case timer, fifo }

    static let kinds = ["nack*12", "eio*12", "timeout*12", "reset", "vanish+2"]
    static let start = 2.0, runLength = 8.0
    static let resumeBound = 1.0

    static var cells: [(Stream, Sampling, FaultPlan.Sensor, String)] {
        Stream.allCases.flatMap { stream in
            Sampling.allCases.flatMap { sampling in FaultPlan.Sensor.allCases.flatMap { sensor in kinds.map { (stream, sampling, sensor, $0) } } }
        }
    }

    @Test(arguments: cells)
    func everySampleIsAccountedAndUpdatesResume(stream: Stream, sampling: Sampling, sensor: FaultPlan.Sensor, kind: String) throws {
        let plan = try FaultPlan(parsing: "\(sensor.rawValue):\(kind)@\(Self.start)")
        let clock = VirtualClock()
        let manager = try MotionManager(
            source: .simulated(Simulation(scenario: "rest", faults: plan)), clock: clock, calibrationStore: nil)
        let origin = clock.now
        // Timer: 100 Hz. FIFO: the chip's output data rate (the LSM6DSOX's 208 Hz).
        manager.usesChipFIFO = sampling == .fifo
        let interval = sampling == .fifo ? manager.shortestUpdateInterval : 0.01
        let timestamps = Inbox<Double>()
        switch stream {
        case .accelerometer:
            manager.accelerometerUpdateInterval = interval
            manager.startAccelerometerUpdates(to: timestamps.queue) { data, error in timestamps.handler(data?.timestamp, error) }
        case .gyro:
            manager.gyroUpdateInterval = interval
            manager.startGyroUpdates(to: timestamps.queue) { data, error in timestamps.handler(data?.timestamp, error) }
        case .magnetometer:
            manager.magnetometerUpdateInterval = interval
            manager.startMagnetometerUpdates(to: timestamps.queue) { data, error in timestamps.handler(data?.timestamp, error) }
        case .deviceMotion:
            manager.deviceMotionUpdateInterval = interval
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
        let delivered = timestamps.values.withLock { $0 }
        let errors = timestamps.errors.withLock { $0 }
        let cell = "\(stream) \(sampling) \(sensor):\(kind) \(counters)"
        let first = try #require(delivered.first, "nothing delivered: \(cell)")
        let last = try #require(delivered.last)
        #expect(last > origin + Self.runLength - 0.1, "sampling had stopped before the end: \(cell)")
        let periods = sampling == .timer
            ? Int((Self.runLength / interval).rounded())
            : Int(((last - first) / interval).rounded()) + 1
        #expect(counters.sampled + counters.totalDropped == periods, "\(cell): \(periods) periods")
        #expect(delivered.count == counters.sampled, "\(cell)")
        #expect(counters.totalDropped > 0, "the fault had no effect: \(cell)")
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0 < $1 }, "in order: \(cell)")
        #expect(counters.incidents == 1 && errors.count == 1 && counters.recovered == 1, "\(cell) errors \(errors)")

        // Over: the last failed transaction, or the end of a disappearance, whichever is later.
        let bus = try #require(manager.simulatedHardware).board.bus
        let lastFailure = bus.log.last { $0.failure != nil }?.time ?? origin + Self.start
        let vanished = kind.hasPrefix("vanish") ? origin + Self.start + 2 : origin + Self.start
        let over = max(lastFailure, vanished)
        // Every period after `over` + the bound is delivered.
        let resumed = over + Self.resumeBound
        let after = delivered.filter { $0 > resumed }
        let expected = Int(((last - resumed) / interval).rounded(.down))
        #expect(abs(after.count - expected) <= 1, "\(cell): \(after.count) of \(expected) periods delivered after \(resumed - origin) s")
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
            // Holes and spellings that used to pass (issue #27 item 11).
            ("imu:nack@1/", "the repeat period must be"), ("imu:nack@1,", "needs @SECONDS"), ("imu:nack@0x1", "a decimal number"),
            ("imu:vanish+0x2@1", "the duration must be"), (",imu:nack@1", "needs @SECONDS"),
        ] {
            let error = try #require(throws: FaultPlanError.self) { try FaultPlan(parsing: text) }
            #expect(error.description.contains(problem), "\(text): \(error)")
        }
    }
}
