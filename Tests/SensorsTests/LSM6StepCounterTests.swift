import I2C
import I2CMock
import MotionSimulator
import Sensors
import Testing

/// The LSM6DSO's step counter: the driver's transactions as the datasheet lays them out, and the
/// emulator's counter (``LSM6Pedometer``'s model) read through the driver over a simulated walk.
@Suite struct LSM6StepCounterTests {
    /// LSM6DSO DS12140, written here independently of the driver: FUNC_CFG_ACCESS (01h) bit 7
    /// selects the embedded functions' page; there EMB_FUNC_EN_A (04h) PEDO_EN is bit 3 and
    /// STEP_COUNTER_L/H are 62h/63h.
    private enum ST {
        static let funcCfgAccess: UInt8 = 0x01, embeddedPage: UInt8 = 0x80
        static let embFuncEnA: UInt8 = 0x04, pedoEn: UInt8 = 0x08
        static let stepCounterL: UInt8 = 0x62
    }

    @Test func enablesAndReadsTheCounterInTheEmbeddedPage() throws {
        let bus = ExpectationBus([])
        let imu = LSM6IMU(bus: bus, model: .lsm6dso, pause: .none)
        bus.expect([
            .write(0x6A, [ST.funcCfgAccess, ST.embeddedPage]), .write(0x6A, [ST.embFuncEnA, ST.pedoEn]), .write(0x6A, [ST.funcCfgAccess, 0x00]),
            .write(0x6A, [ST.funcCfgAccess, ST.embeddedPage]), .writeRead(0x6A, [ST.stepCounterL], reply: [0x34, 0x12]),
            .write(0x6A, [ST.funcCfgAccess, 0x00]),
        ])
        try imu.enableStepCounter()
        #expect(try imu.readStepCounter() == 0x1234)
        expectFinished(bus)
    }

    /// A failed read leaves the user page selected again, and the read's error is the one thrown.
    @Test func aFailedReadReturnsToTheUserPage() throws {
        let bus = ExpectationBus([
            .write(0x6A, [ST.funcCfgAccess, ST.embeddedPage]), .writeRead(0x6A, [ST.stepCounterL], reply: [0, 0]).failing(.noAcknowledge),
            .write(0x6A, [ST.funcCfgAccess, 0x00]),
        ])
        let imu = LSM6IMU(bus: bus, model: .lsm6dso, pause: .none)
        do {
            _ = try imu.readStepCounter()
            Issue.record("the read did not fail")
        } catch {
            guard case .bus(let busError) = error else { Issue.record("\(error)"); return }
            #expect(busError.kind == .noAcknowledge)
        }
        expectFinished(bus)
    }

    /// The LSM6DSL's pedometer sits elsewhere and is not driven: refused without a transaction,
    /// and its descriptor advertises none; the LSM6DSO's and LSM6DSO32's do.
    @Test func onlyTheLSM6DSOGenerationAdvertisesOne() throws {
        let bus = ExpectationBus([])
        let imu = LSM6IMU(bus: bus, model: .lsm6dsl, pause: .none)
        #expect(throws: SensorError.self) { try imu.enableStepCounter() }
        expectFinished(bus)
        #expect(ChipDescriptor.lsm6dsl.stepCounter == nil)
        #expect(ChipDescriptor.lsm6dso.stepCounter?.debounceSteps == 10)
        #expect(ChipDescriptor.lsm6dso32.stepCounter?.wrap == 65_536)
    }

    @Test func countsAcrossTheWrap() {
        let feature = StepCounterFeature(wrap: 65_536, minimumRate: 26, debounceSteps: 10, source: "test")
        #expect(feature.steps(from: 65_530, to: 4) == 10)
        #expect(feature.steps(from: 100, to: 112) == 12)
    }

    /// `walk-pauses` (four walks of 20 s at 1.9 steps/s, 6 s apart) through the emulated LSM6DSOX:
    /// 3 s into each walk (about 5 steps, under the debounce's 10) the counter holds only the
    /// walks before; 2 s into each pause it holds every step so far.
    @Test func theEmulatedCounterHoldsTheFirstStepsOfEachWalk() throws {
        let scenario = try #require(Scenario.named("walk-pauses"))
        let steps = scenario.stepTimes
        let time = ManualTime()
        let rig = try EmulatedRig(imu: .lsm6dsox, magnetometer: .none, source: scenario.world(), time: time)
        let counter = try #require(rig.imu as? any StepCountingDriver)
        try counter.enableStepCounter()
        let start = try counter.readStepCounter()
        // The walks: steps more than 2 s apart begin a new one.
        var walks: [[Double]] = []
        for step in steps {
            if let last = walks.last?.last, step - last <= 2 { walks[walks.count - 1].append(step) } else { walks.append([step]) }
        }
        #expect(walks.count == 4)
        var before = 0
        for walk in walks {
            time.set(walk[0] + 3)
            #expect(try counter.readStepCounter() - start == before, "3 s into the walk from \(walk[0]) s")
            before += walk.count
            time.set(walk[walk.count - 1] + 2)
            #expect(try counter.readStepCounter() - start == before, "2 s after the walk ending at \(walk[walk.count - 1]) s")
        }
        #expect(before == steps.count)
    }
}
