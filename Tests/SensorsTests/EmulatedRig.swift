import Locking
import I2C
import MotionSimulator
import Sensors
import Synchronization
import Testing

/// Simulation time that a test sets exactly (a `VirtualClock` only advances by durations, and
/// `now + (t − now)` is not always `t` in floating point).
final class ManualTime: Sendable {
    private let value: Locked<Double>
    init(_ start: Double = 0) { value = Locked(start) }
    var now: Double { value.withLock { $0 } }
    func set(_ time: Double) { value.withLock { $0 = time } }

    /// A driver pause that moves this time on instead of sleeping (chips that measure on their
    /// own ticks, like the HMC5883L, need time to pass between the driver's reads).
    var pause: Pause {
        Pause { [value] duration in
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
            value.withLock { $0 += seconds }
        }
    }
}

/// A simulated board with the Sensors drivers for its chips, configured at their defaults at the
/// current simulation time (pauses do not wait; with `pausesAdvanceTime` they move the simulation
/// time on instead, for chips that measure on their own ticks).
struct EmulatedRig {
    let board: SimulatedBoard
    let imu: any IMUDriver
    let magnetometer: (any MagnetometerDriver)?

    init(
        imu: SimulatedBoard.IMU, magnetometer: SimulatedBoard.MagnetometerChoice = .usual,
        source: any PhysicalSource, time: ManualTime, imuOptions: EmulatorOptions = .init(),
        magnetometerOptions: EmulatorOptions = .init(), pausesAdvanceTime: Bool = false
    ) throws {
        let pause = pausesAdvanceTime ? time.pause : .none
        board = SimulatedBoard(
            imu: imu, magnetometer: magnetometer, source: source, now: { time.now },
            imuOptions: imuOptions, magnetometerOptions: magnetometerOptions)
        let imuChip = try #require(try ChipCatalog.identify(bus: board.bus, address: board.imuAddress, lsm6dso32: imu == .lsm6dso32))
        let imuDriver = try #require(ChipCatalog.makeIMU(for: imuChip, bus: board.bus, pause: pause))
        try imuDriver.configure(imuDriver.defaultConfiguration)
        self.imu = imuDriver
        // After the IMU: an MPU-9250's AK8963 (an MPU-9150's AK8975) answers only once the driver
        // enabled the bypass; inside an MPU-9150 the AK is an AK8975.
        if let address = board.magnetometerAddress {
            let chip = try #require(try ChipCatalog.identify(bus: board.bus, address: address, insidePackageOf: imuChip.name))
            let driver = try #require(ChipCatalog.makeMagnetometer(for: chip, bus: board.bus, pause: pause))
            try driver.configure(driver.defaultConfiguration)
            self.magnetometer = driver
        } else {
            self.magnetometer = nil
        }
    }
}

/// The Recording convention for what an IMU sample says: specific force in m/s², chip sign
/// (+9.80665 on z lying face up), from the Core Motion sign in g.
func specificForce(_ sample: IMUSample) -> SIMD3<Double> {
    -sample.acceleration * PhysicalState.standardGravity
}

/// `reads` FIFO reads 20 ms apart from `imu`'s emulator with its clock `driftPPM` fast, after
/// the driver enabled the FIFO: every frame, none lost to an overflow, and the chip-time steps
/// between consecutive frames (empty when a frame has none).
func emulatedFIFOFrames(_ imu: SimulatedBoard.IMU, driftPPM: Double, reads: Int) throws -> (frames: [FIFOFrame], chipTimeSteps: [Double]) {
    let time = ManualTime(1)
    let rig = try EmulatedRig(imu: imu, magnetometer: .none, source: ConstantSource(), time: time,
                              imuOptions: EmulatorOptions(clockDriftPPM: driftPPM))
    try rig.imu.enableFIFO()
    var frames: [FIFOFrame] = []
    for step in 1...reads {
        time.set(1 + Double(step) * 0.02)
        let read = try rig.imu.readFIFO()
        #expect(!read.overflowed)
        frames += read.frames
    }
    let chipTimes = frames.compactMap(\.chipTime)
    let steps = chipTimes.count == frames.count ? zip(chipTimes, chipTimes.dropFirst()).map { pair in pair.1 - pair.0 } : []
    return (frames, steps)
}

extension EmulatedRig {
    /// `imu` alone, face up at rest while turning at (0.1, −0.2, 0.3) rad/s, its FIFO enabled at
    /// 1 s and read at 1.1 s: 20 frames at the default 200 Hz, numbered in order, none lost, each
    /// within `accelerationTolerance` (g) and `rotationTolerance` (rad/s) of the input. Returns
    /// the rig and its time, for the test to go on with.
    static func checkFIFOAtRest(
        _ imu: SimulatedBoard.IMU, accelerationTolerance: Double, rotationTolerance: Double,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (rig: EmulatedRig, time: ManualTime) {
        let time = ManualTime(1)
        var state = PhysicalState.flatAtRest()
        state.angularRate = SIMD3(0.1, -0.2, 0.3)
        let rig = try EmulatedRig(imu: imu, magnetometer: .none, source: ConstantSource(state), time: time)
        try rig.imu.enableFIFO()
        time.set(1.1)
        let read = try rig.imu.readFIFO()
        #expect(!read.overflowed, sourceLocation: sourceLocation)
        #expect(read.frames.map(\.sampleIndex) == Array(0..<20), sourceLocation: sourceLocation)
        for frame in read.frames {
            #expect(largestDifference(frame.sample.acceleration, [0, 0, -1]) <= accelerationTolerance, sourceLocation: sourceLocation)
            #expect(largestDifference(frame.sample.rotationRate, state.angularRate) <= rotationTolerance, sourceLocation: sourceLocation)
        }
        return (rig, time)
    }
}
