import Dispatch
import Foundation
import I2C
@testable import Motion
import MotionSimulation
import MotionSimulator
import Sensors
import Testing
import Timing

/// A rotation rate that tells the time: a sawtooth about x, 80 rad/s² steep, so a gyroscope
/// reading (±500 °/s, 17.5 mdps per LSB) dates its sample to within a few microseconds.
struct SawtoothRate: PhysicalSource {
    static let amplitude = 8.0     // rad/s, peak to peak
    static let period = 0.1        // s
    let origin: Double

    func state(at time: Double) -> PhysicalState {
        var state = PhysicalState.flatAtRest(time: time)
        state.angularRate = SIMD3(Self.amplitude * (phase(time) - 0.5), 0, 0)
        return state
    }

    func phase(_ time: Double) -> Double {
        let cycles = (time - origin) / Self.period
        return cycles - cycles.rounded(.down)
    }

    /// The time a reading was taken, given a time within half a period of it.
    func time(ofRate rate: Double, near estimate: Double) -> Double {
        let phase = rate / Self.amplitude + 0.5
        let cycle = ((estimate - origin) / Self.period - phase).rounded()
        return origin + (cycle + phase) * Self.period
    }
}

@Suite struct FIFOSamplingTests {
    let clock = VirtualClock()

    /// The LSM6DSOX at its default 208 Hz (tagged FIFO), the BMI160 at its 200 Hz (headerless FIFO).
    @Test(arguments: [(SimulatedBoard.IMU.lsm6dsox, 208.0), (.bmi160, 200.0)])
    func intervalsBelowTheTimersAreServedFromTheFIFO(imu: SimulatedBoard.IMU, rate: Double) throws {
        let manager = try MotionManager(
            source: .simulated(Simulation(scenario: "rest", imu: imu, sensorErrors: false)), clock: clock, calibrationStore: nil)
        #expect(abs(manager.shortestUpdateInterval - 1 / rate) < 1e-12)
        manager.gyroUpdateInterval = 0
        manager.gyroUpdateInterval = 1 / rate
        let inbox = Inbox<GyroData>()
        manager.startGyroUpdates(to: inbox.queue, withHandler: inbox.handler)
        #expect(manager.hub.mode == .fifo(rate: rate))
        clock.advance(by: 10)
        inbox.drain()
        manager.stopGyroUpdates()
        let values = inbox.values.withLock { $0 }
        // 10 s at the rate, less those taken before the first read started the FIFO and those
        // still in the FIFO at the end (one read interval, 3.6–4.6 periods, each).
        let expected = Int(10 * rate)
        #expect(values.count >= expected - 10 && values.count <= expected, "\(imu): \(values.count)")
        #expect(zip(values, values.dropFirst()).allSatisfy { $1.timestamp > $0.timestamp })
        #expect(manager.counters.totalDropped == 0)
    }

    /// The chip's clock runs 300 ppm fast and the reader is delayed by a failed read now and
    /// then (one read interval, 4.6 sample periods, late): after 10 s every timestamp is within 50 µs of the time the
    /// chip took the sample.
    @Test func fifoTimestampsFollowTheChipClock() throws {
        let source = SawtoothRate(origin: clock.now + 0.0123)
        let simulated = SimulatedBoard(imu: .lsm6dsox, magnetometer: .none, source: source, now: { [clock] in clock.now },
                                       imuOptions: EmulatorOptions(clockDriftPPM: 300))
        let board = try #require(BoardCatalog.builtIn.board(id: BoardCatalog.simulatedID))
        let device = try DeviceOpener.open(bus: simulated.bus, board: board, store: nil, pause: .none)
        let manager = MotionManager(hub: SensorHub(device: device, clock: clock))
        manager.usesChipFIFO = true
        let inbox = Inbox<GyroData>()
        manager.startGyroUpdates(to: inbox.queue, withHandler: inbox.handler)
        let start = clock.now + 10
        for step in 0..<1500 {
            if step % 25 == 12 { simulated.bus.failNext(1, transactionsTo: I2CAddress(0x6A), with: .busError) }
            clock.advance(by: 0.02)
        }
        inbox.drain()
        manager.stopGyroUpdates()
        var worst = 0.0, checked = 0
        for value in inbox.values.withLock({ $0 }) where value.timestamp > start {
            let phase = value.rotationRate.x / SawtoothRate.amplitude + 0.5
            guard phase > 0.05, phase < 0.95 else { continue }   // away from the sawtooth's jump
            worst = max(worst, abs(value.timestamp - source.time(ofRate: value.rotationRate.x, near: value.timestamp)))
            checked += 1
        }
        #expect(checked > 1500)
        #expect(worst < 50e-6, "worst FIFO timestamp error \(worst * 1e6) µs over \(checked) samples")
        #expect(manager.counters.totalDropped == 0)
    }

