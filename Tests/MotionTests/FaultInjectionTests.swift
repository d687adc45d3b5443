import Dispatch
import I2C
import Motion
import MotionSimulation
import MotionSimulator
import Testing
import Timing

/// Faults injected on the simulated bus, under the real drivers: each incident reaches the
/// handler once, updates resume by themselves, and every tick is delivered or counted.
@Suite struct FaultInjectionTests {
    let clock = VirtualClock()
    let imu = I2CAddress(0x6A)

    func start() throws -> (MotionManager, SimulatedBus, Inbox<AccelerometerData>) {
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "rest")), clock: clock, calibrationStore: nil)
        let bus = try #require(manager.simulatedHardware).board.bus
        let inbox = Inbox<AccelerometerData>()
        manager.startAccelerometerUpdates(to: inbox.queue, withHandler: inbox.handler)
        clock.advance(by: 1)
        return (manager, bus, inbox)
    }

    func finish(_ manager: MotionManager, _ inbox: Inbox<AccelerometerData>, ticks: Int) -> [MotionError] {
        inbox.drain()
        manager.stopAccelerometerUpdates()
        let counters = manager.counters
        #expect(counters.sampled + counters.totalDropped == ticks, "\(counters)")
        #expect(inbox.values.withLock { $0.count } == counters.sampled)
        return inbox.errors.withLock { $0 }
    }

    /// `failures` failed transactions of `kind` in a row, 4 s of sampling: one error, which
    /// `reported` accepts, and one recovery; every one of the 500 ticks accounted for.
    func expectBurstReportedOnce(
        _ failures: Int, _ kind: I2CError.Kind, sourceLocation: SourceLocation = #_sourceLocation,
        reported: (MotionError) -> Bool
    ) throws {
        let (manager, bus, inbox) = try start()
        bus.failNext(failures, transactionsTo: imu, with: kind)
        clock.advance(by: 4)
        let errors = finish(manager, inbox, ticks: 500)
        #expect(errors.count == 1, sourceLocation: sourceLocation)
        #expect(errors.first.map(reported) == true, sourceLocation: sourceLocation)
        #expect(manager.counters.recovered == 1, sourceLocation: sourceLocation)
    }

    @Test func noAcknowledgeBurst() throws {
        try expectBurstReportedOnce(12, .noAcknowledge) { if case .deviceUnavailable(let e) = $0 { e.kind == .noAcknowledge } else { false } }
    }

    @Test func ioErrors() throws {
        try expectBurstReportedOnce(8, .busError) { if case .bus(let e) = $0 { e.kind == .busError } else { false } }
    }

    @Test func aSingleFailureIsRetriedWithinThePeriod() throws {
        let (manager, bus, inbox) = try start()
        bus.failNext(1, transactionsTo: imu, with: .busError)
        clock.advance(by: 1)
        let errors = finish(manager, inbox, ticks: 200)
        #expect(errors == [])
        #expect(manager.counters.retried == 1)
        #expect(manager.counters.totalDropped == 0)
    }

    @Test func chipResetMidStream() throws {
        let (manager, bus, inbox) = try start()
        bus.triggerPowerOnReset(imu)
        clock.advance(by: 2)
        let errors = finish(manager, inbox, ticks: 300)
        #expect(errors.count == 1)
        #expect(errors.first.map { if case .deviceReset = $0 { true } else { false } } == true)
        #expect(manager.counters.dropped[.deviceReset] == 1)
        // Configured again: the last reading is gravity again, not a powered-down chip's stale zeros.
        let last = try #require(inbox.values.withLock { $0.last })
        #expect(abs(last.acceleration.z + 1) < 0.05)
    }

    @Test func deviceVanishesForTwoSeconds() throws {
        let (manager, bus, inbox) = try start()
        bus.vanish(imu, until: clock.now + 2)
        clock.advance(by: 5)
        let errors = finish(manager, inbox, ticks: 600)
        #expect(errors.count == 1)
        #expect(manager.counters.recovered == 1)
        let values = inbox.values.withLock { $0 }
        // Updates resumed: the last second is complete.
        #expect(values.filter { $0.timestamp > clock.now - 1 }.count == 100)
    }

    /// One transient fault on the first transfers of start-up is retried, as the sampler retries
    /// a failed transfer (docs/api.md's promise); the magnetometer's too, so the device keeps its
    /// field. Nothing of it reaches the handler.
    @Test(arguments: ["imu:nack*1@0", "imu:eio*1@0", "imu:timeout*2@0", "mag:nack*1@0", "mag:eio*2@0"])
    func aTransientFaultAtStartUpIsRetried(plan: String) throws {
        let manager = try MotionManager(
            source: .simulated(Simulation(scenario: "rest", faults: try FaultPlan(parsing: plan))), clock: clock, calibrationStore: nil)
        #expect(manager.isMagnetometerAvailable, "\(plan)")
        let (values, errors) = manager.accelerometerUpdates { clock.advance(by: 1) }
        #expect(values.count == 100 && errors.isEmpty, "\(plan): \(values.count) \(errors)")
        #expect(manager.counters.sampledWithoutMagnetometer == 0, "\(plan): \(manager.counters)")
    }

    /// An IMU that never answers is still "not found", with what to check.
    @Test func anIMUThatNeverAnswersIsNotFound() throws {
        let plan = try FaultPlan(parsing: "imu:nack*1000@0")
        let error = try #require(throws: MotionError.self) {
            try MotionManager(source: .simulated(Simulation(scenario: "rest", faults: plan)), clock: clock, calibrationStore: nil)
        }
        guard case .deviceNotFound(let message) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(message.contains("check the wiring"), "\(message)")
    }

    /// A magnetometer gone for 2 s leaves the IMU alone, with the timer and through the FIFO:
    /// device motion at the full rate all along (nothing dropped), without a field during the
    /// outage (zero, uncalibrated; counted), the heading carried on by the gyroscope, one error;
    /// the field back afterwards.
    @Test(arguments: [false, true])
    func aMagnetometerOutageLeavesTheIMUAlone(fifo: Bool) throws {
        let plan = try FaultPlan(parsing: "mag:vanish+2@1")
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "rest", faults: plan)), clock: clock, calibrationStore: nil)
        let origin = clock.now
        manager.usesChipFIFO = fifo
        let interval = fifo ? manager.shortestUpdateInterval : 0.01
        manager.deviceMotionUpdateInterval = interval
        let (values, errors) = manager.deviceMotionUpdates(using: .xMagneticNorthZVertical) { clock.advance(by: 4) }
        let counters = manager.counters
        #expect(counters.totalDropped == 0 && values.count == counters.sampled, "\(counters)")
        for second in 1..<4 {
            let from = origin + Double(second)
            let count = values.filter { $0.timestamp >= from && $0.timestamp < from + 1 }.count
            #expect(abs(Double(count) - 1 / interval) <= 2, "second \(second): \(count) at \(1 / interval) Hz")
        }
        let outage = values.filter { $0.timestamp > origin + 1.1 && $0.timestamp < origin + 2.9 }
        #expect(outage.count > 150 && outage.allSatisfy { $0.magneticField.field == .zero && $0.magneticField.accuracy == .uncalibrated })
        #expect(values.allSatisfy { $0.heading >= 0 })
        #expect(values.filter { $0.magneticField.field == .zero }.count == counters.sampledWithoutMagnetometer)
        #expect(values.last.map { $0.magneticField.field != .zero } == true)
        #expect(errors.count == 1 && counters.incidents == 1 && counters.recovered == 1, "\(errors)")
    }

    /// Who hears of an incident: the IMU's reaches every consumer; the magnetometer's (gone, or
    /// reset) only the consumers that use its field — magnetometer, all-sensor and device-motion
    /// updates, one error each per incident — while the accelerometer and gyroscope handlers hear
    /// nothing and keep their full rate, as in Core Motion. Timer and FIFO sampling.
    static let incidents: [(plan: String, incidents: Int, toIMUOnlyConsumers: Int)] = [
        ("mag:vanish+2@1", 1, 0), ("mag:reset@1", 1, 0), ("mag:vanish+1@1, mag:vanish+1@3.5", 2, 0),
        ("imu:vanish+1@1", 1, 1), ("imu:nack*12@1", 1, 1),
    ]

    @Test(arguments: incidents, [false, true])
    func anIncidentReachesTheConsumersOfItsSensorOnly(incident: (plan: String, incidents: Int, toIMUOnlyConsumers: Int), fifo: Bool) throws {
        let plan = try FaultPlan(parsing: incident.plan)
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "rest", faults: plan)), clock: clock, calibrationStore: nil)
        manager.usesChipFIFO = fifo
        let interval = fifo ? manager.shortestUpdateInterval : 0.01
        let accelerometer = Inbox<Double>(), gyro = Inbox<Double>(), magnetometer = Inbox<Double>()
        let sensors = Inbox<Double>(), deviceMotion = Inbox<Double>()
        let consumers = [
            ("accelerometer", accelerometer, false), ("gyro", gyro, false),
            ("magnetometer", magnetometer, true), ("sensors", sensors, true), ("deviceMotion", deviceMotion, true),
        ]
        manager.accelerometerUpdateInterval = interval
        manager.gyroUpdateInterval = interval
        manager.magnetometerUpdateInterval = interval
        manager.sensorUpdateInterval = interval
        manager.deviceMotionUpdateInterval = interval
        manager.startAccelerometerUpdates(to: accelerometer.queue) { accelerometer.handler($0?.timestamp, $1) }
        manager.startGyroUpdates(to: gyro.queue) { gyro.handler($0?.timestamp, $1) }
        manager.startMagnetometerUpdates(to: magnetometer.queue) { magnetometer.handler($0?.timestamp, $1) }
        manager.startSensorUpdates(to: sensors.queue) { sensors.handler($0?.timestamp, $1) }
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: deviceMotion.queue) { deviceMotion.handler($0?.timestamp, $1) }
        clock.advance(by: 6)
        for (_, inbox, _) in consumers { inbox.drain() }
        manager.stopAccelerometerUpdates()
        manager.stopGyroUpdates()
        manager.stopMagnetometerUpdates()
        manager.stopSensorUpdates()
        manager.stopDeviceMotionUpdates()
        for (_, inbox, _) in consumers { inbox.drain() }

        let counters = manager.counters
        let cell = "\(incident.plan) \(fifo ? "fifo" : "timer") \(counters)"
        #expect(counters.incidents == incident.incidents && counters.recovered == incident.incidents, "\(cell)")
        for (name, inbox, usesMagnetometer) in consumers {
            let errors = inbox.errors.withLock { $0 }
            #expect(errors.count == (usesMagnetometer ? incident.incidents : incident.toIMUOnlyConsumers), "\(name): \(errors) \(cell)")
        }
        guard plan.faults.allSatisfy({ $0.sensor == .mag }) else { return }
        // The IMU untouched: every period sampled (timer: all 600 ticks), every sample delivered
        // to the accelerometer and gyroscope handlers.
        #expect(counters.totalDropped == 0 && counters.sampledWithoutMagnetometer > 0, "\(cell)")
        if !fifo { #expect(counters.sampled == 600, "\(cell)") }
        for inbox in [accelerometer, gyro] { #expect(inbox.values.withLock { $0.count } == counters.sampled, "\(cell)") }
    }
}