    /// The ICM-42688-P's and the LSM6DSOX's FIFOs carry chip timestamps: a chip 300 ppm fast at
    /// 200/208 Hz, read every 18/22 ms, then not read for 65 read intervals (1.2/1.5 s) so that
    /// its FIFO overflows and restarts. By indices alone the sampler must learn the chip's clock again after the restart;
    /// by the chip's timestamps, which run on, it keeps it. Worst timestamp error over the 2 s
    /// after the restart, each way (error: against the time the chip took the sample, read from
    /// the sawtooth): by chip time under 100 µs, by index over 500 µs.
    @Test(arguments: [(SimulatedBoard.IMU.icm42688, 200.0), (.lsm6dsox, 208.0)])
    func chipTimestampsKeepTheChipClockAcrossAFIFORestart(imu: SimulatedBoard.IMU, rate: Double) throws {
        let byIndex = try Self.worstErrorAfterARestart(imu: imu, rate: rate, chipTimestamps: false)
        let byChipTime = try Self.worstErrorAfterARestart(imu: imu, rate: rate, chipTimestamps: true)
        // Measured here (printed below): ICM-42688-P 1860 µs by index, 89 µs by chip time (360
        // samples); LSM6DSOX 574 µs by index, 59 µs by chip time (374 samples).
        print("FIFO restart, \(imu) \(rate) Hz 300 ppm, worst error over 2 s: by index \(byIndex.worst * 1e6) µs, "
            + "by chip time \(byChipTime.worst * 1e6) µs (\(byIndex.count), \(byChipTime.count) samples)")
        #expect(byIndex.count > 300 && byChipTime.count > 300)
        #expect(byChipTime.worst < 100e-6, "by chip time \(byChipTime.worst * 1e6) µs")
        #expect(byIndex.worst > 500e-6, "by index \(byIndex.worst * 1e6) µs")
    }

    /// The ICM-45686's 8 KiB FIFO holds 2.56 s at 200 Hz, so the same run leaves it unread for
    /// 160 read intervals (2.9 s) to overflow it. Its chip timestamps keep the chip's clock across
    /// the restart as well as the ICM-42688-P's do over the same gap (the same 16-bit µs counter):
    /// the worst errors by chip time within 2 µs of each other, and under a tenth of the
    /// ICM-45686's by index. Measured here (printed below): 122.7 µs and 122.4 µs by chip time,
    /// 2225 µs by index (360 samples each).
    @Test func theICM45686KeepsTheChipClockAsTheICM42688Does() throws {
        let unread = 400..<560
        let icm45686 = try Self.worstErrorAfterARestart(imu: .icm45686, rate: 200, chipTimestamps: true, unread: unread)
        let icm42688 = try Self.worstErrorAfterARestart(imu: .icm42688, rate: 200, chipTimestamps: true, unread: unread)
        let byIndex = try Self.worstErrorAfterARestart(imu: .icm45686, rate: 200, chipTimestamps: false, unread: unread)
        print("FIFO restart after 2.9 s unread, 200 Hz 300 ppm, worst error over 2 s by chip time: ICM-45686 "
            + "\(icm45686.worst * 1e6) µs, ICM-42688-P \(icm42688.worst * 1e6) µs; ICM-45686 by index \(byIndex.worst * 1e6) µs "
            + "(\(icm45686.count), \(icm42688.count), \(byIndex.count) samples)")
        #expect(icm45686.count > 300 && icm42688.count > 300 && byIndex.count > 300)
        #expect(abs(icm45686.worst - icm42688.worst) < 2e-6)
        #expect(icm45686.worst < byIndex.worst / 10)
    }

    /// The BMI160 does not restart after that overflow: its skip frame counts the frames it
    /// dropped and leads those it kept, which come numbered past the gap and timed by the
    /// sensortime frame. So both ways keep the chip's clock (under 100 µs after the gap; measured
    /// 88 µs by chip time, 88 µs by index), and every frame the chip took is delivered or counted
    /// lost: the read after the 1.2 s unread (239 frames at 200 Hz) delivers the 78 the FIFO kept
    /// and counts the other 161, and over the whole run delivered + lost is the chip's frame
    /// count (its 300 ppm fast clock over the run) within a frame at either end (measured: 3096 +
    /// 161 of 3257).
    @Test func theBMI160KeepsItsClockAndCountsEveryFrameAcrossAnOverflow() throws {
        for chipTimestamps in [false, true] {
            let result = try Self.worstErrorAfterARestart(imu: .bmi160, rate: 200, chipTimestamps: chipTimestamps)
            print("FIFO overflow, bmi160 200 Hz 300 ppm, \(chipTimestamps ? "by chip time" : "by index"): worst error over 2 s "
                + "\(result.worst * 1e6) µs (\(result.count) samples); after the gap \(result.afterGap.delivered) delivered, "
                + "\(result.afterGap.lost) lost; in all \(result.delivered) + \(result.lost) of \(result.taken) taken")
            #expect(result.count > 300)
            #expect(result.worst < 100e-6, "\(chipTimestamps ? "by chip time" : "by index") \(result.worst * 1e6) µs")
            #expect(result.afterGap.delivered == 78 && result.afterGap.lost == 161)
            #expect(abs(result.delivered + result.lost - result.taken) <= 2,
                    "\(result.delivered) delivered + \(result.lost) lost of \(result.taken) taken")
        }
    }

    /// Worst timestamp error over the 2 s after the overflow and the samples checked; the frames
    /// delivered and counted lost by the read after the gap and by all reads; and the frames the
    /// chip took from the FIFO's start to the last read (its clock 300 ppm fast).
    static func worstErrorAfterARestart(
        imu: SimulatedBoard.IMU, rate: Double, chipTimestamps: Bool, unread: Range<Int> = 400..<465
    ) throws -> (worst: Double, count: Int, afterGap: (delivered: Int, lost: Int), delivered: Int, lost: Int, taken: Int) {
        let clock = VirtualClock()
        let source = SawtoothRate(origin: clock.now + 0.0123)
        let simulated = SimulatedBoard(imu: imu, magnetometer: .none, source: source, now: { [clock] in clock.now },
                                       imuOptions: EmulatorOptions(clockDriftPPM: 300))
        let board = try #require(BoardCatalog.builtIn.board(id: BoardCatalog.simulatedID))
        let device = try DeviceOpener.open(bus: simulated.bus, board: board, store: nil, pause: .none)
        device.timesFIFOByChipTimestamps.withLock { $0 = chipTimestamps }
        try device.startFIFO()
        let started = clock.now
        let interval = SampleTimeEstimator.readInterval(rate: rate, near: 0.02)
        var restart: Double?
        var samples: [MotionSample] = []
        var lost = 0, afterGap = (delivered: 0, lost: 0)
        for step in 0..<(unread.upperBound + 435) {
            clock.advance(by: interval)
            // 400..<465: 1.2 s unread; the FIFO (0.39–0.8 s; the ICM-45686's 2.56 s, given longer) overflows
            if unread.contains(step) { continue }
            let read = try device.readFIFO(at: clock.now)
            if step == unread.upperBound {
                restart = clock.now
                afterGap = (read.samples.count, read.lost)
            }
            samples += read.samples
            lost += read.lost
        }
        let taken = Int(((clock.now - started) * rate * (1 + 300e-6)).rounded(.down))
        let from = try #require(restart)
        var worst = 0.0, count = 0
        for sample in samples where sample.timestamp > from && sample.timestamp < from + 2 {
            let rate = sample.rotationRate.x
            let phase = rate / SawtoothRate.amplitude + 0.5
            guard phase > 0.05, phase < 0.95 else { continue }
            worst = max(worst, abs(sample.timestamp - source.time(ofRate: rate, near: sample.timestamp)))
            count += 1
        }
        return (worst, count, afterGap, samples.count, lost, taken)
    }

    /// A failed magnetometer read in FIFO mode loses no IMU sample: the FIFO is read only once
    /// the magnetometer has answered (drained first, its frames would be thrown away).
    @Test func aFailedMagnetometerReadLosesNoFIFOSample() throws {
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "rest", sensorErrors: false)), clock: clock, calibrationStore: nil)
        let bus = try #require(manager.simulatedHardware).board.bus
        manager.gyroUpdateInterval = 1 / 208
        let inbox = Inbox<GyroData>()
        manager.startGyroUpdates(to: inbox.queue, withHandler: inbox.handler)
        #expect(manager.hub.mode == .fifo(rate: 208))
        for step in 0..<500 {
            if step % 25 == 12 { bus.failNext(1, transactionsTo: I2CAddress(0x1C), with: .busError) }
            clock.advance(by: 0.02)
        }
        inbox.drain()
        manager.stopGyroUpdates()
        let values = inbox.values.withLock { $0 }
        // As in `intervalsBelowTheTimersAreServedFromTheFIFO`: 10 s at 208 Hz, less a read interval at each end.
        #expect(values.count >= 2080 - 10 && values.count <= 2080, "\(values.count)")
    }
}
